// SPDX-License-Identifier: Apache-2.0
// Sieve tests — reorder and restore, one body for every face.
//
//   SIEVE_REORDER_SUITE(HostReorder, HostFace)
//
// defines, for the face's adapter (see faces.hpp):
//   HostReorder.MatchesReference/<n>_<mask>_<keep|drop>   planes of 1, 2, 4, 8, 16 bytes, fire = 1
//   HostReorderElem.Alone/elem<e>                          the mask and one plane of e bytes
//   HostReorderSpan.LimitsTheMoves/n<n>_span<s>_<fire|nofire>
//   HostReorderFire.ZeroLeavesEveryByteUntouched
//   HostReorderSequence.ThenRestore/n<n>_<unconditional|triggered>
//   HostReorderRestore.MaskBackInSampleOrder
#pragma once

#include "cases.hpp"
#include "faces.hpp"
#include "reference.hpp"
#include "suite_compact.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace sieve_test {

inline const std::vector<std::uint32_t>& allElems() {
  static const std::vector<std::uint32_t> e{2, 4, 8, 16};
  return e;
}

inline const std::vector<MaskKind>& reorderKinds() {
  static const std::vector<MaskKind> k{MaskKind::Random20, MaskKind::Random90,    MaskKind::All,
                                       MaskKind::None,     MaskKind::Alternating, MaskKind::OneRun};
  return k;
}

template <class Face>
void reorderMatchesReference(const MaskCase& c) {
  const auto pop = makePopulation(cachedMask(c.kind, c.n), allElems());
  auto ref = pop;
  refReorder(ref, c.n, c.drop, true);
  forEachConfig<Face>([&] {
    auto got = pop;
    Face::reorder(got, c.drop, true);
    expectSameState(got, ref);
  });
}

struct ElemCase {
  std::uint32_t elem;
};
inline std::string name(const ElemCase& c) { return "elem" + std::to_string(c.elem); }
inline void PrintTo(const ElemCase& c, std::ostream* os) { *os << name(c); }

template <class Face>
void reorderElemAlone(const ElemCase& c) {
  const auto pop = makePopulation(makeMask(MaskKind::Random50, 50001), {c.elem});
  auto ref = pop;
  refReorder(ref, 50001, false, false);
  forEachConfig<Face>([&] {
    auto got = pop;
    Face::reorder(got, false, false);
    expectSameState(got, ref);
  });
}

struct SpanCase {
  std::int64_t n;
  std::uint32_t span;
  bool useFire;
};
inline std::string name(const SpanCase& c) {
  return "n" + std::to_string(c.n) + "_span" + std::to_string(c.span) +
         (c.useFire ? "_fire" : "_nofire");
}
inline void PrintTo(const SpanCase& c, std::ostream* os) { *os << name(c); }
inline std::vector<SpanCase> spanCases() {
  std::vector<SpanCase> out;
  for (const bool f : {true, false}) {
    for (std::uint32_t s : {0u, 1u, 31u, 4097u, 30000u, 40000u, 1000000u})
      out.push_back({40000, s, f});
    for (std::uint32_t s : {0u, 33u, 50000u, 1000000u}) out.push_back({70001, s, f});
  }
  return out;
}

/// Samples at or past the span never move; the span is clamped to n. With
/// the fire word (fire = 1) on the mask and two planes; without it on every
/// element size, the fire word preset to 0 and ignored.
template <class Face>
void reorderSpanLimitsTheMoves(const SpanCase& c) {
  auto pop = makePopulation(makeMask(MaskKind::Random50, c.n),
                            c.useFire ? std::vector<std::uint32_t>{4, 8} : allElems());
  pop.span = c.span;
  pop.fire = c.useFire ? 1u : 0u;
  auto ref = pop;
  refReorder(ref, c.n, false, c.useFire);
  forEachConfig<Face>([&] {
    auto got = pop;
    Face::reorder(got, false, c.useFire);
    expectSameState(got, ref);
  });
}

template <class Face>
void reorderFireZeroLeavesEveryByteUntouched() {
  for (const auto& [n, kind] : {std::make_pair(std::int64_t(30011), MaskKind::Random20),
                                std::make_pair(std::int64_t(70001), MaskKind::Random50)}) {
    SCOPED_TRACE("n=" + std::to_string(n));
    auto pop = makePopulation(makeMask(kind, n), allElems());
    pop.fire = 0;
    pop.count = 1234;
    for (const bool drop : {false, true})
      forEachConfig<Face>([&] {
        auto got = pop;
        Face::reorder(got, drop, true);
        expectSameState(got, pop);
      });
  }
}

