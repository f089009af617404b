// SPDX-License-Identifier: Apache-2.0
// Sieve Kokkos tests — the API conventions themselves: the forms without an
// instance return what a host caller wants, the scan total, the honest scan
// scratch size, the typed polarity and the label overloads write exactly what
// the plain forms write.
#include "../common/cases.hpp"
#include "../common/expect.hpp"
#include "../common/reference.hpp"
#include "backend.hpp"

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

using namespace sieve_test;

TEST(Conventions, FencedCompactReturnsTheCountAndPolarityIsTyped) {
  for (const std::int64_t n :
       {std::int64_t(0), std::int64_t(1), std::int64_t(4097), std::int64_t(300007)}) {
    const auto host = makeMask(MaskKind::Random50, n);
    const auto mask = toDevice(host, "mask");
    for (const bool drop : {false, true}) {
      SCOPED_TRACE("n=" + std::to_string(n) + (drop ? " drop" : " keep"));
      const auto ref = refCompact(host.data(), n, drop);
      auto map = filled<std::int32_t>(static_cast<std::size_t>(n), -7, "map");
      Word count = word(0xDEADBEEFu);
      Bytes scratch("scratch", sieve::compact_scratch_bytes(n));
      const auto pol = drop ? sieve::MaskPolarity::drop : sieve::MaskPolarity::keep;
      const std::uint32_t got = drop ? sieve::compact("fenced", mask, pol, map, count, scratch)
                                     : sieve::compact(mask, map, count, scratch);
      EXPECT_EQ(got, ref.count);
      EXPECT_EQ(read(count), ref.count);
      const auto h = toHost(map);
      for (std::uint32_t k = 0; k < ref.count; ++k) ASSERT_EQ(h[k], ref.map[k]) << "slot " << k;
      for (std::int64_t k = ref.count; k < n; ++k) ASSERT_EQ(h[static_cast<std::size_t>(k)], -7);
    }
  }
}

TEST(Conventions, ScanTotalsAsyncAndFenced) {
  TestExec exec;
  for (const std::int64_t n : {std::int64_t(0), std::int64_t(1), std::int64_t(1024),
                               std::int64_t(1025), std::int64_t(1 << 20) + 3}) {
    SCOPED_TRACE("n=" + std::to_string(n));
    const auto v = smallInts<std::int64_t>(n, 11);
    std::int64_t all = 5;
    for (auto x : v) all += x;
    const auto in = toDevice(v, "in");
    auto out = filled<std::int64_t>(static_cast<std::size_t>(n), 0, "out");
    Kokkos::View<std::int64_t, TestMem> total("total");
    Kokkos::View<std::int64_t*, TestMem> sums("sums", sieve::scan_scratch_size<std::int64_t>(n));
    // inclusive: op, init, scratch, total
    sieve::inclusive_scan(exec, in, out, sieve::Sum{}, std::int64_t(5), sums, total);
    exec.fence();
    std::int64_t t = 0;
    Kokkos::deep_copy(t, total);
    EXPECT_EQ(t, all);
    EXPECT_EQ(toHost(out), refScan(v, sieve::Sum{}, std::int64_t(5), true));
    // exclusive in place: the total needs in(n-1) from before the scan
    auto inPlace = toDevice(v, "inplace");
    sieve::exclusive_scan("labelled", exec, inPlace, inPlace, std::int64_t(5), total);
    exec.fence();
    Kokkos::deep_copy(t, total);
    EXPECT_EQ(t, all);
    EXPECT_EQ(toHost(inPlace), refScan(v, sieve::Sum{}, std::int64_t(5), false));
    // the fencing forms return it
    EXPECT_EQ(sieve::exclusive_scan(in, out, std::int64_t(5)), all);
    EXPECT_EQ(sieve::inclusive_scan("fenced", in, out, sieve::Sum{}, std::int64_t(5)), all);
    EXPECT_EQ(toHost(out), refScan(v, sieve::Sum{}, std::int64_t(5), true));
    // Max: the total is the fold with init
    std::int64_t mx = -100;
    for (auto x : v) mx = x > mx ? x : mx;
    EXPECT_EQ(sieve::inclusive_scan(in, out, sieve::Max{}, std::int64_t(-100)), mx);
  }
}

