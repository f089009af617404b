// SPDX-License-Identifier: Apache-2.0
// Sieve — the stable LSD radix order of 64-bit unsigned keys, described once
// for every face: the digit width and the scratch its passes ping-pong
// through. The host twin is native/host/radix.hpp (radixOrderHost).
//
// Scratch layout (radix_order_scratch_bytes(n) bytes, any alignment): from
// the first 64-byte boundary of the buffer, three 64-byte aligned planes of
// m = max(n, 1) elements each:
//   keys  m x 8 bytes  (uint64 keys between passes)
//   idxA  m x w bytes + 64 (the original index of each key, ping; it starts
//         at the line phase of `order`, its key plane)
//   idxB  m x w bytes  (pong, with the scratch's key plane)
// with w = 4 (uint32 indices) when n <= 2^32 - 1 and w = 8 otherwise (the
// internal entries Impl::radixOrderHostIndexBytes / radixOrderDeviceIndexBytes
// also run w = 8 at any n, with Impl::radixOrderScratchBytes(n, 8)). The
// second key plane a ping-pong needs is the output `order` itself (n x 8
// bytes), which the last pass overwrites with the indices. Per-thread
// histograms and write-combining buffers are not in the scratch (the face
// allocates them per call), so the rule is a function of n alone and serves
// every face and every team size.
#pragma once

#include <sieve/core/macros.hpp>
#include <sieve/core/rules.hpp>
#include <sieve/core/tuning.hpp>

#include <cstddef>
#include <cstdint>

