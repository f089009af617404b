// SPDX-License-Identifier: Apache-2.0
// Sieve Kokkos tests — misuse that used to lose or corrupt samples quietly
// (issue 14): a corrupted or foreign perm / inv, concurrent calls on the same
// Views (every thread of an OpenMP parallel region), and the scratch-size
// rules' contract. Each case fails without its fix.
#include "../common/cases.hpp"
#include "../common/expect.hpp"
#include "../common/reference.hpp"
#include "backend.hpp"

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#if defined(_OPENMP)
#include <omp.h>
#endif

using namespace sieve_test;

namespace {

/// Switches the debug checks on (or off) for one test, then back.
class DebugChecks {
 public:
  explicit DebugChecks(bool on) : was_(sieve::debug_checks()) { sieve::set_debug_checks(on); }
  ~DebugChecks() { sieve::set_debug_checks(was_); }

 private:
  bool was_;
};

/// A plane inside a larger allocation with guard zones of `kGuard` elements
/// on both sides holding `kPoison`: what a wrong index would overwrite.
template <class T>
struct Guarded {
  static constexpr std::int64_t kGuard = 4096;
  DView<T> all;
  DView<T> body;
  T poison;
  Guarded(std::int64_t n, T poison_, const std::vector<T>& init) : poison(poison_) {
    std::vector<T> v(static_cast<std::size_t>(n + 2 * kGuard), poison);
    for (std::int64_t i = 0; i < n; ++i)
      v[static_cast<std::size_t>(kGuard + i)] = init[static_cast<std::size_t>(i)];
    all = toDevice(v, "guarded");
    body = Kokkos::subview(all, std::make_pair(kGuard, kGuard + n));
  }
  void expectGuardsIntact(const std::string& what) const {
    const auto v = toHost(all);
    const std::int64_t total = static_cast<std::int64_t>(v.size());
    for (std::int64_t i = 0; i < kGuard; ++i) {
      ASSERT_EQ(v[static_cast<std::size_t>(i)], poison) << what << ": wrote before the plane";
      ASSERT_EQ(v[static_cast<std::size_t>(total - 1 - i)], poison)
          << what << ": wrote past the plane";
    }
  }
};

std::vector<std::int32_t> iota32(std::int64_t n) {
  std::vector<std::int32_t> v(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i)
    v[static_cast<std::size_t>(i)] = static_cast<std::int32_t>(i);
  return v;
}

} // namespace

// perm entries outside [0, n) (a corrupted or foreign perm): an unconditional
// reorder and a restore never write or read outside inv / the planes. Before
// the fix the inverse step wrote inv(perm(i)) wherever perm pointed.
TEST(NoSilentLoss, OutOfRangePermNeverLeavesThePlanes) {
  const DebugChecks off(false);
  const std::int64_t n = 5000;
  auto ids = iota32(n);
  auto bad = ids;
  bad[7] = static_cast<std::int32_t>(n + 1000); // past inv
  bad[11] = -2000;                              // before inv
  bad[n - 1] = INT32_MAX;
  Guarded<std::int32_t> perm(n, -7, bad), inv(n, -7, ids);
  Guarded<double> x(n, -1.5, std::vector<double>(static_cast<std::size_t>(n), 2.0));
  std::vector<std::uint8_t> live(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) live[static_cast<std::size_t>(i)] = i % 3 != 0;
  auto alive = toDevice(live, "alive");
  auto map = filled<std::int32_t>(n, -1, "map");
  Word count = word(0), span = word(static_cast<std::uint32_t>(n));
  Kokkos::View<std::uint32_t, TestMem> always; // empty fire word: unconditional
  Bytes scratch("scratch", sieve::reorder_scratch_bytes(n, 8));
  TestExec exec;
  sieve::reorder(exec, alive, perm.body, inv.body, map, count, span, always, scratch, alive,
                 x.body);
  exec.fence();
  perm.expectGuardsIntact("reorder, perm");
  inv.expectGuardsIntact("reorder, inv");
  x.expectGuardsIntact("reorder, x");
  // restore gathers through inv: make inv point outside too.
  auto badInv = toHost(inv.body);
  badInv[3] = static_cast<std::int32_t>(n + 5);
  badInv[4] = -1;
  Kokkos::deep_copy(inv.body, toDevice(badInv, "bad inv"));
  sieve::restore(exec, perm.body, inv.body, scratch, alive, x.body);
  exec.fence();
  x.expectGuardsIntact("restore, x");
  inv.expectGuardsIntact("restore, inv");
  for (double v : toHost(x.body)) ASSERT_EQ(v, 2.0) << "restore read outside the stage";
}

