// SPDX-License-Identifier: Apache-2.0
// Sieve CUDA tests — compactDevice: the shared compaction suite on the native
// CUDA face, then what only it has (graph capture and replay, thousands of
// tiles and n = INT32_MAX, a stale CUDA error) and the argument checks, which
// run before any CUDA call and so run everywhere (CudaRejects.*).
#include "../common/suite_compact.hpp"
#include "face.hpp"

#include <sieve/native/cuda/check.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <stdexcept>

using namespace sieve_test;

SIEVE_COMPACT_SUITE(CudaCompact, CudaFace);

TEST(CudaCompactNative, GraphCaptureAndReplayWithNewMasks) {
  SIEVE_REQUIRE_DEVICE();
  const std::int64_t n = 1 << 20;
  DeviceBytes mask(n), map(n * 4), scratch(sieve::compact_scratch_bytes(n)), words(16, 0);
  cudaStream_t s;
  SIEVE_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  auto* w = words.get<std::uint32_t>();
  const std::uint32_t span = n;
  SIEVE_CUDA_CHECK(cudaMemcpy(w + 2, &span, 4, cudaMemcpyHostToDevice));
  sieve::ReorderTrigger trig{w + 1, w + 2, w + 3, 0.5f};
  cudaGraph_t graph;
  SIEVE_CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  sieve::compactDevice(mask.get<std::uint8_t>(), 0u, map.get<std::int32_t>(), w, scratch.get(), n,
                       s, &trig);
  SIEVE_CUDA_CHECK(cudaStreamEndCapture(s, &graph));
  cudaGraphExec_t exec;
  SIEVE_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  for (std::uint32_t rep = 0; rep < 4; ++rep) {
    const auto host = makeMask(rep % 2 ? MaskKind::Random20 : MaskKind::Random90, n, 100 + rep);
    mask.upload(host);
    SIEVE_CUDA_CHECK(cudaGraphLaunch(exec, s));
    SIEVE_CUDA_CHECK(cudaStreamSynchronize(s));
    const auto ref = refCompact(host.data(), n, false);
    const auto got = map.download<std::int32_t>(ref.count);
    EXPECT_EQ(words.download<std::uint32_t>(1)[0], ref.count) << "replay " << rep;
    EXPECT_EQ(got, ref.map) << "replay " << rep;
    EXPECT_EQ(words.download<std::uint32_t>(2)[1], ref.live32) << "replay " << rep;
    EXPECT_EQ(words.download<std::uint32_t>(4)[3], refFire(ref.count, ref.live32, span, 0.5f))
        << "replay " << rep;
  }
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(s);
}

TEST(CudaCompactNative, ManyTilesAndTheLargestBatch) {
  SIEVE_REQUIRE_DEVICE();
  // Thousands of tiles in flight (look-back across windows), then n = INT32_MAX
  // with a structured mask whose answer is known without a reference array.
  {
    const std::int64_t n = (std::int64_t(1) << 25) + 4099;
    const auto mask = makeMask(MaskKind::Random20, n, 5);
    const auto dev = CudaFace::compact(compactIn(mask, false, true, static_cast<std::uint32_t>(n)));
    const auto ref = refCompact(mask.data(), n, false);
    ASSERT_EQ(dev.count, ref.count);
    ASSERT_EQ(dev.live32, ref.live32);
    ASSERT_EQ(0, std::memcmp(dev.map.data(), ref.map.data(), ref.map.size() * 4));
  }
  std::size_t freeBytes = 0, totalBytes = 0;
  SIEVE_CUDA_CHECK(cudaMemGetInfo(&freeBytes, &totalBytes));
  const std::int64_t n = std::numeric_limits<std::int32_t>::max();
  const std::size_t need =
      static_cast<std::size_t>(n) * 5 + sieve::compact_scratch_bytes(n) + (1u << 20);
  if (freeBytes < need) GTEST_SKIP() << "n = INT32_MAX needs " << need << " bytes of device memory";
  // Keep every 7th sample, and the last one.
  DeviceBytes mask(n, 0), map(static_cast<std::size_t>(n) * 4),
      scratch(sieve::compact_scratch_bytes(n)), words(16, 0);
  {
    std::vector<std::uint8_t> chunk(std::size_t(1) << 26);
    for (std::int64_t at = 0; at < n; at += static_cast<std::int64_t>(chunk.size())) {
      const std::int64_t len =
          std::min<std::int64_t>(static_cast<std::int64_t>(chunk.size()), n - at);
      for (std::int64_t i = 0; i < len; ++i) chunk[i] = ((at + i) % 7 == 0) || at + i == n - 1;
      SIEVE_CUDA_CHECK(
          cudaMemcpy(mask.get<std::uint8_t>() + at, chunk.data(), len, cudaMemcpyHostToDevice));
    }
  }
  auto* w = words.get<std::uint32_t>();
  const std::uint32_t span = static_cast<std::uint32_t>(n);
  SIEVE_CUDA_CHECK(cudaMemcpy(w + 2, &span, 4, cudaMemcpyHostToDevice));
  sieve::ReorderTrigger trig{w + 1, w + 2, w + 3, 0.5f};
  sieve::compactDevice(mask.get<std::uint8_t>(), 0u, map.get<std::int32_t>(), w, scratch.get(), n,
                       nullptr, &trig);
  const auto hw = words.download<std::uint32_t>(4);
  const std::int64_t sevenths = (n + 6) / 7, expect = sevenths + ((n - 1) % 7 != 0);
  ASSERT_EQ(hw[0], static_cast<std::uint32_t>(expect));
  ASSERT_EQ(hw[1], static_cast<std::uint32_t>((n + 31) / 32)) << "every group of 32 holds a 7th";
  const auto got = map.download<std::int32_t>(static_cast<std::size_t>(expect));
  for (std::int64_t k = 0; k < sevenths; ++k)
    ASSERT_EQ(got[k], static_cast<std::int32_t>(7 * k)) << "slot " << k;
  if (expect > sevenths) {
    ASSERT_EQ(got[sevenths], static_cast<std::int32_t>(n - 1));
  }
  EXPECT_TRUE(map.guardIntact());
  EXPECT_TRUE(scratch.guardIntact());
}

