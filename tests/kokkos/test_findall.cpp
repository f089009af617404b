// SPDX-License-Identifier: Apache-2.0
// Sieve Kokkos tests — sieve::findall: every size around the tile of every
// algorithm, ranks 0-3 in both layouts and strided, mask and predicate forms,
// every item kind, the workspace rules and invalid configurations (an input
// past INT32_MAX elements: FindallLong.*, test_large.cpp). Every result is compared
// with a sequential reference written here from the specification, so every
// backend and thread count is held to the same bytes.
#include "backend.hpp"
#include "tools_log.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

using namespace sieve_test;

namespace {

using i64 = std::int64_t;
template <class T>
using Mirror = typename Kokkos::View<T*, TestMem>::HostMirror;

constexpr bool kHost = Kokkos::SpaceAccessibility<Kokkos::HostSpace, TestMem>::accessible;

template <class T>
struct Positive {
  KOKKOS_INLINE_FUNCTION bool operator()(const T& x) const { return x > T(0); }
};

/// Counts its calls (atomically) and selects multiples of 3.
struct CountingPred {
  Kokkos::View<i64, TestMem> calls;
  KOKKOS_INLINE_FUNCTION bool operator()(const int x) const {
    Kokkos::atomic_add(&calls(), i64(1));
    return x % 3 == 0;
  }
};

/// One algorithm of the sweep.
struct Alg {
  enum Kind { Auto, ScanScatter, Partitioned } kind;
  int block = 0, items = 0;
  std::string name() const {
    if (kind == Auto) return "Auto";
    if (kind == Partitioned) return "Partitioned";
    return "ScanScatter{" + std::to_string(block) + "," + std::to_string(items) + "}";
  }
  /// The tile of the algorithm: the elements one team (or thread) takes.
  i64 tile() const {
    if (kind == ScanScatter) return i64(block) * items;
    if (kind == Partitioned || kHost) return sieve::Tuning::Findall::kPartitionMin;
    return i64(sieve::Tuning::Findall::kBlock) * sieve::Tuning::Findall::kItems;
  }
};

template <class F>
decltype(auto) withAlg(const Alg& a, F&& f) {
  switch (a.kind) {
  case Alg::ScanScatter: return f(sieve::ScanScatter{a.block, a.items});
  case Alg::Partitioned: return f(sieve::Partitioned{});
  default: return f(sieve::Auto{});
  }
}

std::vector<Alg> algorithms() {
  std::vector<Alg> v{{Alg::Auto}};
  if (kHost) v.push_back({Alg::Partitioned});
  for (int b : {32, 64, 128, 256})
    for (int i : {1, 3, 8}) v.push_back({Alg::ScanScatter, b, i});
  return v;
}

std::vector<i64> sizesAround(i64 t) {
  std::vector<i64> s{0, 1, 2, 3, t - 1, t, t + 1, 2 * t - 1, 2 * t, 2 * t + 1, 10000};
  std::sort(s.begin(), s.end());
  s.erase(std::unique(s.begin(), s.end()), s.end());
  return s;
}

template <class T>
DView<T> upload(const std::vector<T>& v, const std::string& label = "findall_test") {
  return toDevice(v, label);
}

/// Copies a View of Kokkos::Array<i64, R> into a View of n x R int64 (a
/// kernel: Kokkos < 4.4 cannot mirror Views of Kokkos::Array).
template <std::size_t R>
struct Unpack {
  Kokkos::View<Kokkos::Array<i64, R>*, Kokkos::LayoutRight, TestMem> in;
  Kokkos::View<i64*, TestMem> out;
  KOKKOS_INLINE_FUNCTION void operator()(const i64 i) const {
    if constexpr (R > 0) // (R = 0: nothing; nvcc warns of `d < 0`)
      for (std::size_t d = 0; d < R; ++d)
        out(i * static_cast<i64>(R) + static_cast<i64>(d)) = in(i)[d];
  }
};

/// The indices of a findall result of Kokkos::Array<i64, R>, flattened.
template <class V>
std::vector<i64> flatten(const V& v) {
  constexpr std::size_t R = typename V::non_const_value_type().size();
  Kokkos::View<i64*, TestMem> flat("flat", v.extent(0) * R);
  if (R > 0)
    Kokkos::parallel_for("unpack",
                         Kokkos::RangePolicy<TestExec, Kokkos::IndexType<i64>>(0, v.extent(0)),
                         Unpack<R>{v, flat});
  return toHost(flat);
}

} // namespace

// --- rank 1: every size around the tile, every algorithm, every item kind -------------

TEST(Findall, Rank1SizesAlgorithmsItems) {
  const TestExec exec;
  for (const Alg& alg : algorithms()) {
    for (const i64 n : sizesAround(alg.tile())) {
      for (const int pct : {0, 3, 50, 100}) {
        SCOPED_TRACE(alg.name() + " n=" + std::to_string(n) + " pct=" + std::to_string(pct));
        std::vector<std::uint8_t> mh(n);
        std::vector<int> vh(n);
        std::vector<i64> ref;
        std::vector<int> refValues;
        for (i64 k = 0; k < n; ++k) {
          const bool s = picked(k, pct, 11);
          mh[k] = s ? static_cast<std::uint8_t>(1 + k % 200) : 0; // uint8: non-zero is true
          vh[k] = static_cast<int>(k * 7 - 3);
          if (s) {
            ref.push_back(k);
            refValues.push_back(vh[k]);
          }
        }
        const auto mask = upload(mh, "mask");
        const auto vals = upload(vh, "values");
        withAlg(alg, [&](const auto a) {
          const auto idx = sieve::findall(exec, mask, a);
          static_assert(std::is_same_v<typename decltype(idx)::non_const_value_type, i64>);
          EXPECT_EQ(toHost(idx), ref);
          EXPECT_EQ(toHost(sieve::findall(exec, mask, sieve::linear_indices, a)), ref);
          EXPECT_EQ(toHost(sieve::findall(exec, mask, sieve::items(vals), a)), refValues);
        });
      }
    }
  }
}

