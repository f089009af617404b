// SPDX-License-Identifier: Apache-2.0
// Sieve Kokkos tests — sieve::Population: a 100-step absorption + revival +
// spawn-into-dead-slots scenario with restores in the middle, compared every
// step with the same steps through the free functions (byte for byte) and
// with a sequential model indexed by particle id; every misuse the free
// functions leave to the caller throws; handles and clones.
#include "backend.hpp"

#include <sieve/population.hpp>

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using namespace sieve_test;

/// One step of the particle in a slot, by its id: a live one moves and may be
/// absorbed; a dead one may be revived (a new particle spawned into its slot,
/// anywhere, past the span too). Written once: the device kernel and the
/// host model call it.
struct Rule {
  double absorb = 0.08, revive = 0.02;
  KOKKOS_INLINE_FUNCTION void operator()(std::int32_t id, int s, std::uint8_t& alive,
                                         double& x) const {
    const std::uint64_t key = (static_cast<std::uint64_t>(id) << 20) ^ static_cast<unsigned>(s);
    if (alive) {
      x += hashUnit(key * 3 + 1);
      if (hashUnit(key * 3 + 2) < absorb) alive = 0;
    } else if (hashUnit(key * 3 + 3) < revive) {
      alive = static_cast<std::uint8_t>(1 + (id % 200));
      x = -static_cast<double>(s) - hashUnit(key * 5);
    }
  }
};

struct StepKernel {
  DView<std::uint8_t> alive;
  DView<double> x;
  DView<std::int32_t> id;
  Rule rule;
  int s;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const {
    rule(id(i), s, alive(i), x(i));
  }
};

struct Particles {
  DView<std::uint8_t> alive;
  DView<double> x;
  DView<std::int32_t> id;
  DView<std::uint16_t> tag; // a 2-byte plane riding along
  explicit Particles(std::int64_t n)
      : alive(filled<std::uint8_t>(n, 1, "alive")), x(filled<double>(n, 0.0, "x")), id("id", n),
        tag("tag", n) {
    std::vector<std::int32_t> ids(n);
    std::vector<std::uint16_t> tags(n);
    for (std::int64_t i = 0; i < n; ++i) {
      ids[i] = static_cast<std::int32_t>(i);
      tags[i] = static_cast<std::uint16_t>(i * 7);
    }
    Kokkos::deep_copy(id, toDevice(ids));
    Kokkos::deep_copy(tag, toDevice(tags));
  }
  void step(const TestExec& exec, int s, const Rule& rule) const {
    Kokkos::parallel_for("test::step",
                         Kokkos::RangePolicy<TestExec, Kokkos::IndexType<std::int64_t>>(
                             exec, 0, static_cast<std::int64_t>(alive.extent(0))),
                         StepKernel{alive, x, id, rule, s});
  }
};

std::vector<std::uint64_t> bitsOf(const std::vector<double>& v) {
  std::vector<std::uint64_t> b(v.size());
  std::memcpy(b.data(), v.data(), v.size() * sizeof(double));
  return b;
}

