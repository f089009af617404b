// SPDX-License-Identifier: Apache-2.0
// Sieve core tests — every tuning number (core/tuning.hpp) pinned to the
// value it was measured with (docs/tuning.md), so that a refactor of the
// policies cannot change one silently: the sm_90 CUDA policy, the default
// policy and the names the kernels read, the host and portable policies, and
// the rules of core/radix.hpp and core/keys.hpp at their crossovers. A change
// of a number is deliberate: it comes with its measurement and its line here.
#include <sieve/core/keys.hpp>
#include <sieve/core/radix.hpp>
#include <sieve/core/tuning.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <type_traits>

namespace {

using i64 = std::int64_t;
constexpr i64 kKi = 1024, kMi = kKi * kKi;

/// Every number of a CUDA policy at its sm_90 value.
template <class P>
void expectSm90Numbers() {
  EXPECT_EQ(P::kBlock, 256u);
  EXPECT_EQ(P::kMoveBlocksPerSm, 8u);
  EXPECT_EQ(P::kAssumedSms, 132u);
  EXPECT_EQ(P::kScanItemsNarrow, 9u);
  EXPECT_EQ(P::kScanItemsWide, 5u);
  EXPECT_EQ(P::kScanSinglePassItemsWide, 11u);
  EXPECT_EQ(P::kDenseScatterItems, 8u);
  EXPECT_EQ(P::kDenseScatterDigitBits, 8);
  EXPECT_EQ(P::kDenseScatterStageBytes, 16u);
  EXPECT_EQ(P::kDenseScatterBlocksPerSm, 3);
  EXPECT_EQ(P::kOffsetsShortGap, 32);
}

TEST(Tuning, CudaSm90Policy) {
  namespace C = sieve::Tuning::Cuda;
  expectSm90Numbers<C::Sm90>();
  static_assert(std::is_same_v<C::PolicyFor<90>::type, C::Sm90>, "sm_90 takes its own policy");
}

TEST(Tuning, CudaDefaultPolicyIsSm90s) {
  namespace C = sieve::Tuning::Cuda;
  expectSm90Numbers<C::Default>();
  static_assert(std::is_same_v<C::PolicyFor<80>::type, C::Default> &&
                    std::is_same_v<C::PolicyFor<100>::type, C::Default>,
                "an architecture without a policy of its own takes the default");
  // Host code (this test) reads the default policy.
  static_assert(std::is_same_v<C::Policy, C::Default>, "host code reads the default policy");
}

TEST(Tuning, CudaNamesTheKernelsRead) {
  namespace C = sieve::Tuning::Cuda;
  EXPECT_EQ(C::kBlock, 256u);
  EXPECT_EQ(C::kWarps, 8u);
  EXPECT_EQ(C::kMoveBlocks, 1056u);
  EXPECT_EQ(C::kCompactTile, 8192);
  EXPECT_EQ(C::kSelectTile, 8192);
  EXPECT_EQ(C::kScanItems<std::int8_t>, 9u);
  EXPECT_EQ(C::kScanItems<std::uint32_t>, 9u);
  EXPECT_EQ(C::kScanItems<float>, 9u);
  EXPECT_EQ(C::kScanItems<double>, 5u);
  EXPECT_EQ(C::kScanItems<std::int64_t>, 5u);
  EXPECT_EQ(C::kScanTile<std::uint32_t>, 2304);
  EXPECT_EQ(C::kScanTile<std::uint64_t>, 1280);
  EXPECT_EQ(C::kScanSinglePassItems<std::int32_t>, 9u);
  EXPECT_EQ(C::kScanSinglePassItems<std::int64_t>, 11u);
  EXPECT_EQ(C::kScanSinglePassTile<std::int32_t>, 2304);
  EXPECT_EQ(C::kScanSinglePassTile<std::int64_t>, 2816);
  EXPECT_EQ(C::kDenseScatterItems, 8u);
  EXPECT_EQ(C::kDenseScatterTile, 2048);
  EXPECT_EQ(C::kDenseScatterDigitBits, 8);
  EXPECT_EQ(C::kDenseScatterStageBytes, 16u);
  EXPECT_EQ(C::kDenseScatterBlocksPerSm, 3);
  EXPECT_EQ(C::kOffsetsShortGap, 32);
  EXPECT_EQ(sieve::Impl::DenseScatterDeviceLayout::kDigitBits, 8);
  EXPECT_EQ(sieve::kDenseScatterDeviceMaxRecords, i64(0x7FFFFFFF) * 2048);
}

TEST(Tuning, HostPolicy) {
  namespace H = sieve::Tuning::Host;
  EXPECT_EQ(H::kLineBytes, 64);
  EXPECT_EQ(H::kCompactMinPerThread, 64 * kKi);
  EXPECT_EQ(H::kReorderMinPerThread, 32 * kKi);
  EXPECT_EQ(H::kScanMinPerThread, 32 * kKi);
  EXPECT_EQ(H::kScatterMinPerThread, i64(1) << 14);
  EXPECT_EQ(H::kRadixMinPerThread, i64(1) << 14);
  EXPECT_EQ(H::kScanRoundBytesPerThread, 512 * kKi);
  EXPECT_EQ(H::kScanBlock, 1024u);
  EXPECT_EQ(H::kSelectStreamBytes, std::uint64_t(32) << 20);
  EXPECT_EQ(H::kSelectBlock, 64 * kKi);
  EXPECT_EQ(H::kSelectKernelChunk, 512);
  EXPECT_EQ(H::kDenseHighBitsMax, 11);
  EXPECT_EQ(H::kDenseLowBitsMax, 12);
  EXPECT_EQ(H::kDenseMaxBuckets, i64(1) << 23);
  EXPECT_EQ(H::kDenseCountWholeMax, i64(1) << 16);
  EXPECT_EQ(H::kDenseNativeOnePassBytes, 128 * kMi);
  EXPECT_EQ(H::kDenseNativeTwoPassMinBuckets, i64(1) << 12);
  EXPECT_EQ(H::kDenseNativeTwoPassBytes, 32 * kMi);
  EXPECT_EQ(H::kScatterStreamBytes, 8 * kMi);
  EXPECT_EQ(H::kScatterMaxLines, 16);
  EXPECT_EQ(H::kScatterBufferLines, 8192);
  EXPECT_EQ(H::kFrameCopyMaxBytes, 256u);
  EXPECT_EQ(H::kSparseRunBits, 14);
  EXPECT_EQ(H::kSparseTopMinBits, 1);
  EXPECT_EQ(H::kSparseTopMaxBits, 10);
  EXPECT_EQ(H::kSparseMaxRunFactor, 4);
  EXPECT_EQ(H::kSparseMinMeanRun, 16);
  EXPECT_EQ(H::kSparseMaxRun, i64(1) << 18);
  EXPECT_EQ(H::kSparseSubExtraBits, 1);
  EXPECT_EQ(H::kSparseSubMaxBits, 15);
  EXPECT_EQ(H::kSparseNativeMaxRecordBytes, 32);
  EXPECT_EQ(H::kSparseNativeMinBytes, 16 * kMi);
  EXPECT_EQ(H::kSparseRunAheadBytes, 2048);
  EXPECT_EQ(H::kSparseInsertionMax, 16);
  EXPECT_EQ(H::kRadixDigitBits, 8);
  EXPECT_EQ(sieve::kRadixDigitBits, 8);
  EXPECT_EQ(H::kRadixTopRunBits, 12);
  EXPECT_EQ(H::kRadixTopMinBits, 8);
  EXPECT_EQ(H::kRadixTopMaxBits, 10);
  EXPECT_EQ(H::kRadixTopRunShare, 4);
  EXPECT_EQ(H::kRadixTopMaxRun, i64(1) << 18);
  EXPECT_EQ(H::kRadixBlockElems, 64);
  EXPECT_EQ(H::kRadixStreamKeys, i64(1) << 19);
  EXPECT_EQ(H::kHugePageMinBytes, std::size_t(32) << 20);
}

TEST(Tuning, PortableAndFindallPolicies) {
  namespace P = sieve::Tuning::Portable;
  namespace F = sieve::Tuning::Findall;
  EXPECT_EQ(P::kTileGroups, 128);
  EXPECT_EQ(P::kScanBlock, 2048);
  EXPECT_EQ(P::kScanChunk, 8);
  EXPECT_EQ(P::kScanGroup, 16);
  EXPECT_EQ(P::kCountingMinChunk, 4096);
  EXPECT_EQ(P::kCountingHistogramRatio, 2);
  EXPECT_EQ(P::kSparseRadixBits, 16);
  EXPECT_EQ(P::kFoldBigKeyPieces, 4);
  EXPECT_EQ(P::kMergeRun, 32);
  EXPECT_EQ(P::kMergeBlock, 2048);
  EXPECT_EQ(P::kGatherAhead, 16);
  EXPECT_EQ(P::kRangePartsPerThread, 8);
  EXPECT_EQ(P::kRangePartMin, 1024);
  EXPECT_EQ(sieve::Impl::Keys::kMinChunk, 4096);
  EXPECT_EQ(sieve::Impl::Keys::kRadixBits, 16);
  EXPECT_EQ(sieve::Impl::Keys::kFoldBigKey, 4 * 2048);
  EXPECT_EQ(F::kBlock, 256);
  EXPECT_EQ(F::kItems, 8);
  EXPECT_EQ(F::kPartitionMin, 64 * kKi);
  EXPECT_EQ(F::kPartitionAlign, 64);
  EXPECT_EQ(F::kHostPredicateRun, 1024);
}

TEST(Tuning, KeysPolicy) {
  // scatter_sparse hands spans below 2^23 keys to the dense scatter.
  EXPECT_EQ(sieve::Tuning::Keys::kSparseByDenseSpanBits, 23);
}

// The rules at their crossovers: what the numbers above mean.
TEST(Tuning, DenseScatterNativePaysAtItsCrossovers) {
  using sieve::Impl::denseScatterNativePays;
  // One pass (up to 2^11 buckets): from 128 MiB of records that tile a line.
  EXPECT_TRUE(denseScatterNativePays(256, 16 * kMi, 8));
  EXPECT_FALSE(denseScatterNativePays(256, 16 * kMi - 1, 8));
  EXPECT_TRUE(denseScatterNativePays(2048, 8 * kMi, 16));
  EXPECT_FALSE(denseScatterNativePays(2048, 16 * kMi, 12)); // 12 bytes do not tile 64
  // Two passes: past 2^12 buckets, from 32 MiB.
  EXPECT_FALSE(denseScatterNativePays(4096, 64 * kMi, 8));
  EXPECT_TRUE(denseScatterNativePays(4097, 4 * kMi, 8));
  EXPECT_FALSE(denseScatterNativePays(4097, 4 * kMi - 1, 8));
  EXPECT_TRUE(denseScatterNativePays(i64(1) << 23, 4 * kMi, 8));
  EXPECT_FALSE(denseScatterNativePays((i64(1) << 23) + 1, 64 * kMi, 8)); // no plan
}

TEST(Tuning, SparseRulesAtTheirCrossovers) {
  using namespace sieve::Impl;
  EXPECT_TRUE(sparseScatterNativePays(kMi, 16));
  EXPECT_FALSE(sparseScatterNativePays(kMi - 1, 16));
  EXPECT_TRUE(sparseScatterNativePays(kMi / 2, 32));
  EXPECT_FALSE(sparseScatterNativePays(64 * kMi, 33));
  // Top bits: ceil(log2 n) - 14, in [1, 10], at most the word's bits.
  EXPECT_EQ(sparseScatterPlan(i64(1) << 10, 40).topBits, 1);
  EXPECT_EQ(sparseScatterPlan(i64(1) << 20, 40).topBits, 6);
  EXPECT_EQ(sparseScatterPlan(i64(1) << 30, 40).topBits, 10);
  EXPECT_EQ(sparseScatterPlan(i64(1) << 30, 4).topBits, 4);
  EXPECT_EQ(sparseScatterPlan(i64(1) << 30, 4).lowBits, 0);
  // Runs: 4 x the mean (at least 16), at most 2^18.
  EXPECT_EQ(sparseScatterMaxRun(i64(1) << 20, (std::uint64_t(1) << 40) - 1), 4 * (i64(1) << 14));
  EXPECT_EQ(sparseScatterMaxRun(i64(1) << 30, (std::uint64_t(1) << 40) - 1), i64(1) << 18);
  EXPECT_EQ(sparseScatterMaxRun(8, 1), 64);
  // Sub bits: ceil(log2 m) + 1, at most 15 and lowBits.
  EXPECT_EQ(sparseRunSubBits(i64(1) << 14, 40), 15);
  EXPECT_EQ(sparseRunSubBits(i64(1) << 10, 40), 11);
  EXPECT_EQ(sparseRunSubBits(i64(1) << 10, 7), 7);
}

TEST(Tuning, RadixRulesAtTheirCrossovers) {
  using namespace sieve::Impl;
  EXPECT_EQ(radixHostTopBits(i64(1) << 24, 8), 0);
  EXPECT_EQ(radixHostTopBits(i64(1) << 16, 40), 8);
  EXPECT_EQ(radixHostTopBits(i64(1) << 21, 40), 9);
  EXPECT_EQ(radixHostTopBits(i64(1) << 26, 40), 10);
  EXPECT_EQ(radixHostTopBits(i64(1) << 26, 9), 9);
  EXPECT_TRUE(radixHostTopDigitPays(i64(1) << 18, i64(1) << 24, 2));
  EXPECT_FALSE(radixHostTopDigitPays((i64(1) << 18) + 1, i64(1) << 24, 2));
  EXPECT_FALSE(radixHostTopDigitPays(1025, i64(1) << 13, 2)); // n / (4 x 2) = 1024
  const auto one = denseScatterPlan(2048), two = denseScatterPlan(2049);
  EXPECT_EQ(one.highBits, 11);
  EXPECT_EQ(one.lowBits, 0);
  EXPECT_EQ(two.highBits, 6);
  EXPECT_EQ(two.lowBits, 6);
  EXPECT_EQ(denseScatterPlan(i64(1) << 23).highBits, 11);
  EXPECT_EQ(denseScatterPlan(i64(1) << 23).lowBits, 12);
  EXPECT_TRUE(denseScatterPlan(i64(1) << 16).countWhole);
  EXPECT_FALSE(denseScatterPlan((i64(1) << 16) + 1).countWhole);
}

TEST(Tuning, CountingChunks) {
  using sieve::Impl::Keys::countingChunks;
  EXPECT_EQ(countingChunks(4096 * 8, 1, 16), 8);                // at least 4096 records a chunk
  EXPECT_EQ(countingChunks(i64(1) << 24, 1, 16), 16);           // one a thread
  EXPECT_EQ(countingChunks(i64(1) << 20, i64(1) << 20, 16), 4); // histograms ~2 x (n + K)
}

} // namespace