// --- predicate form, element types int32 / float / double -----------------------------

template <class T>
void predicateCase(const Alg& alg, i64 n) {
  const TestExec exec;
  std::vector<T> vh(n);
  std::vector<i64> ref;
  std::vector<T> refValues;
  for (i64 k = 0; k < n; ++k) {
    const bool s = picked(k, 40, 5);
    vh[k] = s ? static_cast<T>(k % 1000 + 1) + static_cast<T>(0.25) : -static_cast<T>(k % 7);
    if (s) {
      ref.push_back(k);
      refValues.push_back(vh[k]);
    }
  }
  const auto v = upload(vh, "values");
  withAlg(alg, [&](const auto a) {
    EXPECT_EQ(toHost(sieve::findall(exec, Positive<T>{}, v, a)), ref);
    EXPECT_EQ(toHost(sieve::findall(exec, Positive<T>{}, v, sieve::items(v), a)), refValues);
    EXPECT_EQ(toHost(sieve::findall(Positive<T>{}, v, a, sieve::linear_indices)), ref);
  });
}

TEST(Findall, PredicateElementTypes) {
  for (const Alg& alg : algorithms()) {
    for (const i64 n : sizesAround(alg.tile())) {
      SCOPED_TRACE(alg.name() + " n=" + std::to_string(n));
      predicateCase<std::int32_t>(alg, n);
      predicateCase<float>(alg, n);
      predicateCase<double>(alg, n);
    }
  }
}

TEST(Findall, PredicateIsCalledOncePerElement) {
  const TestExec exec;
  for (const Alg& alg : algorithms()) {
    for (const i64 n : {i64(0), i64(1), i64(1000), i64(70001)}) {
      SCOPED_TRACE(alg.name() + " n=" + std::to_string(n));
      std::vector<int> vh(n);
      std::vector<i64> ref;
      for (i64 k = 0; k < n; ++k) {
        vh[k] = static_cast<int>(k);
        if (k % 3 == 0) ref.push_back(k);
      }
      const auto v = upload(vh);
      const CountingPred pred{Kokkos::View<i64, TestMem>("calls")};
      withAlg(alg, [&](const auto a) { EXPECT_EQ(toHost(sieve::findall(exec, pred, v, a)), ref); });
      i64 calls = 0;
      Kokkos::deep_copy(calls, pred.calls);
      EXPECT_EQ(calls, n);
    }
  }
}

// --- ranks 0-3, both layouts, strided ----------------------------------------------------

namespace {

/// The ordinal order of a rank-R shape: the multi-indices, LayoutLeft
/// (first fastest) or not (last fastest), written as plain nested loops.
std::vector<std::vector<i64>> ordinalIndices(const std::vector<i64>& ext, bool left) {
  std::vector<std::vector<i64>> out;
  const int r = static_cast<int>(ext.size());
  i64 total = 1;
  for (i64 e : ext) total *= e;
  std::vector<i64> idx(r, 0);
  for (i64 k = 0; k < total; ++k) {
    out.push_back(idx);
    // increment the fastest index first
    for (int j = 0; j < r; ++j) {
      const int d = left ? j : r - 1 - j;
      if (++idx[d] < ext[d]) break;
      idx[d] = 0;
    }
  }
  return out;
}

/// Value at a multi-index, rank 0-3, of a host mirror.
template <class H>
auto at(const H& h, const std::vector<i64>& i) {
  if constexpr (H::rank == 0) return h();
  else if constexpr (H::rank == 1) return h(i[0]);
  else if constexpr (H::rank == 2) return h(i[0], i[1]);
  else return h(i[0], i[1], i[2]);
}

/// Runs every form on a mask View `m` and a values View `v` of the same
/// shape (any rank, layout): indices, linear indices, values; mask and
/// predicate forms; against the reference in `left` (or right) order.
template <class M, class V>
void shapeCase(const M& m, const V& v, bool left, const Alg& alg) {
  const TestExec exec;
  constexpr int R = M::rank;
  std::vector<i64> ext;
  for (int d = 0; d < R; ++d) ext.push_back(static_cast<i64>(m.extent(d)));
  const auto mh = hostCopy(m); // strided device Views have no host mirror to copy to
  const auto vh = hostCopy(v);
  const auto order = ordinalIndices(ext, left);
  std::vector<i64> refIdx, refLin, refPredIdx;
  std::vector<int> refVal, refPredVal;
  for (std::size_t k = 0; k < order.size(); ++k) {
    if (at(mh, order[k])) {
      for (i64 x : order[k]) refIdx.push_back(x);
      refLin.push_back(static_cast<i64>(k));
      refVal.push_back(at(vh, order[k]));
    }
    if (at(vh, order[k]) > 0) {
      for (i64 x : order[k]) refPredIdx.push_back(x);
      refPredVal.push_back(at(vh, order[k]));
    }
  }
  withAlg(alg, [&](const auto a) {
    const auto idx = sieve::findall(exec, m, a);
    if constexpr (R == 1) {
      EXPECT_EQ(toHost(idx), refIdx);
      EXPECT_EQ(toHost(sieve::findall(exec, Positive<int>{}, v, a)), refPredIdx);
    } else {
      static_assert(std::is_same_v<typename decltype(idx)::non_const_value_type,
                                   Kokkos::Array<i64, static_cast<std::size_t>(R)>>);
      EXPECT_EQ(flatten(idx), refIdx);
      EXPECT_EQ(flatten(sieve::findall(exec, Positive<int>{}, v, a)), refPredIdx);
      if constexpr (R == 0) {
        EXPECT_EQ(idx.extent(0), refLin.size());
      }
    }
    EXPECT_EQ(toHost(sieve::findall(exec, m, sieve::linear_indices, a)), refLin);
    EXPECT_EQ(toHost(sieve::findall(exec, m, sieve::items(v), a)), refVal);
    EXPECT_EQ(toHost(sieve::findall(exec, Positive<int>{}, v, sieve::items(v), a)), refPredVal);
  });
}

/// Fill a mask and values View (any rank / layout) from their multi-index
/// order, on the host.
template <class M, class V>
void fillShape(const M& m, const V& v, std::uint32_t seed) {
  auto mh = Kokkos::create_mirror_view(m);
  auto vh = Kokkos::create_mirror_view(v);
  std::vector<i64> ext;
  for (int d = 0; d < static_cast<int>(M::rank); ++d) ext.push_back(static_cast<i64>(m.extent(d)));
  const auto order = ordinalIndices(ext, false);
  for (std::size_t k = 0; k < order.size(); ++k) {
    const auto& i = order[k];
    const bool s = picked(static_cast<i64>(k), 45, seed);
    const int val =
        picked(static_cast<i64>(k), 50, seed + 1) ? static_cast<int>(k + 1) : -static_cast<int>(k);
    if constexpr (M::rank == 0) {
      mh() = s;
      vh() = val;
    } else if constexpr (M::rank == 1) {
      mh(i[0]) = s;
      vh(i[0]) = val;
    } else if constexpr (M::rank == 2) {
      mh(i[0], i[1]) = s;
      vh(i[0], i[1]) = val;
    } else {
      mh(i[0], i[1], i[2]) = s;
      vh(i[0], i[1], i[2]) = val;
    }
  }
  Kokkos::deep_copy(m, mh);
  Kokkos::deep_copy(v, vh);
}

template <class Layout>
void ranksFor(const Alg& alg) {
  constexpr bool left = std::is_same_v<Layout, Kokkos::LayoutLeft>;
  {
    Kokkos::View<bool, Layout, TestMem> m("m");
    Kokkos::View<int, Layout, TestMem> v("v");
    for (const bool s : {false, true}) {
      Kokkos::deep_copy(m, s);
      Kokkos::deep_copy(v, s ? 5 : -5);
      shapeCase(m, v, left, alg);
    }
  }
  for (const i64 e : {i64(0), i64(1), i64(37), i64(5000)}) {
    Kokkos::View<bool*, Layout, TestMem> m("m", e);
    Kokkos::View<int*, Layout, TestMem> v("v", e);
    fillShape(m, v, 3);
    shapeCase(m, v, left, alg);
  }
  for (const auto& ex : std::vector<std::vector<i64>>{{0, 4}, {1, 1}, {3, 5}, {61, 67}, {1, 300}}) {
    Kokkos::View<bool**, Layout, TestMem> m("m", ex[0], ex[1]);
    Kokkos::View<int**, Layout, TestMem> v("v", ex[0], ex[1]);
    fillShape(m, v, 5);
    shapeCase(m, v, left, alg);
  }
  for (const auto& ex : std::vector<std::vector<i64>>{{2, 0, 3}, {2, 3, 4}, {17, 19, 23}}) {
    Kokkos::View<bool***, Layout, TestMem> m("m", ex[0], ex[1], ex[2]);
    Kokkos::View<int***, Layout, TestMem> v("v", ex[0], ex[1], ex[2]);
    fillShape(m, v, 7);
    shapeCase(m, v, left, alg);
  }
}

} // namespace

