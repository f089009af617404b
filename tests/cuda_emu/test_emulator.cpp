// SPDX-License-Identifier: Apache-2.0
// Sieve tests — the CUDA emulator itself: warp collectives against their
// definitions, barriers ordering shared memory, blocks running at once and
// starting in a random order (a kernel that waits on a lower blockIdx caught,
// one that waits on blocks started before it finishing), graph capture with
// CUDA's rules, and divergence reported instead of hidden.
#include "sieve_cuda_emulator.hpp"

#include "../cuda/device.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

using sieve_test::DeviceBytes;

namespace {

constexpr unsigned kThreads = 128;

/// Launches in this scope take `d` (the emulator's dispatch settings).
class ScopedDispatch {
 public:
  explicit ScopedDispatch(const sieve_emu::Dispatch& d) { sieve_emu::setDispatch(d); }
  ~ScopedDispatch() { sieve_emu::setDispatch(saved_); }
  ScopedDispatch(const ScopedDispatch&) = delete;
  ScopedDispatch& operator=(const ScopedDispatch&) = delete;

 private:
  sieve_emu::Dispatch saved_ = sieve_emu::dispatch();
};

sieve_emu::Dispatch ordered() {
  sieve_emu::Dispatch d;
  d.ordered = true;
  return d;
}
sieve_emu::Dispatch randomOrder(std::uint64_t seed, double stallSeconds = 60) {
  sieve_emu::Dispatch d;
  d.seed = seed;
  d.stallSeconds = stallSeconds;
  return d;
}

__global__ void warpOps(std::uint32_t* out) {
  const unsigned t = threadIdx.x, lane = t & 31u;
  const std::uint32_t v = 1000u * blockIdx.x + 7u * t + 3u;
  std::uint32_t* o = out + (static_cast<std::size_t>(blockIdx.x) * kThreads + t) * 8;
  o[0] = __shfl_up_sync(0xFFFFFFFFu, v, 3);
  o[1] = __shfl_down_sync(0xFFFFFFFFu, v, 5);
  o[2] = __shfl_xor_sync(0xFFFFFFFFu, v, 9);
  o[3] = __shfl_sync(0xFFFFFFFFu, v, static_cast<int>((lane * 7u) & 31u));
  o[4] = __ballot_sync(0xFFFFFFFFu, (v % 3u) == 0u);
  o[5] = static_cast<std::uint32_t>(__all_sync(0xFFFFFFFFu, lane < 40u));
  o[6] = static_cast<std::uint32_t>(__any_sync(0xFFFFFFFFu, lane == 31u && t < 64u));
  const unsigned long long wide = __shfl_xor_sync(0xFFFFFFFFu, (0x1ull << 40) + v, 1);
  o[7] = static_cast<std::uint32_t>(wide >> 8);
}

TEST(Emulator, WarpCollectivesMatchTheirDefinitions) {
  const unsigned blocks = 5;
  DeviceBytes out(std::size_t(blocks) * kThreads * 8 * 4);
  ASSERT_EQ(cudaSuccess, sieve_emu::launch(warpOps, dim3(blocks), dim3(kThreads), nullptr,
                                           out.get<std::uint32_t>()));
  const auto got = out.download<std::uint32_t>(std::size_t(blocks) * kThreads * 8);
  for (unsigned b = 0; b < blocks; ++b)
    for (unsigned t = 0; t < kThreads; ++t) {
      const unsigned lane = t & 31u, w0 = t - lane;
      auto v = [&](unsigned l) { return 1000u * b + 7u * (w0 + l) + 3u; };
      std::uint32_t ballot = 0;
      for (unsigned l = 0; l < 32; ++l) ballot |= static_cast<std::uint32_t>(v(l) % 3u == 0u) << l;
      const std::uint32_t* o = &got[(std::size_t(b) * kThreads + t) * 8];
      SCOPED_TRACE("block " + std::to_string(b) + ", thread " + std::to_string(t));
      EXPECT_EQ(o[0], lane >= 3 ? v(lane - 3) : v(lane));
      EXPECT_EQ(o[1], lane + 5 < 32 ? v(lane + 5) : v(lane));
      EXPECT_EQ(o[2], v(lane ^ 9u));
      EXPECT_EQ(o[3], v((lane * 7u) & 31u));
      EXPECT_EQ(o[4], ballot);
      EXPECT_EQ(o[5], 1u);
      EXPECT_EQ(o[6], t < 64u ? 1u : 0u);
      EXPECT_EQ(o[7], static_cast<std::uint32_t>(((0x1ull << 40) + v(lane ^ 1u)) >> 8));
    }
}

__global__ void matchAny(std::uint32_t* out) {
  const unsigned t = threadIdx.x, lane = t & 31u;
  // Groups of equal values of both widths: lane % 5 (32-bit), and a 64-bit
  // value equal above bit 32 for lanes of equal parity only.
  out[(static_cast<std::size_t>(blockIdx.x) * kThreads + t) * 2] =
      __match_any_sync(0xFFFFFFFFu, (lane + blockIdx.x) % 5u);
  out[(static_cast<std::size_t>(blockIdx.x) * kThreads + t) * 2 + 1] = __match_any_sync(
      0xFFFFFFFFu, (static_cast<unsigned long long>(lane & 1u) << 40) | (lane / 16u));
}

TEST(Emulator, MatchAnyGroupsEqualValues) {
  const unsigned blocks = 3;
  DeviceBytes out(std::size_t(blocks) * kThreads * 2 * 4);
  ASSERT_EQ(cudaSuccess, sieve_emu::launch(matchAny, dim3(blocks), dim3(kThreads), nullptr,
                                           out.get<std::uint32_t>()));
  const auto got = out.download<std::uint32_t>(std::size_t(blocks) * kThreads * 2);
  for (unsigned b = 0; b < blocks; ++b)
    for (unsigned t = 0; t < kThreads; ++t) {
      const unsigned lane = t & 31u;
      std::uint32_t narrow = 0, wide = 0;
      for (unsigned l = 0; l < 32; ++l) {
        narrow |= static_cast<std::uint32_t>((l + b) % 5u == (lane + b) % 5u) << l;
        wide |= static_cast<std::uint32_t>((l & 1u) == (lane & 1u) && l / 16u == lane / 16u) << l;
      }
      EXPECT_EQ(got[(std::size_t(b) * kThreads + t) * 2], narrow) << b << " " << t;
      EXPECT_EQ(got[(std::size_t(b) * kThreads + t) * 2 + 1], wide) << b << " " << t;
    }
}

__global__ void rotateThroughShared(std::uint32_t* out, int rounds) {
  __shared__ std::uint32_t s[kThreads];
  const unsigned t = threadIdx.x;
  std::uint32_t v = t + 100u * blockIdx.x;
  for (int r = 0; r < rounds; ++r) {
    s[t] = v;
    __syncthreads();
    v = s[(t + 1) % kThreads];
    __syncthreads();
  }
  out[blockIdx.x * kThreads + t] = v;
}

TEST(Emulator, BarriersOrderSharedMemoryPerBlock) {
  // Many blocks at once, each with its own shared memory; any thread run
  // before the others reach the barrier would read a stale value.
  const unsigned blocks = 64;
  const int rounds = 5;
  DeviceBytes out(std::size_t(blocks) * kThreads * 4);
  ASSERT_EQ(cudaSuccess, sieve_emu::launch(rotateThroughShared, dim3(blocks), dim3(kThreads),
                                           nullptr, out.get<std::uint32_t>(), rounds));
  const auto got = out.download<std::uint32_t>(std::size_t(blocks) * kThreads);
  for (unsigned b = 0; b < blocks; ++b)
    for (unsigned t = 0; t < kThreads; ++t)
      ASSERT_EQ(got[b * kThreads + t], (t + rounds) % kThreads + 100u * b) << b << " " << t;
}

__global__ void chain(unsigned* flags, unsigned* order, unsigned* ticket) {
  // Block b waits for block b - 1 (a look-back whose tile is blockIdx.x):
  // runs only if earlier blocks run at once or before, which CUDA does not
  // promise.
  __shared__ unsigned mine;
  if (threadIdx.x == 0) {
    const unsigned b = blockIdx.x;
    if (b > 0)
      while (*reinterpret_cast<volatile unsigned*>(&flags[b - 1]) == 0u) __nanosleep(10);
    order[b] = atomicAdd(ticket, 1u);
    mine = b;
    atomicExch(&flags[b], 1u);
  }
  __syncthreads();
  (void)mine;
}

__global__ void ticketChain(unsigned* flags, unsigned* tileOf, unsigned* ticket) {
  // The look-back's way: a block takes its tile from a counter when it
  // starts and waits only on lower tiles, all taken by blocks that started
  // before it, so it never waits on a block that has not started.
  __shared__ unsigned tile;
  if (threadIdx.x == 0) tile = atomicAdd(ticket, 1u);
  __syncthreads();
  if (threadIdx.x == 0) {
    if (tile > 0)
      while (*reinterpret_cast<volatile unsigned*>(&flags[tile - 1]) == 0u) __nanosleep(10);
    tileOf[blockIdx.x] = tile;
    atomicExch(&flags[tile], 1u);
  }
  __syncthreads();
}

constexpr unsigned kChainBlocks = 1000;

/// The chain over kChainBlocks blocks: the order in which they passed.
std::vector<unsigned> runChain() {
  DeviceBytes flags(kChainBlocks * 4, 0), order(kChainBlocks * 4, 0), ticket(4, 0);
  EXPECT_EQ(cudaSuccess,
            sieve_emu::launch(chain, dim3(kChainBlocks), dim3(64), nullptr, flags.get<unsigned>(),
                              order.get<unsigned>(), ticket.get<unsigned>()));
  return order.download<unsigned>(kChainBlocks);
}

TEST(Emulator, BlocksRunAtOnceInIndexOrderWhenOrdered) {
  // SIEVE_EMU_BLOCK_ORDER=ordered: a kernel that relies on blockIdx order
  // passes (as it mostly would on a GPU).
  ScopedDispatch d(ordered());
  const auto got = runChain();
  for (unsigned b = 0; b < kChainBlocks; ++b) ASSERT_EQ(got[b], b);
}

TEST(EmulatorDeathTest, RandomOrderCatchesAKernelRelyingOnBlockIndexOrder) {
  // The same kernel under the random order: blocks wait on lower blocks
  // that have not started until every OS thread holds one (a GPU deadlocks
  // so once its resident blocks are all waiting), and the stall watchdog
  // aborts, naming the settings that replay it.
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  for (std::uint64_t seed : {1ull, 0x5EEDull}) {
    ScopedDispatch d(randomOrder(seed, 0.5));
    EXPECT_DEATH((void)runChain(),
                 "relies on blocks starting in index order.*Replay: "
                 "SIEVE_EMU_SEED=0x[0-9a-f]+ SIEVE_EMU_BLOCK_ORDER=0x");
  }
}

TEST(Emulator, RandomOrderRunsTheLookBackWay) {
  // Tiles taken from a counter in start order: the chain finishes under any
  // order; the tiles the blocks took show the blocks did not start in index
  // order, nor in the same order under another seed.
  std::vector<std::vector<unsigned>> tiles;
  for (std::uint64_t seed : {1ull, 2ull}) {
    ScopedDispatch d(randomOrder(seed));
    DeviceBytes flags(kChainBlocks * 4, 0), tileOf(kChainBlocks * 4, 0), ticket(4, 0);
    ASSERT_EQ(cudaSuccess, sieve_emu::launch(ticketChain, dim3(kChainBlocks), dim3(64), nullptr,
                                             flags.get<unsigned>(), tileOf.get<unsigned>(),
                                             ticket.get<unsigned>()));
    tiles.push_back(tileOf.download<unsigned>(kChainBlocks));
    auto sorted = tiles.back();
    std::sort(sorted.begin(), sorted.end());
    for (unsigned k = 0; k < kChainBlocks; ++k) ASSERT_EQ(sorted[k], k) << "tiles taken twice";
    unsigned inPlace = 0;
    for (unsigned b = 0; b < kChainBlocks; ++b) inPlace += tiles.back()[b] == b;
    EXPECT_LT(inPlace, kChainBlocks / 10) << "blocks started close to index order";
  }
  EXPECT_NE(tiles[0], tiles[1]);
}

__global__ void countRuns(unsigned* hits) {
  if (threadIdx.x == 0)
    atomicAdd(&hits[(blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x], 1u);
}

TEST(Emulator, RandomOrderRunsEveryBlockOnce) {
  // The permutation of every grid shape (powers of two, one past them, 3-D
  // grids) runs each block exactly once.
  ScopedDispatch d(randomOrder(7));
  for (dim3 grid :
       {dim3(1), dim3(2), dim3(3), dim3(64), dim3(65), dim3(1000), dim3(5, 3, 7), dim3(33, 1, 2)}) {
    const unsigned blocks = grid.x * grid.y * grid.z;
    DeviceBytes hits(blocks * 4, 0);
    ASSERT_EQ(cudaSuccess,
              sieve_emu::launch(countRuns, grid, dim3(32), nullptr, hits.get<unsigned>()));
    const auto got = hits.download<unsigned>(blocks);
    for (unsigned b = 0; b < blocks; ++b)
      ASSERT_EQ(got[b], 1u) << "block " << b << " of " << grid.x << "x" << grid.y << "x" << grid.z;
  }
}

__global__ void bump(unsigned* counter) {
  if (threadIdx.x == 0 && blockIdx.x == 0) *counter += 1u;
}

TEST(Emulator, CaptureRecordsAndReplays) {
  DeviceBytes counter(4, 0);
  cudaStream_t s;
  ASSERT_EQ(cudaSuccess, cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaGraph_t g = nullptr;
  ASSERT_EQ(cudaSuccess, cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  ASSERT_EQ(cudaSuccess, sieve_emu::launch(bump, dim3(3), dim3(32), s, counter.get<unsigned>()));
  ASSERT_EQ(cudaSuccess, cudaStreamEndCapture(s, &g));
  EXPECT_EQ(sieve_test::word(counter), 0u) << "a captured launch ran";
  cudaGraphExec_t e = nullptr;
  ASSERT_EQ(cudaSuccess, cudaGraphInstantiate(&e, g, 0));
  for (int k = 0; k < 3; ++k) ASSERT_EQ(cudaSuccess, cudaGraphLaunch(e, s));
  EXPECT_EQ(sieve_test::word(counter), 3u);
  cudaGraphExecDestroy(e);
  cudaGraphDestroy(g);
  cudaStreamDestroy(s);
}

TEST(Emulator, CaptureRefusesWhatCudaRefuses) {
  DeviceBytes counter(4, 0);
  cudaStream_t s;
  ASSERT_EQ(cudaSuccess, cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  auto refused = [&](const char* what, auto call, cudaError_t expect) {
    SCOPED_TRACE(what);
    cudaGraph_t g = nullptr;
    ASSERT_EQ(cudaSuccess, cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    EXPECT_EQ(call(), expect);
    EXPECT_EQ(cudaStreamEndCapture(s, &g), cudaErrorStreamCaptureInvalidated);
    EXPECT_EQ(g, nullptr);
    (void)cudaGetLastError();
  };
  void* p = nullptr;
  refused(
      "allocation", [&] { return cudaMalloc(&p, 64); }, cudaErrorStreamCaptureUnsupported);
  refused(
      "synchronisation", [&] { return cudaDeviceSynchronize(); },
      cudaErrorStreamCaptureUnsupported);
  refused(
      "stream synchronisation", [&] { return cudaStreamSynchronize(s); },
      cudaErrorStreamCaptureUnsupported);
  unsigned host = 0;
  refused(
      "a copy", [&] { return cudaMemcpy(&host, counter.get(), 4, cudaMemcpyDeviceToHost); },
      cudaErrorStreamCaptureUnsupported);
  refused(
      "a launch on the legacy stream",
      [&] { return sieve_emu::launch(bump, dim3(1), dim3(32), nullptr, counter.get<unsigned>()); },
      cudaErrorStreamCaptureImplicit);
  EXPECT_EQ(sieve_test::word(counter), 0u);
  cudaStreamDestroy(s);
}

TEST(Emulator, BadLaunchesAndCopiesFail) {
  DeviceBytes counter(4, 0);
  EXPECT_EQ(sieve_emu::launch(bump, dim3(0), dim3(32), nullptr, counter.get<unsigned>()),
            cudaErrorInvalidConfiguration);
  EXPECT_EQ(sieve_emu::launch(bump, dim3(1), dim3(2048), nullptr, counter.get<unsigned>()),
            cudaErrorInvalidConfiguration);
  unsigned host[2] = {};
  EXPECT_EQ(cudaMemcpy(counter.get(), host, 4 + DeviceBytes::kGuard + 1, cudaMemcpyHostToDevice),
            cudaErrorInvalidValue)
      << "a copy past the allocation";
  EXPECT_EQ(cudaMemcpy(host, host + 1, 4, cudaMemcpyDeviceToHost), cudaErrorInvalidValue)
      << "host memory as the device source";
  (void)cudaGetLastError();
}

__global__ void divergentBarrier(unsigned* out) {
  if (threadIdx.x < 64u) __syncthreads();
  out[threadIdx.x] = 1u;
}

__global__ void mismatchedCollectives(unsigned* out) {
  unsigned v = threadIdx.x;
  if (threadIdx.x & 1u) v = __shfl_xor_sync(0xFFFFFFFFu, v, 1);
  else v = __ballot_sync(0xFFFFFFFFu, 1);
  out[threadIdx.x] = v;
}

__global__ void mismatchedVotes(unsigned* out) {
  // Lanes split between two votes (one __all_sync, one __ballot_sync).
  out[threadIdx.x] = (threadIdx.x & 1u) ? static_cast<unsigned>(__all_sync(0xFFFFFFFFu, 1))
                                        : __ballot_sync(0xFFFFFFFFu, 1);
}

TEST(EmulatorDeathTest, DivergenceAborts) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  DeviceBytes out(kThreads * 4, 0);
  EXPECT_DEATH((void)sieve_emu::launch(divergentBarrier, dim3(1), dim3(kThreads), nullptr,
                                       out.get<unsigned>()),
               "can never finish");
  EXPECT_DEATH((void)sieve_emu::launch(mismatchedCollectives, dim3(1), dim3(kThreads), nullptr,
                                       out.get<unsigned>()),
               "different warp collectives");
  EXPECT_DEATH((void)sieve_emu::launch(mismatchedVotes, dim3(1), dim3(kThreads), nullptr,
                                       out.get<unsigned>()),
               "different warp collectives");
}

#if defined(__SANITIZE_ADDRESS__)
__global__ void readOnePast(const unsigned char* p, std::int64_t n, unsigned* out) {
  if (threadIdx.x == 0) out[0] = p[n];
}

TEST(EmulatorDeathTest, AddressSanitizerIsTheMemcheck) {
  // Under AddressSanitizer a kernel reading one byte past a device allocation
  // (inside the allocator's own rounding) is reported.
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  void* p = nullptr;
  ASSERT_EQ(cudaSuccess, cudaMalloc(&p, 100));
  DeviceBytes out(4, 0);
  EXPECT_DEATH((void)sieve_emu::launch(readOnePast, dim3(1), dim3(32), nullptr,
                                       static_cast<const unsigned char*>(p), std::int64_t(100),
                                       out.get<unsigned>()),
               "AddressSanitizer");
  cudaFree(p);
}
#endif

} // namespace
