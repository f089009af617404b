// SPDX-License-Identifier: Apache-2.0
// Sieve CUDA tests — cuda::Scan: the shared scan suite on the native CUDA face
// (plus 6000011 elements: three levels of tiles), then the entry points
// (inclusive / exclusive / inclusiveGraph) and the argument checks (run
// everywhere).
#include "../common/suite_scan.hpp"
#include "face.hpp"

#include <gtest/gtest.h>

#include <climits>
#include <cstdint>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

using namespace sieve_test;

namespace {
std::vector<std::int64_t> cudaScanSizes() {
  auto ns = sizes();
  ns.push_back(6000011); // three levels of tiles
  return ns;
}
} // namespace

SIEVE_SCAN_SUITE(CudaScan, CudaFace, cudaScanSizes());

TEST(CudaScanNative, EntryPoints) {
  SIEVE_REQUIRE_DEVICE();
  // inclusive / exclusive (captured and launched, blocking) and inclusiveGraph.
  const auto in = smallInts<std::int32_t>(3000017, 8);
  const std::int64_t n = static_cast<std::int64_t>(in.size());
  DeviceBytes din(n * 4), dout(n * 4), sums(n * 4);
  din.upload(in);
  sieve::cuda::Scan::inclusive<std::int32_t, sieve::Sum>(
      din.get<std::int32_t>(), dout.get<std::int32_t>(), sums.get<std::int32_t>(), n, 4);
  EXPECT_EQ(dout.download<std::int32_t>(n), refScan(in, sieve::Sum{}, 4, true));
  sieve::cuda::Scan::exclusive<std::int32_t, sieve::Sum>(
      din.get<std::int32_t>(), dout.get<std::int32_t>(), sums.get<std::int32_t>(), n, 4);
  EXPECT_EQ(dout.download<std::int32_t>(n), refScan(in, sieve::Sum{}, 4, false));
  cudaGraph_t graph = sieve::cuda::Scan::inclusiveGraph<std::int32_t, sieve::Min>(
      din.get<std::int32_t>(), dout.get<std::int32_t>(), sums.get<std::int32_t>(), n, 1000);
  cudaGraphExec_t exec;
  SIEVE_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  SIEVE_CUDA_CHECK(cudaGraphLaunch(exec, nullptr));
  SIEVE_CUDA_CHECK(cudaDeviceSynchronize());
  EXPECT_EQ(dout.download<std::int32_t>(n), refScan(in, sieve::Min{}, 1000, true));
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
}

// The single pass (4- and 8-byte integers under Sum / Min / Max) carves its
// tile counter and status from blockSums at either 4-byte alignment, within
// blockSumsElems(n), and its look-back must hand every tile its exact prefix:
// inputs whose running min and max move in every tile, several tile counts.
template <class T, class Op>
void singlePassCase(std::int64_t n, std::int64_t offset, const std::vector<T>& in, T init,
                    bool inclusive) {
  const std::int64_t elems = sieve::cuda::Scan::blockSumsElems<T>(n);
  ASSERT_LE(elems, sieve::scanScratchElems(n));
  DeviceBytes din(n * sizeof(T)), dout(n * sizeof(T)), sums((elems + offset) * sizeof(T));
  din.upload(in);
  T* s = sums.get<T>() + offset; // 0 or 4 mod 8 (device allocations are 256-byte aligned)
  if (inclusive)
    sieve::cuda::Scan::enqueue<T, Op, true>(din.get<T>(), dout.get<T>(), s, n, init);
  else sieve::cuda::Scan::enqueue<T, Op, false>(din.get<T>(), dout.get<T>(), s, n, init);
  const auto ref = refScan(in, Op{}, init, inclusive);
  const auto got = dout.download<T>(static_cast<std::size_t>(n));
  ASSERT_EQ(0, std::memcmp(got.data(), ref.data(), ref.size() * sizeof(T)))
      << "n = " << n << ", blockSums offset " << offset;
  EXPECT_TRUE(sums.guardIntact()) << "wrote past blockSumsElems(n)";
  EXPECT_TRUE(dout.guardIntact());
  if (offset > 0) {
    const auto head = sums.download<unsigned char>(static_cast<std::size_t>(offset) * sizeof(T));
    for (auto b : head) ASSERT_EQ(b, 0x5A) << "wrote before blockSums";
  }
}

TEST(CudaScanNative, SinglePassAnyAlignmentWithinBlockSums) {
  SIEVE_REQUIRE_DEVICE();
  constexpr std::int64_t tile = sieve::Tuning::Cuda::kScanSinglePassTile<std::int32_t>;
  constexpr std::int64_t wide = sieve::Tuning::Cuda::kScanSinglePassTile<std::int64_t>;
  for (const std::int64_t n : {tile + 1, wide + 1, 2 * tile + 1, 32 * tile + 5, 33 * wide,
                               std::int64_t(1000003)}) {
    std::mt19937 g(static_cast<std::uint32_t>(n));
    std::vector<std::int32_t> in(static_cast<std::size_t>(n));
    std::vector<std::uint32_t> un(static_cast<std::size_t>(n));
    std::vector<std::int64_t> in64(static_cast<std::size_t>(n));
    std::vector<std::uint64_t> un64(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) {
      // |v| grows with i, alternating sign: new minima and maxima all along.
      const auto mag = static_cast<std::int32_t>(i / 5 + static_cast<std::int64_t>(g() % 7));
      in[i] = (i % 2 != 0) ? mag : -mag;
      un[i] = static_cast<std::uint32_t>(g()); // sums wrap
      in64[i] = static_cast<std::int64_t>(in[i]) * (std::int64_t(1) << 33) + (g() % 1000);
      un64[i] = (static_cast<std::uint64_t>(g()) << 32) | g();
    }
    for (const std::int64_t offset : {0, 1}) {
      SCOPED_TRACE("n = " + std::to_string(n) + ", offset " + std::to_string(offset));
      singlePassCase<std::int32_t, sieve::Sum>(n, offset, in, 3, true);
      singlePassCase<std::int32_t, sieve::Sum>(n, offset, in, -2, false);
      singlePassCase<std::int32_t, sieve::Min>(n, offset, in, 0, true);
      singlePassCase<std::int32_t, sieve::Max>(n, offset, in, -1, false);
      singlePassCase<std::uint32_t, sieve::Sum>(n, offset, un, 0xFFFFFFF0u, true);
      singlePassCase<std::uint32_t, sieve::Max>(n, offset, un, 0u, true);
      // 8-byte values (the wide tile status; blockSums is 8-byte aligned then).
      singlePassCase<std::int64_t, sieve::Sum>(n, offset, in64, std::int64_t(1) << 40, true);
      singlePassCase<std::int64_t, sieve::Min>(n, offset, in64, 0, false);
      singlePassCase<std::int64_t, sieve::Max>(n, offset, in64, INT64_MIN, true);
      singlePassCase<std::uint64_t, sieve::Sum>(n, offset, un64, ~std::uint64_t(0), false);
    }
  }
}

TEST(CudaRejects, ScanBeforeAnyCudaCall) {
  // Runs without a GPU: the checks come first.
  std::int32_t a[8] = {}, b[8] = {}, c[8] = {};
  EXPECT_THROW((sieve::cuda::Scan::enqueue<std::int32_t, sieve::Sum, true>(a, a + 1, c, 7)),
               std::invalid_argument);
  EXPECT_THROW((sieve::cuda::Scan::enqueue<std::int32_t, sieve::Sum, true>(a, b, c, -2)),
               std::invalid_argument);
}
