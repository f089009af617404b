// SPDX-License-Identifier: Apache-2.0
// Sieve — cuda::DenseScatter: the stable counting scatter of records by a
// dense bucket number on a CUDA device (keys::scatter_dense's native face on
// Kokkos::Cuda). Header-only CUDA (the record reader and the bucket of a
// record are the caller's device functors): include it from a translation
// unit nvcc compiles.
//
// The passes (core/radix.hpp, DenseScatterDeviceLayout), as CUB's Onesweep:
// 0. count: one read of the records counts the digits of every pass at once
//    (block histograms in shared memory, then 64-bit totals per pass and
//    digit). A bucket outside [0, buckets) is counted in status[0] and
//    closes every gate: every later kernel is then a no-op (nothing is
//    written).
// 1. one sweep per 8-bit digit, least significant first, each a stable
//    counting scatter of the previous pass's output: a block takes the next
//    tile of 2048 records (a tile counter: tiles start in order, so the
//    look-back below always waits on started tiles), each warp ranks its
//    8 x 32 records (ballots, then the warp's running count of that digit, in
//    shared memory), the block turns the warps' counts into per-warp bases
//    (one thread per digit) and publishes its count of digit d; thread d
//    then folds the counts of digit d of the tiles before (decoupled
//    look-back, one chain per digit) and publishes the inclusive count. Every
//    record goes to digitStart(d) + prefix(d, tile) + base(warp, d) + rank:
//    records of up to 16 bytes through shared memory, where the tile is laid
//    out in digit order first (so that a warp's stores fill runs of slots,
//    not 32 scattered ones), larger ones straight from registers. Stable:
//    equal digits keep record order, so after the last pass the records are
//    ordered by bucket and, within a bucket, by record.
// After the last pass, offsets: offsets[b] = the first slot of bucket b,
// from the buckets of neighbouring output records (every b in
// (bucket(i - 1), bucket(i)] gets i; long runs of empty buckets by binary
// search), offsets[buckets] = n.
// A record whose digit differs between the count and a sweep (an impure
// functor) is counted in status[1] where it overfills its digit's range (not
// written: never past the range) or, in the last tile, where a digit's
// range is left short, and closes the gates of the later kernels (the output
// is then incomplete; the later passes and the offsets do not run). A
// bucket that changes only after the last sweep is counted where it breaks
// the output's order. Gate p is written only by kernels before pass p's, so
// every block of a sweep reads the same gate: none leaves a chain unfinished.
#pragma once

#include <sieve/core/layout.hpp>
#include <sieve/core/radix.hpp>
#include <sieve/core/state.hpp>
#include <sieve/core/tuning.hpp>
#include <sieve/core/types.hpp>
#include <sieve/core/validate.hpp>
#include <sieve/native/cuda/impl/block.cuh>
#include <sieve/native/cuda/impl/launch.cuh>
#include <sieve/native/cuda/impl/lookback.cuh>

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

