// SPDX-License-Identifier: Apache-2.0
// Sieve Kokkos tests — Population::spawn / spawn_async and the Graph spawn
// node: the slots are the first k dead samples in sample-id order (a plain
// loop over the mask read through inv is the reference), with and without a
// reorder before, both polarities; a spawn that cannot place k places
// nothing; nothing spawned is dropped by the next compaction and reorder;
// the misuse cases throw.
#include "backend.hpp"

#include <sieve/graph.hpp>
#include <sieve/population.hpp>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using namespace sieve_test;

/// A mask with about `keep` of n alive (1..255 for alive, 0 dead), by seed.
std::vector<std::uint8_t> randomMask(std::int64_t n, double keep, std::uint64_t seed) {
  std::vector<std::uint8_t> m(n);
  for (std::int64_t i = 0; i < n; ++i)
    m[i] = hashUnit(seed * 1000003u + static_cast<std::uint64_t>(i)) < keep
               ? static_cast<std::uint8_t>(1 + i % 255)
               : 0;
  return m;
}

/// The reference: the slots of the first k samples (ascending sample id)
/// that `mask` (in slots) reads dead under `polarity`.
std::vector<std::int32_t> firstFree(const std::vector<std::uint8_t>& mask,
                                    const std::vector<std::int32_t>& inv, std::int64_t k,
                                    sieve::MaskPolarity polarity) {
  std::vector<std::int32_t> slots;
  for (std::size_t s = 0; s < inv.size() && static_cast<std::int64_t>(slots.size()) < k; ++s) {
    const std::uint8_t b = mask[inv[s]];
    const bool dead = polarity == sieve::MaskPolarity::keep ? b == 0 : b != 0;
    if (dead) slots.push_back(inv[s]);
  }
  return slots;
}

struct Planes3 {
  DView<std::uint8_t> alive;
  DView<double> x;
  DView<std::int32_t> id;
  Planes3(const std::vector<std::uint8_t>& mask)
      : alive(toDevice(mask, "alive")), x("x", mask.size()), id("id", mask.size()) {
    std::vector<std::int32_t> ids(mask.size());
    std::vector<double> xs(mask.size());
    for (std::size_t i = 0; i < mask.size(); ++i) {
      ids[i] = static_cast<std::int32_t>(i);
      xs[i] = 0.5 * static_cast<double>(i);
    }
    Kokkos::deep_copy(id, toDevice(ids));
    Kokkos::deep_copy(x, toDevice(xs));
  }
};

