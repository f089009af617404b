// SPDX-License-Identifier: Apache-2.0
// Sieve — every tuning number of every face, in one place: a policy per face
// (Host: the OpenMP twins; Cuda: the native kernels, one policy per
// architecture; Portable: the Kokkos patterns; Findall's shapes).
//
// Only numbers live here. The rules that use them stay with their subject
// (core/radix.hpp's scatter plans, core/keys.hpp's chunks) and the launch
// helpers with their face (team.hpp, launch.cuh, portable/base.hpp).
// Changing a number changes speed only, never a result: every face's outputs
// are fixed by the rules in rules.hpp, whatever its tiles, blocks or team
// sizes. The static_asserts below are the limits the rules and the scratch
// layouts (layout.hpp) rely on. How each number was chosen, on which machine,
// and how to measure it again (sieve_bench --tune): docs/tuning.md. Every
// value is pinned by tests/core/test_tuning.cpp. Header-only, no Kokkos, no
// CUDA runtime.
#pragma once

#include <sieve/core/rules.hpp>

#include <cstddef>
#include <cstdint>

namespace sieve {
namespace Tuning {

/// The OpenMP host twins (native/src/host, native/host, cpu::Scan).
namespace Host {
/// Bytes of a cache line: the unit the buffered host scatters write whole
/// (native/host/lines.hpp kHostLine; the dense scatter's rule in radix.hpp).
inline constexpr int kLineBytes = 64;

// --- team sizes: work a thread must get before a twin adds it ---------------
/// Samples per thread below which compaction does not split further (the
/// per-thread counts it shares then fit its scratch: layout.hpp).
inline constexpr std::int64_t kCompactMinPerThread = 64 * 1024;
/// Samples per thread below which reorder and restore do not split further.
inline constexpr std::int64_t kReorderMinPerThread = 32 * 1024;
/// Elements per thread below which a scan does not split further.
inline constexpr std::int64_t kScanMinPerThread = 32 * 1024;
/// Records per thread below which the dense and sparse scatters do not split
/// further (a thread is not worth its start and its buffers).
inline constexpr std::int64_t kScatterMinPerThread = std::int64_t(1) << 14;
/// Keys per thread below which the radix order does not split further.
inline constexpr std::int64_t kRadixMinPerThread = std::int64_t(1) << 14;

// --- scan ---------------------------------------------------------------------
/// Bytes of input a thread takes per scan round (fits the L2 with its output).
inline constexpr std::int64_t kScanRoundBytesPerThread = 512 * 1024;
/// cpu::Scan's default block size (elements per block sum).
inline constexpr unsigned kScanBlock = 1024;

// --- select (findall's native write) ------------------------------------------
/// Output bytes from which findall's select writes whole cache lines with
/// non-temporal stores (far past what the caches keep for the caller).
inline constexpr std::uint64_t kSelectStreamBytes = std::uint64_t(32) << 20;
/// Samples a thread takes per round of the one-pass select (selectHost; half
/// as many for 8-byte values): its items are staged in the L2, at most 4
/// bytes a sample (a multiple of 64).
inline constexpr std::int64_t kSelectBlock = 64 * 1024;
/// Samples per call of a select kernel (native/src/host/kernels.hpp: at most
/// 4096 bytes of 8-byte items staged per call).
inline constexpr std::int64_t kSelectKernelChunk = 512;

// --- the dense scatter (denseScatterHost; core/radix.hpp denseScatterPlan) -----
/// Bits of the high digit, the one pass scattered into the output: at most
/// 2^11 destinations a thread (they fit the line buffers and the TLB).
inline constexpr int kDenseHighBitsMax = 11;
/// Bits of the low digit each high bucket's run is sorted by in cache.
inline constexpr int kDenseLowBitsMax = 12;
/// The most buckets the native dense scatter takes (two passes; the portable
/// counting sort serves more).
inline constexpr std::int64_t kDenseMaxBuckets = std::int64_t(1)
                                                 << (kDenseHighBitsMax + kDenseLowBitsMax);
/// The most buckets whose every count the first read keeps
/// (DenseScatterPlan::countWhole): 8 bytes a count, 512 KiB a thread (in L2).
inline constexpr std::int64_t kDenseCountWholeMax = std::int64_t(1) << 16;
/// Output bytes from which the one-pass plan pays against the portable
/// counting sort (denseScatterNativePays; below, that sort runs in cache).
inline constexpr std::int64_t kDenseNativeOnePassBytes = std::int64_t(128) << 20;
/// The two-pass plan pays only past this many buckets (at it, 6 + 6 bits:
/// runs of 2 MiB, past L2) ...
inline constexpr std::int64_t kDenseNativeTwoPassMinBuckets = std::int64_t(1) << 12;
/// ... and from this many output bytes.
inline constexpr std::int64_t kDenseNativeTwoPassBytes = std::int64_t(32) << 20;
/// Output bytes from which the scatters' line buffers are flushed with
/// non-temporal stores.
inline constexpr std::int64_t kScatterStreamBytes = std::int64_t(8) << 20;
/// A thread's line buffers: up to kScatterMaxLines lines a bucket ...
inline constexpr std::int64_t kScatterMaxLines = 16;
/// ... within kScatterBufferLines lines in all (512 KiB: in a core's L2 beside
/// the records in flight).
inline constexpr std::int64_t kScatterBufferLines = 8192;
/// Functors up to this many bytes (trivially copyable) are copied into a hot
/// loop's frame, where a record store cannot alias them (DenseHost::FrameFn).
inline constexpr std::size_t kFrameCopyMaxBytes = 256;

// --- the sparse scatter (sparseScatterHost; core/radix.hpp sparseScatterPlan) ---
/// log2 of the records a run of the top-digit scatter aims at (2^13 .. 2^14
/// records: a run is sorted in cache) ...
inline constexpr int kSparseRunBits = 14;
/// ... with at least this many and ...
inline constexpr int kSparseTopMinBits = 1;
/// ... at most this many top bits (what the line buffers hold).
inline constexpr int kSparseTopMaxBits = 10;
/// The longest run the native sparse scatter sorts: kSparseMaxRunFactor times
/// the plan's mean run (at least kSparseMinMeanRun), at most kSparseMaxRun
/// (its sort stays near the caches); longer (skewed words): the radix order.
inline constexpr std::int64_t kSparseMaxRunFactor = 4;
inline constexpr std::int64_t kSparseMinMeanRun = 16;
inline constexpr std::int64_t kSparseMaxRun = std::int64_t(1) << 18;
/// A run of m records is counted by ceil(log2 m) + kSparseSubExtraBits sub
/// bits (about 1 record in 2 buckets), at most kSparseSubMaxBits (16-bit sub
/// digits: native/host/scatter.hpp).
inline constexpr int kSparseSubExtraBits = 1;
inline constexpr int kSparseSubMaxBits = 15;
/// Records of at most this many bytes ...
inline constexpr std::int64_t kSparseNativeMaxRecordBytes = 32;
/// ... from this many bytes in all take the native sparse scatter
/// (sparseScatterNativePays) rather than the radix order and a gather.
inline constexpr std::int64_t kSparseNativeMinBytes = std::int64_t(16) << 20;
/// How far ahead the first read of a run by its sort prefetches (the scatter
/// streamed the run to memory).
inline constexpr std::int64_t kSparseRunAheadBytes = 2048;
/// Sub buckets of the run sort up to this many records are sorted by
/// insertion; larger ones (skewed words) by std::sort.
inline constexpr std::int64_t kSparseInsertionMax = 16;

// --- the radix order (radixOrderHost; core/radix.hpp) -------------------------
/// Bits of one LSD digit: one pass per non-constant digit of the keys (the
/// device's radix order counts its passes with it too: core/radix.hpp).
inline constexpr int kRadixDigitBits = 8;
/// The first pass by the keys' top bits (radixHostTopBits) aims at runs of
/// 2^kRadixTopRunBits keys, with kRadixTopMinBits .. kRadixTopMaxBits top bits
/// (2^10 buckets at most: what the line buffers hold).
inline constexpr int kRadixTopRunBits = 12;
inline constexpr int kRadixTopMinBits = 8;
inline constexpr int kRadixTopMaxBits = 10;
/// The top-digit pass pays while the largest run holds at most n /
/// (kRadixTopRunShare x threads) keys and at most kRadixTopMaxRun (a run is
/// sorted by one thread, in cache).
inline constexpr std::int64_t kRadixTopRunShare = 4;
inline constexpr std::int64_t kRadixTopMaxRun = std::int64_t(1) << 18;
/// Elements a bucket's buffer holds in an LSD pass (whole lines of every
/// plane: 8 lines of 8-byte items, 4 of 4-byte ones).
inline constexpr std::int64_t kRadixBlockElems = 64;
/// Keys from which the planes (>= 12 MiB a pass) outgrow the caches: whole
/// lines go out with non-temporal stores.
inline constexpr std::int64_t kRadixStreamKeys = std::int64_t(1) << 19;

// --- memory -------------------------------------------------------------------
/// The smallest fresh host block advised onto huge pages (below it an
/// allocator reuses pages; native/host/memory.hpp).
inline constexpr std::size_t kHugePageMinBytes = std::size_t(32) << 20;
} // namespace Host

/// The native CUDA kernels (native/src/cuda, cuda::Scan): one policy per
/// architecture, as CUB's policy hub. A policy holds every number; the
/// namespace-level names below (kBlock, kScanTile<T>, ...) are the active
/// policy's: in device code the policy of the architecture being compiled
/// (__CUDA_ARCH__), in host code Default. The host sizes grids and scratch
/// without asking which architecture's kernel will run, so the numbers it
/// reads must be the same in every policy (hostReadAgrees, asserted for the
/// active policy of every compilation pass); the others (launch bounds,
/// staging, loops inside a kernel) may differ per architecture.
namespace Cuda {

/// sm_90 (H100, H200): the only architecture measured; today's numbers.
struct Sm90 {
  // --- read by the host too (grids, scratch): the same in every policy ---------
  /// Threads per block of every kernel (8 warps).
  static constexpr unsigned kBlock = 256;
  /// Blocks of a grid-stride move (reorder, clears, the digit count): 8
  /// resident blocks of kBlock threads on each SM ...
  static constexpr unsigned kMoveBlocksPerSm = 8;
  /// ... of a GPU of this many SMs (H100 SXM, H200). The launch helpers do
  /// not query the device: on fewer SMs the extra blocks run as a second
  /// wave of the grid-stride loop, on more some SMs sit out the moves.
  static constexpr unsigned kAssumedSms = 132;
  /// Scan: items per thread for values of at most 4 bytes and of 8 bytes
  /// (odd, so that the per-thread shared-memory rows do not hit the same bank).
  static constexpr unsigned kScanItemsNarrow = 9;
  static constexpr unsigned kScanItemsWide = 5;
  /// The single-pass scan's items per thread for 8-byte values: they publish
  /// 20 bytes of tile status per tile, so their tiles are larger (2816
  /// elements) to keep the status within the scan scratch rule.
  static constexpr unsigned kScanSinglePassItemsWide = 11;
  /// The dense scatter: records per thread of a tile (kept in registers
  /// between its ranking and its writes).
  static constexpr unsigned kDenseScatterItems = 8;
  /// The dense scatter's digit: one pass per 8 bits of the bucket number (one
  /// thread of a block per digit value).
  static constexpr int kDenseScatterDigitBits = 8;

