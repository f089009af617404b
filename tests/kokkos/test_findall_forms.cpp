// SPDX-License-Identifier: Apache-2.0
// Sieve Kokkos tests — sieve::findall's index form (findall(exec, n,
// pred(i))), int32 results through into(), and the result buffer a
// FindallWorkspace keeps for the forms that return a View. Every result is
// compared with a sequential reference written here, and the int32 results
// with the int64 ones, so every backend and thread count is held to the same
// bytes.
#include "backend.hpp"
#include "tools_log.hpp"

#include <climits>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

using namespace sieve_test;

namespace {

using i64 = std::int64_t;
using i32 = std::int32_t;

constexpr bool kHost = Kokkos::SpaceAccessibility<Kokkos::HostSpace, TestMem>::accessible;

/// ExaMiniMD's selection: the atoms of type t left of xmax (two Views read).
struct TypeBelow {
  DView<int> type;
  DView<double> x;
  int t;
  double xmax;
  KOKKOS_INLINE_FUNCTION bool operator()(const std::int64_t i) const {
    return type(i) == t && x(i) < xmax;
  }
};

/// Counts its calls; selects nothing.
struct CountingIndexPred {
  Kokkos::View<i64, TestMem> calls;
  KOKKOS_INLINE_FUNCTION bool operator()(const std::int64_t) const {
    Kokkos::atomic_add(&calls(), i64(1));
    return false;
  }
};

/// Counts its calls; selects the multiples of 3.
struct CountingThirds {
  Kokkos::View<i64, TestMem> calls;
  KOKKOS_INLINE_FUNCTION bool operator()(const std::int64_t i) const {
    Kokkos::atomic_add(&calls(), i64(1));
    return i % 3 == 0;
  }
};

/// Selects the values above v.
struct Above {
  double v;
  KOKKOS_INLINE_FUNCTION bool operator()(const double q) const { return q > v; }
};

/// Fills a rank-2 LayoutLeft mask by ordinal.
struct FillRank2 {
  Kokkos::View<bool**, Kokkos::LayoutLeft, TestMem> m;
  i64 rows;
  KOKKOS_INLINE_FUNCTION void operator()(const int k) const {
    m(k % rows, k / rows) = (k * 7) % 5 < 2;
  }
};

/// Selects the first and the last index of [0, n).
struct Ends {
  i64 n;
  KOKKOS_INLINE_FUNCTION bool operator()(const std::int64_t i) const {
    return i == 0 || i == n - 1;
  }
};

/// The input of a TypeBelow selection: types (type 1 with probability pt
/// percent), positions (below 0.5 with probability px percent), and the
/// reference indices.
struct Atoms {
  DView<int> type;
  DView<double> x;
  DView<double> q; // a third View, the items of items(q)
  std::vector<i64> ref;
  std::vector<double> refQ;
  TypeBelow pred() const { return TypeBelow{type, x, 1, 0.5}; }
};

Atoms makeAtoms(i64 n, int pt, int px, std::uint32_t seed) {
  std::vector<int> th(n);
  std::vector<double> xh(n), qh(n);
  Atoms a;
  for (i64 i = 0; i < n; ++i) {
    th[i] = picked(i, pt, seed) ? 1 : 2 + static_cast<int>(i % 3);
    xh[i] = picked(i, px, seed + 1) ? 0.25 + 1e-9 * static_cast<double>(i % 1000) : 0.75;
    qh[i] = 0.5 * static_cast<double>(i) - 3.0;
    if (th[i] == 1 && xh[i] < 0.5) {
      a.ref.push_back(i);
      a.refQ.push_back(qh[i]);
    }
  }
  a.type = toDevice(th, "type");
  a.x = toDevice(xh, "x");
  a.q = toDevice(qh, "q");
  return a;
}

/// The algorithms of the sweep (each one a tile shape).
template <class F>
void forEachAlg(F&& f) {
  f(std::string("Auto"), sieve::Auto{});
  if (kHost) f(std::string("Partitioned"), sieve::Partitioned{});
  f(std::string("ScanScatter{64,3}"), sieve::ScanScatter{64, 3});
  f(std::string("ScanScatter{32,1}"), sieve::ScanScatter{32, 1});
  f(std::string("ScanScatter{256,8}"), sieve::ScanScatter{256, 8});
  // Tiles of 48 elements: not whole 32-bit words (the index form calls pred
  // in both phases on host spaces too).
  f(std::string("ScanScatter{16,3}"), sieve::ScanScatter{16, 3});
}

const std::vector<i64> kSizes = {0, 1, 2, 3, 31, 33, 95, 767, 1023, 4097, 65537, 100000};

template <class T>
std::vector<T> firstOf(const std::vector<T>& v, i64 count) {
  return std::vector<T>(v.begin(), v.begin() + count);
}

i64 readCount(const Kokkos::View<i64, TestMem>& c) {
  Kokkos::fence();
  i64 v = 0;
  Kokkos::deep_copy(v, c);
  return v;
}

} // namespace

