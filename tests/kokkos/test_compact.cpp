// Sieve Kokkos tests — sieve::compact on the backend of this binary.
#include "../common/cases.hpp"
#include "../common/expect.hpp"
#include "../common/reference.hpp"
#include "backend.hpp"

#include <limits>
#include <stdexcept>

using namespace sieve_test;

namespace {

constexpr std::int32_t kSentinel = -7;

struct Result {
  std::vector<std::int32_t> map; // the whole map, sentinel slots included
  std::uint32_t count, live32, fire;
};

template <class MaskView>
Result run(const MaskView& mask, bool drop, std::uint32_t spanValue, bool withTrigger,
           float theta = 0.5f) {
  const auto n = static_cast<std::int64_t>(mask.extent(0));
  auto map = filled<std::int32_t>(static_cast<std::size_t>(n), kSentinel, "map");
  Word count = word(0xDEADBEEFu, "count");
  Bytes scratch("scratch", sieve::compact_scratch_bytes(n));
  sieve::Trigger<TestMem> trig("trig", theta);
  Kokkos::deep_copy(trig.span, spanValue);
  Kokkos::deep_copy(trig.live32, 0xDEADBEEFu);
  Kokkos::deep_copy(trig.fire, 0xDEADBEEFu);
  TestExec exec;
  const std::uint32_t flags = drop ? sieve::kCompactMaskIsDrop : 0u;
  if (withTrigger) sieve::compact(exec, mask, flags, map, count, scratch, trig);
  else sieve::compact(exec, mask, flags, map, count, scratch);
  exec.fence();
  return {toHost(map), read(count), read(trig.live32), read(trig.fire)};
}

void expectMatches(const Result& r, const RefCompact& ref, std::int64_t n) {
  ASSERT_EQ(r.count, ref.count);
  for (std::uint32_t k = 0; k < ref.count; ++k) ASSERT_EQ(r.map[k], ref.map[k]) << "slot " << k;
  for (std::int64_t k = ref.count; k < n; ++k)
    ASSERT_EQ(r.map[static_cast<std::size_t>(k)], kSentinel) << "slot " << k << " past the count";
}

} // namespace

TEST(Compact, MatchesReferenceOnEveryCase) {
  for (const auto n : sizes())
    for (const auto kind : maskKinds())
      for (const bool drop : {false, true}) {
        SCOPED_TRACE("n=" + std::to_string(n) + " mask=" + name(kind) + (drop ? " drop" : " keep"));
        const auto host = makeMask(kind, n);
        const auto ref = refCompact(host.data(), n, drop);
        const auto mask = toDevice(host, "mask");
        const auto plain = run(mask, drop, static_cast<std::uint32_t>(n), false);
        expectMatches(plain, ref, n);
        ASSERT_EQ(plain.live32, 0xDEADBEEFu) << "no trigger: live32 untouched";
        const auto trig = run(mask, drop, static_cast<std::uint32_t>(n), true);
        expectMatches(trig, ref, n);
        ASSERT_EQ(trig.live32, ref.live32);
        ASSERT_EQ(trig.fire, refFire(ref.count, ref.live32, static_cast<std::uint32_t>(n), 0.5f));
      }
}

TEST(Compact, TriggerFiresOnScatteredNotContiguousAndAtTheSpanEdges) {
  const std::int64_t n = 100000;
  const auto scattered = toDevice(scattered20(n)), contiguous = toDevice(contiguous20(n));
  EXPECT_EQ(run(scattered, false, n, true).fire, 1u);
  EXPECT_EQ(run(contiguous, false, n, true).fire, 0u);
  EXPECT_EQ(run(scattered, false, 20000, true).fire, 0u); // span == count
  EXPECT_EQ(run(scattered, false, 20001, true).fire, 1u); // count + 1
  const auto small = toDevice(scattered20(20000));        // 4000 kept
  EXPECT_EQ(run(small, false, 4095, true).fire, 0u);
  EXPECT_EQ(run(small, false, 4096, true).fire, 1u);
  auto live = run(small, false, 4096, true).live32;
  EXPECT_EQ(live, 625u);
}