TEST(Population, HundredStepsMatchTheFreeFunctionsAndTheModel) {
  const TestExec exec;
  const std::int64_t n = 20011;
  const Rule rule;
  // The population and its planes.
  sieve::Population<TestExec> pop("particles", exec, n, {0.5f});
  const Particles a(n);
  const auto planes = sieve::planes(a.alive, a.x, a.id, a.tag);
  // The same steps through the free functions, on planes of their own.
  const Particles b(n);
  DView<std::int32_t> map("map", n), perm("perm", n), inv("inv", n);
  Kokkos::deep_copy(perm, b.id);
  Kokkos::deep_copy(inv, b.id);
  Word count("count");
  Bytes scratch("scratch", sieve::reorder_scratch_bytes(n, 8));
  sieve::Trigger<TestMem> trig("free", 0.5f);
  Kokkos::deep_copy(trig.span, static_cast<std::uint32_t>(n));
  // The model, by particle id.
  std::vector<std::uint8_t> mAlive(n, 1);
  std::vector<double> mX(n, 0.0);

  int reorders = 0, restores = 0;
  for (int s = 0; s < 100; ++s) {
    SCOPED_TRACE("step " + std::to_string(s));
    a.step(exec, s, rule);
    b.step(exec, s, rule);
    for (std::int64_t i = 0; i < n; ++i) rule(static_cast<std::int32_t>(i), s, mAlive[i], mX[i]);

    const std::uint32_t live = pop.compact(exec, a.alive);
    sieve::compact(exec, b.alive, map, count, scratch, trig);
    const bool fired = read(pop.trigger().fire) != 0;
    reorders += fired;
    pop.reorder(exec, planes);
    sieve::reorder(exec, b.alive, perm, inv, map, count, trig, scratch, b.alive, b.x, b.id, b.tag);
    if (s % 33 == 32) { // restores in the middle
      pop.restore(exec, planes);
      sieve::restore(exec, trig, perm, inv, scratch, b.alive, b.x, b.id, b.tag);
      sieve::compact(exec, b.alive, map, count, scratch, trig);
      ++restores;
    }
    exec.fence();

    // The population and the free functions: the same bytes.
    const auto aAlive = toHost(a.alive);
    const auto aX = bitsOf(toHost(a.x));
    const auto aId = toHost(a.id);
    ASSERT_EQ(aAlive, toHost(b.alive));
    ASSERT_EQ(aX, bitsOf(toHost(b.x)));
    ASSERT_EQ(aId, toHost(b.id));
    ASSERT_EQ(toHost(a.tag), toHost(b.tag));
    ASSERT_EQ(toHost(pop.perm()), toHost(perm));
    ASSERT_EQ(toHost(pop.inv()), toHost(inv));
    ASSERT_EQ(read(pop.count()), read(count));
    ASSERT_EQ(read(pop.trigger().span), read(trig.span));

    // The model: every slot holds its particle's state; perm names it; the
    // index map lists the live slots in order.
    std::uint32_t mLive = 0;
    for (std::int64_t id = 0; id < n; ++id) mLive += mAlive[id] != 0;
    ASSERT_EQ(live, mLive);
    const auto p = toHost(pop.perm());
    const auto tag = toHost(a.tag);
    std::vector<std::int32_t> liveSlots;
    std::int64_t wrong = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      const std::int32_t id = aId[i];
      std::uint64_t mBits;
      std::memcpy(&mBits, &mX[id], 8);
      wrong += p[i] != id || aAlive[i] != mAlive[id] || aX[i] != mBits ||
               tag[i] != static_cast<std::uint16_t>(id * 7);
      if (aAlive[i]) liveSlots.push_back(static_cast<std::int32_t>(i));
    }
    ASSERT_EQ(wrong, 0);
    ASSERT_EQ(toHost(pop.indices()), liveSlots);
  }
  EXPECT_GT(reorders, 0) << "the scenario never reordered";
  EXPECT_EQ(restores, 3);
}

