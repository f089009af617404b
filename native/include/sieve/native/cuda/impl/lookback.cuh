// SPDX-License-Identifier: Apache-2.0
// Sieve (internal) — decoupled look-back over tile status words: the one
// chaining of tiles shared by the single-pass compaction (compact.cu) and the
// single-pass integer scan (scan.cuh), with the kernel that clears the words
// before each launch and the gate every kernel of a gated replay reads.
#pragma once

#include <sieve/core/tuning.hpp>
#include <sieve/native/cuda/impl/block.cuh>

#include <cstdint>

namespace sieve {
namespace Impl {
namespace TileStatus {

/// A tile's status word: flags in bits 62-63, a 62-bit payload below. Zero
/// (no flag) means "not published yet"; the words are cleared per launch.
inline constexpr unsigned long long kAggregate = 1ull << 62; ///< the tile's own fold
inline constexpr unsigned long long kInclusive = 2ull << 62; ///< the fold up to and with it
inline constexpr unsigned long long kFlags = 3ull << 62;

__device__ __forceinline__ unsigned long long load(const unsigned long long* p) {
  return *reinterpret_cast<const volatile unsigned long long*>(p);
}

/// Flag and payload in one 64-bit store: a reader sees both or neither.
__device__ __forceinline__ void publish(unsigned long long* p, unsigned long long flag,
                                        unsigned long long payload) {
  atomicExch(p, flag | payload);
}

__device__ __forceinline__ void backOff() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
  __nanosleep(32);
#elif defined(SIEVE_CUDA_EMULATION)
  __nanosleep(32);
#endif
}

/// The fold of the payloads of every tile before `tile` (> 0), by the 32
/// lanes of one warp (every lane gets it): lane k reads the word of tile
/// `top - k` for a window of 32 predecessors; once every word of the window is
/// published, the payloads up to the nearest inclusive one are folded, or the
/// whole window's are and the walk goes on below it. `combine` must be
/// associative and commutative (integer sums, min, max: exact, so the result
/// does not depend on the order, nor on when a predecessor publishes).
template <class Combine>
__device__ __forceinline__ unsigned long long exclusivePrefix(const unsigned long long* status,
                                                              std::int64_t tile, unsigned lane,
                                                              const Combine& combine) {
  unsigned long long prefix = 0;
  bool first = true;
  for (std::int64_t top = tile - 1;; top -= 32) {
    const std::int64_t j = top - static_cast<std::int64_t>(lane);
    unsigned long long w;
    // (Below tile 0, which is always inclusive, a lane reads nothing.)
    while (true) {
      w = j >= 0 ? load(&status[j]) : kInclusive;
      if (__all_sync(kFullWarp, (w & kFlags) != 0ull)) break;
      backOff();
    }
    const unsigned inclusive = __ballot_sync(kFullWarp, (w & kFlags) == kInclusive);
    const unsigned stop = inclusive != 0u ? static_cast<unsigned>(__ffs(inclusive) - 1) : 31u;
    // Fold lanes 0..stop (never empty: lane 0 holds tile top), a butterfly
    // that carries whether a lane's value counts.
    unsigned long long v = w & ~kFlags;
    int counts = lane <= stop;
#pragma unroll
    for (int d = 16; d > 0; d >>= 1) {
      const unsigned long long u = __shfl_xor_sync(kFullWarp, v, d);
      const int uCounts = __shfl_xor_sync(kFullWarp, counts, d);
      if (uCounts) v = counts ? combine(v, u) : u;
      counts |= uCounts;
    }
    prefix = first ? v : combine(prefix, v);
    first = false;
    if (inclusive != 0u) return prefix;
  }
}

/// Whether a gated launch is off: the gate word (a device uint32, e.g. the
/// reorder's fire word) is 0. No gate: never off. Block-uniform.
__device__ __forceinline__ bool gatedOff(const std::uint32_t* gate) {
  return gate != nullptr && *gate == 0u;
}

/// Zero `words` words (tile counters and status words), unless gated
/// off. A kernel, not cudaMemsetAsync: the scratch may be pinned or managed
/// memory the device reaches, and a kernel node replays anywhere.
/// (A template: defined in this header, once per program.)
template <class Word>
__global__ void __launch_bounds__(Tuning::Cuda::kBlock)
    clearWordsKernel(Word* p, std::int64_t words, const std::uint32_t* gate) {
  if (gatedOff(gate)) return;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * Tuning::Cuda::kBlock;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * Tuning::Cuda::kBlock + threadIdx.x;
       i < words; i += stride)
    p[i] = 0;
}

} // namespace TileStatus
} // namespace Impl
} // namespace sieve