enum class Flow { Unconditional, Triggered };
struct SequenceCase {
  std::int64_t n;
  Flow flow;
};
inline std::string name(const SequenceCase& c) {
  return "n" + std::to_string(c.n) +
         (c.flow == Flow::Unconditional ? "_unconditional" : "_triggered");
}
inline void PrintTo(const SequenceCase& c, std::ostream* os) { *os << name(c); }
inline std::vector<SequenceCase> sequenceCases() {
  std::vector<SequenceCase> out;
  for (const std::int64_t n : {std::int64_t(4097), std::int64_t(100003), std::int64_t(200003),
                               (std::int64_t(1) << 20) + 4099})
    for (const Flow f : {Flow::Unconditional, Flow::Triggered}) out.push_back({n, f});
  return out;
}

/// The flow of a transport code: every sample alive, then steps that thin the
/// live samples (in slot order: the mask moved with them) and reorder —
/// unconditionally, or when the compaction's trigger fires — and at the end a
/// restore: every plane back bit for bit, the mask in sample order.
template <class Face>
void reorderSequenceThenRestore(const SequenceCase& c) {
  const std::int64_t n = c.n;
  const bool triggered = c.flow == Flow::Triggered;
  const auto original =
      makePopulation(std::vector<std::uint8_t>(static_cast<std::size_t>(n), 1), allElems());
  forEachConfig<Face>([&] {
    auto got = original, ref = original;
    int fired = 0;
    const std::uint32_t steps = triggered ? 4 : 2;
    for (std::uint32_t step = 0; step < steps; ++step) {
      SCOPED_TRACE("step " + std::to_string(step));
      const auto next =
          triggered ? thin(maskOf(ref), 0.5, 200 + step) : thin(maskOf(ref), 0.4, 100 + step);
      ref.planes[0].bytes.assign(next.begin(), next.end());
      got.planes[0].bytes = ref.planes[0].bytes;
      if (triggered) {
        // The compaction on the face computes count, map and the trigger.
        const auto rc = refCompact(next.data(), n, false);
        const auto o = Face::compact(compactIn(next, false, true, ref.span));
        ASSERT_EQ(o.count, rc.count);
        ASSERT_EQ(o.live32, rc.live32);
        const std::uint32_t fire = refFire(rc.count, rc.live32, ref.span, 0.5f);
        ASSERT_EQ(o.fire, fire);
        fired += static_cast<int>(fire);
        for (std::uint32_t k = 0; k < rc.count; ++k) {
          ASSERT_EQ(o.map[k], rc.map[k]) << "slot " << k;
          ref.map[k] = got.map[k] = rc.map[k];
        }
        ref.count = got.count = o.count;
        ref.fire = got.fire = o.fire;
      }
      refReorder(ref, n, false, triggered);
      Face::reorder(got, false, triggered);
      expectSameState(got, ref);
      // plane[inv[i]] is sample i, for every sample and every plane but the mask.
      for (std::size_t p = 1; p < got.planes.size(); ++p) {
        const std::uint32_t e = got.planes[p].elem;
        std::vector<unsigned char> gathered(got.planes[p].bytes.size());
        for (std::int64_t i = 0; i < n; ++i)
          copyElem(
              gathered.data() + std::size_t(i) * e,
              got.planes[p].bytes.data() + std::size_t(got.inv[static_cast<std::size_t>(i)]) * e,
              e);
        if (gathered != original.planes[p].bytes) {
          std::int64_t i = 0;
          while (compareBytes(gathered.data() + std::size_t(i) * e,
                              original.planes[p].bytes.data() + std::size_t(i) * e, e) == 0)
            ++i;
          FAIL() << "plane " << p << ": sample " << i << " not at inv[i]";
        }
      }
    }
    if (triggered && n >= 100003) {
      EXPECT_GE(fired, 1) << "a thinning random population must fire";
    }
    refRestore(ref);
    Face::restore(got);
    expectSameState(got, ref);
    for (std::size_t p = 1; p < got.planes.size(); ++p)
      ASSERT_TRUE(got.planes[p].bytes == original.planes[p].bytes)
          << "plane " << p << " not restored bit for bit";
    for (std::int64_t i = 0; i < n; ++i) {
      ASSERT_EQ(got.perm[static_cast<std::size_t>(i)], i);
      ASSERT_EQ(got.inv[static_cast<std::size_t>(i)], i);
    }
  });
}