// --- the index form --------------------------------------------------------------------

TEST(FindallIndex, MatchesTheSequentialLoop) {
  const TestExec exec;
  for (const i64 n : kSizes) {
    for (const auto& pp : {std::pair<int, int>{0, 100}, std::pair<int, int>{70, 70},
                           std::pair<int, int>{100, 100}, std::pair<int, int>{100, 3}}) {
      const int pt = pp.first, px = pp.second; // (a lambda captures these: not bindings)
      const Atoms a = makeAtoms(n, pt, px, static_cast<std::uint32_t>(n + pt));
      forEachAlg([&](const std::string& name, const auto alg) {
        SCOPED_TRACE(name + " n=" + std::to_string(n) + " pt=" + std::to_string(pt) +
                     " px=" + std::to_string(px));
        const auto idx = sieve::findall(exec, n, a.pred(), alg);
        static_assert(std::is_same_v<std::decay_t<decltype(idx)>,
                                     Kokkos::View<i64*, Kokkos::LayoutRight, TestMem>>);
        EXPECT_EQ(toHost(idx), a.ref);
        EXPECT_EQ(toHost(sieve::findall(exec, n, a.pred(), sieve::linear_indices, alg)), a.ref);
        const auto q = sieve::findall(exec, n, a.pred(), alg, sieve::items(a.q));
        static_assert(std::is_same_v<typename decltype(q)::non_const_value_type, double>);
        EXPECT_EQ(toHost(q), a.refQ);
        // With a workspace (the returning form and into) and a label.
        const sieve::FindallWorkspace<TestExec> ws(exec, n, alg);
        EXPECT_EQ(toHost(sieve::findall("lbl", exec, n, a.pred(), ws, alg)), a.ref);
        DView<i64> out("out", static_cast<std::size_t>(n));
        Kokkos::View<i64, TestMem> count("count");
        sieve::findall(exec, n, a.pred(), sieve::into(out, count), ws, alg);
        ASSERT_EQ(readCount(count), static_cast<i64>(a.ref.size()));
        EXPECT_EQ(firstOf(toHost(out), readCount(count)), a.ref);
        DView<double> outQ("outQ", static_cast<std::size_t>(n));
        sieve::findall(exec, n, a.pred(), alg, sieve::items(a.q), ws, sieve::into(outQ, count));
        ASSERT_EQ(readCount(count), static_cast<i64>(a.ref.size()));
        EXPECT_EQ(firstOf(toHost(outQ), readCount(count)), a.refQ);
      });
    }
  }
}

TEST(FindallIndex, IntoAShortResultWritesNothingPastIt) {
  const TestExec exec;
  const i64 n = 70001;
  const Atoms a = makeAtoms(n, 80, 80, 5);
  const i64 sel = static_cast<i64>(a.ref.size());
  forEachAlg([&](const std::string& name, const auto alg) {
    for (const i64 room : {i64(0), i64(1), sel / 2, sel - 1, sel}) {
      SCOPED_TRACE(name + " room=" + std::to_string(room));
      // A guarded buffer: result = its middle `room` slots.
      DView<i64> buf("buf", static_cast<std::size_t>(room + 64));
      Kokkos::deep_copy(buf, i64(-7));
      const auto out = Kokkos::subview(buf, std::make_pair(i64(32), i64(32 + room)));
      Kokkos::View<i64, TestMem> count("count");
      sieve::findall(exec, n, a.pred(), alg, sieve::into(out, count));
      EXPECT_EQ(readCount(count), sel);
      const auto got = toHost(buf);
      for (i64 s = 0; s < room + 64; ++s) {
        const i64 want = s >= 32 && s < 32 + room ? a.ref[static_cast<std::size_t>(s - 32)] : -7;
        ASSERT_EQ(got[static_cast<std::size_t>(s)], want) << "slot " << s;
      }
    }
  });
}

