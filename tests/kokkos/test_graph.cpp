// SPDX-License-Identifier: Apache-2.0
// Sieve Kokkos tests — sieve::ScratchArena (peak, not sum), sieve::Graph (100
// launches equal the direct calls step by step; the mask changes between
// launches; nothing allocated per launch) and sieve::Scanner (against
// std::inclusive_scan / exclusive_scan; upload / download; clones).
#include "backend.hpp"
#include "tools_log.hpp"

#include <sieve/graph.hpp>
#include <sieve/scanner.hpp>

#include <cstdint>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

namespace {

using namespace sieve_test;

// --- ScratchArena --------------------------------------------------------------------------

TEST(ScratchArena, PeakNotSum) {
  sieve::ScratchArena<TestMem> arena("t");
  const int a = arena.reserve("a", 1000, 0, 2);       // live over steps 0..2
  const int b = arena.reserve("b", 3000, 1, 1);       // with a
  const int c = arena.reserve("c", 2000, 3, 4);       // after both: shares their bytes
  const int d = arena.reserve("d", 500, 4, 4);        // with c
  EXPECT_THROW(arena.slot(a), std::invalid_argument); // before commit
  arena.commit();
  EXPECT_THROW(arena.reserve("late", 8, 5, 5), std::invalid_argument);
  EXPECT_THROW(arena.commit(), std::invalid_argument);
  auto begin = [&](int id) { return reinterpret_cast<std::uintptr_t>(arena.slot(id).data()); };
  auto apart = [&](int x, int y) {
    const auto xb = begin(x), yb = begin(y);
    return xb + arena.slot(x).extent(0) <= yb || yb + arena.slot(y).extent(0) <= xb;
  };
  EXPECT_TRUE(apart(a, b));
  EXPECT_TRUE(apart(c, d));
  EXPECT_GE(arena.slot(a).extent(0), 1000u);
  EXPECT_GE(arena.slot(b).extent(0), 3000u);
  EXPECT_EQ(arena.peak_bytes(), 1024u + 3072u); // a and b at step 1 (128-byte rounding)
  EXPECT_EQ(arena.sum_bytes(), 1024u + 3072u + 2048u + 512u);
  EXPECT_EQ(arena.bytes(), arena.peak_bytes());
  for (const int id : {a, b, c, d}) EXPECT_EQ(begin(id) % 128, 0u);
  EXPECT_THROW(arena.reserve("x", 8, 2, 1), std::invalid_argument);
}

/// Chains of 1, 2 and 5 compaction nodes share one slot: the arena is one
/// compaction's scratch, not k of them.
TEST(ScratchArena, ChainsOfCompactionsShareOneSlot) {
  const TestExec exec;
  const std::int64_t n = 10000;
  for (const int k : {1, 2, 5}) {
    sieve::Population<TestExec> pop("chain", exec, n, {0.5f, 0});
    const auto alive = filled<std::uint8_t>(n, 1, "alive");
    sieve::Graph<TestExec> g("chain");
    for (int i = 0; i < k; ++i) g.compact(pop, alive);
    g.instantiate(exec);
    const std::size_t one = (sieve::compact_scratch_bytes(n) + 127) / 128 * 128;
    EXPECT_EQ(g.arena().bytes(), one) << k << " nodes";
    EXPECT_EQ(g.arena().peak_bytes(), one);
    EXPECT_EQ(g.arena().sum_bytes(), k * one);
    g.launch(exec);
    EXPECT_EQ(read(pop.count()), static_cast<std::uint32_t>(n));
  }
}

// --- Graph ---------------------------------------------------------------------------------

/// A step of every slot; the step number is read on the device (a graph
/// captured on Kokkos::Cuda replays its kernels' arguments as captured).
struct Transport {
  DView<std::uint8_t> alive;
  DView<double> x;
  DView<std::int32_t> id;
  Kokkos::View<int, TestDevice> step;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const {
    const std::uint64_t key =
        (static_cast<std::uint64_t>(id(i)) << 20) ^ static_cast<std::uint64_t>(step());
    if (alive(i)) {
      x(i) += hashUnit(key * 3 + 1);
      if (hashUnit(key * 3 + 2) < 0.07) alive(i) = 0;
    } else if (hashUnit(key * 3 + 3) < 0.01) {
      alive(i) = 1;
      x(i) = -1.0;
    }
  }
};
struct NextStep {
  Kokkos::View<int, TestDevice> step;
  KOKKOS_INLINE_FUNCTION void operator()(const int) const { step() += 1; }
};

struct System {
  DView<std::uint8_t> alive;
  DView<double> x;
  DView<std::int32_t> id;
  Kokkos::View<int, TestDevice> step{"step"};
  explicit System(std::int64_t n)
      : alive(filled<std::uint8_t>(n, 1, "alive")), x(filled<double>(n, 0.0, "x")), id("id", n) {
    std::vector<std::int32_t> ids(n);
    std::iota(ids.begin(), ids.end(), 0);
    Kokkos::deep_copy(id, toDevice(ids));
  }
  void transport(const TestExec& exec) const {
    Kokkos::parallel_for("test::transport",
                         Kokkos::RangePolicy<TestExec, Kokkos::IndexType<std::int64_t>>(
                             exec, 0, static_cast<std::int64_t>(alive.extent(0))),
                         Transport{alive, x, id, step});
  }
  void next(const TestExec& exec) const {
    Kokkos::parallel_for("test::next", Kokkos::RangePolicy<TestExec>(exec, 0, 1), NextStep{step});
  }
};

TEST(Graph, HundredLaunchesEqualTheDirectCalls) {
  const TestExec exec;
  const std::int64_t n = 30000;
  // The graph's population and planes.
  const System a(n);
  sieve::Population<TestExec> popA("graph", exec, n, {0.5f, 0}); // scratch from the arena
  const auto planesA = sieve::planes(a.alive, a.x, a.id);
  sieve::Graph<TestExec> step("step");
  step.kernel("transport", [a](const TestExec& e) { a.transport(e); });
  step.compact(popA, a.alive);
  step.reorder(popA, planesA);
  step.kernel("next", [a](const TestExec& e) { a.next(e); });
  sieve::Graph<TestExec> finish("finish");
  finish.restore(popA, planesA);
  EXPECT_THROW(sieve::Graph<TestExec>("empty").launch(exec), std::invalid_argument);
  // The same through direct calls.
  const System b(n);
  sieve::Population<TestExec> popB("direct", exec, n);
  const auto planesB = sieve::planes(b.alive, b.x, b.id);

  int fired = 0;
  for (int s = 0; s < 100; ++s) {
    SCOPED_TRACE("launch " + std::to_string(s));
    step.launch(exec);
    b.transport(exec);
    popB.compact_async(exec, b.alive);
    fired += read(popB.trigger().fire) != 0;
    popB.reorder(exec, planesB);
    b.next(exec);
    if (s == 49) {
      finish.launch(exec);
      popB.restore(exec, planesB);
    }
    exec.fence();
    ASSERT_EQ(toHost(a.alive), toHost(b.alive));
    const auto ax = toHost(a.x), bx = toHost(b.x);
    ASSERT_EQ(0, std::memcmp(ax.data(), bx.data(), ax.size() * sizeof(double)));
    ASSERT_EQ(toHost(a.id), toHost(b.id));
    ASSERT_EQ(toHost(popA.perm()), toHost(popB.perm()));
    ASSERT_EQ(toHost(popA.indices()), toHost(popB.indices()));
    ASSERT_EQ(read(popA.trigger().span), read(popB.trigger().span));
  }
  EXPECT_GT(fired, 1) << "the scenario must reorder";
  // Nodes cannot be added once the graph runs.
  EXPECT_THROW(step.compact(popA, a.alive), std::invalid_argument);
  // The final restore: ids back in order.
  finish.launch(exec);
  exec.fence();
  std::vector<std::int32_t> ids(n);
  std::iota(ids.begin(), ids.end(), 0);
  EXPECT_EQ(toHost(a.id), ids);
  // Bad dependencies and masks.
  sieve::Graph<TestExec> bad("bad");
  EXPECT_THROW(bad.kernel("k", [](const TestExec&) {}, {0}), std::invalid_argument);
  const auto shortMask = filled<std::uint8_t>(n - 1, 1, "short");
  EXPECT_THROW(bad.compact(popA, shortMask), std::invalid_argument);
}

TEST(Graph, ScanNodesShareTheArena) {
  const TestExec exec;
  const std::int64_t n = 50000;
  std::vector<std::int32_t> h(n);
  for (std::int64_t i = 0; i < n; ++i) h[i] = static_cast<std::int32_t>(i % 7) - 3;
  const auto in = toDevice(h);
  DView<std::int32_t> mid("mid", n), out("out", n);
  Kokkos::View<std::int32_t, TestDevice> total("total");
  sieve::Graph<TestExec> g("scans");
  g.inclusive_scan(in, mid);
  g.inclusive_scan(mid, out, sieve::Max{}, total);
  g.launch(exec);
  exec.fence();
  std::vector<std::int32_t> m(n), o(n);
  std::inclusive_scan(h.begin(), h.end(), m.begin());
  std::inclusive_scan(m.begin(), m.end(), o.begin(),
                      [](std::int32_t x, std::int32_t y) { return x > y ? x : y; });
  EXPECT_EQ(toHost(mid), m);
  EXPECT_EQ(toHost(out), o);
  std::int32_t t = 0;
  Kokkos::deep_copy(t, total);
  EXPECT_EQ(t, o.back());
  EXPECT_EQ(g.arena().bytes() * 2, g.arena().sum_bytes());
}

/// A tally step: a kernel node changes the weights, a reduce_by_key node sums
/// them by cell through the permutation of a cell sort; the weights changed
/// between launches are seen. (Free functions and functors: nvcc's device
/// lambdas cannot live in a gtest body.)
void bumpWeights(const TestExec& e, const DView<double>& w, int launch) {
  Kokkos::parallel_for(
      "bump", Kokkos::RangePolicy<TestExec>(e, 0, w.extent(0)), KOKKOS_LAMBDA(const std::int64_t i) {
        w(i) = 0.5 * double((i * 7 + launch) % 13) + 1e-3 * double(i);
      });
}
struct CellOf {
  DView<std::int32_t> cell;
  KOKKOS_INLINE_FUNCTION std::int32_t operator()(const std::int64_t i) const { return cell(i); }
};
struct WeightAt {
  DView<double> w;
  KOKKOS_INLINE_FUNCTION double operator()(const std::int64_t p) const { return w(p); }
};

TEST(Graph, ReduceByKeyNodeEqualsTheCallAndAllocatesNothingPerLaunch) {
  const TestExec exec;
  const std::int64_t n = 40000; // keys of more than 8192 elements: the big-key scratch
  const int cells = 5;
  std::vector<std::int32_t> hc(n);
  for (std::int64_t i = 0; i < n; ++i) hc[i] = static_cast<std::int32_t>((i * 31) % cells);
  const CellOf key{toDevice(hc)};
  DView<std::int64_t> perm("perm", n);
  DView<double> w("w", n), sums("sums", cells), direct("direct", cells);
  const auto keys = sieve::keys::sort_permutation(exec, n, key, perm);
  sieve::Graph<TestExec> g("tally");
  int launch = 0;
  g.kernel("weights", [w, &launch](const TestExec& e) { bumpWeights(e, w, launch); });
  g.reduce_by_key(keys, sieve::keys::project(perm, WeightAt{w}), 0.0, sieve::Sum{}, sums);
  EXPECT_GT(g.arena().sum_bytes(), 0u) << "the big keys' scratch is the arena's";
  for (launch = 0; launch < 4; ++launch) {
    if (launch == 1) {
      const ToolsLog tools;
      g.launch(exec);
      exec.fence();
      EXPECT_EQ(ToolsLog::allocations(), 0) << ToolsLog::dump();
    } else {
      g.launch(exec);
    }
    bumpWeights(exec, w, launch);
    sieve::keys::reduce_by_key(exec, keys, sieve::keys::project(perm, WeightAt{w}), 0.0,
                               sieve::Sum{}, direct);
    exec.fence();
    const auto a = toHost(sums), b = toHost(direct);
    ASSERT_EQ(0, std::memcmp(a.data(), b.data(), a.size() * sizeof(double))) << launch;
  }
  // Keys of a workspace call that a node of the graph calls again are stale
  // from the first launch on: the reduce_by_key node throws, nothing written.
  sieve::keys::DenseWorkspace<std::int32_t, TestExec> dense(exec, n, 0, cells - 1);
  const auto wsKeys = sieve::keys::sort_permutation(exec, n, key, perm, dense);
  sieve::Graph<TestExec> stale("stale");
  stale.kernel("sort", [=](const TestExec& e) { sieve::keys::sort_permutation(e, n, key, perm, dense); });
  stale.reduce_by_key(wsKeys, sieve::keys::project(perm, WeightAt{w}), 0.0, sieve::Sum{}, sums);
  Kokkos::deep_copy(sums, -1.0);
  EXPECT_THROW(stale.launch(exec), std::invalid_argument);
  for (const double x : toHost(sums)) EXPECT_EQ(x, -1.0);
}

namespace {
/// Launches `g`; with `count`, checks under Kokkos Tools that the launch
/// syncs nothing: no allocation, deep copy, fence or reduction.
void launchCountingSyncs(sieve::Graph<TestExec>& g, const TestExec& exec, bool count) {
  if (!count) {
    g.launch(exec);
    return;
  }
  const ToolsLog tools;
  g.launch(exec);
  EXPECT_EQ(ToolsLog::allocations() + ToolsLog::deepCopies() + ToolsLog::fences() +
                ToolsLog::reductions(),
            0)
      << ToolsLog::dump();
}
} // namespace

// A sort-by-cell step as one graph: drift (a kernel), sort_permutation
// through a DenseWorkspace, permute of the planes through a PermuteWorkspace,
// and a tally by cell over the sort's keys (nodes): each launch equals the
// same calls made one by one on copies of the planes, a launch syncs
// nothing, and the permute allocates, reduces and copies nothing. A perm
// with an entry outside [0, n) writes nothing, and the workspace's check()
// throws.
TEST(Graph, PermuteNodesSortByCellAsTheCallsDo) {
  const TestExec exec;
  const std::int64_t n = 30011;
  const int cells = 64;
  DView<double> x("x", n), xd("xd", n);
  DView<std::int32_t> cell("cell", n), celld("celld", n);
  Kokkos::parallel_for(
      "init", Kokkos::RangePolicy<TestExec>(exec, 0, n), KOKKOS_LAMBDA(const std::int64_t i) {
        x(i) = xd(i) = 0.5 * double(i);
        cell(i) = celld(i) = static_cast<std::int32_t>((i * 7919) % cells);
      });
  DView<std::int64_t> perm("perm", n), permd("permd", n);
  sieve::keys::DenseWorkspace<std::int32_t, TestExec> dense(exec, n, 0, cells - 1),
      dense2(exec, n, 0, cells - 1);
  sieve::keys::PermuteWorkspace<TestExec> pw(exec, x, cell), pw2(exec, x, cell);
  const auto drift = [cells](const TestExec& e, const DView<double>& px,
                             const DView<std::int32_t>& pc) {
    Kokkos::parallel_for(
        "drift", Kokkos::RangePolicy<TestExec>(e, 0, px.extent(0)),
        KOKKOS_LAMBDA(const std::int64_t i) {
          px(i) += 1.0;
          pc(i) = (pc(i) + static_cast<std::int32_t>(i % 3)) % cells;
        });
  };
  sieve::Graph<TestExec> g("sortstep");
  g.kernel("drift", [=](const TestExec& e) { drift(e, x, cell); });
  g.sort_permutation(n, CellOf{cell}, perm, dense);
  g.permute(perm, pw, sieve::planes(x, cell));
  DView<double> sums("sums", cells), sumsd("sumsd", cells);
  g.reduce_by_key(dense, x, 0.0, sieve::Sum{}, sums); // the sort node's keys
  for (int launch = 0; launch < 3; ++launch) {
    launchCountingSyncs(g, exec, launch > 0);
    drift(exec, xd, celld);
    const auto keysd = sieve::keys::sort_permutation(exec, n, CellOf{celld}, permd, dense2);
    if (launch == 1) {
      exec.fence();
      const ToolsLog tools;
      sieve::keys::permute(exec, permd, pw2, xd, celld);
      EXPECT_EQ(ToolsLog::allocations() + ToolsLog::reductions() + ToolsLog::deepCopies(), 0)
          << ToolsLog::dump();
    } else {
      sieve::keys::permute(exec, permd, pw2, xd, celld);
    }
    sieve::keys::reduce_by_key(exec, keysd, xd, 0.0, sieve::Sum{}, sumsd);
    exec.fence();
    pw.check(exec);
    dense.check(exec);
    const auto sa = toHost(sums), sb = toHost(sumsd);
    ASSERT_EQ(0, std::memcmp(sa.data(), sb.data(), sa.size() * sizeof(double))) << launch;
    const auto a = toHost(x), b = toHost(xd);
    ASSERT_EQ(0, std::memcmp(a.data(), b.data(), a.size() * sizeof(double))) << launch;
    const auto c = toHost(cell);
    ASSERT_EQ(c, toHost(celld)) << launch;
    for (std::int64_t i = 1; i < n; ++i) ASSERT_LE(c[i - 1], c[i]) << launch << " " << i;
  }
  // An entry of perm outside [0, n): the node writes nothing; check() throws.
  sieve::Graph<TestExec> bad("bad");
  bad.kernel("sort", [=](const TestExec& e) {
    sieve::keys::sort_permutation(e, n, CellOf{cell}, perm, dense);
    Kokkos::parallel_for(
        "spoil", Kokkos::RangePolicy<TestExec>(e, 0, 1),
        KOKKOS_LAMBDA(const std::int64_t) { perm(n / 2) = n; });
  });
  bad.unpermute(perm, pw, sieve::planes(x, cell));
  const auto xs = toHost(x);
  const auto cs = toHost(cell);
  bad.launch(exec);
  exec.fence();
  EXPECT_TRUE(toHost(x) == xs);
  EXPECT_TRUE(toHost(cell) == cs);
  EXPECT_THROW(pw.check(exec), std::invalid_argument);
  EXPECT_THROW(g.permute(perm, sieve::keys::PermuteWorkspace<TestExec>(), sieve::planes(x)),
               std::invalid_argument);
  sieve::Graph<TestExec> empty("empty");
  const sieve::keys::DenseWorkspace<std::int32_t, TestExec> none;
  EXPECT_THROW(empty.sort_permutation(n, CellOf{cell}, perm, none), std::invalid_argument);
  EXPECT_THROW(empty.reduce_by_key(none, x, 0.0, sieve::Sum{}, sums), std::invalid_argument);
  // A short result: the node throws at launch, nothing written.
  DView<double> shortSums("short", cells - 1);
  Kokkos::deep_copy(shortSums, -2.0);
  sieve::Graph<TestExec> tally("tally");
  tally.sort_permutation(n, CellOf{cell}, perm, dense);
  tally.reduce_by_key(dense, x, 0.0, sieve::Sum{}, shortSums);
  EXPECT_THROW(tally.launch(exec), std::invalid_argument);
  for (const double v : toHost(shortSums)) EXPECT_EQ(v, -2.0);
}

// A step that bins by sparse cell ids and by dense cells and tallies, as
// nodes (scatter_sparse through a fixed SparseWorkspace, scatter_dense
// through a DenseWorkspace, reduce_by_key of each workspace's latest keys):
// the same sums as the blocking calls at every launch, the ids past the
// device count left at init; more cells than the capacity leave every key
// empty (the tally writes nothing) and surface at check(); a growing
// workspace is refused.
TEST(Graph, ScatterNodesTallyAsTheCallsDo) {
  const TestExec exec;
  const std::int64_t n = 20011;
  const int cells = 40, cap = 48;
  DView<std::int64_t> id("id", n), idd("idd", n), sorted("sorted", n), sortedd("sortedd", n);
  DView<std::int32_t> cell("cell", n), sortedCell("sorted_cell", n), sortedCelld("scd", n);
  Kokkos::parallel_for(
      "init", Kokkos::RangePolicy<TestExec>(exec, 0, n),
      KOKKOS_LAMBDA(const std::int64_t i) { id(i) = idd(i) = (i * 7919) % cells * 1000003 - 7; });
  const auto drift = [cells](const TestExec& e, const DView<std::int64_t>& v) {
    Kokkos::parallel_for(
        "drift", Kokkos::RangePolicy<TestExec>(e, 0, v.extent(0)),
        KOKKOS_LAMBDA(const std::int64_t i) {
          const std::int64_t c = (v(i) + 7) / 1000003;
          v(i) = (c + i % 3) % cells * 1000003 - 7;
        });
  };
  const auto cellOf = [cells](const TestExec& e, const DView<std::int64_t>& v,
                              const DView<std::int32_t>& c) {
    Kokkos::parallel_for(
        "cell_of", Kokkos::RangePolicy<TestExec>(e, 0, v.extent(0)),
        KOKKOS_LAMBDA(const std::int64_t i) {
          c(i) = static_cast<std::int32_t>((v(i) + 7) / 1000003);
        });
  };
  sieve::keys::SparseWorkspace<std::int64_t, TestExec> sparse(exec, cap, n);
  sieve::keys::DenseWorkspace<std::int32_t, TestExec> dense(exec, n, 0, cells - 1);
  DView<std::int64_t> sums("sums", cap);
  DView<std::int64_t> cellSums("cell_sums", cells);
  Kokkos::deep_copy(sums, -1);
  sieve::Graph<TestExec> g("binstep");
  g.kernel("drift", [=](const TestExec& e) {
    drift(e, id);
    cellOf(e, id, cell);
  });
  g.scatter_sparse(id, sorted, sparse);
  g.reduce_by_key(sparse, sorted, std::int64_t(5), sieve::Sum{}, sums);
  g.scatter_dense(cell, sortedCell, dense);
  g.reduce_by_key(dense, sortedCell, std::int64_t(0), sieve::Sum{}, cellSums);
  for (int launch = 0; launch < 3; ++launch) {
    launchCountingSyncs(g, exec, launch > 0);
    drift(exec, idd);
    DView<std::int32_t> celld("celld", n);
    cellOf(exec, idd, celld);
    const auto keysd = sieve::keys::scatter_sparse(exec, idd, sortedd);
    DView<std::int64_t> sumsd("sumsd", keysd.num_keys());
    sieve::keys::reduce_by_key(exec, keysd, sortedd, std::int64_t(5), sieve::Sum{}, sumsd);
    const auto denseKeys = sieve::keys::scatter_dense(exec, celld, 0, cells - 1, sortedCelld);
    DView<std::int64_t> cellSumsd("cell_sumsd", cells);
    sieve::keys::reduce_by_key(exec, denseKeys, sortedCelld, std::int64_t(0), sieve::Sum{},
                               cellSumsd);
    exec.fence();
    sparse.check(exec);
    dense.check(exec);
    auto want = toHost(sumsd);
    want.resize(cap, 5);
    EXPECT_EQ(toHost(sums), want) << launch;
    EXPECT_EQ(toHost(sorted), toHost(sortedd)) << launch;
    EXPECT_EQ(toHost(cellSums), toHost(cellSumsd)) << launch;
    EXPECT_EQ(toHost(sortedCell), toHost(sortedCelld)) << launch;
  }
  // More cells than the capacity: the elements sorted all the same, every key
  // empty, the tally writes nothing.
  sieve::keys::SparseWorkspace<std::int64_t, TestExec> small(exec, cells - 1, n);
  sieve::Graph<TestExec> over("over");
  over.scatter_sparse(id, sortedd, small);
  DView<std::int64_t> untouched("untouched", cells);
  Kokkos::deep_copy(untouched, -4);
  Kokkos::deep_copy(sortedd, -4);
  over.reduce_by_key(small, sortedd, std::int64_t(0), sieve::Sum{}, untouched);
  over.launch(exec);
  exec.fence();
  EXPECT_THROW(small.check(exec), std::invalid_argument);
  EXPECT_EQ(toHost(untouched), std::vector<std::int64_t>(cells, -4));
  DView<std::int64_t> want("want", n);
  (void)sieve::keys::scatter_sparse(exec, id, want);
  EXPECT_EQ(toHost(sortedd), toHost(want));
  // A growing workspace reads its count back: refused.
  sieve::keys::SparseWorkspace<std::int64_t, TestExec> growing;
  sieve::Graph<TestExec> refused("refused");
  EXPECT_THROW(refused.scatter_sparse(id, sorted, growing), std::invalid_argument);
  EXPECT_THROW(refused.reduce_by_key(growing, sorted, std::int64_t(0), sieve::Sum{}, sums),
               std::invalid_argument);
  EXPECT_THROW(refused.scatter_dense(cell, sortedCell,
                                     sieve::keys::DenseWorkspace<std::int32_t, TestExec>()),
               std::invalid_argument);
}

// --- Scanner -------------------------------------------------------------------------------

TEST(Scanner, InclusiveAndExclusiveRoundTrips) {
  const TestExec exec;
  const std::int64_t n = 100003;
  sieve::Scanner<std::int64_t, sieve::Sum, true, TestExec> inc("inc", n);
  sieve::Scanner<std::int64_t, sieve::Sum, false, TestExec> exc("exc", n, {}, 5);
  std::vector<std::int64_t> h(n);
  for (std::int64_t i = 0; i < n; ++i) h[i] = (i * 2654435761LL) % 1000 - 500;
  for (std::int64_t i = 0; i < n; ++i) inc.host_inputs()(i) = exc.host_inputs()(i) = h[i];
  inc.upload(exec);
  exc.upload(exec);
  inc.run(exec);
  exc.run(exec);
  inc.download(exec);
  exc.download(exec);
  exec.fence();
  std::vector<std::int64_t> wi(n), we(n);
  std::inclusive_scan(h.begin(), h.end(), wi.begin());
  std::exclusive_scan(h.begin(), h.end(), we.begin(), std::int64_t(5));
  std::int64_t badI = 0, badE = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    badI += inc.host_results()(i) != wi[i];
    badE += exc.host_results()(i) != we[i];
  }
  EXPECT_EQ(badI, 0);
  EXPECT_EQ(badE, 0);
  EXPECT_EQ(inc.total(exec), wi.back());
  EXPECT_EQ(exc.total(exec), we.back() + h.back());
  // A clone keeps its own buffers.
  const auto c = inc.clone(exec);
  Kokkos::deep_copy(inc.inputs(), std::int64_t(1));
  inc.run(exec);
  EXPECT_EQ(inc.total(exec), n);
  EXPECT_EQ(c.total(exec), wi.back());
  EXPECT_EQ(toHost(c.results()), wi);
  EXPECT_THROW((sieve::Scanner<int, sieve::Sum, true, TestExec>("bad", -1)), std::invalid_argument);
}

} // namespace