TEST(CudaCompactNative, NotConfusedByAStaleError) {
  SIEVE_REQUIRE_DEVICE();
  // Leave a (non-sticky) error behind, as a careless caller would.
  EXPECT_NE(cudaSetDevice(1 << 20), cudaSuccess);
  const auto mask = makeMask(MaskKind::Random50, 50000);
  CompactOut dev{};
  EXPECT_NO_THROW(dev = CudaFace::compact(compactIn(mask, false, true, 50000)));
  EXPECT_EQ(dev.count, refCompact(mask.data(), 50000, false).count);
  cudaGetLastError(); // clean up after ourselves
}

// The guard the Kokkos::Cuda face puts around every native launch: the
// instance's device current for the launch, the caller's device back after,
// a bad device a thrown error that changes nothing.
TEST(CudaDeviceGuard, SwitchesAndRestores) {
  SIEVE_REQUIRE_DEVICE();
  int devices = 0, before = -1, now = -1;
  ASSERT_EQ(cudaGetDeviceCount(&devices), cudaSuccess);
  ASSERT_EQ(cudaGetDevice(&before), cudaSuccess);
  {
    const sieve::Impl::CudaDeviceGuard same(before);
    ASSERT_EQ(cudaGetDevice(&now), cudaSuccess);
    EXPECT_EQ(now, before);
  }
  if (devices > 1) {
    const int other = (before + 1) % devices;
    {
      const sieve::Impl::CudaDeviceGuard g(other);
      ASSERT_EQ(cudaGetDevice(&now), cudaSuccess);
      EXPECT_EQ(now, other);
    }
    ASSERT_EQ(cudaGetDevice(&now), cudaSuccess);
    EXPECT_EQ(now, before);
  }
  EXPECT_THROW(sieve::Impl::CudaDeviceGuard bad(devices + 7), std::runtime_error);
  ASSERT_EQ(cudaGetDevice(&now), cudaSuccess);
  EXPECT_EQ(now, before);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess) << "the failed switch left no error behind";
}

TEST(CudaRejects, CompactBeforeAnyCudaCall) {
  // Runs without a GPU: the checks come first.
  std::uint32_t count = 0, live = 0, fire = 0, span = 10;
  std::int32_t map[4];
  std::uint8_t mask[4] = {};
  unsigned long long scratch[8];
  EXPECT_THROW(sieve::compactDevice(mask, 0u, map, &count, scratch, -1, nullptr),
               std::invalid_argument);
  EXPECT_THROW(sieve::compactDevice(mask, 0u, map, &count, scratch, std::int64_t(1) << 31, nullptr),
               std::invalid_argument);
  EXPECT_THROW(sieve::compactDevice(nullptr, 0u, map, &count, scratch, 4, nullptr),
               std::invalid_argument);
  EXPECT_THROW(sieve::compactDevice(mask, 6u, map, &count, scratch, 4, nullptr),
               std::invalid_argument);
  sieve::ReorderTrigger bad{&live, &span, &fire, 1.5f};
  EXPECT_THROW(sieve::compactDevice(mask, 0u, map, &count, scratch, 4, nullptr, &bad),
               std::invalid_argument);
}