TEST(FindallIndex, AnyIntegerCountAndTheFencedForms) {
  const TestExec exec;
  const Atoms a = makeAtoms(5000, 60, 60, 17);
  EXPECT_EQ(toHost(sieve::findall(exec, 5000, a.pred())), a.ref);               // int
  EXPECT_EQ(toHost(sieve::findall(exec, 5000u, a.pred())), a.ref);              // unsigned
  EXPECT_EQ(toHost(sieve::findall(exec, std::size_t(5000), a.pred())), a.ref);  // size_t
  EXPECT_EQ(toHost(sieve::findall(exec, std::int16_t(5000), a.pred())), a.ref); // short
  EXPECT_EQ(toHost(sieve::findall("lbl", exec, i64(5000), a.pred())), a.ref);   // label
  // Fenced, on a default instance of Kokkos::DefaultExecutionSpace (the
  // Views must be accessible there: host spaces here).
  if constexpr (Kokkos::SpaceAccessibility<Kokkos::DefaultExecutionSpace::memory_space,
                                           TestMem>::accessible) {
    EXPECT_EQ(toHost(sieve::findall(5000, a.pred())), a.ref);
    EXPECT_EQ(toHost(sieve::findall("lbl", 5000, a.pred(), sieve::linear_indices)), a.ref);
    Kokkos::View<i64*, Kokkos::DefaultExecutionSpace::memory_space> out("out", 5000);
    Kokkos::View<i64, Kokkos::DefaultExecutionSpace::memory_space> count("count");
    const i64 c = sieve::findall(5000, a.pred(), sieve::into(out, count));
    EXPECT_EQ(c, static_cast<i64>(a.ref.size()));
    EXPECT_EQ(firstOf(toHost(out), c), a.ref);
  }
}

TEST(FindallIndex, TheRegionAndTheMaskFreeWorkspace) {
  const TestExec exec;
  const i64 n = 100000;
  const Atoms a = makeAtoms(n, 50, 50, 3);
  {
    // Without a workspace: the call's own holds no n-byte mask.
    const ToolsLog tools;
    EXPECT_EQ(toHost(sieve::findall("idx", exec, n, a.pred())), a.ref);
    EXPECT_TRUE(ToolsLog::hasPrefix("region idx: sieve::findall[")) << ToolsLog::dump();
    EXPECT_FALSE(ToolsLog::hasPrefix("kernel idx: sieve::findall::predicate")) << ToolsLog::dump();
  }
  EXPECT_LT(sieve::FindallWorkspace<TestExec>::bytes_for(exec, n) - n, std::size_t(n));
  // The workspace of the mask form serves the index form, into it allocates nothing.
  const sieve::FindallWorkspace<TestExec> ws(exec, n);
  DView<i32> out("out", static_cast<std::size_t>(n));
  Kokkos::View<i64, TestMem> count("count");
  {
    const ToolsLog tools;
    sieve::findall(exec, n, a.pred(), ws, sieve::into(out, count));
    EXPECT_EQ(ToolsLog::allocations(), 0) << ToolsLog::dump();
  }
  ASSERT_EQ(readCount(count), static_cast<i64>(a.ref.size()));
  const auto got = firstOf(toHost(out), readCount(count));
  EXPECT_EQ(std::vector<i64>(got.begin(), got.end()), a.ref);
}

