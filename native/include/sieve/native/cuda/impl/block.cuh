// SPDX-License-Identifier: Apache-2.0
// Sieve (internal) — warp-shuffle and block scans for the CUDA kernels.
// Associative operators only; no identity element is needed.
#pragma once

#include <sieve/core/state.hpp>
#include <sieve/native/cuda/impl/launch.cuh>

#include <cstdint>
#include <cstring>

namespace sieve {
namespace Impl {

inline constexpr unsigned kFullWarp = 0xFFFFFFFFu;

/// This thread's index in a 1-D grid of Tuning::Cuda::kBlock threads a block.
__device__ __forceinline__ std::int64_t globalIndex() {
  return static_cast<std::int64_t>(blockIdx.x) * Tuning::Cuda::kBlock + threadIdx.x;
}

/// The stride of a grid-stride loop over such a grid.
__device__ __forceinline__ std::int64_t gridStride() {
  return static_cast<std::int64_t>(gridDim.x) * Tuning::Cuda::kBlock;
}

/// Whether `gate` (a device word, null: no gate) is open, read once per
/// block: thread 0 loads the word (core's gateOpen) and the block takes its
/// value from shared memory after a barrier, so every thread takes the same
/// decision, for one load a block. Every thread calls it, before any
/// returns, at most once a kernel (its shared word is not reused).
__device__ __forceinline__ bool blockGateOpen(const std::uint32_t* gate) {
  if (gate == nullptr) return true; // a kernel argument: the same in every block
  __shared__ std::uint32_t open;
  if (threadIdx.x == 0) open = gateOpen(gate) ? 1u : 0u;
  __syncthreads();
  return open != 0u;
}

/// __shfl_up_sync for any arithmetic type of up to 8 bytes.
template <class T>
__device__ __forceinline__ T shflUp(T v, unsigned delta) {
  static_assert(sizeof(T) <= 8, "sieve: CUDA scans take types of up to 8 bytes");
  if constexpr (sizeof(T) <= 4) {
    int x = 0;
    memcpy(&x, &v, sizeof(T));
    x = __shfl_up_sync(kFullWarp, x, delta);
    T r;
    memcpy(&r, &x, sizeof(T));
    return r;
  } else {
    long long x;
    memcpy(&x, &v, sizeof(T));
    x = __shfl_up_sync(kFullWarp, x, delta);
    T r;
    memcpy(&r, &x, sizeof(T));
    return r;
  }
}

/// Inclusive scan across the 32 lanes of a warp (every lane takes part).
template <class T, class Op>
__device__ __forceinline__ T warpInclusive(T v, const Op& op, unsigned lane) {
#pragma unroll
  for (unsigned d = 1; d < 32; d <<= 1) {
    const T u = shflUp(v, d);
    if (lane >= d) v = op(u, v);
  }
  return v;
}

/// Inclusive scan across the block (every thread takes part). `warpTotals`
/// is shared memory of Tuning::Cuda::kWarps elements; on return it holds the
/// inclusive warp totals (warpTotals[kWarps - 1] is the block total). The
/// caller synchronises before reusing it.
template <class T, class Op>
__device__ __forceinline__ T blockInclusive(T v, const Op& op, T* warpTotals) {
  const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
  v = warpInclusive(v, op, lane);
  if (lane == 31u) warpTotals[warp] = v;
  __syncthreads();
  if (warp == 0) {
    // Each lane reads only the slot it writes back: the lanes past kWarps
    // scan their own value (the shuffles carry values up, never down, so
    // theirs reach no slot). Reading slot 0 there raced with lane 0's write
    // of it: shuffles order no memory (compute-sanitizer racecheck, H200).
    T w = lane < Tuning::Cuda::kWarps ? warpTotals[lane] : v;
    w = warpInclusive(w, op, lane);
    if (lane < Tuning::Cuda::kWarps) warpTotals[lane] = w;
  }
  __syncthreads();
  if (warp > 0) v = op(warpTotals[warp - 1], v);
  return v;
}

/// The inclusive value of the previous thread of the block after
/// blockInclusive (undefined for thread 0).
template <class T>
__device__ __forceinline__ T blockPrevious(T inclusive, const T* warpTotals) {
  const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
  const T up = shflUp(inclusive, 1);
  return lane > 0 ? up : warpTotals[warp > 0 ? warp - 1 : 0];
}

} // namespace Impl
} // namespace sieve
