// SPDX-License-Identifier: Apache-2.0
// Sieve — cuda::Scan, the native CUDA prefix scan (header-only: nvcc).
//
// Inclusive: out[i] = init (+) in[0] (+) ... (+) in[i]; exclusive: out[0] =
// init, out[i] = init (+) in[0] (+) ... (+) in[i-1], for any arithmetic T (up to
// 8 bytes) and associative OP callable on the device. Unseeded inclusive (no
// init, as std::inclusive_scan(first, last, d, op)): out[i] = in[0] (+) ...
// (+) in[i], the same folds with init left out.
//
// Two algorithms over tiles of Tuning::Cuda::kScanTile<T> elements, both
// scanning a tile with warp-shuffle block scans, loads and stores coalesced
// through shared memory; in == out is allowed:
// - 4- and 8-byte integers under Sum, Min or Max: a single pass, the tiles chained
//   by decoupled look-back (impl/lookback.cuh): one read and one write of the
//   data. Those operators are exact, so the bits do not depend on the order
//   the look-back folds in.
// - everything else: reduce-then-scan: tile totals, an exclusive scan of the
//   totals (the same algorithm, one level up, until one tile remains), then
//   every tile scanned from its prefix. The association order depends on n
//   only, so floating-point results are identical run to run (a look-back
//   scan's would not be).
#pragma once

#include <sieve/core/layout.hpp>
#include <sieve/core/tuning.hpp>
#include <sieve/core/types.hpp>
#include <sieve/core/validate.hpp>
#include <sieve/native/cuda/check.hpp>
#include <sieve/native/cuda/impl/block.cuh>
#include <sieve/native/cuda/impl/launch.cuh>
#include <sieve/native/cuda/impl/lookback.cuh>

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

