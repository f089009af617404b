// SPDX-License-Identifier: Apache-2.0
// Sieve — cuda::Scan, the native CUDA prefix scan (header-only: nvcc).
//
// Inclusive: out[i] = init (+) in[0] (+) ... (+) in[i]; exclusive: out[0] =
// init, out[i] = init (+) in[0] (+) ... (+) in[i-1], for any arithmetic T (up to
// 8 bytes) and associative OP callable on the device.
//
// Reduce-then-scan over tiles of Tuning::Cuda::kScanTile<T> elements: tile
// totals, an exclusive scan of the totals (the same algorithm, one level up,
// until one tile remains), then every tile scanned from its prefix with
// warp-shuffle block scans. The association order depends on n only, so floating-point
// results are identical run to run (a look-back scan would not be). Loads and
// stores are coalesced through shared memory; in == out is allowed.
#pragma once

#include <sieve/core/layout.hpp>
#include <sieve/core/tuning.hpp>
#include <sieve/core/types.hpp>
#include <sieve/core/validate.hpp>
#include <sieve/native/cuda/check.hpp>
#include <sieve/native/cuda/impl/block.cuh>
#include <sieve/native/cuda/impl/launch.cuh>

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

namespace sieve {
namespace Impl {

/// Load tile elements [base, base + kScanTile) of in[0, len) into shared
/// memory, coalesced; returns how many are valid.
template <class T>
__device__ __forceinline__ std::int64_t loadTile(const T* in, std::int64_t len, std::int64_t base,
                                                 T* tile) {
  constexpr std::int64_t tileElems = Tuning::Cuda::kScanTile<T>;
  const std::int64_t valid = len - base < tileElems ? len - base : tileElems;
#pragma unroll
  for (unsigned k = 0; k < Tuning::Cuda::kScanItems<T>; ++k) {
    const std::int64_t j = std::int64_t(k) * Tuning::Cuda::kBlock + threadIdx.x;
    if (j < valid) tile[j] = in[base + j];
  }
  __syncthreads();
  return valid;
}

/// totals[b] = fold of tile b of in[0, len).
template <class T, class Op>
__global__ void __launch_bounds__(Tuning::Cuda::kBlock)
    scanTotalsKernel(const T* in, std::int64_t len, T* totals, Op op) {
  constexpr unsigned I = Tuning::Cuda::kScanItems<T>;
  constexpr std::int64_t tileElems = Tuning::Cuda::kScanTile<T>;
  __shared__ T tile[tileElems];
  __shared__ T warpTotals[Tuning::Cuda::kWarps];
  const std::int64_t base = static_cast<std::int64_t>(blockIdx.x) * tileElems;
  const std::int64_t valid = loadTile(in, len, base, tile);
  const std::int64_t row = std::int64_t(threadIdx.x) * I;
  T acc = tile[row < valid ? row : 0];
#pragma unroll
  for (unsigned k = 1; k < I; ++k)
    if (row + k < valid) acc = op(acc, tile[row + k]);
  const T incl = blockInclusive(acc, op, warpTotals);
  // The last thread holding valid items has the fold of the whole tile.
  if (std::int64_t(threadIdx.x) == (valid - 1) / I) totals[blockIdx.x] = incl;
}

/// Scan every tile of in[0, len) into out from its prefix (prefixes[b], or
/// `init` when prefixes is null: a single tile).
template <class T, class Op, bool Inclusive>
__global__ void __launch_bounds__(Tuning::Cuda::kBlock)
    scanTilesKernel(const T* in, T* out, std::int64_t len, const T* prefixes, T init, Op op) {
  constexpr unsigned I = Tuning::Cuda::kScanItems<T>;
  constexpr std::int64_t tileElems = Tuning::Cuda::kScanTile<T>;
  __shared__ T tile[tileElems];
  __shared__ T warpTotals[Tuning::Cuda::kWarps];
  const std::int64_t base = static_cast<std::int64_t>(blockIdx.x) * tileElems;
  const std::int64_t valid = loadTile(in, len, base, tile);
  const std::int64_t row = std::int64_t(threadIdx.x) * I;
  T part[I];
  part[0] = tile[row < valid ? row : 0];
#pragma unroll
  for (unsigned k = 1; k < I; ++k)
    part[k] = row + k < valid ? op(part[k - 1], tile[row + k]) : part[k - 1];
  const T incl = blockInclusive(part[I - 1], op, warpTotals);
  const T prev = blockPrevious(incl, warpTotals);
  const T prefix = prefixes != nullptr ? prefixes[blockIdx.x] : init;
  const T start = threadIdx.x == 0 ? prefix : op(prefix, prev);
  __syncthreads(); // every row read before the tile is overwritten
  if (row < valid) {
    if constexpr (Inclusive) {
#pragma unroll
      for (unsigned k = 0; k < I; ++k)
        if (row + k < valid) tile[row + k] = op(start, part[k]);
    } else {
      tile[row] = start;
#pragma unroll
      for (unsigned k = 1; k < I; ++k)
        if (row + k < valid) tile[row + k] = op(start, part[k - 1]);
    }
  }
  __syncthreads();
#pragma unroll
  for (unsigned k = 0; k < I; ++k) {
    const std::int64_t j = std::int64_t(k) * Tuning::Cuda::kBlock + threadIdx.x;
    if (j < valid) out[base + j] = tile[j];
  }
}

} // namespace Impl

namespace cuda {

/// The native CUDA prefix scan (device memory). Every entry point takes
/// `in`, `out` (n elements; `out == in` scans in place) and `blockSums` (at
/// least n elements; blockSumsElems(n) are used), an `init` that defaults to
/// the operator's identity, a stream and the operator.
/// Throws std::invalid_argument for bad arguments (nothing enqueued) and
/// std::runtime_error if a CUDA call fails.
struct Scan {
  /// Block-sum elements the scan of n uses (always <= n).
  template <class T>
  static std::int64_t blockSumsElems(std::int64_t n) {
    return Impl::scanBlockSumsElems(n, Tuning::Cuda::kScanTile<T>);
  }