TEST(Conventions, ScanScratchIsAboutNOver1023AndShortScratchIsRejected) {
  EXPECT_EQ(sieve::scan_scratch_size<int>(0), 0u);
  EXPECT_EQ(sieve::scan_scratch_size<int>(1), 1u);
  EXPECT_EQ(sieve::scan_scratch_size<int>(1024), 1u);
  EXPECT_EQ(sieve::scan_scratch_size<int>(1025), 3u); // 2 blocks, then their total
  EXPECT_LE(sieve::scan_scratch_size<double>(std::int64_t(1) << 30), (std::size_t(1) << 30) / 1000);
  expectInvalid([] { sieve::scan_scratch_size<int>(-1); }, "negative");
  const std::int64_t n = 5000;
  const auto v = smallInts<std::int32_t>(n, 3);
  const auto in = toDevice(v, "in");
  auto out = filled<std::int32_t>(n, 77, "out");
  TestExec exec;
  const std::size_t need = sieve::scan_scratch_size<std::int32_t>(n);
  Kokkos::View<std::int32_t*, TestMem> shortSums("short", need - 1), sums("sums", need);
  expectInvalid([&] { sieve::inclusive_scan(exec, in, out, sieve::Sum{}, 0, shortSums); },
                "scan_scratch_size");
  Kokkos::View<std::int32_t, TestMem> noTotal;
  expectInvalid([&] { sieve::inclusive_scan(exec, in, out, sieve::Sum{}, 0, sums, noTotal); },
                "total is an empty View");
  for (auto x : toHost(out)) ASSERT_EQ(x, 77) << "a rejected scan wrote out";
  // exactly the documented size is enough
  sieve::inclusive_scan(exec, in, out, sieve::Sum{}, 0, sums);
  exec.fence();
  EXPECT_EQ(toHost(out), refScan(v, sieve::Sum{}, std::int32_t(0), true));
}

TEST(Conventions, LabelledFormsWriteWhatThePlainFormsWrite) {
  const std::int64_t n = 100003;
  const auto host = makeMask(MaskKind::Random20, n);
  TestExec exec;
  auto run = [&](bool labelled) {
    auto mask = toDevice(host, "mask");
    std::vector<std::int32_t> id(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i)
      id[static_cast<std::size_t>(i)] = static_cast<std::int32_t>(i);
    auto perm = toDevice(id, "perm"), inv = toDevice(id, "inv");
    auto x = toDevice(smallInts<double>(n, 5), "x");
    auto map = filled<std::int32_t>(static_cast<std::size_t>(n), -1, "map");
    Word count = word(0);
    Bytes scratch("scratch", sieve::reorder_scratch_bytes(n, 8));
    sieve::Trigger<TestMem> trig("trig", 0.5f);
    Kokkos::deep_copy(trig.span, static_cast<std::uint32_t>(n));
    if (labelled) {
      sieve::compact("a", exec, mask, map, count, scratch, trig);
      sieve::reorder("b", exec, mask, perm, inv, map, count, trig, scratch, mask, x);
    } else {
      sieve::compact(exec, mask, map, count, scratch, trig);
      sieve::reorder(exec, mask, perm, inv, map, count, trig, scratch, mask, x);
    }
    exec.fence();
    return std::make_tuple(toHost(mask), toHost(perm), toHost(inv), toHost(x), toHost(map),
                           read(count), read(trig.span), read(trig.fire));
  };
  const auto a = run(false), b = run(true);
  EXPECT_TRUE(a == b);
  EXPECT_EQ(std::get<6>(a), std::get<5>(a)) << "the reorder fired and set span = count";
}

