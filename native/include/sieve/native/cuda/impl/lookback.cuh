// SPDX-License-Identifier: Apache-2.0
// Sieve (internal) — decoupled look-back over tile status words: the one
// chaining of tiles shared by the single-pass compaction (compact.cu), the
// selection (impl/select.cuh), the single-pass integer scan (scan.cuh) and
// the dense scatter's sweeps (scatter.cuh: one chain a digit, its status
// words PackedStatus), with the kernel that clears the words before each launch (gated by core's
// gateOpen, as every kernel of a gated replay) and the carving and clearing
// of the compaction's and the selection's words (clearTileWords).
#pragma once

#include <sieve/core/layout.hpp>
#include <sieve/core/state.hpp>
#include <sieve/core/tuning.hpp>
#include <sieve/native/cuda/impl/block.cuh>
#include <sieve/native/cuda/impl/launch.cuh>

#include <cstdint>

namespace sieve {
namespace Impl {
namespace TileStatus {

/// What a tile has published: nothing yet (flag 0), its own fold
/// (kAggregate) or the fold of every tile up to and with it (kInclusive).
inline constexpr unsigned kAggregate = 1u;
inline constexpr unsigned kInclusive = 2u;

struct Published {
  unsigned flag;
  unsigned long long payload;
};

/// Tile status in one 64-bit word per tile: the flag in bits 62-63, a payload
/// of up to 62 bits below, published by one 64-bit atomic store, so a reader
/// sees flag and payload of the same publication. Zero: nothing published
/// (the words are cleared per launch).
struct PackedStatus {
  unsigned long long* words;

  static constexpr unsigned long long kPayload = (1ull << 62) - 1;
  __device__ __forceinline__ Published load(std::int64_t j) const {
    const unsigned long long w = *reinterpret_cast<const volatile unsigned long long*>(&words[j]);
    return {static_cast<unsigned>(w >> 62), w & kPayload};
  }
  __device__ __forceinline__ void publish(std::int64_t j, unsigned flag,
                                          unsigned long long payload) const {
    atomicExch(&words[j], (static_cast<unsigned long long>(flag) << 62) | payload);
  }
};

/// Tile status for 64-bit payloads: a flag word and two values per tile (the
/// aggregate and the inclusive fold, each written once). The value is stored,
/// then a fence, then the flag; a reader loads the flag, then a fence, then
/// the value the flag names: the message-passing pattern, so the value read
/// is the one published with that flag. Flags zero: nothing published.
struct WideStatus {
  std::uint32_t* flags;
  unsigned long long* aggregate;
  unsigned long long* inclusive;