namespace sieve {
namespace Impl {
namespace DenseDevice {

using Layout = DenseScatterDeviceLayout;
inline constexpr unsigned kItems = Tuning::Cuda::kDenseScatterItems;
inline constexpr std::int64_t kTile = Tuning::Cuda::kDenseScatterTile;
inline constexpr unsigned kBins = static_cast<unsigned>(Layout::kBins);
/// The digit of a record that is not written (past n, or outside the range).
inline constexpr unsigned kNoDigit = kBins;
static_assert(Tuning::Cuda::kBlock == kBins, "sieve: the dense scatter runs one thread per digit");
static_assert(kTile == std::int64_t(Tuning::Cuda::kWarps) * 32 * kItems,
              "sieve: a dense scatter tile is kItems records for each thread");

/// Whether a pass stages its records in shared memory before writing them
/// (Tuning::Cuda::kDenseScatterStageBytes).
template <class Rec>
inline constexpr bool kStaged = sizeof(Rec) <= Tuning::Cuda::kDenseScatterStageBytes;
/// The staging area of a tile, in 16-byte chunks (a trivial type: __shared__
/// takes no constructor).
struct alignas(16) StageChunk {
  unsigned char bytes[16];
};
template <class Rec>
inline constexpr std::size_t kStageChunks =
    kStaged<Rec> ? (static_cast<std::size_t>(kTile) * sizeof(Rec) + 15u) / 16u : 1u;
/// A staged sweep block's static shared memory: the staged records and
/// their digits, the warps' digit counts, the starts, allowed counts and
/// first slots of the digits, the warp totals (32- and 64-bit), the gate
/// word and the tile number.
inline constexpr std::size_t kStagedSharedBytes =
    static_cast<std::size_t>(kTile) * (Tuning::Cuda::kDenseScatterStageBytes + 1u) +
    std::size_t(Tuning::Cuda::kWarps) * kBins * 4u + kBins * (8u + 4u + 4u) +
    Tuning::Cuda::kWarps * (4u + 8u) + 4u + 8u;
static_assert(kStagedSharedBytes + 64u <= 48u * 1024u,
              "sieve: a staged dense scatter block must fit 48 KiB of static shared memory "
              "(Tuning::Cuda::kDenseScatterItems x kDenseScatterStageBytes)");

/// The resident blocks a sweep over Reader's records is built for
/// (__launch_bounds__): Tuning::Cuda::kDenseScatterBlocksPerSm where the
/// records are staged (up to 85 registers a thread: no spills); one for
/// larger records, which a thread keeps in registers (kItems of them).
template <class Reader>
inline constexpr int kSweepMinBlocks =
    kStaged<std::decay_t<decltype(std::declval<const Reader&>()(std::int64_t(0)))>>
        ? Tuning::Cuda::kDenseScatterBlocksPerSm
        : 1;

/// Reads record i of a plane (the passes after the first).
template <class Rec>
struct PlaneReader {
  const Rec* p;
  __device__ __forceinline__ Rec operator()(std::int64_t i) const { return p[i]; }
};
/// Writes a record to slot `at` of a plane.
template <class Rec>
struct PlaneWriter {
  Rec* p;
  __device__ __forceinline__ void operator()(std::int64_t at, const Rec& r) const { p[at] = r; }
};

/// The index of the k-th record of warp `warp`'s chunk of `tile`, round j
/// (the chunk is 32 x kItems consecutive records, read 32 at a time).
__device__ __forceinline__ std::int64_t recordIndex(std::int64_t tile, unsigned warp, unsigned j,
                                                    unsigned lane) {
  return tile * kTile + std::int64_t(warp) * (32 * kItems) + std::int64_t(j) * 32 + lane;
}

/// The lanes of the warp whose digit (< 2^9) equals this lane's, from nine
/// ballots, one per bit (every lane calls it), as CUB ranks its radix
/// digits, rather than __match_any_sync (its history: docs/tuning.md).
__device__ __forceinline__ unsigned matchDigit(unsigned d) {
  unsigned m = kFullWarp;
#pragma unroll
  for (unsigned b = 0; b < 9u; ++b) {
    const bool bit = ((d >> b) & 1u) != 0u;
    const unsigned vote = __ballot_sync(kFullWarp, bit);
    m &= bit ? vote : ~vote;
  }
  return m;
}

/// Open every gate, zero the tile counters and the status words.
/// (A template: defined in this header, once per program.)
template <int = 0>
__global__ void startKernel(std::uint32_t* gates, std::uint32_t* counters, std::int64_t* status) {
  const unsigned t = threadIdx.x;
  if (blockIdx.x != 0) return;
  if (t <= unsigned(Layout::kMaxPasses)) gates[t] = 1u;
  if (t < unsigned(Layout::kMaxPasses)) counters[t] = 0u;
  if (t < 2u) status[t] = 0;
}

/// Close the gates of every kernel from pass `from` on (and the offsets').
__device__ __forceinline__ void closeGates(std::uint32_t* gates, int from) {
  for (int q = from; q <= Layout::kMaxPasses; ++q) atomicExch(&gates[q], 0u);
}

/// The digit totals of every pass, from one read of the records: totals[p x
/// kBins + d] += the records whose bucket has digit d at pass p. A bucket
/// above maxBucket is counted in status[0] and closes every gate. A block
/// takes tiles blockIdx.x, + gridDim.x, ... (Geometry::countBlocks: at most
/// kCountTilesPerBlock tiles, so its 32-bit shared counts cannot overflow).
template <class Reader, class BucketOf>
__global__ void __launch_bounds__(Tuning::Cuda::kBlock)
    countKernel(Reader read, BucketOf bucketOf, std::int64_t n, std::uint64_t maxBucket, int passes,
                std::int64_t tiles, unsigned long long* totals, std::uint32_t* gates,
                std::int64_t* status) {
  __shared__ std::uint32_t hist[Layout::kMaxPasses][kBins];
  const unsigned t = threadIdx.x;
#pragma unroll
  for (int p = 0; p < Layout::kMaxPasses; ++p) hist[p][t] = 0u;
  __syncthreads();
  std::int64_t outside = 0;
  for (std::int64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    for (unsigned j = 0; j < kItems; ++j) {
      const std::int64_t i = tile * kTile + std::int64_t(j) * Tuning::Cuda::kBlock + t;
      if (i >= n) break;
      const auto b = static_cast<std::uint64_t>(bucketOf(read(i)));
      if (b > maxBucket) {
        ++outside;
        continue;
      }
#pragma unroll
      for (int p = 0; p < Layout::kMaxPasses; ++p)
        if (p < passes)
          atomicAdd(&hist[p][static_cast<unsigned>(b >> (Layout::kDigitBits * p)) & (kBins - 1u)],
                    1u);
    }
  }
  __syncthreads();
  for (int p = 0; p < passes; ++p)
    if (hist[p][t] != 0u)
      atomicAdd(&totals[std::int64_t(p) * kBins + t], static_cast<unsigned long long>(hist[p][t]));
  if (outside > 0) {
    atomicAdd(reinterpret_cast<unsigned long long*>(status),
              static_cast<unsigned long long>(outside));
    closeGates(gates, 0);
  }
}

/// What one sweep reads and writes besides the records: the shape, its
/// digit (`shift`) and pass number, the pass's digit totals, its look-back
/// words [tile][digit] and the next pass's (cleared here; null for the last
/// pass), its tile counter, the gates and the status words.
struct SweepArgs {
  std::int64_t n;
  std::uint64_t maxBucket;
  int shift, pass;
  std::int64_t tiles;
  const unsigned long long* totals;
  unsigned long long* chain;
  unsigned long long* next;
  std::uint32_t* counter;
  std::uint32_t* gates;
  std::int64_t* status;
};

/// One pass: the stable scatter of the records `read` gives by the digit at
/// `shift` through `write(slot, record)`, each tile's ranges chained to the
/// tiles before it by look-back over the digit counts.
template <class Reader, class BucketOf, class Writer>
__global__ void __launch_bounds__(Tuning::Cuda::kBlock, kSweepMinBlocks<Reader>)
    sweepKernel(Reader read, BucketOf bucketOf, Writer write, SweepArgs a) {
  using Rec = std::decay_t<decltype(read(std::int64_t(0)))>;
  __shared__ std::uint32_t warpCount[Tuning::Cuda::kWarps][kBins];
  __shared__ std::int64_t start[kBins];
  __shared__ std::uint32_t allowed[kBins];
  __shared__ unsigned long long totalsWarp[Tuning::Cuda::kWarps];
  __shared__ std::uint32_t open;
  __shared__ std::int64_t tileOf;
  const unsigned t = threadIdx.x, lane = t & 31u, warp = t >> 5;
  // Gate p is written only by the kernels before this one: every block
  // reads the same value (all of them run their tile, or none does).
  if (t == 0u) {
    open = *static_cast<volatile const std::uint32_t*>(a.gates + a.pass);
    tileOf = open != 0u ? static_cast<std::int64_t>(atomicAdd(a.counter, 1u)) : 0;
  }
  for (unsigned w = 0; w < Tuning::Cuda::kWarps; ++w) warpCount[w][t] = 0u;
  __syncthreads();
  if (open == 0u) return; // block-uniform
  const std::int64_t tile = tileOf;
  if (a.next != nullptr) a.next[tile * kBins + t] = 0ull; // the next pass's words, cleared
  const unsigned below = (1u << lane) - 1u;
  std::int64_t changed = 0;
  Rec rec[kItems];
  unsigned digit[kItems], rank[kItems];
#pragma unroll
  for (unsigned j = 0; j < kItems; ++j) {
    const std::int64_t i = recordIndex(tile, warp, j, lane);
    unsigned d = kNoDigit;
    if (i < a.n) {
      rec[j] = read(i);
      const auto b = static_cast<std::uint64_t>(bucketOf(rec[j]));
      if (b <= a.maxBucket) d = static_cast<unsigned>(b >> a.shift) & (kBins - 1u);
      else ++changed; // inside the range when counted
    }
    const unsigned peers = matchDigit(d);
    const std::uint32_t before = d != kNoDigit ? warpCount[warp][d] : 0u;
    __syncwarp();
    if (d != kNoDigit && (peers & below) == 0u)
      warpCount[warp][d] = before + static_cast<std::uint32_t>(__popc(peers));
    __syncwarp();
    digit[j] = d;
    rank[j] = before + static_cast<std::uint32_t>(__popc(peers & below));
  }
  __syncthreads();
  // Thread t, digit t: each warp's base among the tile's records of digit t.
  std::uint32_t run = 0;
  for (unsigned w = 0; w < Tuning::Cuda::kWarps; ++w) {
    const std::uint32_t c = warpCount[w][t];
    warpCount[w][t] = run;
    run += c;
  }
  // The tile's count of digit t, published before anything else so the
  // tiles after it can fold it (tile 0's is already inclusive).
  const TileStatus::PackedStatus chain{a.chain};
  const std::int64_t word = tile * kBins + t;
  chain.publish(word, tile == 0 ? TileStatus::kInclusive : TileStatus::kAggregate, run);
  // Where digit t starts in the output: after every smaller digit's total.
  const unsigned long long total = a.totals[t];
  const unsigned long long digitStart = blockInclusive(total, Sum{}, totalsWarp) - total;
  const unsigned long long prefix =
      tile > 0 ? TileStatus::chainPrefix(chain, tile, kBins, t) : 0ull;
  if (tile > 0) chain.publish(word, TileStatus::kInclusive, prefix + run);
  // The slots of digit t left for this tile (fewer than its records where
  // more of the digit came than were counted: those are not written).
  const unsigned long long left = prefix < total ? total - prefix : 0ull;
  allowed[t] = run < left ? run : static_cast<std::uint32_t>(left);
  start[t] = static_cast<std::int64_t>(digitStart + prefix);
  if (tile == a.tiles - 1 && prefix + run < total)
    changed += static_cast<std::int64_t>(total - (prefix + run)); // slots no record fills
  // Records of up to kDenseScatterStageBytes: the tile's records in digit
  // order (stable) in shared memory first, then written slot by slot, so
  // that neighbouring threads write neighbouring slots of a digit's range
  // and a warp's stores coalesce into runs. Larger records: straight from
  // registers. (The staging arrays are one element for those.)
  constexpr bool staged = kStaged<Rec>;
  __shared__ StageChunk stageMem[kStageChunks<Rec>];
  __shared__ std::uint8_t stageDigit[staged ? kTile : 1];
  __shared__ std::uint32_t firstOf[staged ? kBins : 1];
  __shared__ std::uint32_t totals[Tuning::Cuda::kWarps];
  static_assert(kBins <= 256u, "sieve: a staged digit is one byte");
  Rec* stage = reinterpret_cast<Rec*>(stageMem);
  std::uint32_t found = 0;
  if constexpr (staged) {
    const std::uint32_t incl = blockInclusive(run, Sum{}, totals);
    firstOf[t] = incl - run; // where digit t starts among the tile's records
    found = totals[Tuning::Cuda::kWarps - 1u];
  }
  __syncthreads();
#pragma unroll
  for (unsigned j = 0; j < kItems; ++j) {
    const unsigned d = digit[j];
    if (d == kNoDigit) continue;
    const std::uint32_t local = warpCount[warp][d] + rank[j];
    if constexpr (staged) {
      if (local >= allowed[d]) ++changed;          // more of this digit than counted: not written
      const std::uint32_t at = firstOf[d] + local; // < found <= kTile
      stage[at] = rec[j];
      stageDigit[at] = static_cast<std::uint8_t>(d);
    } else {
      if (local < allowed[d]) write(start[d] + local, rec[j]);
      else ++changed; // more records of this digit than counted: never past its range
    }
  }
  if constexpr (staged) {
    __syncthreads();
    for (std::uint32_t k = t; k < found; k += Tuning::Cuda::kBlock) {
      const unsigned d = stageDigit[k];
      const std::uint32_t local = k - firstOf[d];
      if (local < allowed[d]) write(start[d] + local, stage[k]); // never past its range
    }
  }
  if (changed > 0) {
    // The output is incomplete: the passes after this one and the offsets
    // (which would read slots never written) do not run.
    atomicAdd(reinterpret_cast<unsigned long long*>(a.status + 1),
              static_cast<unsigned long long>(changed));
    closeGates(a.gates, a.pass + 1);
  }
}

/// The offsets, from the ordered output, in parallel over records and over
/// buckets: first every offset is marked (-1); then record i writes
/// offsets[b] = i for every b in (bucket(i - 1), bucket(i)] when that run of
/// buckets is short (bucket(-1) = -1, bucket(n) = buckets); last every bucket
/// still marked (inside a long run of empty buckets) finds its offset by a
/// binary search of the output. O(n + buckets) work, no run serial past
/// kShortGap buckets. Records out of order (a bucket that changed after the
/// scatter) are counted in status[1]; every offset is written, in [0, n].
inline constexpr std::int64_t kShortGap = Tuning::Cuda::kOffsetsShortGap;

template <class Rec, class BucketOf>
__device__ __forceinline__ std::int64_t bucketAt(const Rec* out, const BucketOf& bucketOf,
                                                 std::int64_t i, std::int64_t n,
                                                 std::int64_t buckets) {
  if (i >= n) return buckets;
  const auto b = static_cast<std::uint64_t>(bucketOf(out[i]));
  return b < static_cast<std::uint64_t>(buckets) ? static_cast<std::int64_t>(b) : buckets;
}

template <int = 0>
__global__ void __launch_bounds__(Tuning::Cuda::kBlock)
    markOffsetsKernel(std::int64_t* offsets, std::int64_t buckets, const std::uint32_t* gate) {
  if (!blockGateOpen(gate)) return;
  for (std::int64_t b = globalIndex(); b <= buckets; b += gridStride()) offsets[b] = -1;
}

template <class Rec, class BucketOf>
__global__ void __launch_bounds__(Tuning::Cuda::kBlock)
    runOffsetsKernel(const Rec* out, BucketOf bucketOf, std::int64_t n, std::int64_t buckets,
                     std::int64_t* offsets, const std::uint32_t* gate, std::int64_t* status) {
  if (!blockGateOpen(gate)) return;
  std::int64_t changed = 0;
  for (std::int64_t i = globalIndex(); i <= n; i += gridStride()) {
    const std::int64_t hi = bucketAt(out, bucketOf, i, n, buckets);
    if (i < n && hi == buckets) ++changed; // in range when counted and scattered
    const std::int64_t lo = i > 0 ? bucketAt(out, bucketOf, i - 1, n, buckets) : -1;
    if (hi < lo) {
      ++changed; // out of order: a bucket changed after the scatter
      continue;
    }
    if (hi == lo) continue;
    offsets[hi] = i;
    if (hi - lo <= kShortGap)
      for (std::int64_t b = lo + 1; b < hi; ++b) offsets[b] = i;
  }
  if (changed > 0)
    atomicAdd(reinterpret_cast<unsigned long long*>(status + 1),
              static_cast<unsigned long long>(changed));
}

template <class Rec, class BucketOf>
__global__ void __launch_bounds__(Tuning::Cuda::kBlock)
    gapOffsetsKernel(const Rec* out, BucketOf bucketOf, std::int64_t n, std::int64_t buckets,
                     std::int64_t* offsets, const std::uint32_t* gate) {
  if (!blockGateOpen(gate)) return;
  for (std::int64_t b = globalIndex(); b <= buckets; b += gridStride()) {
    if (offsets[b] != -1) continue;
    std::int64_t lo = 0, hi = n; // the first i with bucket(i) >= b
    while (lo < hi) {
      const std::int64_t mid = lo + (hi - lo) / 2;
      if (bucketAt(out, bucketOf, mid, n, buckets) < b) lo = mid + 1;
      else hi = mid;
    }
    offsets[b] = lo;
  }
}

/// The regions every pass uses (DenseScatterDeviceLayout: the gates and
/// tile counters, the digit totals, the two look-back regions), the call's
/// status words and its shape: n records, buckets in [0, maxBucket], sorted
/// in `passes` 8-bit digits.
struct Passes {
  std::int64_t n;
  std::uint64_t maxBucket;
  int passes;
  std::int64_t tiles, cells;
  std::uint32_t* gates;
  std::uint32_t* counters;
  unsigned long long* totals;
  unsigned long long* chain[2];
  std::int64_t* status;