TEST(Findall, RanksAndLayouts) {
  for (const Alg& alg :
       {Alg{Alg::Auto}, Alg{Alg::ScanScatter, 32, 3}, Alg{Alg::ScanScatter, 256, 8}}) {
    SCOPED_TRACE(alg.name());
    {
      SCOPED_TRACE("LayoutRight");
      ranksFor<Kokkos::LayoutRight>(alg);
    }
    {
      SCOPED_TRACE("LayoutLeft");
      ranksFor<Kokkos::LayoutLeft>(alg);
    }
  }
}

/// LayoutStride is ordered by its indices, last index fastest, whatever its
/// strides: a strided subview of a LayoutRight View, and a LayoutStride View
/// of a LayoutLeft one (memory order first index fastest).
TEST(Findall, StridedSubviews) {
  for (const Alg& alg : {Alg{Alg::Auto}, Alg{Alg::ScanScatter, 64, 3}}) {
    SCOPED_TRACE(alg.name());
    Kokkos::View<bool***, Kokkos::LayoutRight, TestMem> m("m", 9, 10, 11);
    Kokkos::View<int***, Kokkos::LayoutRight, TestMem> v("v", 9, 10, 11);
    fillShape(m, v, 13);
    Kokkos::View<bool***, Kokkos::LayoutStride, TestMem> ms = Kokkos::subview(
        m, Kokkos::pair<int, int>(1, 8), Kokkos::ALL(), Kokkos::pair<int, int>(2, 9));
    Kokkos::View<int***, Kokkos::LayoutStride, TestMem> vs = Kokkos::subview(
        v, Kokkos::pair<int, int>(1, 8), Kokkos::ALL(), Kokkos::pair<int, int>(2, 9));
    shapeCase(ms, vs, false, alg);

    Kokkos::View<bool**, Kokkos::LayoutLeft, TestMem> ml("ml", 40, 30);
    Kokkos::View<int**, Kokkos::LayoutLeft, TestMem> vl("vl", 40, 30);
    fillShape(ml, vl, 17);
    Kokkos::View<bool**, Kokkos::LayoutStride, TestMem> mls =
        Kokkos::subview(ml, Kokkos::pair<int, int>(3, 37), Kokkos::ALL());
    Kokkos::View<int**, Kokkos::LayoutStride, TestMem> vls =
        Kokkos::subview(vl, Kokkos::pair<int, int>(3, 37), Kokkos::ALL());
    shapeCase(mls, vls, false, alg);

    // rank 1: every other element
    Kokkos::View<bool*, TestMem> m1("m1", 20001);
    Kokkos::View<int*, TestMem> v1("v1", 20001);
    fillShape(m1, v1, 19);
    Kokkos::View<bool*, Kokkos::LayoutStride, TestMem> m1s = Kokkos::subview(
        Kokkos::View<bool**, Kokkos::LayoutRight, TestMem>(m1.data(), 10000, 2), Kokkos::ALL(), 0);
    Kokkos::View<int*, Kokkos::LayoutStride, TestMem> v1s = Kokkos::subview(
        Kokkos::View<int**, Kokkos::LayoutRight, TestMem>(v1.data(), 10000, 2), Kokkos::ALL(), 1);
    shapeCase(m1s, v1s, false, alg);
  }
}