template <class Face>
void reorderRestoreMaskBackInSampleOrder() {
  const auto mask = makeMask(MaskKind::Random50, 9000);
  const auto pop = makePopulation(mask, {8});
  forEachConfig<Face>([&] {
    auto got = pop;
    Face::reorder(got, false, false);
    Face::restore(got);
    ASSERT_TRUE(maskOf(got) == mask);
    ASSERT_TRUE(got.planes[1].bytes == pop.planes[1].bytes);
  });
}

/// The native faces' rule for a damaged inverse map: a slot whose inv entry
/// is out of range keeps its value (nothing is read or written out of
/// bounds), every other slot is gathered. (Not in the suite macro: the Kokkos
/// API checks perm / inv first and throws.)
template <class Face>
void restoreKeepsSlotsWithOutOfRangeInv() {
  const std::int64_t n = 5003;
  const auto pop = makePopulation(makeMask(MaskKind::Random50, n), allElems());
  forEachConfig<Face>([&] {
    auto got = pop;
    Face::reorder(got, false, false);
    for (const std::int64_t i : {std::int64_t(0), std::int64_t(7), std::int64_t(100),
                                 std::int64_t(2501), n - 2, n - 1}) {
      const std::int32_t bad[] = {-1, static_cast<std::int32_t>(n), INT32_MAX, -7};
      got.inv[static_cast<std::size_t>(i)] = bad[i % 4];
    }
    auto ref = got;
    refRestore(ref);
    Face::restore(got);
    expectSameState(got, ref);
  });
}

inline std::vector<ElemCase> elemCases() { return {{1}, {2}, {4}, {8}, {16}}; }

} // namespace sieve_test

#define SIEVE_REORDER_SUITE(Suite, Face)                                                        \
  class Suite : public ::testing::TestWithParam<::sieve_test::MaskCase> {};                     \
  TEST_P(Suite, MatchesReference) {                                                             \
    SIEVE_FACE_REQUIRED(Face);                                                                  \
    ::sieve_test::reorderMatchesReference<Face>(GetParam());                                    \
  }                                                                                             \
  INSTANTIATE_TEST_SUITE_P(                                                                     \
      Sweep, Suite, ::testing::ValuesIn(::sieve_test::maskCases(::sieve_test::reorderKinds())), \
      ::sieve_test::ParamName{});                                                               \
  class Suite##Elem : public ::testing::TestWithParam<::sieve_test::ElemCase> {};               \
  TEST_P(Suite##Elem, Alone) {                                                                  \
    SIEVE_FACE_REQUIRED(Face);                                                                  \
    ::sieve_test::reorderElemAlone<Face>(GetParam());                                           \
  }                                                                                             \
  INSTANTIATE_TEST_SUITE_P(Sizes, Suite##Elem, ::testing::ValuesIn(::sieve_test::elemCases()),  \
                           ::sieve_test::ParamName{});                                          \
  class Suite##Span : public ::testing::TestWithParam<::sieve_test::SpanCase> {};               \
  TEST_P(Suite##Span, LimitsTheMoves) {                                                         \
    SIEVE_FACE_REQUIRED(Face);                                                                  \
    ::sieve_test::reorderSpanLimitsTheMoves<Face>(GetParam());                                  \
  }                                                                                             \
  INSTANTIATE_TEST_SUITE_P(Spans, Suite##Span, ::testing::ValuesIn(::sieve_test::spanCases()),  \
                           ::sieve_test::ParamName{});                                          \
  TEST(Suite##Fire, ZeroLeavesEveryByteUntouched) {                                             \
    SIEVE_FACE_REQUIRED(Face);                                                                  \
    ::sieve_test::reorderFireZeroLeavesEveryByteUntouched<Face>();                              \
  }                                                                                             \
  class Suite##Sequence : public ::testing::TestWithParam<::sieve_test::SequenceCase> {};       \
  TEST_P(Suite##Sequence, ThenRestore) {                                                        \
    SIEVE_FACE_REQUIRED(Face);                                                                  \
    ::sieve_test::reorderSequenceThenRestore<Face>(GetParam());                                 \
  }                                                                                             \
  INSTANTIATE_TEST_SUITE_P(Flows, Suite##Sequence,                                              \
                           ::testing::ValuesIn(::sieve_test::sequenceCases()),                  \
                           ::sieve_test::ParamName{});                                          \
  TEST(Suite##Restore, MaskBackInSampleOrder) {                                                 \
    SIEVE_FACE_REQUIRED(Face);                                                                  \
    ::sieve_test::reorderRestoreMaskBackInSampleOrder<Face>();                                  \
  }                                                                                             \
  static_assert(true, "")