TEST(Spawn, FirstDeadSamplesInSampleOrderWithAndWithoutAReorder) {
  const TestExec exec;
  for (const std::int64_t n : {1, 33, 1000, 5000, 40009}) {
    for (const bool reorderFirst : {false, true}) {
      SCOPED_TRACE("n = " + std::to_string(n) + (reorderFirst ? ", after a reorder" : ""));
      const auto mask = randomMask(n, 0.4, static_cast<std::uint64_t>(n));
      Planes3 p(mask);
      // theta close to 1: the trigger fires whenever a sample died (n >= 4096).
      sieve::Population<TestExec> pop("spawn", exec, n, {0.99f});
      const auto planes = sieve::planes(p.alive, p.x, p.id);
      const std::uint32_t live = pop.compact(exec, p.alive);
      if (reorderFirst) pop.reorder(exec, planes);
      exec.fence();
      const auto before = toHost(p.alive);
      const auto inv = toHost(pop.inv());
      if (reorderFirst && n >= 4096) { // sieve's trigger: no reorder below 4096 samples
        bool moved = false;
        for (std::int64_t s = 0; s < n; ++s) moved |= inv[s] != s;
        EXPECT_TRUE(moved) << "the trigger was to fire";
      }
      const std::int64_t free = n - live;
      const std::int64_t k = free / 2 + (free > 0 ? 1 : 0);
      DView<std::int32_t> slots("slots", k + 3);
      Kokkos::deep_copy(slots, -7);
      pop.spawn(exec, k, slots);
      const auto want = firstFree(before, inv, k, sieve::MaskPolarity::keep);
      ASSERT_EQ(static_cast<std::int64_t>(want.size()), k);
      const auto got = toHost(slots);
      for (std::int64_t i = 0; i < k; ++i) EXPECT_EQ(got[i], want[i]) << "slot " << i;
      for (std::int64_t i = k; i < k + 3; ++i) EXPECT_EQ(got[i], -7) << "past k: untouched";
      EXPECT_EQ(read(pop.spawned()), static_cast<std::uint32_t>(k));
      // Only the spawned slots changed, to "kept".
      auto after = toHost(p.alive);
      auto expect = before;
      for (const std::int32_t s : want) expect[s] = 1;
      EXPECT_EQ(after, expect);
      // Nothing spawned is dropped: the next compaction and reorder keep it.
      EXPECT_EQ(pop.compact(exec, p.alive), live + static_cast<std::uint32_t>(k));
      pop.reorder(exec, planes);
      pop.restore(exec, planes);
      exec.fence();
      const auto restored = toHost(p.alive);
      const auto ids = toHost(p.id);
      std::int64_t alive = 0;
      for (std::int64_t s = 0; s < n; ++s) {
        EXPECT_EQ(ids[s], s); // sample order again
        alive += restored[s] != 0;
      }
      EXPECT_EQ(alive, live + k);
    }
  }
}

TEST(Spawn, DropPolarity) {
  const TestExec exec;
  const std::int64_t n = 5003;
  auto keepMask = randomMask(n, 0.7, 11);
  std::vector<std::uint8_t> drop(n);
  for (std::int64_t i = 0; i < n; ++i) drop[i] = keepMask[i] == 0 ? 3 : 0; // non-zero: dead
  Planes3 p(drop);
  sieve::Population<TestExec> pop("spawn_drop", exec, n);
  const std::uint32_t live = pop.compact(exec, p.alive, sieve::MaskPolarity::drop);
  std::vector<std::int32_t> identity(n);
  for (std::int64_t i = 0; i < n; ++i) identity[i] = static_cast<std::int32_t>(i);
  const std::int64_t k = 100;
  DView<std::int32_t> slots("slots", k);
  pop.spawn(exec, k, slots);
  EXPECT_EQ(toHost(slots), firstFree(drop, identity, k, sieve::MaskPolarity::drop));
  const auto after = toHost(p.alive);
  for (const std::int32_t s : toHost(slots)) EXPECT_EQ(after[s], 0) << "kept under drop";
  EXPECT_EQ(pop.compact(exec, p.alive, sieve::MaskPolarity::drop), live + k);
}