// On host spaces pred is called once per index (its answers kept as bits)
// where tiles are whole 32-bit words (or there is one tile), twice (fused)
// where they are not.
TEST(FindallIndex, HowOftenPredIsCalledOnHostSpaces) {
  if constexpr (!kHost) GTEST_SKIP() << "host spaces only";
  const TestExec exec;
  for (const i64 n : {i64(0), i64(1), i64(1000), i64(70001), i64(300007)}) {
    SCOPED_TRACE("n=" + std::to_string(n));
    std::vector<i64> ref;
    for (i64 i = 0; i < n; i += 3) ref.push_back(i);
    Kokkos::View<i64, TestMem> calls("calls"), count("count");
    DView<i64> out("out", static_cast<std::size_t>(n));
    const auto expectCalls = [&](i64 per, const char* what) {
      EXPECT_EQ(readCount(calls), per * n) << what;
      Kokkos::deep_copy(calls, i64(0));
    };
    EXPECT_EQ(toHost(sieve::findall(exec, n, CountingThirds{calls})), ref);
    expectCalls(1, "Auto, returning");
    sieve::findall(exec, n, CountingThirds{calls}, sieve::into(out, count));
    EXPECT_EQ(firstOf(toHost(out), readCount(count)), ref);
    expectCalls(1, "Auto, into");
    EXPECT_EQ(toHost(sieve::findall(exec, n, CountingThirds{calls}, sieve::ScanScatter{64, 3})),
              ref);
    expectCalls(1, "ScanScatter{64, 3}");
    EXPECT_EQ(toHost(sieve::findall(exec, n, CountingThirds{calls}, sieve::ScanScatter{16, 3})),
              ref);
    expectCalls(n > 48 ? 2 : 1, "ScanScatter{16, 3}: 48-element tiles, fused past one");
  }
}

TEST(FindallIndexMisuse, BadCountsAndShapesThrowWritingNothing) {
  const TestExec exec;
  const Atoms a = makeAtoms(100, 50, 50, 1);
  Kokkos::View<i64, TestMem> count("count");
  Kokkos::deep_copy(count, i64(77));
  DView<i64> out("out", 100);
  EXPECT_THROW(sieve::findall(exec, -1, a.pred()), std::invalid_argument);
  EXPECT_THROW(sieve::findall(exec, i64(-5), a.pred(), sieve::into(out, count)),
               std::invalid_argument);
  EXPECT_THROW(sieve::findall(-1, a.pred()), std::invalid_argument);
  EXPECT_THROW(sieve::findall(exec, ~std::uint64_t(0), a.pred()), std::invalid_argument);
  // items(A) of another size than n.
  EXPECT_THROW(sieve::findall(exec, 99, a.pred(), sieve::items(a.q)), std::invalid_argument);
  // A workspace for another n.
  const sieve::FindallWorkspace<TestExec> ws(exec, 50);
  EXPECT_THROW(sieve::findall(exec, 100, a.pred(), ws), std::invalid_argument);
  // A result overlapping items(A).
  DView<double> both("both", 200);
  const auto half = Kokkos::subview(both, std::make_pair(0, 100));
  const auto half2 = Kokkos::subview(both, std::make_pair(50, 150));
  EXPECT_THROW(sieve::findall(exec, 100, a.pred(), sieve::items(half), sieve::into(half2, count)),
               std::invalid_argument);
  EXPECT_EQ(readCount(count), 77);
  EXPECT_EQ(toHost(out), std::vector<i64>(100, 0));
}

// --- int32 results --------------------------------------------------------------------