  /// Enqueue the full scan on `stream`: kernels only — nothing is allocated,
  /// synchronised or read back, so a caller already capturing `stream`
  /// records it into its own graph. Asynchronous. O(n).
  template <class T, class OP, bool Inclusive>
  static void enqueue(const T* in, T* out, T* blockSums, std::int64_t n,
                      const T& init = identityOf<OP, T>(), cudaStream_t stream = 0,
                      const OP& op = OP()) {
    static_assert(std::is_arithmetic_v<T> && !std::is_same_v<T, bool> && sizeof(T) <= 8,
                  "sieve::cuda::Scan takes arithmetic types other than bool, of up to 8 bytes");
    Impl::checkScan("sieve::cuda::Scan", in, out, blockSums, n, 1, 1, blockSumsElems<T>(n));
    if (n > 0) levels<T, OP, Inclusive>(in, out, n, blockSums, init, stream, op);
  }

  /// Capture enqueue into a new graph (on `stream`, or on a private stream
  /// when `stream` is the legacy default stream, which cannot be captured).
  /// The caller owns the returned graph. Blocking only for the capture.
  template <class T, class OP, bool Inclusive>
  static cudaGraph_t graph(const T* in, T* out, T* blockSums, std::int64_t n,
                           const T& init = identityOf<OP, T>(), cudaStream_t stream = 0,
                           const OP& op = OP()) {
    cudaStream_t s = stream;
    const bool own = s == nullptr || s == cudaStreamLegacy;
    if (own) SIEVE_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    cudaGraph_t g = nullptr;
    try {
      SIEVE_CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
      try {
        enqueue<T, OP, Inclusive>(in, out, blockSums, n, init, s, op);
      } catch (...) {
        cudaGraph_t discard = nullptr;
        if (cudaStreamEndCapture(s, &discard) == cudaSuccess && discard) cudaGraphDestroy(discard);
        throw;
      }
      SIEVE_CUDA_CHECK(cudaStreamEndCapture(s, &g));
    } catch (...) {
      if (own) cudaStreamDestroy(s);
      throw;
    }
    if (own) SIEVE_CUDA_CHECK(cudaStreamDestroy(s));
    return g;
  }