TEST(Population, MisuseThrows) {
  const TestExec exec;
  const std::int64_t n = 8192; // the trigger fires only on spans of 4096 and more
  sieve::Population<TestExec> pop("p", exec, n);
  const Particles a(n);
  // A reorder before any compaction.
  EXPECT_THROW(pop.reorder(exec, sieve::planes(a.alive, a.x)), std::invalid_argument);
  // A mask of another extent.
  const auto shortMask = filled<std::uint8_t>(n - 1, 1, "short");
  EXPECT_THROW(pop.compact(exec, shortMask), std::invalid_argument);
  // A plane of another extent.
  EXPECT_EQ(pop.compact(exec, a.alive), static_cast<std::uint32_t>(n));
  const auto shortX = filled<double>(n - 1, 0.0, "shortX");
  EXPECT_THROW(pop.reorder(exec, sieve::planes(a.alive, shortX)), std::invalid_argument);
  // A plane set without the compacted mask.
  EXPECT_THROW(pop.reorder(exec, sieve::planes(a.x, a.id)), std::invalid_argument);
  // Kill 3 in 4 so that the trigger fires, reorder, then restore another set.
  std::vector<std::uint8_t> m(n);
  for (std::int64_t i = 0; i < n; ++i) m[i] = i % 4 == 0;
  Kokkos::deep_copy(a.alive, toDevice(m));
  pop.compact(exec, a.alive);
  ASSERT_EQ(read(pop.trigger().fire), 1u);
  pop.reorder(exec, sieve::planes(a.alive, a.x, a.id));
  EXPECT_THROW(pop.restore(exec, sieve::planes(a.alive, a.x)), std::invalid_argument);
  EXPECT_THROW(pop.restore(exec, sieve::planes(a.alive, a.x, a.id, a.tag)), std::invalid_argument);
  // The right set restores: ids back in order, the live ones found again.
  pop.restore(exec, sieve::planes(a.id, a.alive, a.x)); // any order
  std::vector<std::int32_t> ids(n), every4;
  for (std::int64_t i = 0; i < n; ++i) {
    ids[i] = static_cast<std::int32_t>(i);
    if (i % 4 == 0) every4.push_back(static_cast<std::int32_t>(i));
  }
  EXPECT_EQ(toHost(a.id), ids);
  EXPECT_EQ(toHost(pop.indices()), every4);
  // An empty handle, bad options.
  const sieve::Population<TestExec> empty;
  EXPECT_THROW(empty.compact(exec, a.alive), std::invalid_argument);
  EXPECT_THROW(sieve::Population<TestExec>("q", exec, 10, {1.5f}), std::invalid_argument);
  EXPECT_THROW(sieve::Population<TestExec>("q", exec, 10, {0.5f, 3}), std::invalid_argument);
  EXPECT_THROW(sieve::Population<TestExec>("q", exec, -1), std::invalid_argument);
}

TEST(Population, CopiesShareAndClonesDoNot) {
  const TestExec exec;
  const std::int64_t n = 4096;
  sieve::Population<TestExec> pop("p", exec, n);
  const Particles a(n);
  std::vector<std::uint8_t> m(n);
  for (std::int64_t i = 0; i < n; ++i) m[i] = i % 5 == 0;
  Kokkos::deep_copy(a.alive, toDevice(m));
  const auto copy = pop; // a handle
  copy.compact(exec, a.alive);
  EXPECT_EQ(read(pop.count()), static_cast<std::uint32_t>((n + 4) / 5));
  const auto clone = pop.clone(exec);
  EXPECT_EQ(toHost(clone.index_map()), toHost(pop.index_map()));
  EXPECT_NE(clone.index_map().data(), pop.index_map().data());
  // The original reorders: the clone's perm, count and span stay.
  pop.reorder(exec, sieve::planes(a.alive, a.x, a.id));
  exec.fence();
  std::vector<std::int32_t> ids(n);
  for (std::int64_t i = 0; i < n; ++i) ids[i] = static_cast<std::int32_t>(i);
  EXPECT_NE(toHost(pop.perm()), ids);
  EXPECT_EQ(toHost(clone.perm()), ids);
  EXPECT_EQ(read(clone.trigger().span), static_cast<std::uint32_t>(n));
  // The clone forgot the mask: it needs its own compaction before a reorder.
  EXPECT_THROW(clone.reorder(exec, sieve::planes(a.alive)), std::invalid_argument);
}