TEST(FindallInt32, MatchTheInt64Results) {
  const TestExec exec;
  for (const i64 n : kSizes) {
    forEachAlg([&](const std::string& name, const auto alg) {
      SCOPED_TRACE(name + " n=" + std::to_string(n));
      std::vector<std::uint8_t> mh(n);
      for (i64 k = 0; k < n; ++k) mh[k] = picked(k, 45, 9) ? 1 : 0;
      const auto mask = toDevice(mh, "mask");
      const Atoms a = makeAtoms(n, 60, 80, 11);
      const i64 rows = 3, cols = n / 3; // a rank-2 mask for the linear indices
      Kokkos::View<bool**, Kokkos::LayoutLeft, TestMem> m2("m2", rows, cols);
      Kokkos::parallel_for("fill", Kokkos::RangePolicy<TestExec>(0, static_cast<int>(rows * cols)),
                           FillRank2{m2, rows});
      Kokkos::View<i64, TestMem> c64("c64"), c32("c32");
      DView<i64> o64("o64", static_cast<std::size_t>(n));
      DView<i32> o32("o32", static_cast<std::size_t>(n));
      const auto same = [&](const char* what) {
        const i64 c = readCount(c64);
        ASSERT_EQ(readCount(c32), c) << what;
        const auto w = firstOf(toHost(o64), c);
        const auto g = firstOf(toHost(o32), c);
        ASSERT_EQ(std::vector<i64>(g.begin(), g.end()), w) << what;
      };
      // Rank-1 indices, linear indices of a rank-2 mask, the index form, the predicate form.
      sieve::findall(exec, mask, alg, sieve::into(o64, c64));
      sieve::findall(exec, mask, alg, sieve::into(o32, c32));
      same("rank-1 indices");
      sieve::findall(exec, m2, sieve::linear_indices, alg, sieve::into(o64, c64));
      sieve::findall(exec, m2, sieve::linear_indices, alg, sieve::into(o32, c32));
      same("linear indices");
      sieve::findall(exec, n, a.pred(), alg, sieve::into(o64, c64));
      sieve::findall(exec, n, a.pred(), alg, sieve::into(o32, c32));
      same("index form");
      EXPECT_EQ(firstOf(toHost(o64), readCount(c64)), a.ref);
      const sieve::FindallWorkspace<TestExec> ws(exec, n, alg);
      sieve::findall(exec, Above{7.0}, a.q, alg, ws, sieve::into(o64, c64));
      sieve::findall(exec, Above{7.0}, a.q, alg, ws, sieve::into(o32, c32));
      same("predicate form");
      // A strided int32 result (the portable write).
      Kokkos::View<i32**, Kokkos::LayoutRight, TestMem> wide("wide", static_cast<std::size_t>(n),
                                                             2);
      const auto col = Kokkos::subview(wide, Kokkos::ALL, 1);
      sieve::findall(exec, mask, alg, sieve::into(o64, c64));
      sieve::findall(exec, mask, alg, sieve::into(col, c32));
      const i64 c = readCount(c64);
      ASSERT_EQ(readCount(c32), c);
      const auto g = firstOf(toHost(col), c);
      EXPECT_EQ(std::vector<i64>(g.begin(), g.end()), firstOf(toHost(o64), c));
    });
  }
}

TEST(FindallInt32, AnIndexPastInt32MaxThrowsBeforeAnythingRuns) {
  const TestExec exec;
  const i64 n = (i64(1) << 31) + 5;
  Kokkos::View<i64, TestMem> calls("calls"), count("count");
  Kokkos::deep_copy(count, i64(77));
  DView<i32> out("out", 16);
  try {
    sieve::findall(exec, n, CountingIndexPred{calls}, sieve::into(out, count));
    ADD_FAILURE() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("INT32_MAX"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("result"), std::string::npos) << e.what();
  }
  EXPECT_EQ(readCount(calls), 0);
  EXPECT_EQ(readCount(count), 77);
  // linear indices too (a fenced call).
  EXPECT_THROW(
      sieve::findall(n, CountingIndexPred{calls}, sieve::linear_indices, sieve::into(out, count)),
      std::invalid_argument);
  EXPECT_EQ(readCount(calls), 0);
}

// n = 2^31 exactly: the largest index, INT32_MAX, fits (a long case: 2^31
// predicate calls, twice).
TEST(FindallLong, Int32ResultsUpToTwoToThe31) {
  const TestExec exec;
  const i64 n = i64(1) << 31;
  DView<i32> out("out", 4);
  Kokkos::View<i64, TestMem> count("count");
  sieve::findall(exec, n, Ends{n}, sieve::into(out, count));
  ASSERT_EQ(readCount(count), 2);
  const auto got = toHost(out);
  EXPECT_EQ(got[0], 0);
  EXPECT_EQ(got[1], INT32_MAX);
}

// --- the result kept by a workspace --------------------------------------------------

