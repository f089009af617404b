// SPDX-License-Identifier: Apache-2.0
// Sieve tests — the CUDA emulator itself: warp collectives against their
// definitions, barriers ordering shared memory, blocks running at once, graph
// capture with CUDA's rules, and divergence reported instead of hidden.
#include "sieve_cuda_emulator.hpp"

#include "../cuda/device.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

using sieve_test::DeviceBytes;

namespace {

constexpr unsigned kThreads = 128;

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
  // Block b waits for block b - 1: runs only if earlier blocks run at once or before.
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

TEST(Emulator, BlocksRunAtOnceInIndexOrder) {
  const unsigned blocks = 200;
  DeviceBytes flags(blocks * 4, 0), order(blocks * 4, 0), ticket(4, 0);
  ASSERT_EQ(cudaSuccess,
            sieve_emu::launch(chain, dim3(blocks), dim3(64), nullptr, flags.get<unsigned>(),
                              order.get<unsigned>(), ticket.get<unsigned>()));
  const auto got = order.download<unsigned>(blocks);
  for (unsigned b = 0; b < blocks; ++b) ASSERT_EQ(got[b], b);
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