  // --- device code only: free per architecture -------------------------------
  /// The dense scatter stages records of at most this many bytes in shared
  /// memory in digit order, so that a warp writes runs of consecutive slots
  /// (a tile of 16-byte records is 32 KiB; larger ones go from registers).
  static constexpr std::size_t kDenseScatterStageBytes = 16;
  /// The dense scatter's sweep is built for this many resident blocks an SM
  /// (__launch_bounds__): up to 85 registers a thread, so no spills.
  static constexpr int kDenseScatterBlocksPerSm = 3;
  /// The dense scatter's offsets: a run of empty buckets up to this long is
  /// filled by the record after it; longer ones by binary search.
  static constexpr std::int64_t kOffsetsShortGap = 32;
};

/// Every other architecture: sm_90's numbers until one is measured there.
struct Default : Sm90 {};

/// The policy of compute capability `cc` (major x 10 + minor: 90 for sm_90).
/// Add a specialization (and its line in test_tuning.cpp) to tune another.
template <int cc>
struct PolicyFor {
  using type = Default;
};
template <>
struct PolicyFor<90> {
  using type = Sm90;
};

/// The architecture this compilation pass builds for: __CUDA_ARCH__ / 10 in
/// device code, 0 (Default) in host code.
#if defined(__CUDA_ARCH__)
inline constexpr int kPolicyCc = __CUDA_ARCH__ / 10;
#else
inline constexpr int kPolicyCc = 0;
#endif
using Policy = typename PolicyFor<kPolicyCc>::type;

/// Whether policy P agrees with Default on every number the host reads.
template <class P>
constexpr bool hostReadAgrees() {
  return P::kBlock == Default::kBlock && P::kMoveBlocksPerSm == Default::kMoveBlocksPerSm &&
         P::kAssumedSms == Default::kAssumedSms &&
         P::kScanItemsNarrow == Default::kScanItemsNarrow &&
         P::kScanItemsWide == Default::kScanItemsWide &&
         P::kScanSinglePassItemsWide == Default::kScanSinglePassItemsWide &&
         P::kDenseScatterItems == Default::kDenseScatterItems &&
         P::kDenseScatterDigitBits == Default::kDenseScatterDigitBits;
}
static_assert(hostReadAgrees<Sm90>() && hostReadAgrees<Policy>(),
              "sieve: a CUDA policy changes a number the host reads (block, tiles, grids): the "
              "host would size grids and scratch for another kernel");

/// Threads per block of every kernel.
inline constexpr unsigned kBlock = Policy::kBlock;
/// Warps per block.
inline constexpr unsigned kWarps = kBlock / 32;
/// Blocks of a grid-stride move (Policy::kMoveBlocksPerSm x kAssumedSms).
inline constexpr unsigned kMoveBlocks = Policy::kMoveBlocksPerSm * Policy::kAssumedSms;
/// Compaction: one aligned 32-sample group per thread, one tile per block.
inline constexpr std::int64_t kCompactTile = std::int64_t(kBlock) * 32;
/// Selection (findall's native write, selectDevice): one aligned 32-sample
/// group per thread, one tile per block.
inline constexpr std::int64_t kSelectTile = std::int64_t(kBlock) * 32;
/// Scan: items per thread.
template <class T>
inline constexpr unsigned kScanItems = sizeof(T) <= 4 ? Policy::kScanItemsNarrow
                                                      : Policy::kScanItemsWide;
/// Scan: elements per tile (per block sum).
template <class T>
inline constexpr std::int64_t kScanTile = std::int64_t(kBlock) * kScanItems<T>;
/// The single-pass scan (integers): items per thread.
template <class T>
inline constexpr unsigned kScanSinglePassItems = sizeof(T) == 8 ? Policy::kScanSinglePassItemsWide
                                                                : kScanItems<T>;
/// The single-pass scan: elements per tile.
template <class T>
inline constexpr std::int64_t kScanSinglePassTile = std::int64_t(kBlock) * kScanSinglePassItems<T>;
/// The dense counting scatter (cuda::DenseScatter): records per thread of a
/// tile, and so records per tile.
inline constexpr unsigned kDenseScatterItems = Policy::kDenseScatterItems;
inline constexpr std::int64_t kDenseScatterTile = std::int64_t(kBlock) * kDenseScatterItems;
/// The dense counting scatter's digit bits (core/radix.hpp DenseScatterDeviceLayout).
inline constexpr int kDenseScatterDigitBits = Policy::kDenseScatterDigitBits;
/// The dense counting scatter's staging limit, in bytes a record.
inline constexpr std::size_t kDenseScatterStageBytes = Policy::kDenseScatterStageBytes;
/// The dense counting scatter's sweep: resident blocks an SM (launch bounds).
inline constexpr int kDenseScatterBlocksPerSm = Policy::kDenseScatterBlocksPerSm;
/// The dense counting scatter's offsets: the longest gap filled by one record.
inline constexpr std::int64_t kOffsetsShortGap = Policy::kOffsetsShortGap;
} // namespace Cuda

/// The portable Kokkos implementation (kokkos/include/sieve/impl/portable,
/// and the portable sorts of sieve::keys).
namespace Portable {
/// Compaction tiles: groups of 32 samples per tile (one team each).
inline constexpr std::int64_t kTileGroups = 128;
/// Scan blocks: elements per block sum (one team per block).
inline constexpr std::int64_t kScanBlock = 2048;
/// Scan chunks on devices: elements one thread folds (or scans) left to right;
/// chunk totals combine in groups of kScanGroup. On host spaces a block is one
/// chunk (a team of one thread scans it in place). Together with kScanBlock
/// these fix the association order of floating-point scans, never the team
/// size.
inline constexpr int kScanChunk = 8;
inline constexpr int kScanGroup = 16;
/// The stable counting sort of sieve::keys (core/keys.hpp countingChunks):
/// at least this many records a chunk ...
inline constexpr std::int64_t kCountingMinChunk = 4096;
/// ... and per-chunk histograms of at most about this many times the records
/// plus the buckets.
inline constexpr std::int64_t kCountingHistogramRatio = 2;
/// The radix sort of sparse integer keys: passes of at most this many bits.
inline constexpr int kSparseRadixBits = 16;
/// reduce_by_key: a key of more than this many fold pieces is folded piece by
/// piece in parallel (the same order: it only decides who computes it).
inline constexpr std::int64_t kFoldBigKeyPieces = 4;
/// The merge sort (impl/keys/merge.hpp): runs sorted by insertion first.
inline constexpr std::int64_t kMergeRun = 32;
/// The merge sort (impl/keys/merge.hpp): output positions a merge-path
/// block takes.
inline constexpr std::int64_t kMergeBlock = 2048;
/// The sparse scatter's gather in key order (impl/keys/sparse/common.hpp):
/// records prefetched ahead (host).
inline constexpr std::int64_t kGatherAhead = 16;
/// for_each_key_range (impl/keys/segments.hpp rangeParts): about this many
/// ranges a thread ...
inline constexpr std::int64_t kRangePartsPerThread = 8;
/// ... of at least this many elements plus keys each.
inline constexpr std::int64_t kRangePartMin = 1024;
} // namespace Portable

/// sieve::findall (kokkos/include/sieve/findall.hpp). Its tile kernels are the
/// portable compaction's (one team per tile); only the tile shapes differ.
namespace Findall {
/// ScanScatter defaults on devices (Auto on Kokkos::Cuda and other device
/// spaces): blocks of 256 threads, 8 items each (tiles of 2048 elements).
inline constexpr int kBlock = 256;
inline constexpr int kItems = 8;
/// Partitioned (host spaces): elements per thread below which the input is
/// not split further (one partition, one count, one write per thread).
inline constexpr std::int64_t kPartitionMin = 64 * 1024;
/// Partitions are aligned to this many elements (whole 32-element words).
inline constexpr std::int64_t kPartitionAlign = 64;
/// The predicate form on host spaces: elements a call of the mask fill
/// evaluates from its own copies of the functors (devices: one a thread).
inline constexpr std::int64_t kHostPredicateRun = 1024;
} // namespace Findall

/// sieve::keys (core/keys_plan.hpp): where a call's path changes.
namespace Keys {
/// scatter_sparse of integer keys whose span (largest - smallest) is below
/// 2^kSparseByDenseSpanBits runs as the native dense scatter over the span
/// (where the native face takes and pays for it), then the keys present:
/// every span the dense scatter takes (Host::kDenseMaxBuckets).
inline constexpr int kSparseByDenseSpanBits = Host::kDenseHighBitsMax + Host::kDenseLowBitsMax;
} // namespace Keys

// --- what the rules and the layouts rely on -------------------------------------
static_assert(Host::kCompactMinPerThread >= 1 && Host::kReorderMinPerThread >= 32 &&
                  Host::kScanMinPerThread >= 1,
              "sieve: a host team's shared counts must fit the scratch (layout.hpp)");
static_assert(Host::kScanBlock >= kScanScratchBlock && Portable::kScanBlock >= kScanScratchBlock &&
                  Cuda::kScanTile<std::uint32_t> >= kScanScratchBlock &&
                  Cuda::kScanTile<std::uint64_t> >= kScanScratchBlock,
              "sieve: no face may scan in blocks smaller than kScanScratchBlock");
static_assert(Cuda::kBlock % 32 == 0 && Cuda::kBlock <= 1024, "sieve: CUDA blocks are whole warps");
static_assert(Cuda::kCompactTile < (1 << 16),
              "sieve: a CUDA compaction tile's kept count must fit 16 bits");
static_assert(Cuda::kSelectTile <= (1 << 16) && Cuda::kSelectTile % 32 == 0,
              "sieve: a CUDA selection tile stages 16-bit positions of whole 32-sample groups");
static_assert(Portable::kTileGroups >= 1, "sieve: portable compaction tiles hold a group");
static_assert(Findall::kBlock >= 1 && Findall::kBlock <= 1024 &&
                  (Findall::kBlock & (Findall::kBlock - 1)) == 0 && Findall::kItems >= 1,
              "sieve: the findall defaults must be a valid ScanScatter");
static_assert(Findall::kPartitionAlign % 32 == 0 &&
                  Findall::kPartitionMin >= Findall::kPartitionAlign,
              "sieve: findall partitions are whole 32-element words");
static_assert(Host::kDenseHighBitsMax >= 1 && Host::kDenseLowBitsMax >= 1 &&
                  Host::kDenseLowBitsMax < 16,
              "sieve: the dense scatter's low digits are 16-bit (native/host/scatter.hpp)");
static_assert(Host::kSparseTopMinBits >= 1 && Host::kSparseTopMinBits <= Host::kSparseTopMaxBits &&
                  Host::kSparseSubMaxBits < 16,
              "sieve: the sparse scatter has a top digit, and 16-bit sub digits");
static_assert(Host::kRadixTopMinBits >= 1 && Host::kRadixTopMinBits <= Host::kRadixTopMaxBits,
              "sieve: the radix order's top digit has a width");

} // namespace Tuning
} // namespace sieve