/// Items of another rank and layout than the mask: A's own ordinal order.
TEST(Findall, ItemsOfAnotherShape) {
  const TestExec exec;
  Kokkos::View<bool*, TestMem> m("m", 12);
  Kokkos::View<double**, Kokkos::LayoutLeft, TestMem> a("a", 3, 4);
  auto mh = Kokkos::create_mirror_view(m);
  auto ah = Kokkos::create_mirror_view(a);
  for (int k = 0; k < 12; ++k) mh(k) = k % 5 == 1;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) ah(i, j) = 10 * i + j;
  Kokkos::deep_copy(m, mh);
  Kokkos::deep_copy(a, ah);
  // LayoutLeft ordinals 1, 6, 11 -> (1,0), (0,2), (2,3)
  EXPECT_EQ(toHost(sieve::findall(exec, m, sieve::items(a))), (std::vector<double>{10, 2, 23}));
}

// --- into, workspace --------------------------------------------------------------------

TEST(Findall, IntoWritesNothingPastTheResult) {
  const TestExec exec;
  const i64 n = 5000;
  std::vector<std::uint8_t> mh(n);
  std::vector<i64> ref;
  for (i64 k = 0; k < n; ++k) {
    mh[k] = picked(k, 30, 2);
    if (mh[k]) ref.push_back(k);
  }
  const auto mask = upload(mh);
  for (const Alg& alg : algorithms()) {
    SCOPED_TRACE(alg.name());
    for (const i64 cap : {i64(0), i64(7), static_cast<i64>(ref.size()), n}) {
      DView<i64> big("big", cap + 64);
      Kokkos::deep_copy(big, i64(-12345));
      const auto out = Kokkos::subview(big, Kokkos::pair<i64, i64>(0, cap));
      Kokkos::View<i64, TestMem> count("count");
      withAlg(alg, [&](const auto a) { sieve::findall(exec, mask, a, sieve::into(out, count)); });
      exec.fence();
      i64 c = -1;
      Kokkos::deep_copy(c, count);
      EXPECT_EQ(c, static_cast<i64>(ref.size()));
      const auto got = toHost(big);
      for (i64 k = 0; k < cap + 64; ++k) {
        const i64 want = k < cap && k < static_cast<i64>(ref.size()) ? ref[k] : i64(-12345);
        ASSERT_EQ(got[k], want) << "slot " << k << " cap " << cap;
      }
    }
  }
}

// The workspace keeps the result buffer: the first returning call allocates
// it (the call's only allocation), the next ones of the same size reuse it.
TEST(Findall, WorkspaceReuseAllocatesTheResultOnce) {
  const TestExec exec;
  // Kokkos' own reduction buffers of the space, allocated at their first use:
  // reserved first, so the count is Sieve's whichever test ran before.
  sieve::reserve(exec);
  const i64 n = 100000;
  std::vector<int> vh(n);
  std::vector<i64> ref;
  for (i64 k = 0; k < n; ++k) {
    vh[k] = picked(k, 20, 9) ? 1 : -1;
    if (vh[k] > 0) ref.push_back(k);
  }
  const auto v = upload(vh);
  for (const Alg& alg : algorithms()) {
    SCOPED_TRACE(alg.name());
    withAlg(alg, [&](const auto a) {
      const sieve::FindallWorkspace<TestExec> ws(exec, n, a);
      DView<i64> out("out", n);
      Kokkos::View<i64, TestMem> count("count");
      const i64* kept = nullptr;
      for (int rep = 0; rep < 3; ++rep) {
        {
          const ToolsLog tools;
          const auto r = sieve::findall("lbl", exec, Positive<int>{}, v, ws, a);
          EXPECT_EQ(ToolsLog::allocations(), rep == 0 ? 1 : 0);
          EXPECT_EQ(ToolsLog::hasPrefix("alloc lbl: sieve::findall::result"), rep == 0);
          EXPECT_TRUE(ToolsLog::hasPrefix("region lbl: sieve::findall["));
          EXPECT_EQ(toHost(r), ref);
          if (rep == 0) kept = r.data();
          EXPECT_EQ(r.data(), kept);
        }
        {
          const ToolsLog tools;
          sieve::findall(exec, Positive<int>{}, v, sieve::into(out, count), a, ws);
          EXPECT_EQ(ToolsLog::allocations(), 0);
        }
        exec.fence();
        i64 c = 0;
        Kokkos::deep_copy(c, count);
        ASSERT_EQ(c, static_cast<i64>(ref.size()));
        auto got = toHost(out);
        got.resize(static_cast<std::size_t>(c));
        EXPECT_EQ(got, ref);
      }
    });
  }
}

TEST(Findall, WorkspaceOfAnotherShapeIsRejected) {
  const TestExec exec;
  const auto mask = filled<bool>(1000, true);
  const auto mask2 = filled<bool>(1001, true);
  const sieve::FindallWorkspace<TestExec> ws(exec, 1000, sieve::ScanScatter{64, 3});
  EXPECT_NO_THROW(sieve::findall(exec, mask, ws, sieve::ScanScatter{64, 3}));
  EXPECT_THROW(sieve::findall(exec, mask2, ws, sieve::ScanScatter{64, 3}), std::invalid_argument);
  EXPECT_THROW(sieve::findall(exec, mask, ws, sieve::ScanScatter{64, 8}), std::invalid_argument);
  EXPECT_THROW(sieve::findall(exec, mask, ws, sieve::ScanScatter{128, 3}), std::invalid_argument);
  EXPECT_THROW(sieve::findall(exec, mask, ws), std::invalid_argument); // Auto is another algorithm
  if (kHost) {
    const sieve::FindallWorkspace<TestExec> wp(exec, 1000, sieve::Partitioned{});
    EXPECT_NO_THROW(sieve::findall(exec, mask, wp, sieve::Partitioned{}));
    EXPECT_NO_THROW(sieve::findall(exec, mask, wp)); // Auto is Partitioned on host spaces
    EXPECT_THROW(sieve::findall(exec, mask, wp, sieve::ScanScatter{}), std::invalid_argument);
  }
  EXPECT_THROW(sieve::findall(exec, mask, sieve::FindallWorkspace<TestExec>()),
               std::invalid_argument);
  try {
    sieve::findall(exec, mask2, ws, sieve::ScanScatter{64, 3});
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("workspace"), std::string::npos) << e.what();
  }
}