/// A population's scratch is ready at birth (on host spaces its pages are
/// touched then, one byte each): the first step of a new population gives
/// the bytes of a population whose scratch earlier steps have written, and
/// of the stable partition itself, for every scratch size it is born with.
TEST(Population, TheFirstStepOfANewPopulationMatchesAUsedOne) {
  const TestExec exec;
  const std::int64_t n = std::int64_t(1) << 18; // scratch of many pages, every thread's share
  std::vector<std::uint8_t> m(n);
  std::vector<std::int32_t> order; // kept slots ascending, then dropped ones ascending
  for (std::int64_t i = 0; i < n; ++i) m[i] = picked(i, 25, 7) ? 1 : 0;
  for (int keep = 1; keep >= 0; --keep)
    for (std::int64_t i = 0; i < n; ++i)
      if (m[i] == keep) order.push_back(static_cast<std::int32_t>(i));
  const auto mask = toDevice(m, "mask");
  for (const std::uint32_t elem : {1u, 8u, 16u}) {
    SCOPED_TRACE("max_elem_bytes " + std::to_string(elem));
    // A used population: a cycle of other planes and another mask first.
    sieve::Population<TestExec> used("used", exec, n, {0.5f, elem});
    const Particles u(n);
    std::vector<std::uint8_t> other(n);
    for (std::int64_t i = 0; i < n; ++i) other[i] = i % 3 != 0;
    Kokkos::deep_copy(u.alive, toDevice(other));
    used.compact(exec, u.alive);
    used.reorder(exec, sieve::planes(u.alive, u.x, u.id, u.tag));
    used.restore(exec, sieve::planes(u.alive, u.x, u.id, u.tag));
    // The same first step on both: compact, then a reorder that fires.
    sieve::Population<TestExec> fresh("fresh", exec, n, {0.5f, elem});
    const Particles a(n), b(n);
    Kokkos::deep_copy(a.alive, mask);
    Kokkos::deep_copy(b.alive, mask);
    const std::uint32_t kept = fresh.compact(exec, a.alive);
    ASSERT_EQ(used.compact(exec, b.alive), kept);
    ASSERT_EQ(read(fresh.trigger().fire), 1u);
    fresh.reorder(exec, sieve::planes(a.alive, a.x, a.id, a.tag));
    used.reorder(exec, sieve::planes(b.alive, b.x, b.id, b.tag));
    exec.fence();
    EXPECT_EQ(toHost(fresh.perm()), order);
    EXPECT_EQ(toHost(a.id), order);
    EXPECT_EQ(toHost(used.perm()), order);
    EXPECT_EQ(toHost(a.alive), toHost(b.alive));
    EXPECT_EQ(bitsOf(toHost(a.x)), bitsOf(toHost(b.x)));
    EXPECT_EQ(toHost(a.id), toHost(b.id));
    EXPECT_EQ(toHost(a.tag), toHost(b.tag));
    EXPECT_EQ(toHost(fresh.inv()), toHost(used.inv()));
    EXPECT_EQ(read(fresh.count()), kept);
    EXPECT_EQ(read(fresh.trigger().span), read(used.trigger().span));
    EXPECT_EQ(toHost(fresh.indices()), toHost(used.indices()));
  }
}

/// A restore compacts the last mask again, after the caller's View of it is
/// gone: the population keeps the mask allocated (ASan sees a use after free
/// otherwise).
TEST(Population, TheMaskOutlivesTheCallersView) {
  const TestExec exec;
  const std::int64_t n = 5000;
  sieve::Population<TestExec> pop("p", exec, n);
  const auto x = filled<double>(n, 1.0, "x");
  std::vector<std::uint8_t> m(n);
  std::vector<std::int32_t> kept;
  for (std::int64_t i = 0; i < n; ++i) {
    m[i] = i % 7 == 3;
    if (m[i]) kept.push_back(static_cast<std::int32_t>(i));
  }
  {
    const auto mask = toDevice(m, "temporary mask");
    pop.compact(exec, mask);
  } // the caller's last handle of the mask goes
  pop.restore(exec, sieve::planes(x));
  EXPECT_EQ(toHost(pop.indices()), kept);
}

TEST(Population, WideAndEmptyPlanes) {
  const TestExec exec;
  // 16-byte planes grow the scratch once; n = 0 is a valid (empty) population.
  const std::int64_t n = 6000;
  sieve::Population<TestExec> pop("wide", exec, n, {0.5f, 1});
  const Particles a(n);
  DView<Kokkos::Array<double, 2>> v("v", n);
  std::vector<std::uint8_t> m(n);
  for (std::int64_t i = 0; i < n; ++i) m[i] = i % 3 == 0;
  Kokkos::deep_copy(a.alive, toDevice(m));
  pop.compact(exec, a.alive);
  ASSERT_EQ(read(pop.trigger().fire), 1u);
  pop.reorder(exec, sieve::planes(a.alive, v, a.id));
  exec.fence();
  EXPECT_EQ(toHost(a.id)[1], 3); // moved
  pop.restore(exec, sieve::planes(a.alive, v, a.id));
  std::vector<std::int32_t> ids(n);
  for (std::int64_t i = 0; i < n; ++i) ids[i] = static_cast<std::int32_t>(i);
  EXPECT_EQ(toHost(a.id), ids);
  sieve::Population<TestExec> none("none", exec, 0);
  const DView<std::uint8_t> empty("empty", 0);
  EXPECT_EQ(none.compact(exec, empty), 0u);
  none.reorder(exec, sieve::planes(empty));
  none.restore(exec, sieve::planes(empty));
  EXPECT_EQ(none.indices().extent(0), 0u);
}

