// SPDX-License-Identifier: Apache-2.0
// Sieve Kokkos tests — sieve::compact on the backend of this binary: the
// shared compaction suite through the public API, then what only the Kokkos
// face has (strided masks, empty Views, the explicit keep polarity, the
// argument checks and their messages).
#include "../common/expect.hpp"
#include "../common/suite_compact.hpp"
#include "face.hpp"

#include <limits>
#include <stdexcept>

using namespace sieve_test;

SIEVE_COMPACT_SUITE(KokkosCompact, KokkosFace);

namespace {

constexpr std::int32_t kSentinel = -7;

/// sieve::compact with the trigger on any mask View (strided ones included).
template <class MaskView>
CompactOut compactView(const MaskView& mask, bool drop, std::uint32_t span) {
  const auto n = static_cast<std::int64_t>(mask.extent(0));
  auto map = filled<std::int32_t>(static_cast<std::size_t>(n), kSentinel, "map");
  Word count = word(0xDEADBEEFu, "count");
  Bytes scratch("scratch", sieve::compact_scratch_bytes(n));
  sieve::Trigger<TestMem> trig("trig", 0.5f);
  Kokkos::deep_copy(trig.span, span);
  TestExec exec;
  sieve::compact(exec, mask, drop ? sieve::MaskPolarity::drop : sieve::MaskPolarity::keep, map,
                 count, scratch, trig);
  exec.fence();
  CompactOut o;
  o.map = toHost(map);
  o.count = read(count);
  o.live32 = read(trig.live32);
  o.fire = read(trig.fire);
  return o;
}

void expectMatches(const CompactOut& r, const RefCompact& ref, std::int64_t n) {
  ASSERT_EQ(r.count, ref.count);
  for (std::uint32_t k = 0; k < ref.count; ++k) ASSERT_EQ(r.map[k], ref.map[k]) << "slot " << k;
  for (std::int64_t k = ref.count; k < n; ++k)
    ASSERT_EQ(r.map[static_cast<std::size_t>(k)], kSentinel) << "slot " << k << " past the count";
}

} // namespace

TEST(KokkosCompactApi, StridedMask) {
  // The mask is column 1 of an (n, 3) LayoutRight View: a LayoutStride subview.
  const std::int64_t n = 100003;
  const auto host = makeMask(MaskKind::Random50, n);
  Kokkos::View<std::uint8_t**, Kokkos::LayoutRight, TestMem> table("table", n, 3);
  auto column = Kokkos::subview(table, Kokkos::ALL, 1);
  auto h = Kokkos::create_mirror_view(table);
  for (std::int64_t i = 0; i < n; ++i) {
    h(i, 0) = 1;
    h(i, 1) = host[static_cast<std::size_t>(i)];
    h(i, 2) = 0;
  }
  Kokkos::deep_copy(table, h);
  static_assert(std::is_same_v<decltype(column)::array_layout, Kokkos::LayoutStride>);
  for (const bool drop : {false, true}) {
    const auto r = compactView(column, drop, n);
    const auto ref = refCompact(host.data(), n, drop);
    expectMatches(r, ref, n);
    EXPECT_EQ(r.live32, ref.live32);
  }
}

TEST(KokkosCompactApi, ExplicitKeepIsTheDefault) {
  const std::int64_t n = 65537;
  const auto host = makeMask(MaskKind::Random20, n);
  const auto mask = toDevice(host, "mask");
  const auto ref = refCompact(host.data(), n, false);
  const auto r = compactView(mask, false, n); // MaskPolarity::keep, explicitly
  expectMatches(r, ref, n);
  EXPECT_EQ(r.live32, ref.live32);
}

TEST(KokkosCompactApi, EmptyViews) {
  DView<std::uint8_t> mask;
  DView<std::int32_t> map;
  Bytes scratch;
  Word count = word(5);
  sieve::Trigger<TestMem> trig("trig");
  Kokkos::deep_copy(trig.span, 9000u);
  Kokkos::deep_copy(trig.live32, 3u);
  Kokkos::deep_copy(trig.fire, 3u);
  sieve::compact(TestExec(), mask, map, count, scratch, trig);
  EXPECT_EQ(read(count), 0u);
  EXPECT_EQ(read(trig.live32), 0u);
  EXPECT_EQ(read(trig.fire), 0u);
}

TEST(KokkosCompactApi, RejectsBadArguments) {
  // (An integer flag word where the polarity goes no longer compiles:
  // tests/compile_fail case 3.)
  const std::int64_t n = 1000;
  const auto mask = toDevice(makeMask(MaskKind::Random50, n));
  auto map = filled<std::int32_t>(n, kSentinel);
  Word count = word(77);
  Bytes scratch("scratch", sieve::compact_scratch_bytes(n));
  TestExec exec;
  auto shortMap = Kokkos::subview(map, std::make_pair(0, 999));
  expectInvalid([&] { sieve::compact(exec, mask, shortMap, count, scratch); },
                "index_map.extent(0)");
  auto shortScratch =
      Kokkos::subview(scratch, std::make_pair(std::size_t(0), scratch.extent(0) - 1));
  expectInvalid([&] { sieve::compact(exec, mask, map, count, shortScratch); }, "scratch holds");
  expectInvalid(
      [&] { sieve::compact(exec, mask, sieve::MaskPolarity::drop, map, count, shortScratch); },
      "scratch holds");
  expectInvalid([&] { sieve::compact(exec, mask, map, Word(), scratch); },
                "count is an empty View");
  sieve::Trigger<TestMem> empty;
  expectInvalid([&] { sieve::compact(exec, mask, map, count, scratch, empty); }, "trigger.live32");
  sieve::Trigger<TestMem> bad("bad");
  bad.theta = 1.0f;
  expectInvalid([&] { sieve::compact(exec, mask, map, count, scratch, bad); }, "theta");
  expectInvalid([&] { sieve::Trigger<TestMem> t("t", 0.0f); }, "theta");
  expectInvalid([&] { sieve::compact_scratch_bytes(-1); }, "negative");
  // A mask and an index map carved from one allocation must not overlap.
  {
    Bytes arena("arena", 5 * n);
    using Unmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
    Kokkos::View<std::uint8_t*, TestMem, Unmanaged> m(reinterpret_cast<std::uint8_t*>(arena.data()),
                                                      n);
    Kokkos::View<std::int32_t*, TestMem, Unmanaged> mp(
        reinterpret_cast<std::int32_t*>(arena.data() + 996), n);
    expectInvalid([&] { sieve::compact(exec, m, mp, count, scratch); }, "mask overlaps indexMap");
    Kokkos::View<std::uint8_t*, TestMem, Unmanaged> inScratch(
        reinterpret_cast<std::uint8_t*>(scratch.data()) + 8, n);
    expectInvalid([&] { sieve::compact(exec, inScratch, map, count, scratch); },
                  "mask overlaps scratch");
  }
  EXPECT_EQ(read(count), 77u) << "a rejected call wrote the count";
  const auto h = toHost(map);
  for (auto v : h) ASSERT_EQ(v, kSentinel) << "a rejected call wrote the map";
}