TEST(Findall, WorkspaceAliasingAnInputIsRejected) {
  const TestExec exec;
  const i64 n = 4096;
  const auto bytes = sieve::FindallWorkspace<TestExec>::bytes_for(exec, n, sieve::ScanScatter{});
  Kokkos::View<unsigned char*, TestMem> buf("buf", bytes + 8 * n + 64);
  const sieve::FindallWorkspace<TestExec> ws(exec, n, sieve::ScanScatter{}, buf);
  // a mask inside the workspace's bytes
  Kokkos::View<bool*, TestMem, Kokkos::MemoryTraits<Kokkos::Unmanaged>> inside(
      reinterpret_cast<bool*>(buf.data()), n);
  EXPECT_THROW(sieve::findall(exec, inside, ws, sieve::ScanScatter{}), std::invalid_argument);
  EXPECT_THROW(sieve::findall(exec, Positive<int>{},
                              Kokkos::View<int*, TestMem, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
                                  reinterpret_cast<int*>(buf.data() + 64), n),
                              ws, sieve::ScanScatter{}),
               std::invalid_argument);
  // a result overlapping the workspace, the mask, or its count
  const auto mask = filled<bool>(n, true);
  Kokkos::View<i64*, TestMem, Kokkos::MemoryTraits<Kokkos::Unmanaged>> out(
      reinterpret_cast<i64*>(buf.data()), n);
  Kokkos::View<i64, TestMem> count("count");
  EXPECT_THROW(sieve::findall(exec, mask, ws, sieve::ScanScatter{}, sieve::into(out, count)),
               std::invalid_argument);
  DView<i64> good("good", n);
  Kokkos::View<i64, TestMem, Kokkos::MemoryTraits<Kokkos::Unmanaged>> countInOut(good.data() + 5);
  EXPECT_THROW(sieve::findall(exec, mask, sieve::into(good, countInOut)), std::invalid_argument);
  Kokkos::View<i64*, TestMem, Kokkos::MemoryTraits<Kokkos::Unmanaged>> outOnMask(
      reinterpret_cast<i64*>(mask.data()), n / 8);
  EXPECT_THROW(sieve::findall(exec, mask, sieve::into(outOnMask, count)), std::invalid_argument);
  // the bytes past the workspace are free to use
  Kokkos::View<i64*, TestMem, Kokkos::MemoryTraits<Kokkos::Unmanaged>> after(
      reinterpret_cast<i64*>(buf.data() + ((bytes + 63) / 64) * 64), n);
  EXPECT_NO_THROW(sieve::findall(exec, mask, ws, sieve::ScanScatter{}, sieve::into(after, count)));
  exec.fence();
  i64 c = 0;
  Kokkos::deep_copy(c, count);
  EXPECT_EQ(c, n);
  // a short or misaligned caller buffer
  Kokkos::View<unsigned char*, TestMem> small("small", bytes - 1);
  EXPECT_THROW(sieve::FindallWorkspace<TestExec>(exec, n, sieve::ScanScatter{}, small),
               std::invalid_argument);
  EXPECT_THROW(sieve::FindallWorkspace<TestExec>(
                   exec, n, sieve::ScanScatter{},
                   Kokkos::subview(buf, Kokkos::pair<std::size_t, std::size_t>(1, bytes + 1))),
               std::invalid_argument);
}

/// One overlap rule, by the bytes the elements touch: a column of a
/// row-major matrix covers its elements only, not its layout's span() nor
/// the bytes between them, so a result placed right after the matrix, or
/// in row 0 between column 0's first two elements, is accepted; a result
/// that reaches one of column 0's elements is refused.
TEST(Findall, OverlapIsByTheBytesElementsTouch) {
  const TestExec exec;
  const i64 rows = 64, cols = 4096;
  // The matrix and, right after it, room for a result: one allocation.
  Kokkos::View<double*, TestMem> buf("buf", rows * cols + rows);
  std::vector<double> init(rows * cols + rows, -1.0);
  for (i64 r = 0; r < rows; ++r)
    for (i64 c = 0; c < cols; ++c) init[r * cols + c] = static_cast<double>(r * 10000 + c);
  Kokkos::deep_copy(buf, toDevice(init));
  Kokkos::View<double**, Kokkos::LayoutRight, TestMem, Kokkos::MemoryTraits<Kokkos::Unmanaged>> a(
      buf.data(), rows, cols);
  const auto last = Kokkos::subview(a, Kokkos::ALL, cols - 1); // ends where the matrix ends
  Kokkos::View<double*, TestMem, Kokkos::MemoryTraits<Kokkos::Unmanaged>> out(
      buf.data() + rows * cols, rows);
  Kokkos::View<i64, TestMem> count("count");
  std::vector<std::uint8_t> m(rows);
  for (i64 r = 0; r < rows; ++r) m[r] = r % 3 == 0;
  const auto mask = toDevice(m);
  EXPECT_NO_THROW(sieve::findall(exec, mask, sieve::items(last), sieve::into(out, count)));
  exec.fence();
  i64 c = 0;
  Kokkos::deep_copy(c, count);
  const auto got = toHost(out);
  std::vector<double> want;
  for (i64 r = 0; r < rows; ++r)
    if (r % 3 == 0) want.push_back(static_cast<double>(r * 10000 + cols - 1));
  ASSERT_EQ(c, static_cast<i64>(want.size()));
  for (i64 i = 0; i < c; ++i) EXPECT_EQ(got[i], want[i]) << i;
  // A result inside column 0's address range that shares no byte with it
  // (row 0, columns 1 .. rows): accepted, and column 0's values land there.
  const auto first = Kokkos::subview(a, Kokkos::ALL, 0);
  Kokkos::View<double*, TestMem, Kokkos::MemoryTraits<Kokkos::Unmanaged>> between(buf.data() + 1,
                                                                                  rows);
  EXPECT_NO_THROW(sieve::findall(exec, mask, sieve::items(first), sieve::into(between, count)));
  exec.fence();
  Kokkos::deep_copy(c, count);
  const auto inRow = toHost(between);
  ASSERT_EQ(c, static_cast<i64>(want.size()));
  for (i64 i = 0; i < rows; ++i) {
    const double expect = i < c ? static_cast<double>(3 * i * 10000) : static_cast<double>(1 + i);
    EXPECT_EQ(inRow[i], expect) << i; // the selected rows' column 0, then row 0 as it was
  }
  // A result of row 0's last column and row 1's first ones: it holds column
  // 0's element of row 1, refused naming both.
  Kokkos::View<double*, TestMem, Kokkos::MemoryTraits<Kokkos::Unmanaged>> across(
      buf.data() + cols - 1, rows);
  try {
    sieve::findall(exec, mask, sieve::items(first), sieve::into(across, count));
    ADD_FAILURE() << "no throw";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("items overlaps result"), std::string::npos) << e.what();
  }
}