  /// Capture, instantiate and launch on `stream`, then wait for it. Blocking.
  template <class T, class OP, bool Inclusive>
  static void launch(const T* in, T* out, T* blockSums, std::int64_t n,
                     const T& init = identityOf<OP, T>(), cudaStream_t stream = 0,
                     const OP& op = OP()) {
    cudaGraph_t g = graph<T, OP, Inclusive>(in, out, blockSums, n, init, stream, op);
    cudaGraphExec_t e = nullptr;
    cudaError_t err = cudaGraphInstantiate(&e, g, 0);
    if (err == cudaSuccess) err = cudaGraphLaunch(e, stream);
    if (err == cudaSuccess) err = cudaStreamSynchronize(stream);
    if (e) cudaGraphExecDestroy(e);
    cudaGraphDestroy(g);
    Impl::cudaCheck(err, "cuda::Scan::launch");
  }

  /// graph() of an inclusive scan.
  template <class T, class OP>
  static cudaGraph_t inclusiveGraph(const T* in, T* out, T* blockSums, std::int64_t n,
                                    const T& init = identityOf<OP, T>(), cudaStream_t stream = 0,
                                    const OP& op = OP()) {
    return graph<T, OP, true>(in, out, blockSums, n, init, stream, op);
  }
  /// graph() of an exclusive scan.
  template <class T, class OP>
  static cudaGraph_t exclusiveGraph(const T* in, T* out, T* blockSums, std::int64_t n,
                                    const T& init = identityOf<OP, T>(), cudaStream_t stream = 0,
                                    const OP& op = OP()) {
    return graph<T, OP, false>(in, out, blockSums, n, init, stream, op);
  }
  /// launch() of an inclusive scan (blocking).
  template <class T, class OP>
  static void inclusive(const T* in, T* out, T* blockSums, std::int64_t n,
                        const T& init = identityOf<OP, T>(), cudaStream_t stream = 0,
                        const OP& op = OP()) {
    launch<T, OP, true>(in, out, blockSums, n, init, stream, op);
  }
  /// launch() of an exclusive scan (blocking).
  template <class T, class OP>
  static void exclusive(const T* in, T* out, T* blockSums, std::int64_t n,
                        const T& init = identityOf<OP, T>(), cudaStream_t stream = 0,
                        const OP& op = OP()) {
    launch<T, OP, false>(in, out, blockSums, n, init, stream, op);
  }

 private:
  template <class T, class OP, bool Inclusive>
  static void levels(const T* in, T* out, std::int64_t len, T* sums, const T& init,
                     cudaStream_t stream, const OP& op) {
    using namespace Impl;
    constexpr std::int64_t tile = Tuning::Cuda::kScanTile<T>;
    if (len <= tile) {
      Impl::launch(scanTilesKernel<T, OP, Inclusive>, 1u, stream, "sieve::cuda::Scan (tile)", in,
                   out, len, static_cast<const T*>(nullptr), init, op);
      return;
    }
    const unsigned tiles = Geometry::blocksFor(len, tile);
    Impl::launch(scanTotalsKernel<T, OP>, tiles, stream, "sieve::cuda::Scan (totals)", in, len,
                 sums, op);
    levels<T, OP, false>(sums, sums, tiles, sums + tiles, init, stream, op);
    Impl::launch(scanTilesKernel<T, OP, Inclusive>, tiles, stream, "sieve::cuda::Scan (tiles)", in,
                 out, len, static_cast<const T*>(sums), init, op);
  }
};

} // namespace cuda
} // namespace sieve