TEST(FindallKept, ReusedWhenItFitsGrownWhenItDoesNot) {
  const TestExec exec;
  const i64 n = 100000;
  std::vector<std::uint8_t> mh(n);
  const auto maskOf = [&](int pct, std::uint32_t seed, std::vector<i64>& ref) {
    ref.clear();
    for (i64 k = 0; k < n; ++k) {
      mh[k] = picked(k, pct, seed) ? 1 : 0;
      if (mh[k]) ref.push_back(k);
    }
    return toDevice(mh, "mask");
  };
  std::vector<i64> r40, r20, r60, r100;
  const auto m40 = maskOf(40, 1, r40), m20 = maskOf(20, 2, r20), m60 = maskOf(60, 3, r60),
             m100 = maskOf(100, 4, r100);
  forEachAlg([&](const std::string& name, const auto alg) {
    SCOPED_TRACE(name);
    const sieve::FindallWorkspace<TestExec> ws(exec, n, alg);
    const auto a = sieve::findall(exec, m40, ws, alg);
    EXPECT_EQ(toHost(a), r40);
    const i64* first = a.data();
    {
      // A smaller result: the same buffer, nothing allocated.
      const ToolsLog tools;
      const auto b = sieve::findall(exec, m20, ws, alg);
      EXPECT_EQ(ToolsLog::allocations(), 0) << ToolsLog::dump();
      EXPECT_EQ(b.data(), first);
      EXPECT_EQ(b.extent(0), r20.size());
      EXPECT_EQ(toHost(b), r20);
    }
    // A larger one: a new buffer of max(count, 1.5 x capacity) items; the
    // View of the old buffer stays alive.
    const auto c = sieve::findall(exec, m60, ws, alg);
    EXPECT_NE(c.data(), first);
    EXPECT_EQ(toHost(c), r60);
    EXPECT_EQ(a.extent(0), r40.size());
    // b overwrote a's first slots (a was valid until that call); the rest is a's.
    std::vector<i64> aNow = r20;
    aNow.insert(aNow.end(), r40.begin() + static_cast<i64>(r20.size()), r40.end());
    EXPECT_EQ(toHost(a), aNow);
    // Growth is geometric: after 40% then 60%, capacity is max(0.6 n, 0.6 n)
    // = 0.6 n items; a call selecting 0.9 x that reuses it.
    const i64* second = c.data();
    const auto d = sieve::findall(exec, m40, ws, alg);
    EXPECT_EQ(d.data(), second);
    // Every item selected: at most n items, whatever 1.5 x the capacity.
    const auto e = sieve::findall(exec, m100, ws, alg);
    EXPECT_EQ(toHost(e), r100);
    // A copy of the workspace shares the buffer.
    const sieve::FindallWorkspace<TestExec> copy = ws;
    const auto f = sieve::findall(exec, m60, copy, alg);
    EXPECT_EQ(f.data(), e.data());
    EXPECT_EQ(toHost(f), r60);
  });
}

TEST(FindallKept, GrowthIsGeometric) {
  const TestExec exec;
  const i64 n = 1000;
  const sieve::FindallWorkspace<TestExec> ws(exec, n);
  std::vector<std::uint8_t> mh(n, 0);
  const auto first = [&](i64 count) {
    for (i64 k = 0; k < n; ++k) mh[k] = k < count ? 1 : 0;
    return sieve::findall(exec, toDevice(mh, "mask"), ws);
  };
  const auto a = first(100); // capacity 100
  const auto b = first(101); // capacity max(101, 150) = 150
  EXPECT_NE(b.data(), a.data());
  const auto c = first(150); // fits
  EXPECT_EQ(c.data(), b.data());
  const auto d = first(151); // capacity 225
  EXPECT_NE(d.data(), c.data());
  const auto e = first(225);
  EXPECT_EQ(e.data(), d.data());
  const auto f = first(900);  // max(900, 337) = 900
  const auto g = first(1000); // 1.5 x 900 > n: n
  EXPECT_NE(g.data(), f.data());
  std::vector<i64> all(n);
  for (i64 k = 0; k < n; ++k) all[k] = k;
  EXPECT_EQ(toHost(g), all);
  EXPECT_EQ(toHost(first(0)).size(), 0u);
}