/// Selects the rows whose value x = r * 7 - 100 (of column 0) is kept.
struct KeptValue {
  DView<std::uint8_t> keep;
  KOKKOS_INLINE_FUNCTION bool operator()(const double x) const {
    return keep(static_cast<i64>(x + 100) / 7) != 0;
  }
};

/// Selects the kept indices i whose column-0 value is what it should be.
template <class Column>
struct KeptIndex {
  DView<std::uint8_t> keep;
  Column column;
  KOKKOS_INLINE_FUNCTION bool operator()(const i64 i) const {
    return keep(i) != 0 && column(i) == i * 7 - 100;
  }
};

/// The finding of issue 53: items(column 0) into(column 1) of one (64, 2)
/// LayoutRight View share no byte; every algorithm and form accepts them and
/// gives the reference loop's result (column 0 and the rest of column 1
/// untouched). Views that do share a byte are still refused, naming them.
TEST(Findall, ColumnsOfOneLayoutRightViewAreApart) {
  const TestExec exec;
  const i64 rows = 64;
  std::vector<std::uint8_t> m(rows);
  for (i64 r = 0; r < rows; ++r) m[r] = picked(r, 40, 53) ? 1 : 0;
  const auto mask = toDevice(m);
  Kokkos::View<i64, TestMem> count("count");
  // The reference loop: the selected rows' column 0 (values r * 7 - 100), and their indices.
  std::vector<i64> want, at;
  for (i64 r = 0; r < rows; ++r)
    if (m[r]) {
      want.push_back(r * 7 - 100);
      at.push_back(r);
    }
  ASSERT_GT(want.size(), 5u);
  ASSERT_LT(want.size(), 60u);
  const auto readBack = [&]() {
    exec.fence();
    i64 c = -1;
    Kokkos::deep_copy(c, count);
    return c;
  };
  const auto check = [&](const auto& table, const std::vector<i64>& expect, const char* what) {
    SCOPED_TRACE(what);
    const i64 c = readBack();
    ASSERT_EQ(c, static_cast<i64>(expect.size()));
    const auto h = hostCopy(table);
    for (i64 r = 0; r < rows; ++r) {
      EXPECT_EQ(static_cast<i64>(h(r, 0)), r * 7 - 100) << "column 0, row " << r;
      EXPECT_EQ(static_cast<i64>(h(r, 1)), r < c ? expect[r] : i64(-1)) << "column 1, row " << r;
    }
  };
  // int64 and double tables (n, 2), LayoutRight: column 0 the items, column 1 the result.
  Kokkos::View<i64**, Kokkos::LayoutRight, TestMem> ti("ti", rows, 2);
  Kokkos::View<double**, Kokkos::LayoutRight, TestMem> td("td", rows, 2);
  const auto reset = [&]() {
    auto hi = Kokkos::create_mirror_view(ti);
    auto hd = Kokkos::create_mirror_view(td);
    for (i64 r = 0; r < rows; ++r) {
      hi(r, 0) = r * 7 - 100;
      hi(r, 1) = -1;
      hd(r, 0) = static_cast<double>(r * 7 - 100);
      hd(r, 1) = -1.0;
    }
    Kokkos::deep_copy(ti, hi);
    Kokkos::deep_copy(td, hd);
    Kokkos::deep_copy(count, i64(-7));
  };
  const auto i0 = Kokkos::subview(ti, Kokkos::ALL, 0), i1 = Kokkos::subview(ti, Kokkos::ALL, 1);
  const auto d0 = Kokkos::subview(td, Kokkos::ALL, 0), d1 = Kokkos::subview(td, Kokkos::ALL, 1);
  for (const Alg& a : algorithms()) {
    SCOPED_TRACE(a.name());
    withAlg(a, [&](const auto alg) {
      reset();
      ASSERT_NO_THROW(sieve::findall(exec, mask, sieve::items(i0), alg, sieve::into(i1, count)));
      check(ti, want, "mask, int64 items");
      reset();
      ASSERT_NO_THROW(sieve::findall(exec, mask, sieve::items(d0), alg, sieve::into(d1, count)));
      check(td, want, "mask, double items");
      reset();
      ASSERT_NO_THROW(
          sieve::findall(exec, mask, sieve::linear_indices, alg, sieve::into(i1, count)));
      check(ti, at, "mask, linear indices");
      // The predicate form reading column 0 itself (selecting the same rows).
      reset();
      ASSERT_NO_THROW(
          sieve::findall(exec, KeptValue{mask}, d0, sieve::items(d0), alg, sieve::into(d1, count)));
      check(td, want, "predicate of column 0");
      // The index form, its predicate reading column 0.
      reset();
      ASSERT_NO_THROW(sieve::findall(exec, rows, KeptIndex<std::decay_t<decltype(i0)>>{mask, i0},
                                     sieve::items(i0), alg, sieve::into(i1, count)));
      check(ti, want, "index form");
      // With a workspace of the call's shape.
      const sieve::FindallWorkspace<TestExec> ws(exec, rows, alg);
      reset();
      ASSERT_NO_THROW(
          sieve::findall(exec, mask, sieve::items(d0), ws, alg, sieve::into(d1, count)));
      check(td, want, "workspace");
      // The fencing form (no instance) returns the count.
      reset();
      EXPECT_EQ(sieve::findall(mask, sieve::items(i0), alg, sieve::into(i1, count)),
                static_cast<i64>(want.size()));
      check(ti, want, "fencing form");
    });
  }
  // A mask of one byte of each column-0 element (stride 16 bytes) shares no
  // byte with column 1: accepted; with column 0 itself, refused.
  reset();
  Kokkos::View<std::uint8_t*, Kokkos::LayoutStride, TestMem,
               Kokkos::MemoryTraits<Kokkos::Unmanaged>>
      lowBytes(reinterpret_cast<std::uint8_t*>(ti.data()), Kokkos::LayoutStride(rows, 16));
  std::vector<i64> byteAt;
  {
    const auto h = hostCopy(ti);
    for (i64 r = 0; r < rows; ++r) {
      std::uint8_t b = 0;
      std::memcpy(&b, &h(r, 0), 1);
      if (b != 0) byteAt.push_back(r);
    }
  }
  ASSERT_NO_THROW(sieve::findall(exec, lowBytes, sieve::into(i1, count)));
  check(ti, byteAt, "a byte mask in column 0");
  // Real overlaps are refused (nothing written), naming the two arguments.
  reset();
  const auto refused = [&](auto&& call, const std::string& names) {
    try {
      call();
      ADD_FAILURE() << "no throw; expected " << names;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("sieve::findall: " + names), std::string::npos)
          << e.what();
    }
  };
  refused([&]() { sieve::findall(exec, lowBytes, sieve::into(i0, count)); },
          "mask overlaps result");
  refused([&]() { sieve::findall(exec, mask, sieve::items(i0), sieve::into(i0, count)); },
          "items overlaps result");
  // the result is the whole table, or its row 5
  Kokkos::View<i64*, TestMem, Kokkos::MemoryTraits<Kokkos::Unmanaged>> whole(ti.data(), 2 * rows);
  refused([&]() { sieve::findall(exec, mask, sieve::items(i0), sieve::into(whole, count)); },
          "items overlaps result");
  const auto row5 = Kokkos::subview(ti, 5, Kokkos::ALL);
  refused([&]() { sieve::findall(exec, mask, sieve::items(i0), sieve::into(row5, count)); },
          "items overlaps result");
  // a count inside column 0 (row 9), or inside column 1 (the result)
  Kokkos::View<i64, TestMem, Kokkos::MemoryTraits<Kokkos::Unmanaged>> in0(ti.data() + 18);
  refused([&]() { sieve::findall(exec, mask, sieve::items(i0), sieve::into(i1, in0)); },
          "items overlaps count");
  Kokkos::View<i64, TestMem, Kokkos::MemoryTraits<Kokkos::Unmanaged>> in1(ti.data() + 19);
  refused([&]() { sieve::findall(exec, mask, sieve::items(i0), sieve::into(i1, in1)); },
          "result overlaps count");
  // a workspace in the caller's bytes holding column 0 (the table's bytes)
  Kokkos::View<unsigned char*, TestMem> room(
      "room", sieve::FindallWorkspace<TestExec>::bytes_for(exec, rows) + 16 * rows);
  Kokkos::View<i64**, Kokkos::LayoutRight, TestMem, Kokkos::MemoryTraits<Kokkos::Unmanaged>> inRoom(
      reinterpret_cast<i64*>(room.data()), rows, 2);
  const sieve::FindallWorkspace<TestExec> wsRoom(exec, rows, sieve::Auto{}, room);
  refused(
      [&]() {
        sieve::findall(exec, mask, sieve::items(Kokkos::subview(inRoom, Kokkos::ALL, 0)), wsRoom,
                       sieve::into(i1, count));
      },
      "items overlaps workspace");
  EXPECT_EQ(readBack(), -7) << "nothing was written";
  const auto h = hostCopy(ti);
  for (i64 r = 0; r < rows; ++r) {
    EXPECT_EQ(h(r, 0), r * 7 - 100) << r;
    EXPECT_EQ(h(r, 1), -1) << r;
  }
}

