// SPDX-License-Identifier: Apache-2.0
// Sieve CUDA tests — reorderDevice / restoreDevice: the shared reorder suite
// on the native CUDA face, then a captured reorder replayed under the fire
// word, and the argument checks (run everywhere).
#include "../common/suite_reorder.hpp"
#include "face.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

using namespace sieve_test;

SIEVE_REORDER_SUITE(CudaReorder, CudaFace);

TEST(CudaReorderNative, GraphCaptureReplaysGatedByTheFireWord) {
  SIEVE_REQUIRE_DEVICE();
  const std::int64_t n = 300007;
  RefState ref = makePopulation(makeMask(MaskKind::Random50, n), allElems());
  DevicePopulation dev(ref);
  cudaStream_t s;
  SIEVE_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaGraph_t graph;
  SIEVE_CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  dev.reorder(false, true, s);
  SIEVE_CUDA_CHECK(cudaStreamEndCapture(s, &graph));
  cudaGraphExec_t exec;
  SIEVE_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  auto setFire = [&](std::uint32_t f) {
    SIEVE_CUDA_CHECK(cudaMemcpy(dev.word(2), &f, 4, cudaMemcpyHostToDevice));
    SIEVE_CUDA_CHECK(cudaDeviceSynchronize());
    ref.fire = f;
  };
  auto replay = [&](const char* what) {
    SIEVE_CUDA_CHECK(cudaGraphLaunch(exec, s));
    SIEVE_CUDA_CHECK(cudaStreamSynchronize(s));
    RefState got = ref;
    dev.download(got);
    SCOPED_TRACE(what);
    expectSameState(got, ref);
  };
  setFire(0);
  replay("fire == 0: the replay must leave every byte untouched");
  {
    // ... scratch included: no kernel of the replay (bits, the scan of the
    // word counts, its tile words, the moves) did anything.
    const auto scratch = dev.scratch.bytes();
    EXPECT_TRUE(std::all_of(scratch.begin(), scratch.end(), [](unsigned char b) { return b == 0x5A; }))
        << "a fire == 0 replay wrote scratch";
  }
  for (std::uint32_t step = 0; step < 3; ++step) {
    // Thin the mask plane (slot order) on both sides, then a firing replay.
    const auto next = thin(maskOf(ref), 0.6, 31 + step);
    ref.planes[0].bytes.assign(next.begin(), next.end());
    dev.planes[0]->upload(next);
    setFire(1);
    refReorder(ref, n, false, true);
    replay("a firing replay must make the reference's moves");
    EXPECT_EQ(ref.fire, 0u);
  }
  SIEVE_CUDA_CHECK(cudaGraphExecDestroy(exec));
  SIEVE_CUDA_CHECK(cudaGraphDestroy(graph));
  SIEVE_CUDA_CHECK(cudaStreamDestroy(s));
}

TEST(CudaReorderNative, RestoreKeepsSlotsWithOutOfRangeInv) {
  SIEVE_REQUIRE_DEVICE();
  restoreKeepsSlotsWithOutOfRangeInv<CudaFace>();
}

TEST(CudaRejects, ReorderAndRestoreBeforeAnyCudaCall) {
  // Runs without a GPU: the checks come first.
  std::uint32_t count = 0, fire = 0, span = 10;
  std::int32_t map[4];
  std::uint8_t mask[4] = {};
  unsigned long long scratch[8];
  sieve::ReorderPlane planes[] = {{mask, 1}, {map, 3}};
  std::int32_t perm[4], inv[4];
  EXPECT_THROW(sieve::reorderDevice(planes, 2, mask, 0u, perm, inv, map, &count, &span, &fire,
                                    scratch, 4, nullptr),
               std::invalid_argument);
  EXPECT_THROW(sieve::restoreDevice(planes, 2, perm, inv, scratch, 4, nullptr),
               std::invalid_argument);
}