TEST(Spawn, TooFewFreeSlotsPlacesNothing) {
  const TestExec exec;
  const std::int64_t n = 700;
  const auto mask = randomMask(n, 0.9, 5);
  Planes3 p(mask);
  sieve::Population<TestExec> pop("spawn_full", exec, n);
  const std::uint32_t live = pop.compact(exec, p.alive);
  const std::int64_t free = n - live;
  DView<std::int32_t> slots("slots", n);
  Kokkos::deep_copy(slots, -1);
  try {
    pop.spawn(exec, free + 1, slots);
    ADD_FAILURE() << "no throw";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("sieve::Population::spawn"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("only " + std::to_string(free)), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(toHost(p.alive), mask) << "nothing spawned";
  EXPECT_EQ(toHost(slots), std::vector<std::int32_t>(n, -1));
  // The asynchronous form says it with spawned() == 0.
  Word k = word(static_cast<std::uint32_t>(free + 1));
  pop.spawn_async(exec, k, slots);
  EXPECT_EQ(read(pop.spawned()), 0u);
  EXPECT_EQ(toHost(p.alive), mask);
  // k past the slots' extent: nothing either.
  DView<std::int32_t> two("two", 2);
  Word three = word(3);
  pop.spawn_async(exec, three, two);
  EXPECT_EQ(read(pop.spawned()), 0u);
  EXPECT_EQ(toHost(p.alive), mask);
  // Exactly every free slot: fine.
  pop.spawn(exec, free, slots);
  EXPECT_EQ(pop.compact(exec, p.alive), static_cast<std::uint32_t>(n));
  // k = 0: nothing, no throw.
  pop.spawn(exec, 0, slots);
  EXPECT_EQ(read(pop.spawned()), 0u);
}

TEST(Spawn, MisuseThrows) {
  const TestExec exec;
  const std::int64_t n = 64;
  const auto mask = randomMask(n, 0.5, 3);
  Planes3 p(mask);
  sieve::Population<TestExec> pop("spawn_misuse", exec, n);
  DView<std::int32_t> slots("slots", 8);
  EXPECT_THROW(pop.spawn(exec, 1, slots), std::invalid_argument) << "before any compaction";
  pop.compact(exec, p.alive);
  EXPECT_THROW(pop.spawn(exec, 9, slots), std::invalid_argument) << "k > slots.extent(0)";
  EXPECT_THROW(pop.spawn(exec, -1, slots), std::invalid_argument) << "k < 0";
  Kokkos::View<std::int32_t*, Kokkos::LayoutStride, TestDevice> strided("strided",
                                                                        Kokkos::LayoutStride(4, 2));
  EXPECT_THROW(pop.spawn(exec, 1, strided), std::invalid_argument) << "strided slots";
  EXPECT_EQ(toHost(p.alive), mask) << "no throw changed a byte";
  // A reorder after a spawn and before a compaction would move the spawned
  // samples as dead: it throws.
  pop.spawn(exec, 2, slots);
  const auto planes = sieve::planes(p.alive, p.x, p.id);
  try {
    pop.reorder(exec, planes);
    ADD_FAILURE() << "no throw";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("spawned since the last compaction"), std::string::npos)
        << e.what();
  }
  pop.compact(exec, p.alive);
  EXPECT_NO_THROW(pop.reorder(exec, planes));
}

TEST(Spawn, AGraphNodeMatchesTheDirectCalls) {
  const TestExec exec;
  const std::int64_t n = 9001;
  const auto mask = randomMask(n, 0.6, 21);
  Planes3 a(mask), b(mask);
  sieve::Population<TestExec> pa("graph_spawn", exec, n, {0.9f}),
      pb("direct_spawn", exec, n, {0.9f});
  const auto planesA = sieve::planes(a.alive, a.x, a.id);
  const auto planesB = sieve::planes(b.alive, b.x, b.id);
  pa.compact(exec, a.alive);
  pb.compact(exec, b.alive);
  Word k = word(0);
  DView<std::int32_t> slotsA("slotsA", 64), slotsB("slotsB", 64);
  sieve::Graph<TestExec> g("spawn_step");
  g.spawn(pa, k, slotsA);
  g.compact(pa, a.alive);
  g.reorder(pa, planesA);
  for (std::uint32_t step = 0; step < 6; ++step) {
    SCOPED_TRACE("step " + std::to_string(step));
    const std::uint32_t want = (step * 13) % 60;
    Kokkos::deep_copy(k, want);
    g.launch(exec);
    pb.spawn(exec, want, slotsB);
    pb.compact(exec, b.alive);
    pb.reorder(exec, planesB);
    exec.fence();
    EXPECT_EQ(read(pa.spawned()), want);
    EXPECT_EQ(toHost(slotsA), toHost(slotsB));
    EXPECT_EQ(toHost(a.alive), toHost(b.alive));
    EXPECT_EQ(toHost(a.id), toHost(b.id));
    EXPECT_EQ(read(pa.count()), read(pb.count()));
  }
}

/// What may and may not come between a spawn and the compaction after it.
TEST(Spawn, BetweenASpawnAndItsCompaction) {
  const TestExec exec;
  const std::int64_t n = 5000;
  const auto mask = randomMask(n, 0.5, 8);
  Planes3 p(mask);
  sieve::Population<TestExec> pop("between", exec, n, {0.99f});
  const auto planes = sieve::planes(p.alive, p.x, p.id);
  const std::uint32_t live = pop.compact(exec, p.alive);
  pop.reorder(exec, planes); // fires: perm is not the identity
  DView<std::int32_t> a("a", 8), b("b", 8);
  // A spawn that places nothing changes nothing: a reorder may follow.
  EXPECT_THROW(pop.spawn(exec, n, DView<std::int32_t>("all", n)), std::invalid_argument);
  EXPECT_NO_THROW(pop.reorder(exec, planes));
  pop.spawn(exec, 0, a);
  EXPECT_NO_THROW(pop.reorder(exec, planes));
  // Two spawns in a row take different slots (the first ones read kept).
  pop.spawn(exec, 8, a);
  pop.spawn(exec, 8, b);
  std::vector<std::int32_t> all = toHost(a);
  for (const std::int32_t v : toHost(b)) all.push_back(v);
  std::sort(all.begin(), all.end());
  EXPECT_EQ(std::adjacent_find(all.begin(), all.end()), all.end()) << "a slot handed out twice";
  // Nothing may move the handed-out slots before the compaction.
  EXPECT_THROW(pop.restore(exec, planes), std::invalid_argument);
  EXPECT_THROW(pop.reorder(exec, planes), std::invalid_argument);
  EXPECT_EQ(pop.compact(exec, p.alive), live + 16u);
  // After a restore perm is the identity again: the slots are the sample ids.
  pop.reorder(exec, planes);
  pop.restore(exec, planes);
  const auto before = toHost(p.alive);
  std::vector<std::int32_t> identity(n);
  for (std::int64_t i = 0; i < n; ++i) identity[i] = static_cast<std::int32_t>(i);
  pop.spawn(exec, 5, a);
  const auto got = toHost(a);
  const auto want = firstFree(before, identity, 5, sieve::MaskPolarity::keep);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(got[i], want[i]);
  // k in one of the population's own words is refused.
  EXPECT_THROW(pop.spawn_async(exec, pop.spawned(), a), std::invalid_argument);
  EXPECT_THROW(pop.spawn_async(exec, pop.count(), a), std::invalid_argument);
}

/// Inside an OpenMP parallel region a spawn (whose gather and place are
/// Kokkos kernels) throws on Kokkos::OpenMP, on every thread that calls it,
/// and changes nothing: threads sharing a population never each spawn into
/// the same slots View.
TEST(Spawn, InsideAParallelRegionThrows) {
#if defined(SIEVE_TEST_OPENMP) && defined(_OPENMP)
  const TestExec exec;
  const std::int64_t n = 5000;
  DView<std::uint8_t> alive = filled<std::uint8_t>(n, 0, "alive");
  sieve::Population<TestExec> pop("in_region", exec, n);
  pop.compact(exec, alive);
  DView<std::int32_t> slots("slots", 4);
  int caught = 0, threads = 0;
#pragma omp parallel num_threads(2) reduction(+ : caught, threads)
  {
    ++threads;
    try {
      pop.spawn(exec, 2, slots);
    } catch (const std::invalid_argument& e) {
      caught += std::string(e.what()).find("parallel region") != std::string::npos;
    }
  }
  EXPECT_EQ(caught, threads);
  EXPECT_EQ(pop.compact(exec, alive), 0u) << "nothing spawned";
  pop.spawn(exec, 2, slots); // outside the region
  EXPECT_EQ(pop.compact(exec, alive), 2u);
#else
  GTEST_SKIP() << "OpenMP only";
#endif
}

} // namespace