// With the debug checks on, reorder and restore refuse a perm / inv pair that
// is not a pair of inverse permutations, before anything is moved.
TEST(NoSilentLoss, DebugChecksRejectAForeignPermutation) {
  const DebugChecks on(true);
  const std::int64_t n = 3000;
  auto ids = iota32(n);
  std::vector<std::int32_t> p(ids.rbegin(), ids.rend()); // a valid permutation
  std::vector<std::int32_t> wrongInv = p;
  std::swap(wrongInv[10], wrongInv[20]); // no longer its inverse
  auto perm = toDevice(p, "perm"), inv = toDevice(wrongInv, "inv");
  std::vector<double> xs(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i)
    xs[static_cast<std::size_t>(i)] = 0.5 * static_cast<double>(i);
  auto x = toDevice(xs, "x");
  auto alive = filled<std::uint8_t>(static_cast<std::size_t>(n), 1, "alive");
  auto map = filled<std::int32_t>(static_cast<std::size_t>(n), -1, "map");
  Word count = word(0), span = word(static_cast<std::uint32_t>(n));
  Kokkos::View<std::uint32_t, TestMem> always;
  Bytes scratch("scratch", sieve::reorder_scratch_bytes(n, 8));
  TestExec exec;
  expectInvalid([&] { sieve::restore(exec, perm, inv, scratch, alive, x); },
                "perm and inv are not inverse permutations");
  expectInvalid(
      [&] { sieve::reorder(exec, alive, perm, inv, map, count, span, always, scratch, alive, x); },
      "perm(");
  EXPECT_EQ(toHost(x), xs) << "a rejected call moved a plane";
  EXPECT_EQ(toHost(inv), wrongInv);
  // An out-of-range entry is named as such.
  auto outside = p;
  outside[5] = -9;
  Kokkos::deep_copy(perm, toDevice(outside, "outside"));
  expectInvalid([&] { sieve::restore(exec, perm, inv, scratch, alive, x); }, "outside [0, n)");
  // The pair reorder maintains passes, and so does the identity.
  Kokkos::deep_copy(perm, toDevice(p, "p"));
  Kokkos::deep_copy(inv, toDevice(p, "p")); // the reversal is its own inverse
  sieve::restore(exec, perm, inv, scratch, alive, x);
  exec.fence();
  const auto back = toHost(x);
  for (std::int64_t i = 0; i < n; ++i)
    ASSERT_EQ(back[static_cast<std::size_t>(i)], xs[static_cast<std::size_t>(n - 1 - i)]);
  EXPECT_EQ(toHost(perm), ids) << "restore leaves the identity";
  sieve::reorder(exec, alive, perm, inv, map, count, span, always, scratch, alive, x);
  EXPECT_EQ(read(count), static_cast<std::uint32_t>(n));
}

// A call whose outputs or scratch another Sieve call is using right now
// throws before it writes anything (deterministic: the other call's claim is
// held by hand here).
TEST(NoSilentLoss, ConcurrentCallOnTheSameViewsThrows) {
  const std::int64_t n = 10000;
  const auto mask = toDevice(makeMask(MaskKind::Random20, n), "mask");
  auto map = filled<std::int32_t>(n, -1, "map");
  Word count = word(77);
  Bytes scratch("scratch", sieve::compact_scratch_bytes(n));
  TestExec exec;
  {
    const sieve::Impl::CallClaims other("test", {{map.data(), "index_map"}});
    expectInvalid([&] { sieve::compact(exec, mask, map, count, scratch); },
                  "index_map is in use by another Sieve call");
  }
  {
    const sieve::Impl::CallClaims other("test", {{scratch.data(), "scratch"}});
    auto otherMap = filled<std::int32_t>(n, -1, "other map");
    expectInvalid([&] { sieve::compact(exec, mask, otherMap, count, scratch); },
                  "scratch is in use by another Sieve call");
    auto in = filled<std::int32_t>(n, 1), out = filled<std::int32_t>(n, 0);
    Kokkos::View<std::int32_t*, TestMem> sums(
        reinterpret_cast<std::int32_t*>(scratch.data()),
        static_cast<std::size_t>(sieve::scan_scratch_size<std::int32_t>(n)));
    expectInvalid([&] { sieve::inclusive_scan(exec, in, out, sums); },
                  "scratch is in use by another Sieve call");
  }
  EXPECT_EQ(read(count), 77u);
  for (auto v : toHost(map)) ASSERT_EQ(v, -1) << "a refused call wrote the index map";
  // Claims are released: the same call now runs.
  sieve::compact(exec, mask, map, count, scratch);
  const auto host = toHost(mask);
  EXPECT_EQ(read(count), refCompact(host.data(), n, false).count);
}