namespace {

/// A population of n samples for the no-silent-loss cases: mask `alive`, a
/// plane of sample ids, perm = inv = identity, a trigger with span = n.
struct Pop {
  std::int64_t n;
  DView<std::uint8_t> alive;
  DView<std::int32_t> id, perm, inv, map;
  Word count;
  Bytes scratch;
  sieve::Trigger<TestMem> trig;
  explicit Pop(std::int64_t n_, const std::vector<std::uint8_t>& live)
      : n(n_), alive(toDevice(live, "alive")), map(filled<std::int32_t>(n_, -1, "map")),
        count(word(0)), scratch("scratch", sieve::reorder_scratch_bytes(n_, 4)),
        trig("trig", 0.5f) {
    std::vector<std::int32_t> ids(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i)
      ids[static_cast<std::size_t>(i)] = static_cast<std::int32_t>(i);
    id = toDevice(ids, "id");
    perm = toDevice(ids, "perm");
    inv = toDevice(ids, "inv");
    Kokkos::deep_copy(trig.span, static_cast<std::uint32_t>(n));
  }
  /// compact with the trigger, then reorder (gated by the fire word).
  void step(TestExec exec) {
    sieve::compact(exec, alive, map, count, scratch, trig);
    sieve::reorder(exec, alive, perm, inv, map, count, trig, scratch, alive, id);
    exec.fence();
  }
  /// Every live sample is in the index map and nothing else is.
  void expectNoLoss(const std::string& what) const {
    const auto a = toHost(alive);
    const auto ids = toHost(id), m = toHost(map);
    std::vector<std::int32_t> liveIds, mapped;
    for (std::size_t s = 0; s < a.size(); ++s)
      if (a[s]) liveIds.push_back(ids[s]);
    const std::uint32_t c = read(count);
    for (std::uint32_t k = 0; k < c; ++k) mapped.push_back(ids[static_cast<std::size_t>(m[k])]);
    std::sort(liveIds.begin(), liveIds.end());
    std::sort(mapped.begin(), mapped.end());
    EXPECT_EQ(c, liveIds.size()) << what;
    EXPECT_EQ(mapped, liveIds) << what;
  }
};

/// Sets alive(slot) for the slots holding the given sample ids (after reorders
/// a sample's slot is inv(id)).
void setAlive(Pop& p, const std::vector<std::int32_t>& ids, std::uint8_t value) {
  auto a = toHost(p.alive);
  const auto inv = toHost(p.inv);
  for (auto i : ids) a[static_cast<std::size_t>(inv[static_cast<std::size_t>(i)])] = value;
  Kokkos::deep_copy(p.alive, toDevice(a, "a"));
}

} // namespace

namespace {

using U64s = Kokkos::View<std::uint64_t*, TestMem>;
using Range64 = Kokkos::RangePolicy<TestExec, Kokkos::IndexType<std::int64_t>>;

/// Writes entry i = i * 0x9E3779B97F4A7C15 + salt into v (on TestExec).
void writePattern(const U64s& v, const std::uint64_t salt) {
  Kokkos::parallel_for(
      "pattern", Range64(0, static_cast<std::int64_t>(v.extent(0))),
      KOKKOS_LAMBDA(const std::int64_t i) {
        v(i) = static_cast<std::uint64_t>(i) * 0x9E3779B97F4A7C15ULL + salt;
      });
}

/// The entries of v that differ from writePattern(v, salt).
std::int64_t patternMismatches(const U64s& v, const std::uint64_t salt) {
  std::int64_t bad = 0;
  Kokkos::parallel_reduce(
      "check", Range64(0, static_cast<std::int64_t>(v.extent(0))),
      KOKKOS_LAMBDA(const std::int64_t i, std::int64_t& b) {
        b += v(i) != static_cast<std::uint64_t>(i) * 0x9E3779B97F4A7C15ULL + salt ? 1 : 0;
      },
      bad);
  return bad;
}

} // namespace

