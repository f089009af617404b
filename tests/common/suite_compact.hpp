// SPDX-License-Identifier: Apache-2.0
// Sieve tests — compaction and the locality trigger, one body for every face.
//
//   SIEVE_COMPACT_SUITE(HostCompact, HostFace)
//
// defines, for the face's adapter (see faces.hpp):
//   HostCompact.MatchesReference/<n>_<mask>_<keep|drop>   the sweep, with and without trigger
//   HostCompactTrigger.*                                  live32 / fire edges, the empty batch
//   HostCompactMask.Unaligned/<offset>_<keep|drop>        a mask off its allocation's alignment
// (a single case: --gtest_filter='*HostCompact.MatchesReference/n4097_random20_drop').
#pragma once

#include "cases.hpp"
#include "faces.hpp"
#include "reference.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace sieve_test {

/// The contract every compaction meets, against the reference: the count, the
/// kept indices ascending, and every slot at or past the count unwritten.
inline void expectCompaction(const CompactOut& o, const RefCompact& ref, std::int64_t n) {
  ASSERT_EQ(o.map.size(), static_cast<std::size_t>(n)) << "the adapter returns all n slots";
  ASSERT_EQ(o.count, ref.count);
  for (std::uint32_t k = 0; k < ref.count; ++k) ASSERT_EQ(o.map[k], ref.map[k]) << "slot " << k;
  for (std::int64_t k = ref.count; k < n; ++k)
    ASSERT_EQ(o.map[static_cast<std::size_t>(k)], kMapSentinel)
        << "slot " << k << " at or past count " << ref.count << " was written";
}

inline CompactIn compactIn(const std::vector<std::uint8_t>& mask, bool drop, bool trigger,
                           std::uint32_t span, float theta = 0.5f, std::size_t offset = 0) {
  CompactIn in;
  in.mask = mask;
  in.drop = drop;
  in.trigger = trigger;
  in.span = span;
  in.theta = theta;
  in.maskOffset = offset;
  return in;
}

template <class Face>
void compactMatchesReference(const MaskCase& c) {
  const auto& mask = cachedMask(c.kind, c.n);
  const auto ref = refCompact(mask.data(), c.n, c.drop);
  const auto span = static_cast<std::uint32_t>(c.n);
  forEachConfig<Face>([&] {
    for (const bool trig : {false, true}) {
      SCOPED_TRACE(trig ? "with the trigger" : "without the trigger");
      const auto o = Face::compact(compactIn(mask, c.drop, trig, span));
      expectCompaction(o, ref, c.n);
      if (trig) {
        ASSERT_EQ(o.live32, ref.live32);
        ASSERT_EQ(o.fire, refFire(ref.count, ref.live32, span, 0.5f));
      } else {
        ASSERT_EQ(o.live32, kWordSentinel) << "no trigger: live32 untouched";
        ASSERT_EQ(o.fire, kWordSentinel) << "no trigger: fire untouched";
      }
    }
  });
}

template <class Face>
void compactLive32CountsPartialLastGroup() {
  // 33 samples: groups [0,32) and [32,33); only sample 32 kept.
  std::vector<std::uint8_t> mask(33, 0);
  mask[32] = 3;
  // 70 samples, kept 0, 31, 32, 69: three live groups of three (last partial).
  std::vector<std::uint8_t> m2(70, 0);
  m2[0] = m2[31] = m2[32] = m2[69] = 1;
  forEachConfig<Face>([&] {
    const auto o = Face::compact(compactIn(mask, false, true, 33));
    EXPECT_EQ(o.count, 1u);
    EXPECT_EQ(o.live32, 1u);
    const auto o2 = Face::compact(compactIn(m2, false, true, 70));
    EXPECT_EQ(o2.count, 4u);
    EXPECT_EQ(o2.live32, 3u);
  });
}

template <class Face>
void compactFiresOnScatteredAndNotOnContiguous() {
  const std::int64_t n = 100000;
  const std::uint32_t span = n;
  const auto scattered = scattered20(n), contiguous = contiguous20(n);
  forEachConfig<Face>([&] {
    const auto s = Face::compact(compactIn(scattered, false, true, span));
    EXPECT_EQ(s.count, 20000u);
    EXPECT_EQ(s.live32, 3125u);
    EXPECT_EQ(s.fire, 1u) << "a scattered 20% mask fills 20% of its warps: reorder";
    const auto k = Face::compact(compactIn(contiguous, false, true, span));
    EXPECT_EQ(k.count, 20000u);
    EXPECT_EQ(k.live32, 625u);
    EXPECT_EQ(k.fire, 0u) << "a contiguous 20% mask fills its warps: no reorder";
  });
}