// Every thread of an OpenMP parallel region calling compact / reorder on the
// same Views: each call either runs alone or throws; the result is what one
// call writes (before, the calls shared the scratch and the planes and raced).
// `omp single` keeps working and never throws.
TEST(NoSilentLoss, EveryThreadOfAParallelRegion) {
#if !defined(_OPENMP)
  GTEST_SKIP() << "built without OpenMP";
#else
  const std::int64_t n = 300000;
  const auto maskHost = makeMask(MaskKind::Random20, n);
  const auto mask = toDevice(maskHost, "mask");
  auto map = filled<std::int32_t>(n, -1, "map");
  Word count = word(0);
  Bytes scratch("scratch", sieve::reorder_scratch_bytes(n, 8));
  TestExec exec;
  const auto ref = refCompact(maskHost.data(), n, false).map;
  std::atomic<int> ran{0}, refused{0}, other{0};
#pragma omp parallel num_threads(4)
  {
    try {
      sieve::compact(exec, mask, map, count, scratch);
      ++ran;
    } catch (const std::invalid_argument& e) {
      if (std::string(e.what()).find("in use by another Sieve call") != std::string::npos)
        ++refused;
      else ++other;
    } catch (...) {
      ++other;
    }
  }
  exec.fence();
  EXPECT_EQ(other.load(), 0);
  EXPECT_GE(ran.load(), 1);
  EXPECT_EQ(ran.load() + refused.load(), 4);
  EXPECT_EQ(read(count), ref.size());
  auto got = toHost(map);
  got.resize(ref.size());
  EXPECT_EQ(got, ref);

  // reorder: the state stays consistent whatever ran (the planes moved as perm).
  auto ids = iota32(n);
  auto perm = toDevice(ids, "perm"), inv = toDevice(ids, "inv"), id = toDevice(ids, "id");
  Word span = word(static_cast<std::uint32_t>(n));
  Kokkos::View<std::uint32_t, TestMem> always;
  auto alive = toDevice(maskHost, "alive");
  ran = refused = other = 0;
#pragma omp parallel num_threads(4)
  {
    try {
      sieve::reorder(exec, alive, perm, inv, map, count, span, always, scratch, alive, id);
      ++ran;
    } catch (const std::invalid_argument&) {
      ++refused;
    } catch (...) {
      ++other;
    }
  }
  exec.fence();
  EXPECT_EQ(other.load(), 0);
  EXPECT_EQ(ran.load() + refused.load(), 4);
  const auto pm = toHost(perm), iv = toHost(inv), idv = toHost(id);
  const auto al = toHost(alive);
  std::size_t live = 0;
  for (std::int64_t s = 0; s < n; ++s) {
    const auto k = static_cast<std::size_t>(s);
    ASSERT_EQ(idv[k], pm[k]) << "slot " << s << ": the id plane did not move with perm";
    ASSERT_EQ(iv[static_cast<std::size_t>(pm[k])], s) << "inv is not perm's inverse";
    ASSERT_EQ(al[k], maskHost[static_cast<std::size_t>(pm[k])]) << "the mask did not move";
    live += al[k] != 0;
  }
  EXPECT_EQ(read(count), live);
  for (std::size_t s = 0; s < live; ++s) ASSERT_NE(al[s], 0) << "live samples are at the front";

  // omp single: one call, no refusal.
  ran = refused = 0;
#pragma omp parallel num_threads(4)
  {
#pragma omp single
    {
      try {
        sieve::compact(exec, mask, map, count, scratch);
        ++ran;
      } catch (...) {
        ++refused;
      }
    }
  }
  exec.fence();
  EXPECT_EQ(ran.load(), 1);
  EXPECT_EQ(refused.load(), 0);
  EXPECT_EQ(read(count), ref.size());
#endif
}