// --- invalid configurations -------------------------------------------------------------

TEST(Findall, InvalidConfigurationsThrow) {
  const TestExec exec;
  const auto mask = filled<bool>(100, true);
  for (const sieve::ScanScatter bad :
       {sieve::ScanScatter{0, 1}, sieve::ScanScatter{3, 1}, sieve::ScanScatter{2048, 1},
        sieve::ScanScatter{-64, 1}, sieve::ScanScatter{64, 0}, sieve::ScanScatter{64, -2},
        sieve::ScanScatter{1024, INT32_MAX}, sieve::ScanScatter{4, INT32_MAX / 2}}) {
    SCOPED_TRACE(std::to_string(bad.block_size) + "x" + std::to_string(bad.items_per_thread));
    EXPECT_THROW(sieve::findall(exec, mask, bad), std::invalid_argument);
    EXPECT_THROW(sieve::FindallWorkspace<TestExec>(exec, 100, bad), std::invalid_argument);
  }
  EXPECT_NO_THROW(sieve::findall(exec, mask, sieve::ScanScatter{1, 1}));
  EXPECT_NO_THROW(sieve::findall(exec, mask, sieve::ScanScatter{1024, 1}));
  EXPECT_NO_THROW(sieve::findall(exec, mask, sieve::ScanScatter{2, INT32_MAX / 2}));
  try {
    sieve::findall(exec, mask, sieve::ScanScatter{48, 1});
    ADD_FAILURE() << "no throw";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("block_size"), std::string::npos) << e.what();
  }
  // items of another size
  const auto v99 = filled<int>(99, 1);
  const auto v101 = filled<int>(101, 1);
  EXPECT_THROW(sieve::findall(exec, mask, sieve::items(v99)), std::invalid_argument);
  EXPECT_THROW(sieve::findall(exec, Positive<int>{}, v101, sieve::items(v99)),
               std::invalid_argument);
  Kokkos::View<int**, TestMem> v2d("v2d", 10, 10);
  EXPECT_NO_THROW(sieve::findall(exec, mask, sieve::items(v2d)));
  // Partitioned is for host spaces only
  if (!kHost) EXPECT_THROW(sieve::findall(exec, mask, sieve::Partitioned{}), std::invalid_argument);
  // an empty count View
  DView<i64> out("out", 100);
  EXPECT_THROW(sieve::findall(exec, mask, sieve::into(out, Kokkos::View<i64, TestMem>())),
               std::invalid_argument);
}