TEST(Compact, StridedMask) {
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
    const auto r = run(column, drop, n, true);
    const auto ref = refCompact(host.data(), n, drop);
    expectMatches(r, ref, n);
    EXPECT_EQ(r.live32, ref.live32);
  }
}

TEST(Compact, EmptyViews) {
  DView<std::uint8_t> mask;
  DView<std::int32_t> map;
  Bytes scratch;
  Word count = word(5);
  sieve::Trigger<TestMem> trig("trig");
  Kokkos::deep_copy(trig.span, 9000u);
  Kokkos::deep_copy(trig.live32, 3u);
  Kokkos::deep_copy(trig.fire, 3u);
  sieve::compact(TestExec(), mask, 0u, map, count, scratch, trig);
  EXPECT_EQ(read(count), 0u);
  EXPECT_EQ(read(trig.live32), 0u);
  EXPECT_EQ(read(trig.fire), 0u);
}

TEST(Compact, RejectsBadArguments) {
  const std::int64_t n = 1000;
  const auto mask = toDevice(makeMask(MaskKind::Random50, n));
  auto map = filled<std::int32_t>(n, kSentinel);
  Word count = word(77);
  Bytes scratch("scratch", sieve::compact_scratch_bytes(n));
  TestExec exec;
  auto shortMap = Kokkos::subview(map, std::make_pair(0, 999));
  expectInvalid([&] { sieve::compact(exec, mask, 0u, shortMap, count, scratch); }, "index_map.extent(0)");
  auto shortScratch = Kokkos::subview(scratch, std::make_pair(std::size_t(0), scratch.extent(0) - 1));
  expectInvalid([&] { sieve::compact(exec, mask, 0u, map, count, shortScratch); }, "scratch holds");
  expectInvalid([&] { sieve::compact(exec, mask, 4u, map, count, scratch); }, "flags");
  expectInvalid([&] { sieve::compact(exec, mask, 0u, map, Word(), scratch); }, "count is an empty View");
  sieve::Trigger<TestMem> empty;
  expectInvalid([&] { sieve::compact(exec, mask, 0u, map, count, scratch, empty); }, "trigger.live32");
  sieve::Trigger<TestMem> bad("bad");
  bad.theta = 1.0f;
  expectInvalid([&] { sieve::compact(exec, mask, 0u, map, count, scratch, bad); }, "theta");
  expectInvalid([&] { sieve::Trigger<TestMem> t("t", 0.0f); }, "theta");
  expectInvalid([&] { sieve::compact_scratch_bytes(-1); }, "negative");
  // A mask and an index map carved from one allocation must not overlap.
  {
    Bytes arena("arena", 5 * n);
    using Unmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
    Kokkos::View<std::uint8_t*, TestMem, Unmanaged> m(reinterpret_cast<std::uint8_t*>(arena.data()), n);
    Kokkos::View<std::int32_t*, TestMem, Unmanaged> mp(reinterpret_cast<std::int32_t*>(arena.data() + 996), n);
    expectInvalid([&] { sieve::compact(exec, m, 0u, mp, count, scratch); }, "mask overlaps indexMap");
    Kokkos::View<std::uint8_t*, TestMem, Unmanaged> inScratch(
        reinterpret_cast<std::uint8_t*>(scratch.data()) + 8, n);
    expectInvalid([&] { sieve::compact(exec, inScratch, 0u, map, count, scratch); }, "mask overlaps scratch");
  }
  EXPECT_EQ(read(count), 77u) << "a rejected call wrote the count";
  const auto h = toHost(map);
  for (auto v : h) ASSERT_EQ(v, kSentinel) << "a rejected call wrote the map";
}