namespace sieve {

/// Bits of one radix digit: one pass per non-constant 8-bit digit of the keys.
inline constexpr int kRadixDigitBits = Tuning::Host::kRadixDigitBits;

namespace Impl {

/// Bytes of one scratch index (uint32 when every index of n keys fits).
SIEVE_INLINE constexpr std::size_t radixIndexBytes(std::int64_t n) {
  return n > static_cast<std::int64_t>(0xFFFFFFFFu) ? 8u : 4u;
}

SIEVE_INLINE constexpr std::size_t radixRound64(std::size_t b) { return (b + 63u) / 64u * 64u; }

/// The bits that count x values: the least b with 2^b >= x (at most 63).
SIEVE_INLINE constexpr int ceilLog2(std::int64_t x) {
  int b = 0;
  while (b < 63 && (std::int64_t(1) << b) < x) ++b;
  return b;
}

/// The bit width of x: the least b with x < 2^b (0 for x = 0).
SIEVE_INLINE constexpr int bitWidth(std::uint64_t x) {
  int b = 0;
  while (b < 64 && (x >> b) != 0) ++b;
  return b;
}

/// Offsets of the three planes from the 64-byte aligned base of the scratch.
struct RadixLayout {
  SIEVE_HOST_DEVICE static constexpr std::size_t elems(std::int64_t n) {
    return static_cast<std::size_t>(n > 1 ? n : 1);
  }
  SIEVE_HOST_DEVICE static constexpr std::size_t keys(std::int64_t) { return 0; }
  SIEVE_HOST_DEVICE static constexpr std::size_t idxA(std::int64_t n) {
    return radixRound64(8u * elems(n));
  }
  /// The index planes for indices of `indexBytes` bytes (radixIndexBytes(n)
  /// unless a caller asks for the 8-byte planes below 2^32 keys).
  SIEVE_HOST_DEVICE static constexpr std::size_t idxB(std::int64_t n, std::size_t indexBytes) {
    return idxA(n) + 64u + radixRound64(indexBytes * elems(n));
  }
  SIEVE_HOST_DEVICE static constexpr std::size_t end(std::int64_t n, std::size_t indexBytes) {
    return idxB(n, indexBytes) + radixRound64(indexBytes * elems(n));
  }
  SIEVE_HOST_DEVICE static constexpr std::size_t idxB(std::int64_t n) {
    return idxB(n, radixIndexBytes(n));
  }
  SIEVE_HOST_DEVICE static constexpr std::size_t end(std::int64_t n) {
    return end(n, radixIndexBytes(n));
  }
};

/// The host radix order's first pass (radixOrderHost), described once. When
/// the keys' varying bits (those below the highest bit in which two keys
/// differ: `varyingBits` of them) span more than one 8-bit digit, the first
/// pass scatters by their top `bits` bits, bits = clamp(ceil(log2 n) -
/// kRadixTopRunBits, kRadixTopMinBits, kRadixTopMaxBits) (Tuning::Host: 12,
/// 8, 10) and at most varyingBits: runs of ~n / 2^bits keys (~4 Ki keys at
/// n = 2^20 .. 2^22; 2^10 buckets at most: what the line buffers hold). Each
/// run is then sorted by the bits below, LSD in 8-bit digits, in cache.
/// 0: the varying bits fit one 8-bit digit (LSD passes over the whole keys).
SIEVE_INLINE constexpr int radixHostTopBits(std::int64_t n, int varyingBits) {
  namespace H = Tuning::Host;
  if (varyingBits <= kRadixDigitBits) return 0;
  const int lg = Impl::ceilLog2(n) - H::kRadixTopRunBits;
  const int bits = lg < H::kRadixTopMinBits   ? H::kRadixTopMinBits
                   : lg > H::kRadixTopMaxBits ? H::kRadixTopMaxBits
                                              : lg;
  return bits < varyingBits ? bits : varyingBits;
}

/// Whether the top-digit pass pays for n keys on a team of `threads` when
/// their largest run (the keys of their most common top digit) has
/// `largestRun` keys: at most n / (kRadixTopRunShare x threads) and
/// kRadixTopMaxRun (Tuning::Host: 4, 2^18). One thread sorts a run, in cache
/// only while it is small, in planes of ~40 bytes a key of the largest one:
/// skewed keys (many equal keys, or most of them in a few top digits) and
/// uniform keys beyond ~2^28 take the LSD passes over the whole keys instead.
SIEVE_INLINE constexpr bool radixHostTopDigitPays(std::int64_t largestRun, std::int64_t n,
                                                  int threads) {
  using namespace Tuning::Host;
  const std::int64_t share =
      n / (kRadixTopRunShare * static_cast<std::int64_t>(threads > 0 ? threads : 1));
  return largestRun <= share && largestRun <= kRadixTopMaxRun;
}

/// The passes of a dense stable counting scatter into `buckets` buckets on a
/// native face (denseScatterHost): bucket b's high digit b >> lowBits first
/// (one scatter into the output, at most 2^kDenseHighBitsMax = 2^11
/// destinations per thread: they fit the line buffers and the TLB), then,
/// when lowBits > 0, every high bucket's run sorted by its low digit (at most
/// kDenseLowBitsMax = 12 bits) in place (a run is ~n / 2^highBits elements:
/// it stays in cache). One pass up to 2^11 buckets; two up to 2^23
/// (Tuning::Host::kDenseMaxBuckets; `ok` false beyond: the portable counting
/// sort serves those). `countWhole` (two passes, up to kDenseCountWholeMax =
/// 2^16 buckets): the first read counts every bucket, not only the high
/// digits (a thread's counts, 8 bytes a bucket, stay within 512 KiB: in L2),
/// so the sort of a run knows its offsets before it reads the run, and
/// places every record straight into its slot of the run's copy (one read of
/// the run, no digits kept beside it: faster than counting the high digits
/// alone, docs/tuning.md).
struct DenseScatterPlan {
  bool ok;
  int highBits, lowBits;
  bool countWhole;
};
SIEVE_INLINE constexpr DenseScatterPlan denseScatterPlan(std::int64_t buckets) {
  using namespace Tuning::Host;
  const int bits = ceilLog2(buckets);
  if (bits <= kDenseHighBitsMax) return {buckets >= 1, bits, 0, false};
  const int high = (bits + 1) / 2 < kDenseHighBitsMax ? (bits + 1) / 2 : kDenseHighBitsMax;
  return {bits - high <= kDenseLowBitsMax, high, bits - high, buckets <= kDenseCountWholeMax};
}

/// Whether a dense scatter on `threads` threads keeps every bucket's count
/// in its first read (DenseScatterPlan::countWhole) for n records: where the
/// plan says so and the threads' counts, 8 bytes a bucket each, take at most
/// 8 bytes a record (not for many threads and few records). O(1).
SIEVE_INLINE constexpr bool denseCountWhole(const DenseScatterPlan& plan, std::int64_t buckets,
                                            std::int64_t n, int threads) {
  return plan.countWhole && static_cast<std::int64_t>(threads > 0 ? threads : 1) * buckets <= n;
}

/// Whether the native dense scatter pays on a host face for `records`
/// records of `recordBytes` bytes into `buckets` buckets, against the
/// portable counting sort (one direct scatter, in cache below the last-level
/// cache): the one-pass plan from kDenseNativeOnePassBytes (128 MiB) of
/// output for records that tile a cache line (others have no line buffers
/// there: not measured), the two-pass plan past
/// kDenseNativeTwoPassMinBuckets (2^12) buckets from kDenseNativeTwoPassBytes
/// (32 MiB). The crossovers: docs/tuning.md (sieve_bench --tune).
SIEVE_INLINE constexpr bool denseScatterNativePays(std::int64_t buckets, std::int64_t records,
                                                   std::int64_t recordBytes) {
  using namespace Tuning::Host;
  const DenseScatterPlan plan = denseScatterPlan(buckets);
  const std::int64_t bytes = records * recordBytes;
  if (!plan.ok) return false;
  if (plan.lowBits == 0)
    return recordBytes > 0 && kLineBytes % recordBytes == 0 && bytes >= kDenseNativeOnePassBytes;
  return buckets > kDenseNativeTwoPassMinBuckets && bytes >= kDenseNativeTwoPassBytes;
}

/// The sparse scatter of records on a host face (sparseScatterHost),
/// described once: records keyed by 64-bit words in [0, maxWord], maxWord of
/// `bits` bits (a key's distance from the smallest). One scatter of the
/// records by the top `topBits` bits of the word into the output (line
/// buffers, as the dense scatter's first pass), topBits = clamp(ceil(log2
/// n) - kSparseRunBits, kSparseTopMinBits, kSparseTopMaxBits) (Tuning::Host:
/// 14, 1, 10) and at most bits: runs of 2^13 .. 2^14 records for uniform
/// words from 2^15 records on. Then every run is sorted in cache by the
/// `lowBits` bits below (sparseRunSubBits). Every record read three times
/// and written twice, however wide the keys.
struct SparseScatterPlan {
  int topBits, lowBits;
};
SIEVE_INLINE constexpr SparseScatterPlan sparseScatterPlan(std::int64_t n, int bits) {
  using namespace Tuning::Host;
  const int lg = ceilLog2(n) - kSparseRunBits;
  int top = lg < kSparseTopMinBits   ? kSparseTopMinBits
            : lg > kSparseTopMaxBits ? kSparseTopMaxBits
                                     : lg;
  if (top > bits) top = bits;
  return {top, bits - top};
}

/// The longest run the native sparse scatter of n records by words up to
/// maxWord sorts (a longer one: skewed words, nothing written, the radix
/// order serves them): kSparseMaxRunFactor (4) times the plan's mean run
/// (at least kSparseMinMeanRun, 16), at most kSparseMaxRun (2^18) records
/// (its sort stays near the caches). A function of the input alone: the same
/// choice on every team size.
SIEVE_INLINE constexpr std::int64_t sparseScatterMaxRun(std::int64_t n, std::uint64_t maxWord) {
  using namespace Tuning::Host;
  const SparseScatterPlan plan = sparseScatterPlan(n, bitWidth(maxWord));
  const std::int64_t mean = n >> plan.topBits;
  const std::int64_t run =
      kSparseMaxRunFactor * (mean > kSparseMinMeanRun ? mean : kSparseMinMeanRun);
  return run < kSparseMaxRun ? run : kSparseMaxRun;
}

/// A run of m records of the sparse scatter, sorted by its `lowBits` low
/// bits: one stable counting pass by the top `sub` of them, sub =
/// clamp(ceil(log2 m) + kSparseSubExtraBits, 1, kSparseSubMaxBits)
/// (Tuning::Host: 1, 15) and at most lowBits (~1 record in 2 buckets for
/// uniform keys), then each bucket sorted by the whole word (insertion: a
/// bucket holds few records; with sub == lowBits none is needed).
SIEVE_INLINE constexpr int sparseRunSubBits(std::int64_t m, int lowBits) {
  using namespace Tuning::Host;
  const int lg = ceilLog2(m) + kSparseSubExtraBits;
  const int sub = lg > kSparseSubMaxBits ? kSparseSubMaxBits : lg;
  return sub < lowBits ? sub : lowBits;
}

/// Whether the native sparse scatter pays on a host face for `records`
/// records of `recordBytes` bytes, against the radix order of the keys and
/// a gather of the records in that order (one random read a record): from
/// kSparseNativeMinBytes (16 MiB) of records of at most
/// kSparseNativeMaxRecordBytes (32) bytes. (Skewed keys, a run longer than
/// sparseScatterMaxRun, fall back to the gather; the call decides after its
/// count.)
SIEVE_INLINE constexpr bool sparseScatterNativePays(std::int64_t records,
                                                    std::int64_t recordBytes) {
  using namespace Tuning::Host;
  return recordBytes > 0 && recordBytes <= kSparseNativeMaxRecordBytes &&
         records * recordBytes >= kSparseNativeMinBytes;
}

/// The dense counting scatter on a device (cuda::DenseScatter), described
/// once: stable LSD passes over the bucket number in 8-bit digits (one pass
/// up to 256 buckets, two up to 2^16, ...), as CUB's Onesweep: one read of
/// the records up front counts every pass's digits (the digit totals); then
/// each pass is one kernel over tiles of Tuning::Cuda::kDenseScatterTile
/// records that ranks its tile's records by digit, chains the tiles' digit
/// counts by decoupled look-back (digit d of tile t starts after every
/// smaller digit of the pass and after digit d of the tiles before t) and
/// writes its records to their slots: one read and one write a pass. The
/// passes ping-pong between the output and a record plane so that the last
/// one lands in the output; the look-back words of pass p are region p % 2
/// (pass p clears the other one for pass p + 1).
/// Scratch (dense_scatter_device_scratch_bytes; any alignment: the regions
/// start at the first 64-byte boundary of the buffer):
///   words   128 bytes       the gates (uint32, kMaxPasses + 1: gate p, read
///                           by pass p's kernel, 0 once a record outside the
///                           range or changed is counted; gate kMaxPasses
///                           the offsets'), then the passes' tile counters
///                           (uint32, kMaxPasses)
///   totals  kMaxPasses x kBins x 8   uint64 digit totals of every pass
///   chainA  cells x 8       look-back words of the even passes, [tile][digit]
///   chainB  cells x 8       those of the odd passes
///   records n x recordBytes (two passes or more; 64-byte aligned: records of
///           up to 64-byte alignment)
/// with cells = 256 x tiles. totals and chainA are one cleared range.
struct DenseScatterDeviceLayout {
  static constexpr int kDigitBits = Tuning::Cuda::kDenseScatterDigitBits;
  static constexpr std::int64_t kBins = std::int64_t(1) << kDigitBits;
  /// Passes of 64-bit bucket numbers.
  static constexpr int kMaxPasses = 64 / kDigitBits;
  SIEVE_HOST_DEVICE static constexpr int passes(std::int64_t buckets) {
    const int bits = ceilLog2(buckets);
    return bits <= kDigitBits ? 1 : (bits + kDigitBits - 1) / kDigitBits;
  }
  SIEVE_HOST_DEVICE static constexpr std::int64_t tiles(std::int64_t n) {
    const std::int64_t t =
        (n + Tuning::Cuda::kDenseScatterTile - 1) / Tuning::Cuda::kDenseScatterTile;
    return t > 1 ? t : 1;
  }
  /// Look-back words of a pass: kBins x tiles.
  SIEVE_HOST_DEVICE static constexpr std::int64_t passCells(std::int64_t n) {
    return kBins * tiles(n);
  }
  SIEVE_HOST_DEVICE static constexpr std::size_t gates() { return 0; }
  SIEVE_HOST_DEVICE static constexpr std::size_t counters() { return 4u * (kMaxPasses + 1); }
  SIEVE_HOST_DEVICE static constexpr std::size_t totals() { return 128; }
  SIEVE_HOST_DEVICE static constexpr std::size_t chainA() {
    return totals() + 8u * static_cast<std::size_t>(kMaxPasses * kBins);
  }
  SIEVE_HOST_DEVICE static constexpr std::size_t chainB(std::int64_t n) {
    return chainA() + 8u * static_cast<std::size_t>(passCells(n));
  }
  /// The words cleared before the first pass (totals and chainA).
  SIEVE_HOST_DEVICE static constexpr std::int64_t clearedWords(std::int64_t n) {
    return kMaxPasses * kBins + passCells(n);
  }
  SIEVE_HOST_DEVICE static constexpr std::size_t records(std::int64_t n) {
    const std::size_t e = chainB(n) + 8u * static_cast<std::size_t>(passCells(n));
    return (e + 255u) / 256u * 256u;
  }
  SIEVE_HOST_DEVICE static constexpr std::size_t end(std::int64_t n, std::int64_t buckets,
                                                     std::size_t recordBytes) {
    return records(n) +
           (passes(buckets) > 1 ? recordBytes * static_cast<std::size_t>(n > 0 ? n : 0) : 0u);
  }
};
static_assert(DenseScatterDeviceLayout::counters() + 4u * DenseScatterDeviceLayout::kMaxPasses <=
                  DenseScatterDeviceLayout::totals(),
              "sieve: the dense scatter's gates and tile counters fit its words region");
static_assert(DenseScatterDeviceLayout::kDigitBits == kRadixDigitBits,
              "sieve: radixOrderDevice counts its passes in kRadixDigitBits and runs each as a "
              "pass of the dense scatter");

/// Scratch bytes of the radix order of n keys with indices of `indexBytes`
/// bytes (4 or 8): radix_order_scratch_bytes and
/// radix_order_device_scratch_bytes are these at radixIndexBytes(n). The
/// 8-byte index planes, which n > 2^32 - 1 keys take, can so be run (and
/// tested) at any n.
SIEVE_INLINE constexpr std::size_t radixOrderScratchBytes(std::int64_t n, std::size_t indexBytes) {
  return 64u + RadixLayout::end(n < 0 ? 0 : n, indexBytes);
}
/// The same on a device (radixOrderDevice): the pass regions first.
SIEVE_INLINE constexpr std::size_t radixOrderDeviceScratchBytes(std::int64_t n,
                                                                std::size_t indexBytes) {
  return DenseScatterDeviceLayout::records(n < 0 ? 0 : n) + radixOrderScratchBytes(n, indexBytes);
}

} // namespace Impl

/// The most records a device scatter pass takes (cuda::DenseScatter,
/// radixOrderDevice): one block per tile of Tuning::Cuda::kDenseScatterTile
/// records, at most 2^31 - 1 blocks.
inline constexpr std::int64_t kDenseScatterDeviceMaxRecords =
    std::int64_t(0x7FFFFFFF) * Tuning::Cuda::kDenseScatterTile;

/// Bytes of device scratch the dense counting scatter of `n` records of
/// `recordBytes` bytes into `buckets` buckets needs (cuda::DenseScatter):
/// 64 bytes of alignment slack and the regions of
/// Impl::DenseScatterDeviceLayout — 16 KiB of digit totals and about 2n bytes of look-back
/// words, plus a plane of n records when
/// buckets > 256. n < 0 or buckets < 1 are treated as 0 and 1 (the call that takes the scratch
/// rejects them). O(log n), host and device.
SIEVE_INLINE constexpr std::size_t dense_scatter_device_scratch_bytes(std::int64_t n,
                                                                      std::int64_t buckets,
                                                                      std::size_t recordBytes) {
  return 64u +
         Impl::DenseScatterDeviceLayout::end(n < 0 ? 0 : n, buckets < 1 ? 1 : buckets, recordBytes);
}

/// Bytes of device scratch the radix order of `n` keys needs on a device
/// (radixOrderDevice): 64 bytes of alignment slack, the pass regions of
/// Impl::DenseScatterDeviceLayout (its gates, digit totals and look-back
/// words, 16 KiB and about 2n bytes), then the planes of Impl::RadixLayout (a uint64 key plane
/// and two index planes): about 18n bytes. n < 0 is treated as 0. O(log n),
/// host and device.
SIEVE_INLINE constexpr std::size_t radix_order_device_scratch_bytes(std::int64_t n) {
  return Impl::radixOrderDeviceScratchBytes(n, Impl::radixIndexBytes(n));
}

/// Bytes of scratch the radix order of `n` keys needs: 64 bytes of alignment
/// slack, then a uint64 key plane and two index planes of max(n, 1) elements
/// (uint32 indices for n <= 2^32 - 1, uint64 beyond), each rounded to 64
/// bytes, and 64 bytes to align the first index plane with `order`: about
/// 16n bytes. A function of n alone (not of the team size).
/// n < 0 is treated as 0 (the call that takes the scratch rejects it). O(1),
/// host and device.
SIEVE_INLINE constexpr std::size_t radix_order_scratch_bytes(std::int64_t n) {
  return Impl::radixOrderScratchBytes(n, Impl::radixIndexBytes(n));
}

} // namespace sieve