/// A mask of bool works wherever a Population takes a mask (findall takes
/// bool masks too): compaction, reorder with the mask among the planes,
/// spawn, restore; the same counts and bytes as a std::uint8_t mask.
TEST(Population, BoolMasks) {
  const TestExec exec;
  const std::int64_t n = 6007;
  std::vector<std::uint8_t> bytes(n);
  for (std::int64_t i = 0; i < n; ++i) bytes[i] = hashUnit(static_cast<std::uint64_t>(i) * 7) < 0.4;
  DView<std::uint8_t> u8 = toDevice(bytes, "u8");
  DView<bool> b("b", n);
  Kokkos::deep_copy(b,
                    Kokkos::View<const bool*, TestDevice, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
                        reinterpret_cast<const bool*>(u8.data()), n));
  DView<std::int32_t> idA("idA", n), idB("idB", n);
  std::vector<std::int32_t> ids(n);
  for (std::int64_t i = 0; i < n; ++i) ids[i] = static_cast<std::int32_t>(i);
  Kokkos::deep_copy(idA, toDevice(ids));
  Kokkos::deep_copy(idB, toDevice(ids));
  sieve::Population<TestExec> pa("bool", exec, n, {0.9f}), pb("u8", exec, n, {0.9f});
  const auto planesA = sieve::planes(b, idA);
  const auto planesB = sieve::planes(u8, idB);
  EXPECT_EQ(pa.compact(exec, b), pb.compact(exec, u8));
  EXPECT_EQ(read(pa.trigger().fire), 1u);
  pa.reorder(exec, planesA);
  pb.reorder(exec, planesB);
  DView<std::int32_t> sa("sa", 10), sb("sb", 10);
  pa.spawn(exec, 10, sa);
  pb.spawn(exec, 10, sb);
  EXPECT_EQ(toHost(sa), toHost(sb));
  EXPECT_EQ(pa.compact(exec, b), pb.compact(exec, u8));
  pa.restore(exec, planesA);
  pb.restore(exec, planesB);
  exec.fence();
  const auto hb = toHost(b);
  const auto hu = toHost(u8);
  std::int64_t differ = 0;
  for (std::int64_t i = 0; i < n; ++i) differ += (hb[i] ? 1 : 0) != hu[i];
  EXPECT_EQ(differ, 0);
  EXPECT_EQ(toHost(idA), toHost(idB));
  EXPECT_EQ(toHost(pa.indices()), toHost(pb.indices()));
}

/// A Population keeps its mask as an alias of its bytes: a strided mask is
/// refused (the free functions take strided Views on the portable face), and
/// a spawn refuses a mask of const bytes (it writes the spawned samples).
TEST(Population, StridedAndConstMasks) {
  const TestExec exec;
  const std::int64_t n = 100;
  sieve::Population<TestExec> pop("masks", exec, n);
  Kokkos::View<std::uint8_t**, Kokkos::LayoutRight, TestDevice> two("two", n, 2);
  const auto strided = Kokkos::subview(two, Kokkos::ALL, 0);
  try {
    pop.compact(exec, strided);
    ADD_FAILURE() << "no throw";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("contiguous"), std::string::npos) << e.what();
  }
  const DView<std::uint8_t> m = filled<std::uint8_t>(n, 0, "m");
  const Kokkos::View<const std::uint8_t*, TestDevice> constMask = m;
  EXPECT_EQ(pop.compact(exec, constMask), 0u);
  DView<std::int32_t> slots("slots", 4);
  EXPECT_THROW(pop.spawn(exec, 4, slots), std::invalid_argument);
  EXPECT_EQ(toHost(m), std::vector<std::uint8_t>(n, 0)) << "nothing written";
}

} // namespace