template <class Face>
void compactTriggerSpanEdges() {
  const auto mask = scattered20(100000); // 20000 kept, scattered; the last kept is 99995
  const auto small = scattered20(20000); // 4000 kept < 4095
  forEachConfig<Face>([&] {
    // The fire word for `span`; on faces that cover every kept sample (the
    // public API) the span is first widened past the last kept sample.
    const auto check = [&](const std::vector<std::uint8_t>& m, std::uint32_t span,
                           std::uint32_t fireWithoutCover) {
      const auto ref = refCompact(m.data(), static_cast<std::int64_t>(m.size()), false);
      const auto o = Face::compact(compactIn(m, false, true, span));
      if constexpr (Face::kCoversKept) {
        const std::uint32_t covered = refCoveredSpan(span, ref.map);
        EXPECT_EQ(o.span, covered) << "span " << span;
        EXPECT_EQ(o.fire, refFire(ref.count, ref.live32, covered, 0.5f)) << "span " << span;
      } else {
        EXPECT_EQ(o.fire, fireWithoutCover) << "span " << span;
      }
      return o;
    };
    // span == count: a reorder would not shrink it; count + 1 would.
    check(mask, 20000, 0u);
    check(mask, 20001, 1u);
    // Below kReorderMinSpan, then at it.
    check(small, 4095, 0u);
    EXPECT_EQ(check(small, 4096, 1u).live32, 625u);
    // The same edges with every kept sample inside the span (nothing to cover).
    EXPECT_EQ(check(scattered20(4095), 4095, 0u).fire, 0u); // last kept 4090
    EXPECT_EQ(check(scattered20(4096), 4096, 1u).fire, 1u); // last kept 4095
    // The cover's own edge: a span just past the last kept sample stays.
    EXPECT_EQ(check(mask, 99996, 1u).fire, 1u);
    check(mask, 99995, 1u); // widened by one on covering faces
  });
}

template <class Face>
void compactEmptyBatchWritesZeroCountAndTrigger() {
  forEachConfig<Face>([&] {
    const auto o = Face::compact(compactIn({}, false, true, 5000));
    EXPECT_EQ(o.count, 0u);
    EXPECT_EQ(o.live32, 0u);
    EXPECT_EQ(o.fire, 0u);
    const auto d = Face::compact(compactIn({}, true, false, 0));
    EXPECT_EQ(d.count, 0u);
  });
}

struct OffsetCase {
  std::size_t offset;
  bool drop;
};
inline std::string name(const OffsetCase& c) {
  return "offset" + std::to_string(c.offset) + (c.drop ? "_drop" : "_keep");
}
inline std::vector<OffsetCase> offsetCases() {
  std::vector<OffsetCase> out;
  // Every word offset within a 16-byte line (0..3) and byte shift (0..3).
  for (std::size_t o : {1u, 3u, 4u, 5u, 8u, 14u, 15u})
    for (const bool drop : {false, true}) out.push_back({o, drop});
  return out;
}

template <class Face>
void compactUnalignedMask(const OffsetCase& c) {
  // A group or two, a few groups (first, middle and last ones differ), many.
  for (const std::int64_t n : {std::int64_t(5), std::int64_t(79), std::int64_t(161),
                               std::int64_t(100003)}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto mask = makeMask(MaskKind::Random50, n);
    const auto ref = refCompact(mask.data(), n, c.drop);
    forEachConfig<Face>([&] {
      const auto o = Face::compact(compactIn(mask, c.drop, true, static_cast<std::uint32_t>(n),
                                             0.5f, c.offset));
      expectCompaction(o, ref, n);
      EXPECT_EQ(o.live32, ref.live32);
      EXPECT_EQ(o.fire, refFire(ref.count, ref.live32, static_cast<std::uint32_t>(n), 0.5f));
    });
  }
}

/// gtest parameter names: the case's readable name.
struct ParamName {
  template <class P>
  std::string operator()(const ::testing::TestParamInfo<P>& info) const {
    return name(info.param);
  }
};

inline void PrintTo(const MaskCase& c, std::ostream* os) { *os << name(c); }
inline void PrintTo(const OffsetCase& c, std::ostream* os) { *os << name(c); }

} // namespace sieve_test

#define SIEVE_COMPACT_SUITE(Suite, Face)                                                           \
  class Suite : public ::testing::TestWithParam<::sieve_test::MaskCase> {};                        \
  TEST_P(Suite, MatchesReference) {                                                                \
    SIEVE_FACE_REQUIRED(Face);                                                                     \
    ::sieve_test::compactMatchesReference<Face>(GetParam());                                       \
  }                                                                                                \
  INSTANTIATE_TEST_SUITE_P(Sweep, Suite, ::testing::ValuesIn(::sieve_test::maskCases()),           \
                           ::sieve_test::ParamName{});                                             \
  TEST(Suite##Trigger, Live32CountsPartialLastGroup) {                                             \
    SIEVE_FACE_REQUIRED(Face);                                                                     \
    ::sieve_test::compactLive32CountsPartialLastGroup<Face>();                                     \
  }                                                                                                \
  TEST(Suite##Trigger, FiresOnScatteredAndNotOnContiguous) {                                       \
    SIEVE_FACE_REQUIRED(Face);                                                                     \
    ::sieve_test::compactFiresOnScatteredAndNotOnContiguous<Face>();                               \
  }                                                                                                \
  TEST(Suite##Trigger, SpanEdges) {                                                                \
    SIEVE_FACE_REQUIRED(Face);                                                                     \
    ::sieve_test::compactTriggerSpanEdges<Face>();                                                 \
  }                                                                                                \
  TEST(Suite##Trigger, EmptyBatchWritesZeroCountAndTrigger) {                                      \
    SIEVE_FACE_REQUIRED(Face);                                                                     \
    ::sieve_test::compactEmptyBatchWritesZeroCountAndTrigger<Face>();                              \
  }                                                                                                \
  class Suite##Mask : public ::testing::TestWithParam<::sieve_test::OffsetCase> {};                \
  TEST_P(Suite##Mask, Unaligned) {                                                                 \
    SIEVE_FACE_REQUIRED(Face);                                                                     \
    ::sieve_test::compactUnalignedMask<Face>(GetParam());                                          \
  }                                                                                                \
  INSTANTIATE_TEST_SUITE_P(Offsets, Suite##Mask, ::testing::ValuesIn(::sieve_test::offsetCases()), \
                           ::sieve_test::ParamName{})