// --- the fencing forms, labels, uint8 masks read as bool --------------------------------

TEST(Findall, FencingFormsAndLabels) {
  std::vector<std::uint8_t> mh{0, 7, 0, 255, 1, 0};
  const auto mask = upload(mh);
  const std::vector<i64> ref{1, 3, 4};
  EXPECT_EQ(toHost(sieve::findall(mask)), ref);
  EXPECT_EQ(toHost(sieve::findall("x", mask)), ref);
  EXPECT_EQ(toHost(sieve::findall(std::string("y"), mask, sieve::linear_indices)), ref);
  const auto v = upload(std::vector<int>{-1, 2, -3, 4, 5, -6});
  EXPECT_EQ(toHost(sieve::findall(Positive<int>{}, v)), ref);
  EXPECT_EQ(toHost(sieve::findall("z", Positive<int>{}, v)), ref);
  DView<i64> out("out", 6);
  Kokkos::View<i64, TestMem> count("count");
  EXPECT_EQ(sieve::findall(mask, sieve::into(out, count)), 3);
  EXPECT_EQ(sieve::findall("w", Positive<int>{}, v, sieve::into(out, count)), 3);
  {
    const ToolsLog tools;
    const auto r = sieve::findall("step 7", TestExec(), mask);
    EXPECT_TRUE(ToolsLog::hasPrefix("region step 7: sieve::findall[")) << ToolsLog::dump();
    EXPECT_TRUE(ToolsLog::hasPrefix("alloc step 7: sieve::findall::result"));
  }
}

// Inside an OpenMP parallel region Kokkos::OpenMP launches no kernel: findall
// and the keys calls say so with std::invalid_argument (caught inside the
// region here) instead of Kokkos' abort; nothing is written.
TEST(FindallMisuse, InsideAParallelRegionThrows) {
#if defined(SIEVE_TEST_OPENMP) && defined(_OPENMP)
  const TestExec exec;
  DView<std::uint8_t> mask("mask", 1000);
  DView<i64> out("out", 1000);
  Kokkos::View<i64, TestMem> count("count");
  DView<int> keyed("keyed", 10), scattered("scattered", 10);
  int caught = 0, threads = 0;
#pragma omp parallel num_threads(2) reduction(+ : caught, threads)
  {
    ++threads;
#pragma omp single
    {
      try {
        sieve::findall(exec, mask, sieve::into(out, count));
      } catch (const std::invalid_argument& e) {
        caught += std::string(e.what()).find("parallel region") != std::string::npos;
      }
      try {
        sieve::keys::scatter_dense(exec, keyed, 0, 9, scattered);
      } catch (const std::invalid_argument& e) {
        caught += std::string(e.what()).find("parallel region") != std::string::npos;
      }
    }
  }
  EXPECT_EQ(caught, 2) << "over " << threads << " threads";
  // A compaction whose Views are strided runs on the portable face, whose
  // Kokkos kernels cannot run there either: it throws too; contiguous Views
  // take the native twin, which can.
  Kokkos::View<std::uint8_t**, TestMem> wide("wide", 1000, 2);
  auto strided = Kokkos::subview(wide, Kokkos::ALL(), 0); // LayoutStride
  Kokkos::deep_copy(wide, std::uint8_t(1));
  DView<std::int32_t> map("map", 1000);
  Kokkos::View<std::uint32_t, TestMem> kept("kept");
  DView<unsigned char> scratch("scratch", sieve::compact_scratch_bytes(1000));
  int stridedCaught = 0, contiguousRan = 0;
#pragma omp parallel num_threads(2) reduction(+ : stridedCaught, contiguousRan)
  {
#pragma omp single
    {
      try {
        sieve::compact(exec, strided, map, kept, scratch);
      } catch (const std::invalid_argument& e) {
        stridedCaught += std::string(e.what()).find("sieve::compact") != std::string::npos &&
                         std::string(e.what()).find("parallel region") != std::string::npos;
      }
      kept() = 77u;
      sieve::compact(exec, mask, map, kept, scratch); // synchronous on OpenMP
      contiguousRan += kept() == 0u;
    }
  }
  EXPECT_EQ(stridedCaught, 1);
  EXPECT_EQ(contiguousRan, 1) << "the native twin runs inside the region";
  sieve::compact(exec, strided, map, kept, scratch);
  exec.fence();
  EXPECT_EQ(kept(), 1000u) << "and outside it";
  // Outside the region both work.
  EXPECT_EQ(sieve::findall(exec, mask).extent(0), 0u);
  EXPECT_EQ(sieve::keys::scatter_dense(exec, keyed, 0, 9, scattered).num_elements(), 10);
#else
  GTEST_SKIP() << "OpenMP only";
#endif
}