// One contract for the scratch-size rules: the raw rules throw where their
// snake_case twins do (before, compact_scratch_bytes(-5) returned 12 and
// reorder_scratch_bytes(n, 3) sized a scratch no reorder accepts).
TEST(NoSilentLoss, ScratchRulesShareTheContract) {
  // One spelling for every face (core/rules.hpp), checked on the host.
  expectInvalid([] { (void)sieve::compact_scratch_bytes(-5); }, "is negative");
  expectInvalid([] { (void)sieve::compact_scratch_bytes(std::int64_t(1) << 31); },
                "exceeds kCompactMaxSamples");
  expectInvalid([] { (void)sieve::reorder_scratch_bytes(100, 3); }, "max_elem_bytes = 3");
  expectInvalid([] { (void)sieve::reorder_scratch_bytes(100, 0); }, "max_elem_bytes = 0");
  expectInvalid([] { (void)sieve::reorder_scratch_bytes(-1, 8); }, "is negative");
  // The rules as documented: three int32 planes of max(n, 1); that rounded
  // up to 16 bytes, then max(n, 1) elements of max(widest, 4) bytes.
  EXPECT_EQ(sieve::compact_scratch_bytes(10), 3u * 4u * 10u);
  EXPECT_EQ(sieve::compact_scratch_bytes(0), 3u * 4u);
  EXPECT_EQ(sieve::reorder_scratch_bytes(10, 16), 128u + 10u * 16u);
  EXPECT_EQ(sieve::reorder_scratch_bytes(10, 2), 128u + 10u * 4u);
  static_assert(sieve::compact_scratch_bytes(4) == 48,
                "the rule stays usable in constant expressions");
}

// A trigger remembers what its reorders moved: a restore through it with a
// plane left out (or another perm) throws before anything moves, instead of
// leaving that plane in reordered order; a reorder through it with another
// plane set throws too. The restore through it resets span = n and fire = 0.
TEST(NoSilentLoss, TheTriggerKnowsThePlaneSet) {
  const std::int64_t n = 20000;
  std::vector<std::uint8_t> live(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) live[static_cast<std::size_t>(i)] = i % 4 == 0;
  auto alive = toDevice(live, "alive");
  auto ids = iota32(n);
  auto perm = toDevice(ids, "perm"), inv = toDevice(ids, "inv"), id = toDevice(ids, "id");
  auto x = filled<double>(static_cast<std::size_t>(n), 3.0, "x");
  auto map = filled<std::int32_t>(static_cast<std::size_t>(n), -1, "map");
  Word count = word(0);
  Bytes scratch("scratch", sieve::reorder_scratch_bytes(n, 8));
  sieve::Trigger<TestMem> trig("trig", 0.5f);
  Kokkos::deep_copy(trig.span, static_cast<std::uint32_t>(n));
  TestExec exec;
  sieve::compact(exec, alive, map, count, scratch, trig);
  sieve::reorder(exec, alive, perm, inv, map, count, trig, scratch, alive, id, x);
  exec.fence();
  ASSERT_EQ(read(trig.span), static_cast<std::uint32_t>(n / 4)) << "fired";
  const auto idAfter = toHost(id);
  expectInvalid([&] { sieve::restore(exec, trig, perm, inv, scratch, alive, id); },
                "another set of planes");
  expectInvalid([&] { sieve::restore(exec, trig, inv, perm, scratch, alive, id, x); },
                "another perm or inv");
  expectInvalid(
      [&] { sieve::reorder(exec, alive, perm, inv, map, count, trig, scratch, alive, x); },
      "another set of planes");
  EXPECT_EQ(toHost(id), idAfter) << "a refused call moved a plane";
  // The same set, in another order, is fine; span and fire are reset.
  Kokkos::deep_copy(trig.fire, 1u);
  sieve::restore(exec, trig, perm, inv, scratch, x, alive, id);
  exec.fence();
  EXPECT_EQ(toHost(id), ids);
  EXPECT_EQ(toHost(alive), live);
  EXPECT_EQ(read(trig.span), static_cast<std::uint32_t>(n));
  EXPECT_EQ(read(trig.fire), 0u);
  // After the restore the record is clear: another plane set may start.
  sieve::compact(exec, alive, map, count, scratch, trig);
  sieve::reorder(exec, alive, perm, inv, map, count, trig, scratch, alive, id);
  sieve::restore(trig, perm, inv, scratch, alive, id); // the form without an instance
  EXPECT_EQ(toHost(id), ids);
}