  /// Carved from the 64-byte aligned base of `scratch`.
  static Passes carve(void* scratch, std::int64_t n, std::uint64_t maxBucket, int passes,
                      std::int64_t* status) {
    auto* base = static_cast<unsigned char*>(scratch);
    base += (64u - reinterpret_cast<std::uintptr_t>(base) % 64u) % 64u;
    return Passes{n,
                  maxBucket,
                  passes,
                  Layout::tiles(n),
                  Layout::passCells(n),
                  reinterpret_cast<std::uint32_t*>(base + Layout::gates()),
                  reinterpret_cast<std::uint32_t*>(base + Layout::counters()),
                  reinterpret_cast<unsigned long long*>(base + Layout::totals()),
                  {reinterpret_cast<unsigned long long*>(base + Layout::chainA()),
                   reinterpret_cast<unsigned long long*>(base + Layout::chainB(n))},
                  status};
  }
  /// The first byte after the pass regions (64-byte aligned).
  static unsigned char* end(void* scratch, std::int64_t n) {
    auto* base = static_cast<unsigned char*>(scratch);
    base += (64u - reinterpret_cast<std::uintptr_t>(base) % 64u) % 64u;
    return base + Layout::records(n);
  }

  /// The gate of the kernels after the last pass (the offsets').
  const std::uint32_t* offsetsGate() const { return gates + passes; }