namespace sieve {
namespace Impl {

/// Load tile elements [base, base + kBlock * I) of in[0, len) into shared
/// memory, coalesced; returns how many are valid. (I: items per thread,
/// Tuning::Cuda::kScanItems<T> unless given.)
template <class T, unsigned I = Tuning::Cuda::kScanItems<T>>
__device__ __forceinline__ std::int64_t loadTile(const T* in, std::int64_t len, std::int64_t base,
                                                 T* tile) {
  constexpr std::int64_t tileElems = std::int64_t(Tuning::Cuda::kBlock) * I;
  const std::int64_t valid = len - base < tileElems ? len - base : tileElems;
#pragma unroll
  for (unsigned k = 0; k < I; ++k) {
    const std::int64_t j = std::int64_t(k) * Tuning::Cuda::kBlock + threadIdx.x;
    if (j < valid) tile[j] = in[base + j];
  }
  __syncthreads();
  return valid;
}

/// The folds of this thread's row of the tile (tile[row, row + I)): part[k]
/// = row[0] (+) ... (+) row[k]; items at or past `valid` repeat the fold
/// before them (a thread past `valid` folds tile[0]).
template <class T, class Op, unsigned I>
__device__ __forceinline__ void rowFolds(const T* tile, std::int64_t valid, const Op& op,
                                         T (&part)[I]) {
  const std::int64_t row = std::int64_t(threadIdx.x) * I;
  part[0] = tile[row < valid ? row : 0];
#pragma unroll
  for (unsigned k = 1; k < I; ++k)
    part[k] = row + k < valid ? op(part[k - 1], tile[row + k]) : part[k - 1];
}

/// Write the scanned tile to out[base, base + valid): this thread's row from
/// `start` (the fold of everything before the row, init included) into the
/// shared tile, then the tile out, coalesced. The caller has synchronised
/// after the last read of the tile. `fromFirst`: nothing is before the row
/// (the first row of an unseeded scan): the row's folds are its own (start
/// unused; the exclusive slot 0 gets a placeholder, the row's first item).
template <bool Inclusive, class T, class Op, unsigned I>
__device__ __forceinline__ void storeTile(T* tile, T* out, std::int64_t base, std::int64_t valid,
                                          const T (&part)[I], const T& start, const Op& op,
                                          bool fromFirst = false) {
  const std::int64_t row = std::int64_t(threadIdx.x) * I;
  if (row < valid) {
    if constexpr (Inclusive) {
#pragma unroll
      for (unsigned k = 0; k < I; ++k)
        if (row + k < valid) tile[row + k] = fromFirst ? part[k] : op(start, part[k]);
    } else {
      tile[row] = fromFirst ? part[0] : start;
#pragma unroll
      for (unsigned k = 1; k < I; ++k)
        if (row + k < valid) tile[row + k] = fromFirst ? part[k - 1] : op(start, part[k - 1]);
    }
  }
  __syncthreads();
#pragma unroll
  for (unsigned k = 0; k < I; ++k) {
    const std::int64_t j = std::int64_t(k) * Tuning::Cuda::kBlock + threadIdx.x;
    if (j < valid) out[base + j] = tile[j];
  }
}

/// totals[b] = fold of tile b of in[0, len) (reduce-then-scan, first pass).
template <class T, class Op>
__global__ void __launch_bounds__(Tuning::Cuda::kBlock)
    scanTotalsKernel(const T* in, std::int64_t len, T* totals, Op op, const std::uint32_t* gate) {
  constexpr unsigned I = Tuning::Cuda::kScanItems<T>;
  constexpr std::int64_t tileElems = Tuning::Cuda::kScanTile<T>;
  __shared__ T tile[tileElems];
  __shared__ T warpTotals[Tuning::Cuda::kWarps];
  if (!blockGateOpen(gate)) return;
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
/// `init` when prefixes is null: a single tile) (reduce-then-scan, last pass).
/// Unseeded (!Seeded), tile 0 has no prefix (prefixes[0] is not read) and its
/// first row starts the fold.
template <class T, class Op, bool Inclusive, bool Seeded = true>
__global__ void __launch_bounds__(Tuning::Cuda::kBlock)
    scanTilesKernel(const T* in, T* out, std::int64_t len, const T* prefixes, T init, Op op,
                    const std::uint32_t* gate) {
  constexpr std::int64_t tileElems = Tuning::Cuda::kScanTile<T>;
  __shared__ T tile[tileElems];
  __shared__ T warpTotals[Tuning::Cuda::kWarps];
  if (!blockGateOpen(gate)) return;
  const std::int64_t base = static_cast<std::int64_t>(blockIdx.x) * tileElems;
  const std::int64_t valid = loadTile(in, len, base, tile);
  T part[Tuning::Cuda::kScanItems<T>];
  rowFolds(tile, valid, op, part);
  const T incl = blockInclusive(part[Tuning::Cuda::kScanItems<T> - 1], op, warpTotals);
  const T prev = blockPrevious(incl, warpTotals);
  const bool unseeded0 = !Seeded && blockIdx.x == 0; // the tile that starts the fold
  const T prefix = prefixes != nullptr && !unseeded0 ? prefixes[blockIdx.x] : init;
  const T start = threadIdx.x == 0 ? prefix : (unseeded0 ? prev : op(prefix, prev));
  __syncthreads(); // every row read before the tile is overwritten
  storeTile<Inclusive>(tile, out, base, valid, part, start, op, unseeded0 && threadIdx.x == 0);
}

/// Whether the single-pass scan serves T under Op: 4- and 8-byte integers
/// under Sum, Min or Max. Those are exactly associative and commutative, so
/// the look-back's folds, in whatever order the tiles publish, give the same
/// bits as any other order; floating point and other operators keep
/// reduce-then-scan, whose association order depends on n only.
template <class T, class Op>
inline constexpr bool kScanSinglePass =
    std::is_integral_v<T> && !std::is_same_v<T, bool> && (sizeof(T) == 4 || sizeof(T) == 8) &&
    (std::is_same_v<Op, Sum> || std::is_same_v<Op, Min> || std::is_same_v<Op, Max>);

/// The tile status the single pass publishes for T: one packed word (4-byte
/// values), or a flag and two values (8-byte values).
template <class T>
using ScanTileStatus =
    std::conditional_t<sizeof(T) == 8, TileStatus::WideStatus, TileStatus::PackedStatus>;

/// An integer as a tile status payload and back.
template <class T>
__device__ __forceinline__ unsigned long long payloadOf(const T& v) {
  return static_cast<unsigned long long>(static_cast<std::make_unsigned_t<T>>(v));
}
template <class T>
__device__ __forceinline__ T valueOf(unsigned long long payload) {
  return static_cast<T>(static_cast<std::make_unsigned_t<T>>(payload));
}

/// Op on payloads, for the look-back.
template <class T, class Op>
struct PayloadOp {
  Op op;
  __device__ unsigned long long operator()(unsigned long long a, unsigned long long b) const {
    return payloadOf(op(valueOf<T>(a), valueOf<T>(b)));
  }
};

/// The single-pass scan: each block takes the next tile (a dynamic tile
/// counter, so a block waits only on tiles handed out before its own), scans
/// it, and warp 0 publishes the tile's fold, looks back for the fold of every
/// tile before it (TileStatus::exclusivePrefix) and publishes the inclusive
/// fold; the tile is then written from init (+) that prefix. One read and one
/// write of the data (reduce-then-scan: two reads). `status` covers every
/// tile but the last; with one tile neither it nor the counter is read.
template <class T, class Op, bool Inclusive>
__global__ void __launch_bounds__(Tuning::Cuda::kBlock)
    scanSinglePassKernel(const T* in, T* out, std::int64_t len, std::uint32_t* tileCounter,
                         ScanTileStatus<T> status, std::int64_t tiles, T init, Op op,
                         const std::uint32_t* gate) {
  using namespace TileStatus;
  constexpr unsigned I = Tuning::Cuda::kScanSinglePassItems<T>;
  constexpr std::int64_t tileElems = Tuning::Cuda::kScanSinglePassTile<T>;
  __shared__ T tile[tileElems];
  __shared__ T warpTotals[Tuning::Cuda::kWarps];
  __shared__ long long sTile;
  __shared__ T sTotal, sPrefix;
  // Thread 0 reads the gate and, open, takes the tile: one decision a block.
  if (threadIdx.x == 0)
    sTile = !gateOpen(gate) ? tiles
            : tiles > 1     ? static_cast<long long>(atomicAdd(tileCounter, 1u))
                            : 0;
  __syncthreads();
  const std::int64_t t = sTile;
  if (t >= tiles) return; // gate closed, or a grid larger than the tiles: block-uniform
  const std::int64_t base = t * tileElems;
  const std::int64_t valid = loadTile<T, I>(in, len, base, tile);
  T part[I];
  rowFolds(tile, valid, op, part);
  const T incl = blockInclusive(part[I - 1], op, warpTotals);
  const T prev = blockPrevious(incl, warpTotals);
  if (std::int64_t(threadIdx.x) == (valid - 1) / I) sTotal = incl; // the tile's fold
  __syncthreads(); // also: every row read before the tile is overwritten
  if (threadIdx.x < 32u) {
    const unsigned lane = threadIdx.x;
    const T total = sTotal;
    T prefix = init;
    if (t > 0) {
      const bool publishes = t < tiles - 1; // nobody reads the last tile's status
      if (publishes && lane == 0u) status.publish(t, kAggregate, payloadOf(total));
      const T before = valueOf<T>(exclusivePrefix(status, t, lane, PayloadOp<T, Op>{op}));
      if (publishes && lane == 0u) status.publish(t, kInclusive, payloadOf(op(before, total)));
      prefix = op(init, before);
    } else if (tiles > 1 && lane == 0u) {
      status.publish(0, kInclusive, payloadOf(total));
    }
    if (lane == 0u) sPrefix = prefix;
  }
  __syncthreads();
  const T start = threadIdx.x == 0 ? sPrefix : op(sPrefix, prev);
  storeTile<Inclusive>(tile, out, base, valid, part, start, op);
}

/// Enqueue the scan of in[0, n) (n > 0; arguments checked by the caller) on
/// `stream`: the single-pass scan where kScanSinglePass, else
/// reduce-then-scan. Every kernel is a no-op while `gate` (a device word,
/// may be null) is 0. Kernels only: capture-safe. Unseeded (!Seeded,
/// inclusive only): the fold starts from in[0], `init` unused.
template <class T, class Op, bool Inclusive, bool Seeded = true>
void scanEnqueue(const T* in, T* out, T* sums, std::int64_t n, const T& init, cudaStream_t stream,
                 const Op& op, const std::uint32_t* gate);

} // namespace Impl

namespace cuda {

/// The native CUDA prefix scan (device memory). Every entry point takes
/// `in`, `out` (n elements; `out == in` scans in place) and `blockSums` (at
/// least n elements; blockSumsElems(n) are used), an `init` that defaults to
/// the operator's identity, a stream and the operator. enqueue's `Seeded =
/// false` (inclusive only) starts the fold from in[0] instead, as
/// std::inclusive_scan without init: out[0] = in[0], out[i] = out[i-1] (+)
/// in[i], `init` unused (pass any value), no identity needed.
/// Throws std::invalid_argument for bad arguments (nothing enqueued) and
/// std::runtime_error if a CUDA call fails.
struct Scan {
  /// Block-sum elements the scan of n may use, for any operator (at most
  /// scanScratchElems(n), and at most n): the tile totals of reduce-then-scan,
  /// or, for 4- and 8-byte integers, the single pass's tile counter and
  /// status (ScanLookBackLayout).
  template <class T>
  static std::int64_t blockSumsElems(std::int64_t n) {
    const std::int64_t totals = Impl::scanBlockSumsElems(n, Tuning::Cuda::kScanTile<T>);
    if constexpr (std::is_integral_v<T> && (sizeof(T) == 4 || sizeof(T) == 8)) {
      constexpr std::int64_t tile = Tuning::Cuda::kScanSinglePassTile<T>;
      const std::size_t bytes = sizeof(T) == 8 ? Impl::ScanLookBackLayout::wideMaxBytes(n, tile)
                                               : Impl::ScanLookBackLayout::maxBytes(n, tile);
      const auto elems = static_cast<std::int64_t>((bytes + sizeof(T) - 1) / sizeof(T));
      return elems > totals ? elems : totals;
    } else {
      return totals;
    }
  }

