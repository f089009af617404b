// SPDX-License-Identifier: Apache-2.0
// Sieve CUDA tests — cuda::Scan: the shared scan suite on the native CUDA face
// (plus 6000011 elements: three levels of tiles), then the entry points
// (inclusive / exclusive / inclusiveGraph) and the argument checks (run
// everywhere).
#include "../common/suite_scan.hpp"
#include "face.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

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

TEST(CudaRejects, ScanBeforeAnyCudaCall) {
  // Runs without a GPU: the checks come first.
  std::int32_t a[8] = {}, b[8] = {}, c[8] = {};
  EXPECT_THROW((sieve::cuda::Scan::enqueue<std::int32_t, sieve::Sum, true>(a, a + 1, c, 7)),
               std::invalid_argument);
  EXPECT_THROW((sieve::cuda::Scan::enqueue<std::int32_t, sieve::Sum, true>(a, b, c, -2)),
               std::invalid_argument);
}