  /// Open the gates, clear the status words, the tile counters, the digit
  /// totals and the first pass's look-back words, then count every pass's
  /// digits in one read of the records `read` gives (buckets above
  /// maxBucket: status[0], every gate closed).
  template <class Reader, class BucketOf>
  void start(const Reader& read, const BucketOf& bucketOf, cudaStream_t stream) const {
    constexpr const char* what = "sieve::cuda (passes: count)";
    launch(startKernel<>, 1u, stream, what, gates, counters, status);
    const std::int64_t words = Layout::clearedWords(n);
    launch(TileStatus::clearWordsKernel<unsigned long long>, Geometry::moveBlocks(words), stream,
           what, totals, words, static_cast<const std::uint32_t*>(nullptr));
    launch(countKernel<Reader, BucketOf>, Geometry::countBlocks(tiles), stream, what, read,
           bucketOf, n, maxBucket, passes, tiles, totals, gates, status);
  }

  /// Pass p (< passes): the stable sweep by the digit at 8p, one kernel.
  template <class Reader, class BucketOf, class Writer>
  void pass(const Reader& read, const BucketOf& bucketOf, const Writer& write, int p,
            cudaStream_t stream, const char* what) const {
    const SweepArgs a{n,
                      maxBucket,
                      Layout::kDigitBits * p,
                      p,
                      tiles,
                      totals + std::int64_t(p) * kBins,
                      chain[p % 2],
                      p + 1 < passes ? chain[(p + 1) % 2] : nullptr,
                      counters + p,
                      gates,
                      status};
    launch(sweepKernel<Reader, BucketOf, Writer>, static_cast<unsigned>(tiles), stream, what, read,
           bucketOf, write, a);
  }
};

} // namespace DenseDevice
} // namespace Impl

namespace cuda {

/// The native CUDA dense scatter (device memory; header-only: the caller's
/// functors are compiled into its kernels).
struct DenseScatter {
  /// Device scratch bytes of enqueue (core/radix.hpp): 16 KiB of digit
  /// totals, 4 KiB of look-back words per 2048 records, and a plane of n
  /// records above 256 buckets.
  static std::size_t scratchBytes(std::int64_t n, std::int64_t buckets, std::size_t recordBytes) {
    return dense_scatter_device_scratch_bytes(n, buckets, recordBytes);
  }