TEST(FindallKept, EveryReturningFormAndItemType) {
  const TestExec exec;
  const i64 n = 30011;
  const Atoms a = makeAtoms(n, 50, 90, 21);
  std::vector<std::uint8_t> mh(n);
  std::vector<i64> ref;
  std::vector<double> refQ;
  const auto qh = toHost(a.q);
  for (i64 k = 0; k < n; ++k) {
    mh[k] = picked(k, 30, 8) ? 1 : 0;
    if (mh[k]) {
      ref.push_back(k);
      refQ.push_back(qh[k]);
    }
  }
  const auto mask = toDevice(mh, "mask");
  forEachAlg([&](const std::string& name, const auto alg) {
    SCOPED_TRACE(name);
    const sieve::FindallWorkspace<TestExec> ws(exec, n, alg);
    for (int rep = 0; rep < 2; ++rep) {
      // int64 indices, double values, the index form, the predicate form,
      // int64 again: each correct, on one workspace.
      EXPECT_EQ(toHost(sieve::findall(exec, mask, ws, alg)), ref);
      const auto q = sieve::findall(exec, mask, sieve::items(a.q), ws, alg);
      static_assert(std::is_same_v<std::decay_t<decltype(q)>,
                                   Kokkos::View<double*, Kokkos::LayoutRight, TestMem>>);
      EXPECT_EQ(toHost(q), refQ);
      EXPECT_EQ(toHost(sieve::findall(exec, n, a.pred(), ws, alg)), a.ref);
      EXPECT_EQ(toHost(sieve::findall(exec, n, a.pred(), sieve::items(a.q), alg, ws)), a.refQ);
      EXPECT_EQ(toHost(sieve::findall(exec, Above{100.0}, a.q, ws, alg)),
                toHost(sieve::findall(exec, Above{100.0}, a.q, alg)));
      EXPECT_EQ(toHost(sieve::findall(exec, mask, sieve::linear_indices, ws, alg)), ref);
    }
    // Steady state: the returning form with a workspace allocates nothing.
    const auto warm = sieve::findall(exec, mask, ws, alg);
    {
      const ToolsLog tools;
      const auto again = sieve::findall(exec, mask, ws, alg);
      EXPECT_EQ(ToolsLog::allocations(), 0) << ToolsLog::dump();
      EXPECT_EQ(again.data(), warm.data());
    }
  });
}

TEST(FindallKept, AnInputInTheKeptBufferGetsAFreshOne) {
  const TestExec exec;
  const i64 n = 5000;
  const sieve::FindallWorkspace<TestExec> ws(exec, n);
  const DView<bool> all = filled<bool>(n, true, "all");
  std::vector<std::uint8_t> mh(n);
  std::vector<i64> ref;
  for (i64 k = 0; k < n; ++k) {
    mh[k] = k % 3 == 1;
    if (mh[k]) ref.push_back(k);
  }
  const auto mask = toDevice(mh, "mask");
  const auto r = sieve::findall(exec, all, ws); // 0 .. n-1, in the kept buffer
  ASSERT_EQ(r.extent(0), static_cast<std::size_t>(n));
  // items(r): r is read while the next result is written: not into r.
  const auto s = sieve::findall(exec, mask, sieve::items(r), ws);
  EXPECT_NE(s.data(), r.data());
  EXPECT_EQ(toHost(s), ref);
}

namespace {

/// Selects the odd values.
struct OddValue {
  KOKKOS_INLINE_FUNCTION bool operator()(const std::uint16_t v) const { return (v & 1u) != 0; }
};

/// The first `cap` slots of a View `guard` slots longer: the rest must keep
/// `fill`.
template <class T>
struct CappedResult {
  DView<T> all;
  DView<T> result;
  CappedResult(i64 cap, T fill, i64 guard = 64)
      : all("capped", static_cast<std::size_t>(cap + guard)),
        result(
            Kokkos::subview(all, std::make_pair(std::size_t(0), static_cast<std::size_t>(cap)))) {
    Kokkos::deep_copy(all, fill);
  }
  /// The first `cap` slots hold ref[0, cap) and every slot after them `fill`.
  void expect(const std::vector<T>& ref, i64 cap, T fill, const char* what) const {
    const auto h = toHost(all);
    for (i64 k = 0; k < static_cast<i64>(h.size()); ++k) {
      const T want =
          k < cap && k < static_cast<i64>(ref.size()) ? ref[static_cast<std::size_t>(k)] : fill;
      ASSERT_EQ(h[static_cast<std::size_t>(k)], want) << what << " slot " << k;
    }
  }
};

} // namespace