  __device__ __forceinline__ Published load(std::int64_t j) const {
    const unsigned f = *reinterpret_cast<const volatile std::uint32_t*>(&flags[j]);
    unsigned long long v = 0;
    if (f != 0u) {
      __threadfence();
      const unsigned long long* slot = f == kInclusive ? inclusive : aggregate;
      v = *reinterpret_cast<const volatile unsigned long long*>(&slot[j]);
    }
    return {f, v};
  }
  __device__ __forceinline__ void publish(std::int64_t j, unsigned flag,
                                          unsigned long long payload) const {
    unsigned long long* slot = flag == kInclusive ? inclusive : aggregate;
    *reinterpret_cast<volatile unsigned long long*>(&slot[j]) = payload;
    __threadfence();
    atomicExch(&flags[j], static_cast<std::uint32_t>(flag));
  }
};

__device__ __forceinline__ void backOff() {
#if (defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700) || defined(SIEVE_CUDA_EMULATION)
  __nanosleep(32);
#endif
}

/// The fold of the payloads of every tile before `tile` (> 0), by the 32
/// lanes of one warp (every lane gets it): lane k reads the status of tile
/// `top - k` for a window of 32 predecessors; once every tile of the window
/// has published, the payloads up to the nearest inclusive one are folded,
/// or the whole window's are and the walk goes on below it. `combine` must be
/// associative and commutative (integer sums, min, max: exact, so the result
/// does not depend on the order, nor on when a predecessor publishes).
template <class Status, class Combine>
__device__ __forceinline__ unsigned long long exclusivePrefix(const Status& status,
                                                              std::int64_t tile, unsigned lane,
                                                              const Combine& combine) {
  unsigned long long prefix = 0;
  bool first = true;
  for (std::int64_t top = tile - 1;; top -= 32) {
    const std::int64_t j = top - static_cast<std::int64_t>(lane);
    Published p;
    // (Below tile 0, which is always inclusive, a lane reads nothing.)
    while (true) {
      p = j >= 0 ? status.load(j) : Published{kInclusive, 0ull};
      if (__all_sync(kFullWarp, p.flag != 0u)) break;
      backOff();
    }
    const unsigned inclusive = __ballot_sync(kFullWarp, p.flag == kInclusive);
    const unsigned stop = inclusive != 0u ? static_cast<unsigned>(__ffs(inclusive) - 1) : 31u;
    // Fold lanes 0..stop (never empty: lane 0 holds tile top), a butterfly
    // that carries whether a lane's value counts.
    unsigned long long v = p.payload;
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

/// The sum of the payloads chain `c` of `chains` published for every tile
/// before `tile` (> 0), by one thread (a block walks `chains` chains at
/// once, one a thread: the dense scatter's digit counts). Tile j's word of
/// chain c is j x chains + c; the walk goes back to the nearest inclusive
/// one (tile 0 publishes its inclusive payload at once, so it ends). Sums
/// only: exact, whatever a predecessor publishes first.
__device__ __forceinline__ unsigned long long chainPrefix(const PackedStatus& status,
                                                          std::int64_t tile, std::int64_t chains,
                                                          std::int64_t c) {
  unsigned long long prefix = 0;
  for (std::int64_t j = tile - 1; j >= 0; --j) {
    Published p = status.load(j * chains + c);
    while (p.flag == 0u) {
      backOff();
      p = status.load(j * chains + c);
    }
    prefix += p.payload;
    if (p.flag == kInclusive) break;
  }
  return prefix;
}

/// One tile's step of a sum look-back chain, by the 32 lanes of warp 0:
/// publish the tile's aggregate `agg`, fold the predecessors' payloads
/// (exclusivePrefix), publish the inclusive prefix; returns the exclusive
/// prefix (every lane). Tile 0 publishes its inclusive at once; a chain of
/// one tile publishes nothing (its status words may not exist).
__device__ __forceinline__ unsigned long long sumTilePrefix(const PackedStatus& status,
                                                            std::int64_t tile, std::int64_t tiles,
                                                            unsigned lane, unsigned long long agg) {
  if (tiles <= 1) return 0;
  if (tile == 0) {
    if (lane == 0u) status.publish(0, kInclusive, agg);
    return 0;
  }
  if (lane == 0u) status.publish(tile, kAggregate, agg);
  const unsigned long long prefix = exclusivePrefix(status, tile, lane, Sum{});
  if (lane == 0u) status.publish(tile, kInclusive, prefix + agg);
  return prefix;
}

/// Zero `words` words (tile counters and status words), unless gated
/// off. A kernel, not cudaMemsetAsync: the scratch may be pinned or managed
/// memory the device reaches, and a kernel node replays anywhere.
/// (A template: defined in this header, once per program.)
template <class Word>
__global__ void __launch_bounds__(Tuning::Cuda::kBlock)
    clearWordsKernel(Word* p, std::int64_t words, const std::uint32_t* gate) {
  if (!blockGateOpen(gate)) return;
  for (std::int64_t i = globalIndex(); i < words; i += gridStride()) p[i] = 0;
}

/// The packed status words (one a tile) and the tile counter of a
/// single-pass launch over `tiles` tiles, carved from `scratch` where Layout
/// (core/layout.hpp, a CudaTileWords) puts them.
struct TileWords {
  unsigned long long* status;
  unsigned int* counter;
};

/// Carve them and enqueue their clearing on `stream` (clearWordsKernel,
/// labelled `what`): the single-pass compaction's and selection's first
/// launch. A single tile uses no scratch at all (nothing cleared).
template <class Layout>
TileWords clearTileWords(void* scratch, std::int64_t tiles, cudaStream_t stream, const char* what) {
  const TileWords w{carve<unsigned long long>(scratch, Layout::cudaTileStatus(tiles)),
                    carve<unsigned int>(scratch, Layout::cudaTileCounter(tiles))};
  const ScratchRegion cleared = Layout::cudaCleared(tiles);
  if (cleared.bytes > 0) {
    const auto words = static_cast<std::int64_t>(cleared.bytes / 8);
    launch(clearWordsKernel<unsigned long long>, Geometry::moveBlocks(words), stream, what,
           carve<unsigned long long>(scratch, cleared), words,
           static_cast<const std::uint32_t*>(nullptr));
  }
  return w;
}

} // namespace TileStatus
} // namespace Impl
} // namespace sieve