// The huge-page hint on fresh host results (adviseHugePages, a no-op off
// HostSpace) changes no byte: on a 40 MiB View, a subview starting mid-page,
// a small View and an empty one, what was written before the hint reads back
// after it, and so does what is written after it.
TEST(Conventions, HugePageHintChangesNoByte) {
  const std::size_t n = (std::size_t(40) << 20) / sizeof(std::uint64_t) + 3;
  const U64s big(Kokkos::view_alloc(Kokkos::WithoutInitializing, "big"), n);
  const U64s tail = Kokkos::subview(big, std::make_pair(std::size_t(5), n));
  const U64s small(Kokkos::view_alloc(Kokkos::WithoutInitializing, "small"), 10);
  for (const U64s& v : {big, tail, small, U64s()}) {
    SCOPED_TRACE("extent " + std::to_string(v.extent(0)));
    writePattern(v, 1);
    Kokkos::fence();
    sieve::Impl::adviseHugePages(v);
    EXPECT_EQ(patternMismatches(v, 1), 0);
    writePattern(v, 2);
    EXPECT_EQ(patternMismatches(v, 2), 0);
  }
}

// The reproduction of issue 14 item 1: 2^16 samples, every 4th alive,
// compact + reorder (fires), restore, kill half of the survivors, compact +
// reorder. Before the span was widened by the compaction the count was 2048
// while 8192 were alive.
TEST(NoSilentLoss, StaleSpanAfterRestore) {
  const std::int64_t n = 1 << 16;
  std::vector<std::uint8_t> live(static_cast<std::size_t>(n), 0);
  for (std::int64_t i = 0; i < n; i += 4) live[static_cast<std::size_t>(i)] = 1;
  Pop p(n, live);
  TestExec exec;
  p.step(exec);
  ASSERT_EQ(read(p.trig.span), 16384u) << "the first reorder fired";
  sieve::restore(exec, p.perm, p.inv, p.scratch, p.alive, p.id);
  std::vector<std::int32_t> killed;
  for (std::int32_t i = 0; i < n; i += 8) killed.push_back(i);
  setAlive(p, killed, 0);
  p.step(exec);
  p.expectNoLoss("after restore");
  EXPECT_EQ(read(p.count), 8192u);
}

// Secondaries spawned into dead slots past the span are counted and moved.
TEST(NoSilentLoss, SpawnPastTheSpan) {
  const std::int64_t n = 100000;
  std::vector<std::uint8_t> live(static_cast<std::size_t>(n), 0);
  for (std::int64_t i = 0; i < n; i += 5) live[static_cast<std::size_t>(i)] = 1;
  Pop p(n, live);
  TestExec exec;
  p.step(exec); // fires: span = 20000
  ASSERT_EQ(read(p.trig.span), 20000u);
  std::vector<std::int32_t> spawned;
  for (std::int32_t i = 1; i < n; i += 97) spawned.push_back(i); // dead ids, slots past the span
  setAlive(p, spawned, 1);
  for (int s = 0; s < 3; ++s) {
    p.step(exec);
    p.expectNoLoss("step " + std::to_string(s));
  }
  sieve::restore(exec, p.perm, p.inv, p.scratch, p.alive, p.id);
  exec.fence();
  const auto ids = toHost(p.id);
  for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(ids[static_cast<std::size_t>(i)], i);
}

// Trigger words that alias the count (or each other) are rejected, not
// silently overwritten.
TEST(NoSilentLoss, TriggerWordsMustNotAlias) {
  const std::int64_t n = 10000;
  const auto mask = toDevice(makeMask(MaskKind::Random20, n), "mask");
  auto map = filled<std::int32_t>(n, -1, "map");
  Word count = word(77), a = word(0), b = word(0);
  Bytes scratch("scratch", sieve::compact_scratch_bytes(n));
  TestExec exec;
  const sieve::Trigger<TestMem> spanIsCount(a, count, b, 0.5f), fireIsSpan(a, b, b, 0.5f);
  expectInvalid([&] { sieve::compact(exec, mask, map, count, scratch, spanIsCount); },
                "count overlaps trigger.span");
  expectInvalid([&] { sieve::compact(exec, mask, map, count, scratch, fireIsSpan); },
                "trigger.span overlaps trigger.fire");
  EXPECT_EQ(read(count), 77u);
}