  /// Enqueue on `stream` the stable scatter of the n records `recOf(i)`
  /// (i in [0, n); a device functor returning a trivially copyable Rec) by
  /// bucket `bucketOf(rec)` (a device functor; an integer in [0, buckets))
  /// into out[0, n): ordered by bucket, records of one bucket in the order
  /// of i (the same bytes as a sequential counting sort), and offsets[b] =
  /// the first slot of bucket b, offsets[buckets] = n. status[0] = the
  /// records whose bucket lies outside [0, buckets) — then nothing is written
  /// to out or offsets; status[1] > 0 where a bucket differed between the
  /// reads so that a digit's count changed (it counts the slots overfilled
  /// or left short, and records that left the range; two records that
  /// swap digits move no count and place every record once): then the
  /// output is incomplete, never written outside, and where a sweep found it
  /// the later passes and the offsets do not run. out (aligned to its records) must not overlap the
  /// records recOf reads; Rec's alignment is at most 64 bytes. Kernels only (one count of every
  /// pass's digits, one sweep for each of the ceil(log2(buckets) / 8) passes, then the offsets):
  /// nothing allocated, synchronised or read back, so it may be captured into a CUDA graph.
  /// O(passes x n + buckets); does not block. Throws std::invalid_argument
  /// (nothing enqueued) for n < 0 or above kDenseScatterDeviceMaxRecords,
  /// buckets outside [1, 2^62], a null out (n > 0), offsets, status or
  /// scratch, a misaligned out, offsets or status, a
  /// scratch smaller than scratchBytes(n, buckets, sizeof(Rec)), or out /
  /// offsets / status / scratch sharing a byte; std::runtime_error if a
  /// launch fails.
  template <class Rec, class RecOf, class BucketOf>
  static void enqueue(const RecOf& recOf, std::int64_t n, const BucketOf& bucketOf,
                      std::int64_t buckets, Rec* out, std::int64_t* offsets, std::int64_t* status,
                      void* scratch, std::size_t scratchBytes, cudaStream_t stream = 0) {
    static_assert(std::is_trivially_copyable_v<Rec> && std::is_default_constructible_v<Rec>,
                  "sieve::cuda::DenseScatter moves trivially copyable, default-constructible "
                  "records");
    static_assert(alignof(Rec) <= 64,
                  "sieve::cuda::DenseScatter: the record plane in the scratch is 64-byte aligned");
    static_assert(std::is_same_v<std::decay_t<decltype(recOf(std::int64_t(0)))>, Rec>,
                  "sieve::cuda::DenseScatter: recOf(i) must return the output's record type");
    constexpr const char* fn = "sieve::cuda::DenseScatter::enqueue";
    const std::size_t need = DenseScatter::scratchBytes(n, buckets, sizeof(Rec));
    Impl::checkDenseScatterDevice(fn, n, buckets, out, sizeof(Rec), alignof(Rec), offsets, status,
                                  scratch, scratchBytes, need);
    namespace D = Impl::DenseDevice;
    const int passes = D::Layout::passes(buckets);
    const auto run =
        D::Passes::carve(scratch, n, static_cast<std::uint64_t>(buckets - 1), passes, status);
    auto* plane = reinterpret_cast<Rec*>(D::Passes::end(scratch, n));
    // Ping-pong so that the last pass writes `out`.
    const auto dst = [&](int p) { return (passes - 1 - p) % 2 == 0 ? out : plane; };
    constexpr const char* what = "sieve::cuda::DenseScatter (pass)";
    run.start(recOf, bucketOf, stream);
    for (int p = 0; p < passes; ++p) {
      if (p == 0) run.pass(recOf, bucketOf, D::PlaneWriter<Rec>{dst(p)}, p, stream, what);
      else
        run.pass(D::PlaneReader<Rec>{dst(p - 1)}, bucketOf, D::PlaneWriter<Rec>{dst(p)}, p, stream,
                 what);
    }
    const auto* g = run.offsetsGate();
    const auto* o = static_cast<const Rec*>(out);
    constexpr const char* offs = "sieve::cuda::DenseScatter (offsets)";
    Impl::launch(D::markOffsetsKernel<>, Impl::Geometry::moveBlocks(buckets + 1), stream, offs,
                 offsets, buckets, g);
    Impl::launch(D::runOffsetsKernel<Rec, BucketOf>, Impl::Geometry::moveBlocks(n + 1), stream,
                 offs, o, bucketOf, n, buckets, offsets, g, status);
    Impl::launch(D::gapOffsetsKernel<Rec, BucketOf>, Impl::Geometry::moveBlocks(buckets + 1),
                 stream, offs, o, bucketOf, n, buckets, offsets, g);
  }
};

} // namespace cuda
} // namespace sieve