  /// Enqueue the full scan on `stream`: kernels only — nothing is allocated,
  /// synchronised or read back, so a caller already capturing `stream`
  /// records it into its own graph. Asynchronous. O(n).
  template <class T, class OP, bool Inclusive, bool Seeded = true>
  static void enqueue(const T* in, T* out, T* blockSums, std::int64_t n,
                      const T& init = identityOf<OP, T>(), cudaStream_t stream = 0,
                      const OP& op = OP()) {
    static_assert(std::is_arithmetic_v<T> && !std::is_same_v<T, bool> && sizeof(T) <= 8,
                  "sieve::cuda::Scan takes arithmetic types other than bool, of up to 8 bytes");
    static_assert(Inclusive || Seeded, "sieve::cuda::Scan: an exclusive scan needs an init");
    Impl::checkScan("sieve::cuda::Scan", in, out, blockSums, n, 1, 1, blockSumsElems<T>(n));
    if (n > 0)
      Impl::scanEnqueue<T, OP, Inclusive, Seeded>(in, out, blockSums, n, init, stream, op, nullptr);
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
};

} // namespace cuda
namespace Impl {

/// Reduce-then-scan over the levels of tile totals in `sums` (each level
/// seeded as the scan: unseeded, tile 0 of every level has no prefix).
template <class T, class Op, bool Inclusive, bool Seeded = true>
void scanLevels(const T* in, T* out, std::int64_t len, T* sums, const T& init, cudaStream_t stream,
                const Op& op, const std::uint32_t* gate) {
  constexpr std::int64_t tile = Tuning::Cuda::kScanTile<T>;
  if (len <= tile) {
    launch(scanTilesKernel<T, Op, Inclusive, Seeded>, 1u, stream, "sieve::cuda::Scan (tile)", in,
           out, len, static_cast<const T*>(nullptr), init, op, gate);
    return;
  }
  const unsigned tiles = Geometry::blocksFor(len, tile);
  launch(scanTotalsKernel<T, Op>, tiles, stream, "sieve::cuda::Scan (totals)", in, len, sums, op,
         gate);
  scanLevels<T, Op, false, Seeded>(sums, sums, tiles, sums + tiles, init, stream, op, gate);
  launch(scanTilesKernel<T, Op, Inclusive, Seeded>, tiles, stream, "sieve::cuda::Scan (tiles)", in,
         out, len, static_cast<const T*>(sums), init, op, gate);
}

template <class T, class Op, bool Inclusive, bool Seeded>
void scanEnqueue(const T* in, T* out, T* sums, std::int64_t n, const T& init, cudaStream_t stream,
                 const Op& op, const std::uint32_t* gate) {
  if constexpr (!Seeded && kScanSinglePass<T, Op>) {
    // Integer Sum / Min / Max from their identity: exact, the same bits as a
    // fold from in[0].
    scanEnqueue<T, Op, Inclusive, true>(in, out, sums, n, identityOf<Op, T>(), stream, op, gate);
  } else if constexpr (kScanSinglePass<T, Op>) {
    constexpr std::int64_t tile = Tuning::Cuda::kScanSinglePassTile<T>;
    const std::int64_t tiles = ScanLookBackLayout::tiles(n, tile);
    std::uint32_t* counter = nullptr;
    ScanTileStatus<T> status{};
    if (tiles > 1) {
      // The counter at the base, then the status (ScanLookBackLayout); the
      // counter and the flags (or packed words) cleared first, gated like the
      // scan. (Wide values need no clearing: each is read only after its flag.)
      const auto base = reinterpret_cast<std::uintptr_t>(sums);
      auto* bytes = reinterpret_cast<unsigned char*>(sums);
      counter = reinterpret_cast<std::uint32_t*>(bytes);
      std::size_t cleared = 0;
      if constexpr (sizeof(T) == 8) {
        const std::size_t values = ScanLookBackLayout::wideValuesOffset(n, tile, base);
        status.flags =
            reinterpret_cast<std::uint32_t*>(bytes + ScanLookBackLayout::wideFlagsOffset());
        status.aggregate = reinterpret_cast<unsigned long long*>(bytes + values);
        status.inclusive = status.aggregate + (tiles - 1);
        cleared = values;
      } else {
        status.words =
            reinterpret_cast<unsigned long long*>(bytes + ScanLookBackLayout::statusOffset(base));
        cleared = ScanLookBackLayout::bytes(n, tile, base);
      }
      const auto words = static_cast<std::int64_t>(cleared / sizeof(std::uint32_t));
      launch(TileStatus::clearWordsKernel<std::uint32_t>, Geometry::moveBlocks(words), stream,
             "sieve::cuda::Scan (clear tile words)", counter, words, gate);
    }
    launch(scanSinglePassKernel<T, Op, Inclusive>, static_cast<unsigned>(tiles), stream,
           "sieve::cuda::Scan (single pass)", in, out, n, counter, status, tiles, init, op, gate);
  } else {
    scanLevels<T, Op, Inclusive, Seeded>(in, out, n, sums, init, stream, op, gate);
  }
}

} // namespace Impl
} // namespace sieve