// The selection over many blocks of the host select (several rounds of 64 Ki
// samples per thread at every thread count), with blocks that select
// nothing and blocks that select everything, into results that hold only
// part of it: the items before the cap, nothing written past it, the count
// of all. Mask and fused predicate forms, every item kind.
TEST(FindallInto, ManyBlocksAndACap) {
  const TestExec exec;
  const i64 n = 7 * 65536 + 1234;
  std::vector<std::uint16_t> vh(static_cast<std::size_t>(n));
  std::vector<std::uint8_t> mh(static_cast<std::size_t>(n));
  std::uint64_t x = 88172645463325252ull;
  for (i64 k = 0; k < n; ++k) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    const i64 block = k / 65536;
    const auto v = static_cast<std::uint16_t>(x >> 20);
    // Block 2 selects nothing, block 4 everything.
    vh[static_cast<std::size_t>(k)] = block == 2
                                          ? static_cast<std::uint16_t>(v & ~1u)
                                          : (block == 4 ? static_cast<std::uint16_t>(v | 1u) : v);
    mh[static_cast<std::size_t>(k)] = (vh[static_cast<std::size_t>(k)] & 1u) != 0 ? 1 : 0;
  }
  std::vector<i64> refIdx;
  std::vector<i32> refIdx32;
  std::vector<std::uint16_t> refVal;
  for (i64 k = 0; k < n; ++k)
    if (mh[static_cast<std::size_t>(k)] != 0) {
      refIdx.push_back(k);
      refIdx32.push_back(static_cast<i32>(k));
      refVal.push_back(vh[static_cast<std::size_t>(k)]);
    }
  const i64 total = static_cast<i64>(refIdx.size());
  DView<std::uint16_t> values("values", static_cast<std::size_t>(n));
  DView<std::uint8_t> mask("mask", static_cast<std::size_t>(n));
  Kokkos::deep_copy(values,
                    Kokkos::View<const std::uint16_t*, Kokkos::HostSpace>(vh.data(), vh.size()));
  Kokkos::deep_copy(mask,
                    Kokkos::View<const std::uint8_t*, Kokkos::HostSpace>(mh.data(), mh.size()));
  const sieve::FindallWorkspace<TestExec> ws(exec, n);
  Kokkos::View<i64, TestMem> count("count");
  for (const i64 cap : {i64(0), i64(1), total / 3 + 5, total - 1, total, total + 9}) {
    SCOPED_TRACE("cap=" + std::to_string(cap));
    {
      const CappedResult<i64> r(cap, -7);
      sieve::findall(exec, mask, ws, sieve::into(r.result, count));
      EXPECT_EQ(readCount(count), total);
      r.expect(refIdx, cap, -7, "indices");
    }
    {
      const CappedResult<i32> r(cap, -7);
      sieve::findall(exec, mask, sieve::linear_indices, ws, sieve::into(r.result, count));
      EXPECT_EQ(readCount(count), total);
      r.expect(refIdx32, cap, -7, "int32 linear indices");
    }
    {
      const CappedResult<std::uint16_t> r(cap, 0xABCD);
      sieve::findall(exec, mask, sieve::items(values), ws, sieve::into(r.result, count));
      EXPECT_EQ(readCount(count), total);
      r.expect(refVal, cap, 0xABCD, "values");
    }
    {
      const CappedResult<std::uint16_t> r(cap, 0xABCD);
      sieve::findall(exec, OddValue{}, values, sieve::items(values), ws,
                     sieve::into(r.result, count));
      EXPECT_EQ(readCount(count), total);
      r.expect(refVal, cap, 0xABCD, "predicate values");
    }
    {
      const CappedResult<i64> r(cap, -7);
      sieve::findall(exec, OddValue{}, values, sieve::into(r.result, count));
      EXPECT_EQ(readCount(count), total);
      r.expect(refIdx, cap, -7, "predicate indices");
    }
  }
  // The forms that return a View: the same items.
  EXPECT_EQ(toHost(sieve::findall(exec, mask)), refIdx);
  EXPECT_EQ(toHost(sieve::findall(exec, mask, sieve::items(values), ws)), refVal);
  EXPECT_EQ(toHost(sieve::findall(exec, OddValue{}, values, sieve::items(values))), refVal);
}
