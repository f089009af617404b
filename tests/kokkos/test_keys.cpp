// SPDX-License-Identifier: Apache-2.0
// Sieve Kokkos tests — sieve::keys: dense and sparse scatters (empty, one key,
// all keys equal, i % 103 for int32 / int64 / uint8, a 1-to-M mapper, integer
// extremes and pairs on the sparse path), reduce / group / compact with the
// ready functors and with user functors (non-adjacent repeated values), a
// 90%-one-key distribution, the tetrahedral mesh unique-edges example, and
// the misuse errors. Every result is compared with a plain sequential
// reference (std::stable_sort, std::sort + std::unique) element by element,
// so every backend and thread count is held to the same values.
#include "../common/expect.hpp"
#include "backend.hpp"
#include "tools_log.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>
#include <utility>
#include <vector>

using namespace sieve_test;

namespace {

using i64 = std::int64_t;

/// An element: a key and the record it came from (to see the order).
template <class K>
struct Rec {
  K k;
  std::int32_t rec;
  KOKKOS_INLINE_FUNCTION K key() const { return k; }
  KOKKOS_INLINE_FUNCTION bool operator<(const Rec& o) const { return rec < o.rec; }
};
template <class K>
bool operator==(const Rec<K>& a, const Rec<K>& b) {
  return a.k == b.k && a.rec == b.rec;
}

/// A value with a key (for reduce / group: equal values are duplicates).
struct Item {
  std::int32_t k;
  std::int32_t v;
  KOKKOS_INLINE_FUNCTION std::int32_t key() const { return k; }
  KOKKOS_INLINE_FUNCTION bool operator<(const Item& o) const { return v < o.v; }
};
bool operator==(const Item& a, const Item& b) { return a.k == b.k && a.v == b.v; }

template <class E>
DView<E> deviceOf(const std::vector<E>& v) {
  return toDevice(v, "keys_test");
}

template <class V>
std::vector<i64> offsetsOf(const V& keys) {
  return toHost(keys.offsets());
}

/// The stable sort of a reference: by key, record order within a key.
template <class E, class KeyFn>
std::vector<E> stableByKey(std::vector<E> v, KeyFn key) {
  std::stable_sort(v.begin(), v.end(), [&](const E& a, const E& b) { return key(a) < key(b); });
  return v;
}

/// Dense reference offsets over [lo, hi].
template <class E, class K>
std::vector<i64> denseOffsets(const std::vector<E>& v, K lo, K hi) {
  const i64 K_ = static_cast<i64>(hi) - static_cast<i64>(lo) + 1;
  std::vector<i64> off(static_cast<std::size_t>(K_ + 1), 0);
  for (const auto& e : v) ++off[static_cast<std::size_t>(static_cast<i64>(e.key()) - lo + 1)];
  for (std::size_t k = 1; k < off.size(); ++k) off[k] += off[k - 1];
  return off;
}

/// Keys i % 103 over 1033 records (shifted by -50 for signed keys), with
/// the sequential references: the stable order and the dense offsets.
template <class K>
struct Mod103 {
  static constexpr int n = 1033;
  std::vector<Rec<K>> in, ref;
  K lo, hi;
  std::vector<i64> refOff;
  explicit Mod103(bool signedShift)
      : in(n), lo(static_cast<K>(signedShift ? -50 : 0)),
        hi(static_cast<K>(102 - (signedShift ? 50 : 0))) {
    for (int i = 0; i < n; ++i) in[i] = Rec<K>{static_cast<K>(i % 103 - (signedShift ? 50 : 0)), i};
    ref = stableByKey(in, [](const Rec<K>& e) { return e.k; });
    refOff = denseOffsets(in, lo, hi);
  }
};

template <class K>
void checkMod103(bool signedShift) {
  const Mod103<K> c(signedShift);
  const auto d = deviceOf(c.in);
  {
    DView<Rec<K>> out("out", c.n);
    const auto keys = sieve::keys::scatter_dense(TestExec{}, d, c.lo, c.hi, out);
    EXPECT_EQ(keys.num_keys(), 103);
    EXPECT_EQ(keys.num_elements(), c.n);
    EXPECT_EQ(toHost(out), c.ref);
    EXPECT_EQ(offsetsOf(keys), c.refOff);
    EXPECT_EQ(keys.offset(5), c.refOff[5]);
  }
  {
    DView<Rec<K>> out("out", c.n);
    const auto keys = sieve::keys::scatter_dense(TestExec{}, d, out); // range computed
    EXPECT_EQ(keys.min_key(), c.lo);
    EXPECT_EQ(keys.max_key(), c.hi);
    EXPECT_EQ(toHost(out), c.ref);
    EXPECT_EQ(offsetsOf(keys), c.refOff);
  }
  {
    DView<Rec<K>> out("out", c.n);
    const auto keys = sieve::keys::scatter_sparse(TestExec{}, d, out);
    EXPECT_EQ(keys.num_keys(), 103);
    EXPECT_EQ(toHost(out), c.ref);
    EXPECT_EQ(offsetsOf(keys), c.refOff);
    const auto distinct = toHost(keys.keys());
    for (int k = 0; k < 103; ++k) EXPECT_EQ(distinct[k], static_cast<K>(c.lo + k));
  }
}

} // namespace

TEST(KeysDense, Empty) {
  DView<Rec<int>> in("in", 0), out("out", 0);
  const auto ranged = sieve::keys::scatter_dense(TestExec{}, in, 0, 9, out);
  EXPECT_EQ(ranged.num_keys(), 10);
  EXPECT_EQ(ranged.num_elements(), 0);
  EXPECT_EQ(offsetsOf(ranged), std::vector<i64>(11, 0));
  const auto unranged = sieve::keys::scatter_dense(TestExec{}, in, out);
  EXPECT_EQ(unranged.num_keys(), 0);
  EXPECT_EQ(unranged.offset(0), 0);
  const auto sparse = sieve::keys::scatter_sparse(TestExec{}, in, out);
  EXPECT_EQ(sparse.num_keys(), 0);
  EXPECT_EQ(sparse.num_elements(), 0);
  const auto unique = sieve::keys::reduce(TestExec{}, ranged, out, sieve::keys::SortUnique{});
  EXPECT_EQ(unique.num_elements(), 0);
  const auto g = sieve::keys::group(TestExec{}, sparse, out, sieve::keys::SortGroup{});
  EXPECT_EQ(g.groups.num_groups(), 0);
}

TEST(KeysDense, OneKeyAndAllEqual) {
  for (const int n : {1, 1000}) {
    std::vector<Rec<int>> in(n);
    for (int i = 0; i < n; ++i) in[i] = Rec<int>{7, i};
    DView<Rec<int>> out("out", n);
    const auto keys = sieve::keys::scatter_dense(TestExec{}, deviceOf(in), out);
    EXPECT_EQ(keys.num_keys(), 1);
    EXPECT_EQ(keys.min_key(), 7);
    EXPECT_EQ(offsetsOf(keys), (std::vector<i64>{0, n}));
    EXPECT_EQ(toHost(out), in);
    DView<Rec<int>> out2("out2", n);
    const auto sparse = sieve::keys::scatter_sparse(TestExec{}, deviceOf(in), out2);
    EXPECT_EQ(sparse.num_keys(), 1);
    EXPECT_EQ(toHost(sparse.keys()), std::vector<int>{7});
    EXPECT_EQ(toHost(out2), in);
  }
}

TEST(KeysDense, Mod103Int32) { checkMod103<std::int32_t>(true); }
TEST(KeysDense, Mod103Int64) { checkMod103<std::int64_t>(true); }
TEST(KeysDense, Mod103Uint8) { checkMod103<std::uint8_t>(false); }

TEST(KeysDense, IntegerElementsAreTheirKeys) {
  std::vector<std::int16_t> in{5, -3, 5, 0, -3, 9};
  DView<std::int16_t> out("out", in.size());
  const auto keys = sieve::keys::scatter_dense(TestExec{}, deviceOf(in), out);
  EXPECT_EQ(keys.num_keys(), 13);
  EXPECT_EQ(toHost(out), (std::vector<std::int16_t>{-3, -3, 0, 5, 5, 9}));
}

TEST(KeysDense, OutOfRangeRejectedNothingWritten) {
  const int n = 5000;
  std::vector<Rec<int>> in(n);
  for (int i = 0; i < n; ++i) in[i] = Rec<int>{i % 100, i};
  in[4321].k = 100; // past max_key
  const Rec<int> sentinel{-77, -77};
  auto out = filled<Rec<int>>(n, sentinel);
  EXPECT_THROW(sieve::keys::scatter_dense(TestExec{}, deviceOf(in), 0, 99, out),
               std::invalid_argument);
  in[4321].k = -1; // before min_key
  EXPECT_THROW(sieve::keys::scatter_dense(TestExec{}, deviceOf(in), 0, 99, out),
               std::invalid_argument);
  for (const auto& e : toHost(out)) ASSERT_EQ(e, sentinel);
}

TEST(KeysDense, Misuse) {
  std::vector<Rec<int>> in{{1, 0}, {2, 1}, {1, 2}};
  DView<Rec<int>> small("small", 2), out("out", 3);
  EXPECT_THROW(sieve::keys::scatter_dense(TestExec{}, deviceOf(in), small), std::invalid_argument);
  EXPECT_THROW(sieve::keys::scatter_dense(TestExec{}, deviceOf(in), 0, 5, small),
               std::invalid_argument);
  EXPECT_THROW(sieve::keys::scatter_sparse(TestExec{}, deviceOf(in), small), std::invalid_argument);
  EXPECT_THROW(sieve::keys::scatter_dense(TestExec{}, deviceOf(in), 5, 0, out),
               std::invalid_argument);
  const auto d = deviceOf(in);
  EXPECT_THROW(sieve::keys::scatter_dense(TestExec{}, d, d), std::invalid_argument); // overlap
  try {
    sieve::keys::scatter_dense(TestExec{}, d, 5, 0, out);
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("min_key"), std::string::npos) << e.what();
  }
  const auto keys = sieve::keys::scatter_dense(TestExec{}, d, out);
  EXPECT_THROW(sieve::keys::reduce(TestExec{}, keys, small, sieve::keys::SortUnique{}),
               std::invalid_argument);
  const auto reduced = sieve::keys::reduce(TestExec{}, keys, out, sieve::keys::SortUnique{});
  DView<Rec<int>> none("none", 0);
  EXPECT_THROW(sieve::keys::compact(TestExec{}, keys, reduced, out, none), std::invalid_argument);
}

namespace {
/// Spreads a small key over the 64-bit range (a hash).
inline std::int64_t spread(std::int64_t x) {
  std::uint64_t z = static_cast<std::uint64_t>(x) * 0x9E3779B97F4A7C15ULL;
  z ^= z >> 29;
  return static_cast<std::int64_t>(z);
}

template <class K>
void checkSparse(const std::vector<K>& keyPool, int n) {
  std::vector<Rec<K>> in(n);
  for (int i = 0; i < n; ++i) in[i] = Rec<K>{keyPool[(i * 7) % keyPool.size()], i};
  const auto ref = stableByKey(in, [](const Rec<K>& e) { return e.k; });
  DView<Rec<K>> out("out", n);
  const auto keys = sieve::keys::scatter_sparse(TestExec{}, deviceOf(in), out);
  EXPECT_EQ(toHost(out), ref);
  std::vector<K> distinct;
  std::vector<i64> off;
  for (int p = 0; p < n; ++p)
    if (p == 0 || ref[p - 1].k < ref[p].k) {
      distinct.push_back(ref[p].k);
      off.push_back(p);
    }
  off.push_back(n);
  EXPECT_EQ(toHost(keys.keys()), distinct);
  EXPECT_EQ(offsetsOf(keys), off);
}

struct PairKey {
  KOKKOS_INLINE_FUNCTION Kokkos::pair<int, int> operator()(const Rec<int>& e) const {
    return Kokkos::pair<int, int>(e.k % 7, -e.k);
  }
};
} // namespace

TEST(KeysSparse, Hashes) {
  std::vector<std::int64_t> pool;
  for (int k = 0; k < 103; ++k) pool.push_back(spread(k));
  checkSparse(pool, 1033);
  checkSparse(pool, 20000);
}

TEST(KeysSparse, IntegerExtremes) {
  using L64 = std::numeric_limits<std::int64_t>;
  checkSparse<std::int64_t>({L64::min(), L64::max(), 0, -1, 1, L64::min() + 1, L64::max() - 1},
                            997);
  using U64 = std::numeric_limits<std::uint64_t>;
  checkSparse<std::uint64_t>({0, U64::max(), 1, U64::max() / 2, U64::max() / 2 + 1}, 500);
  checkSparse<std::int64_t>({0, std::int64_t(1) << 40, 12345, (std::int64_t(1) << 39) + 7}, 9001);
  using L8 = std::numeric_limits<std::int8_t>;
  checkSparse<std::int8_t>({L8::min(), L8::max(), 0, -1}, 300);
  using L32 = std::numeric_limits<std::int32_t>;
  checkSparse<std::int32_t>({L32::min(), L32::max(), 0}, 301);
}

TEST(KeysSparse, PairsByMergeSort) {
  for (const int n : {5, 33, 1000, 9001}) {
    std::vector<Rec<int>> in(n);
    for (int i = 0; i < n; ++i) in[i] = Rec<int>{(i * 37) % 101, i};
    const PairKey key;
    auto ref = in;
    std::stable_sort(ref.begin(), ref.end(),
                     [&](const Rec<int>& a, const Rec<int>& b) { return key(a) < key(b); });
    DView<Rec<int>> out("out", n);
    const auto keys =
        sieve::keys::scatter_sparse(TestExec{}, sieve::keys::keyed(deviceOf(in), key), out);
    EXPECT_EQ(toHost(out), ref) << n;
    std::set<std::pair<int, int>> distinct;
    for (const auto& e : in) distinct.insert({key(e).first, key(e).second});
    ASSERT_EQ(keys.num_keys(), static_cast<i64>(distinct.size()));
    const auto got = toHost(keys.keys());
    std::size_t k = 0;
    for (const auto& d : distinct) {
      EXPECT_EQ(got[k].first, d.first);
      EXPECT_EQ(got[k].second, d.second);
      ++k;
    }
  }
}

namespace {
/// Record i has i % 4 elements (0 to 3), keyed (7i + j) % 50.
struct OneToM {
  using element_type = Rec<int>;
  i64 n;
  std::int64_t size() const { return n; }
  KOKKOS_INLINE_FUNCTION int count(i64 i) const { return static_cast<int>(i % 4); }
  KOKKOS_INLINE_FUNCTION Rec<int> element(i64 i, int j) const {
    return Rec<int>{static_cast<int>((7 * i + j) % 50), static_cast<std::int32_t>(i * 4 + j)};
  }
};
} // namespace

TEST(KeysMapper, OneToM) {
  const OneToM m{20001}; // several chunks on every thread count above 1
  std::vector<Rec<int>> all;
  for (i64 i = 0; i < m.n; ++i)
    for (int j = 0; j < m.count(i); ++j) all.push_back(m.element(i, j));
  const i64 n = static_cast<i64>(all.size());
  EXPECT_EQ(sieve::keys::count_elements(TestExec{}, m), n);
  const auto ref = stableByKey(all, [](const Rec<int>& e) { return e.k; });
  DView<Rec<int>> out("out", n), out2("out2", n);
  const auto dense = sieve::keys::scatter_dense(TestExec{}, m, 0, 49, out);
  EXPECT_EQ(toHost(out), ref);
  EXPECT_EQ(offsetsOf(dense), denseOffsets(all, 0, 49));
  const auto sparse = sieve::keys::scatter_sparse(TestExec{}, m, out2);
  EXPECT_EQ(toHost(out2), ref);
  EXPECT_EQ(offsetsOf(sparse), denseOffsets(all, 0, 49));
  DView<Rec<int>> small("small", n - 1);
  auto before = toHost(small);
  EXPECT_THROW(sieve::keys::scatter_dense(TestExec{}, m, 0, 49, small), std::invalid_argument);
  EXPECT_EQ(toHost(small), before);
}

namespace {
/// User reduce functor: keeps the elements with an even value, in order.
struct KeepEven {
  template <class Out, class Off, class Counts>
  KOKKOS_INLINE_FUNCTION void operator()(const Out& out, i64 b, i64 e, const Off& off,
                                         const Counts& counts) const {
    for (i64 k = b; k < e; ++k) {
      i64 w = off(k);
      for (i64 p = off(k); p < off(k + 1); ++p)
        if (out(p).v % 2 == 0) {
          const Item x = out(p);
          out(p) = out(w);
          out(w++) = x;
        }
      counts(k) = w - off(k);
    }
  }
};
/// User group functor: runs of equal values as they come (no sort).
struct Runs {
  template <class Out, class Off, class Starts>
  KOKKOS_INLINE_FUNCTION void operator()(const Out& out, i64 b, i64 e, const Off& off,
                                         const Starts& starts) const {
    for (i64 k = b; k < e; ++k)
      for (i64 p = off(k) + 1; p < off(k + 1); ++p)
        if (out(p).v != out(p - 1).v) starts(p) = 1;
  }
};

/// The per-key reference of SortUnique / SortGroup.
std::map<int, std::vector<int>> perKey(const std::vector<Item>& v) {
  std::map<int, std::vector<int>> m;
  for (const auto& e : v) m[e.k].push_back(e.v);
  return m;
}
} // namespace

TEST(KeysGroup, NonAdjacentRepeats) {
  const std::vector<int> vals{0, 0, 0, 1, 1, 4, 0, 2, 2, 2, 2};
  std::vector<Item> in;
  for (std::size_t i = 0; i < vals.size(); ++i) {
    in.push_back(Item{3, vals[i]});
    in.push_back(Item{1, static_cast<int>(10 - i)});
  }
  const i64 n = static_cast<i64>(in.size());
  DView<Item> out("out", n);
  auto keys = sieve::keys::scatter_dense(TestExec{}, deviceOf(in), 0, 4, out);
  // A user functor: runs as they come.
  const auto runs = sieve::keys::group(TestExec{}, keys, out, Runs{});
  EXPECT_EQ(runs.groups.num_groups(), 11 + 5);
  EXPECT_EQ(offsetsOf(runs.keys), (std::vector<i64>{0, 0, 11, 11, 16, 16}));
  // SortGroup.
  keys = sieve::keys::scatter_dense(TestExec{}, deviceOf(in), 0, 4, out);
  const auto g = sieve::keys::group(TestExec{}, keys, out, sieve::keys::SortGroup{});
  EXPECT_EQ(g.groups.num_groups(), 11 + 4);
  std::vector<Item> grouped = toHost(out);
  std::vector<int> key3;
  for (i64 p = keys.offset(3); p < keys.offset(4); ++p) key3.push_back(grouped[p].v);
  EXPECT_EQ(key3, (std::vector<int>{0, 0, 0, 0, 1, 1, 2, 2, 2, 2, 4}));
  const auto goff = toHost(g.groups.offsets());
  const i64 g3 = g.keys.offset(3);
  EXPECT_EQ(g.keys.offset(4) - g3, 4);
  EXPECT_EQ(goff[g3] - keys.offset(3), 0);
  EXPECT_EQ(goff[g3 + 1] - keys.offset(3), 4);
  EXPECT_EQ(goff[g3 + 2] - keys.offset(3), 6);
  EXPECT_EQ(goff[g3 + 3] - keys.offset(3), 10);
  DView<Item> firsts("firsts", g.groups.num_groups());
  EXPECT_EQ(sieve::keys::compact(TestExec{}, g.groups, out, firsts), 15);
  const auto f = toHost(firsts);
  std::vector<int> f3;
  for (i64 q = g3; q < g.keys.offset(4); ++q) f3.push_back(f[q].v);
  EXPECT_EQ(f3, (std::vector<int>{0, 1, 2, 4}));
}

TEST(KeysReduce, SortUniqueAndSortGroupMatchStd) {
  const int n = 30011;
  std::vector<Item> in(n);
  for (int i = 0; i < n; ++i)
    in[i] = Item{static_cast<int>(static_cast<unsigned>(i) * 2654435761u % 37),
                 static_cast<int>(static_cast<unsigned>(i) * 40503u % 211)};
  const auto ref = perKey(in);
  DView<Item> out("out", n);
  const auto keys = sieve::keys::scatter_dense(TestExec{}, deviceOf(in), out);
  const auto unique = sieve::keys::reduce(TestExec{}, keys, out, sieve::keys::SortUnique{});
  DView<Item> compacted("compacted", unique.num_elements());
  EXPECT_EQ(sieve::keys::compact(TestExec{}, keys, unique, out, compacted), unique.num_elements());
  const auto c = toHost(compacted);
  const auto after = toHost(out);
  for (const auto& [k, vs] : ref) {
    auto u = vs;
    std::sort(u.begin(), u.end());
    u.erase(std::unique(u.begin(), u.end()), u.end());
    std::vector<int> got;
    for (i64 q = unique.offset(k); q < unique.offset(k + 1); ++q) {
      EXPECT_EQ(c[q].k, k);
      got.push_back(c[q].v);
    }
    EXPECT_EQ(got, u) << "key " << k;
    // Every key stays a permutation of its elements.
    std::vector<int> all;
    for (i64 p = keys.offset(k); p < keys.offset(k + 1); ++p) all.push_back(after[p].v);
    std::sort(all.begin(), all.end());
    auto s = vs;
    std::sort(s.begin(), s.end());
    EXPECT_EQ(all, s);
  }
  // SortGroup on a fresh scatter.
  const auto keys2 = sieve::keys::scatter_sparse(TestExec{}, deviceOf(in), out);
  const auto g = sieve::keys::group(TestExec{}, keys2, out, sieve::keys::SortGroup{});
  const auto grouped = toHost(out);
  const auto goff = toHost(g.groups.offsets());
  i64 groups = 0;
  for (const auto& [k, vs] : ref) {
    auto s = vs;
    std::sort(s.begin(), s.end());
    std::vector<int> got;
    for (i64 p = keys2.offset(k); p < keys2.offset(k + 1); ++p) got.push_back(grouped[p].v);
    EXPECT_EQ(got, s);
    groups += static_cast<i64>(std::set<int>(vs.begin(), vs.end()).size());
  }
  ASSERT_EQ(g.groups.num_groups(), groups);
  for (i64 gi = 0; gi < groups; ++gi) {
    for (i64 p = goff[gi] + 1; p < goff[gi + 1]; ++p) ASSERT_EQ(grouped[p], grouped[goff[gi]]);
    if (gi > 0) {
      ASSERT_FALSE(grouped[goff[gi] - 1] == grouped[goff[gi]]);
    }
  }
}

TEST(KeysReduce, UserFunctor) {
  const int n = 4099;
  std::vector<Item> in(n);
  for (int i = 0; i < n; ++i) in[i] = Item{i % 13, i};
  DView<Item> out("out", n);
  const auto keys = sieve::keys::scatter_dense(TestExec{}, deviceOf(in), out);
  const auto even = sieve::keys::reduce("keys_test", TestExec{}, keys, out, KeepEven{});
  DView<Item> c("c", even.num_elements());
  sieve::keys::compact("keys_test", TestExec{}, keys, even, out, c);
  std::vector<Item> ref;
  for (int k = 0; k < 13; ++k)
    for (int i = k; i < n; i += 13)
      if (i % 2 == 0) ref.push_back(Item{k, i});
  EXPECT_EQ(toHost(c), ref);
}

namespace {
/// Records, per key id, which call covered it, and counts the calls.
struct MarkRanges {
  Kokkos::View<i64*, TestMem> owner;
  Kokkos::View<i64, TestMem> calls;
  template <class Out, class Off>
  KOKKOS_INLINE_FUNCTION void operator()(const Out&, i64 b, i64 e, const Off&, int tag) const {
    Kokkos::atomic_add(&calls(), i64(1));
    for (i64 k = b; k < e; ++k) Kokkos::atomic_add(&owner(k), i64(b + tag));
  }
};
} // namespace

TEST(KeysRanges, NinetyPercentOneKey) {
  const int n = 1 << 20, K = 1000;
  std::vector<Item> in(n);
  for (int i = 0; i < n; ++i) {
    const bool big = static_cast<unsigned>(i) * 2654435761u % 10 != 0;
    in[i] = Item{big ? 17 : i % K, static_cast<int>(static_cast<unsigned>(i) * 40503u % 5003)};
  }
  const auto t0 = std::chrono::steady_clock::now();
  DView<Item> out("out", n);
  const auto keys = sieve::keys::scatter_dense(TestExec{}, deviceOf(in), 0, K - 1, out);
  // The ranges cover every key id exactly once.
  // The ranges cover every key id exactly once (owner(k) = the range's first
  // key id + the tag), the giant key alone in its range, the rest split.
  Kokkos::View<i64*, TestMem> owner("owner", K);
  Kokkos::View<i64, TestMem> calls("calls");
  sieve::keys::for_each_key_range(TestExec{}, keys, out, MarkRanges{owner, calls}, 1000000);
  TestExec{}.fence();
  const auto own = toHost(owner);
  for (int k = 0; k < K; ++k) {
    ASSERT_GE(own[k], 1000000);
    ASSERT_LE(own[k], 1000000 + k);
  }
  EXPECT_EQ(own[18], 1000000 + 18); // the range after the giant key starts after it
  i64 nCalls = 0;
  Kokkos::deep_copy(nCalls, calls);
  EXPECT_GE(nCalls, 2);
  const auto unique = sieve::keys::reduce(TestExec{}, keys, out, sieve::keys::SortUnique{});
  const auto seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const auto ref = perKey(in);
  auto u = ref.at(17);
  std::sort(u.begin(), u.end());
  u.erase(std::unique(u.begin(), u.end()), u.end());
  EXPECT_EQ(unique.offset(18) - unique.offset(17), static_cast<i64>(u.size()));
  const auto after = toHost(out);
  for (std::size_t j = 0; j < u.size(); ++j) ASSERT_EQ(after[keys.offset(17) + j].v, u[j]);
  // SortUnique sorts all elements by (key id, element) in one parallel merge
  // sort: the giant key is not one thread's work (a generous bound here).
  EXPECT_LT(seconds, 30.0);
  const auto g = sieve::keys::group(TestExec{}, keys, out, sieve::keys::SortGroup{});
  EXPECT_EQ(g.keys.offset(18) - g.keys.offset(17), static_cast<i64>(u.size()));
}

namespace {
/// The edges of tetrahedra: 6 per cell, keyed by their smallest point id.
struct Edge {
  std::int32_t a, b; // a < b
  KOKKOS_INLINE_FUNCTION std::int32_t key() const { return a; }
  KOKKOS_INLINE_FUNCTION bool operator<(const Edge& o) const {
    return a < o.a || (a == o.a && b < o.b);
  }
};
struct TetEdges {
  using element_type = Edge;
  Kokkos::View<const std::int32_t* [4], TestMem> cells;
  std::int64_t size() const { return static_cast<std::int64_t>(cells.extent(0)); }
  KOKKOS_INLINE_FUNCTION int count(std::int64_t) const { return 6; }
  KOKKOS_INLINE_FUNCTION Edge element(std::int64_t c, int j) const {
    constexpr int ends[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
    const std::int32_t p = cells(c, ends[j][0]), q = cells(c, ends[j][1]);
    return p < q ? Edge{p, q} : Edge{q, p};
  }
};
} // namespace

TEST(KeysExample, TetMeshUniqueEdges) {
  // Three tetrahedra around the edge (1, 2) over 6 points.
  const std::int32_t tets[3][4] = {{0, 1, 2, 3}, {1, 2, 3, 4}, {2, 1, 4, 5}};
  Kokkos::View<std::int32_t* [4], TestMem> cells("cells", 3);
  auto h = Kokkos::create_mirror_view(cells);
  for (int c = 0; c < 3; ++c)
    for (int v = 0; v < 4; ++v) h(c, v) = tets[c][v];
  Kokkos::deep_copy(cells, h);
  const TetEdges edges{cells};
  const std::int64_t n = sieve::keys::count_elements(TestExec{}, edges);
  DView<Edge> scattered("scattered", n);
  const auto keys = sieve::keys::scatter_dense(TestExec{}, edges, 0, 5, scattered);
  const auto unique = sieve::keys::reduce(TestExec{}, keys, scattered, sieve::keys::SortUnique{});
  DView<Edge> uniqueEdges("unique_edges", unique.num_elements());
  sieve::keys::compact(TestExec{}, keys, unique, scattered, uniqueEdges);

  std::set<std::pair<int, int>> ref;
  for (const auto& t : tets)
    for (int i = 0; i < 4; ++i)
      for (int j = i + 1; j < 4; ++j) ref.insert({std::min(t[i], t[j]), std::max(t[i], t[j])});
  const auto got = toHost(uniqueEdges);
  ASSERT_EQ(got.size(), ref.size());
  std::size_t i = 0;
  for (const auto& e : ref) {
    EXPECT_EQ(got[i].a, e.first);
    EXPECT_EQ(got[i].b, e.second);
    ++i;
  }
  // The unique edges of point p are [unique.offset(p), unique.offset(p + 1)).
  EXPECT_EQ(unique.offset(1) - unique.offset(0), 3);
  EXPECT_EQ(unique.offset(6), static_cast<i64>(ref.size()));
}

TEST(KeysApi, NoInstanceAndLabelForms) {
  std::vector<Rec<int>> in{{3, 0}, {1, 1}, {3, 2}, {2, 3}};
  const auto d = deviceOf(in);
  DView<Rec<int>> a("a", 4), b("b", 4), c("c", 4), e("e", 4);
  const auto k1 = sieve::keys::scatter_dense(d, a);
  const auto k2 = sieve::keys::scatter_dense("lbl", TestExec{}, d, 1, 3, b);
  const auto k3 = sieve::keys::scatter_sparse("lbl", d, c);
  const auto k4 = sieve::keys::scatter_dense("lbl", d, 0, 3, e);
  const std::vector<Rec<int>> ref{{1, 1}, {2, 3}, {3, 0}, {3, 2}};
  EXPECT_EQ(toHost(a), ref);
  EXPECT_EQ(toHost(b), ref);
  EXPECT_EQ(toHost(c), ref);
  EXPECT_EQ(toHost(e), ref);
  EXPECT_EQ(k1.num_keys(), 3);
  EXPECT_EQ(k2.num_keys(), 3);
  EXPECT_EQ(k3.num_keys(), 3);
  EXPECT_EQ(k4.num_keys(), 4);
  const auto u = sieve::keys::reduce(k1, a, sieve::keys::SortUnique{});
  DView<Rec<int>> out("out", u.num_elements());
  EXPECT_EQ(sieve::keys::compact(k1, u, a, out), 4);
  const auto g = sieve::keys::group(k3, c, sieve::keys::SortGroup{});
  EXPECT_EQ(sieve::keys::compact(g.groups, c, out), 4);
  EXPECT_EQ(sieve::keys::count_elements(d), 4);
}

// ---------------------------------------------------------------------------
// Review regressions: adversarial inputs and misuse. Every call either
// matches a plain sequential reference or throws std::invalid_argument with
// nothing written outside the Views it was given.

namespace {

constexpr int kPad = 64;

/// A View of n + kPad sentinels; its first n are the output of the call, the
/// rest must never be written.
template <class E>
struct Guarded {
  DView<E> all;
  DView<E> out;
  E sentinel;
  Guarded(i64 n, const E& s) : all(filled<E>(n + kPad, s)), sentinel(s) {
    out = Kokkos::subview(all, std::make_pair(i64(0), n));
  }
  bool padIntact() const {
    const auto h = toHost(all);
    for (std::size_t i = h.size() - kPad; i < h.size(); ++i)
      if (!(h[i] == sentinel)) return false;
    return true;
  }
};

/// Record 0 claims -5 elements, record 1 claims 5: the counts sum to 0.
struct NegativeCount {
  using element_type = Rec<int>;
  std::int64_t size() const { return 2; }
  KOKKOS_INLINE_FUNCTION int count(i64 i) const { return i == 0 ? -5 : 5; }
  KOKKOS_INLINE_FUNCTION Rec<int> element(i64 i, int j) const {
    return Rec<int>{j % 3, static_cast<std::int32_t>(i * 8 + j)};
  }
};

/// A mapper that answers count(i) = `first` during its first `records`
/// calls (the counting pass) and `second` after (the filling pass).
struct ChangingCount {
  using element_type = Rec<int>;
  i64 n;
  int first, second;
  Kokkos::View<i64, TestMem> calls;
  std::int64_t size() const { return n; }
  KOKKOS_INLINE_FUNCTION int count(i64) const {
    return Kokkos::atomic_fetch_add(&calls(), i64(1)) < n ? first : second;
  }
  KOKKOS_INLINE_FUNCTION Rec<int> element(i64 i, int j) const {
    return Rec<int>{static_cast<int>((i + j) % 7), static_cast<std::int32_t>(i * 4 + j)};
  }
};

/// A mapper whose keys swap halves between the counting and the filling
/// pass (the counts per key stay the same).
struct ChangingKey {
  using element_type = Rec<int>;
  i64 n;
  Kokkos::View<i64, TestMem> calls;
  std::int64_t size() const { return n; }
  KOKKOS_INLINE_FUNCTION int count(i64) const { return 1; }
  KOKKOS_INLINE_FUNCTION Rec<int> element(i64 i, int) const {
    const bool second = Kokkos::atomic_fetch_add(&calls(), i64(1)) >= n;
    const int low = i < n / 2 ? 0 : 1;
    return Rec<int>{second ? 1 - low : low, static_cast<std::int32_t>(i)};
  }
};

/// Writes a count one past the size of key id 1 and -1 for key id 2.
struct BadCounts {
  template <class Out, class Off, class Counts>
  KOKKOS_INLINE_FUNCTION void operator()(const Out&, i64 b, i64 e, const Off& off,
                                         const Counts& counts) const {
    for (i64 k = b; k < e; ++k) counts(k) = k == 1 ? off(k + 1) - off(k) + 1 : k == 2 ? -1 : 0;
  }
};

struct Noop {
  template <class Out, class Off>
  KOKKOS_INLINE_FUNCTION void operator()(const Out&, i64, i64, const Off&) const {}
};

/// A value whose operator< is not a strict weak order when v is NaN.
struct Real {
  std::int32_t k;
  double v;
  KOKKOS_INLINE_FUNCTION std::int32_t key() const { return k; }
  KOKKOS_INLINE_FUNCTION bool operator<(const Real& o) const { return v < o.v; }
};

struct FloatKey {
  KOKKOS_INLINE_FUNCTION double operator()(const Rec<double>& e) const { return e.k; }
};

template <class E>
std::vector<std::int32_t> recsOf(const std::vector<E>& v) {
  std::vector<std::int32_t> r;
  for (const auto& e : v) r.push_back(e.rec);
  std::sort(r.begin(), r.end());
  return r;
}

} // namespace

TEST(KeysReview, MapperNegativeCountRejected) {
  const Rec<int> s{-9, -9};
  Guarded<Rec<int>> g(0, s);
  const NegativeCount m;
  EXPECT_THROW(sieve::keys::count_elements(TestExec{}, m), std::invalid_argument);
  EXPECT_THROW(sieve::keys::scatter_dense(TestExec{}, m, 0, 2, g.out), std::invalid_argument);
  EXPECT_THROW(sieve::keys::scatter_dense(TestExec{}, m, g.out), std::invalid_argument);
  EXPECT_THROW(sieve::keys::scatter_sparse(TestExec{}, m, g.out), std::invalid_argument);
  EXPECT_TRUE(g.padIntact());
}

TEST(KeysReview, MapperCountChangesBetweenPasses) {
  const i64 R = 20001;
  for (const auto& [first, second] : {std::pair<int, int>{1, 2}, std::pair<int, int>{2, 1}}) {
    const i64 n = R * first;
    const Rec<int> s{-9, -9};
    {
      Guarded<Rec<int>> g(n, s);
      const ChangingCount m{R, first, second, Kokkos::View<i64, TestMem>("calls")};
      EXPECT_THROW(sieve::keys::scatter_dense(TestExec{}, m, 0, 6, g.out), std::invalid_argument)
          << first << " then " << second;
      EXPECT_TRUE(g.padIntact());
    }
    {
      Guarded<Rec<int>> g(n, s);
      const ChangingCount m{R, first, second, Kokkos::View<i64, TestMem>("calls")};
      EXPECT_THROW(sieve::keys::scatter_sparse(TestExec{}, m, g.out), std::invalid_argument)
          << first << " then " << second;
      EXPECT_TRUE(g.padIntact());
    }
  }
}

TEST(KeysReview, MapperKeyChangesNeverLosesSilently) {
  const i64 R = 40000; // several chunks per pass when there are threads
  const Rec<int> s{-9, -9};
  Guarded<Rec<int>> g(R, s);
  const ChangingKey m{R, Kokkos::View<i64, TestMem>("calls")};
  bool threw = false;
  try {
    sieve::keys::scatter_dense(TestExec{}, m, 0, 1, g.out);
  } catch (const std::invalid_argument&) {
    threw = true;
  }
  EXPECT_TRUE(g.padIntact());
  if (!threw) {
    // Accepted (one chunk: the sort is consistent with the second answers):
    // then every record is there exactly once.
    std::vector<std::int32_t> all(R);
    for (i64 i = 0; i < R; ++i) all[i] = static_cast<std::int32_t>(i);
    EXPECT_EQ(recsOf(toHost(g.out)), all);
  }
  if (TestExec{}.concurrency() > 1) EXPECT_TRUE(threw);
}

TEST(KeysReview, DenseRangeArgumentsMustFitTheKeyType) {
  std::vector<Rec<std::uint8_t>> in8{{3, 0}, {250, 1}, {3, 2}};
  DView<Rec<std::uint8_t>> out8("out8", 3);
  EXPECT_THROW(sieve::keys::scatter_dense(TestExec{}, deviceOf(in8), 0, 300, out8),
               std::invalid_argument); // 300 would be 44
  EXPECT_THROW(sieve::keys::scatter_dense(TestExec{}, deviceOf(in8), -1, 255, out8),
               std::invalid_argument); // -1 would be 255
  const auto k8 = sieve::keys::scatter_dense(TestExec{}, deviceOf(in8), 0, 255, out8);
  EXPECT_EQ(k8.num_keys(), 256);
  EXPECT_EQ(toHost(out8), (std::vector<Rec<std::uint8_t>>{{3, 0}, {3, 2}, {250, 1}}));

  std::vector<Rec<std::int32_t>> in{{0, 0}, {10, 1}, {5, 2}, {0, 3}};
  DView<Rec<std::int32_t>> out("out", 4);
  const std::int64_t big = std::int64_t(1) << 32;
  try { // [2^32, 2^32 + 10] would silently be [0, 10]
    sieve::keys::scatter_dense(TestExec{}, deviceOf(in), big, big + 10, out);
    ADD_FAILURE() << "a min_key outside int32 was truncated";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("min_key"), std::string::npos) << e.what();
  }
  EXPECT_THROW(sieve::keys::scatter_dense(TestExec{}, deviceOf(in), 0.0, 10.5, out),
               std::invalid_argument);
  EXPECT_THROW(sieve::keys::scatter_dense(TestExec{}, deviceOf(in), std::int64_t(INT32_MIN) - 1,
                                          std::int64_t(10), out),
               std::invalid_argument);
  // Wider arguments that are values of the key type are fine.
  const auto k =
      sieve::keys::scatter_dense(TestExec{}, deviceOf(in), std::int64_t(0), std::uint64_t(10), out);
  EXPECT_EQ(k.num_keys(), 11);
  EXPECT_EQ(toHost(out), stableByKey(in, [](const Rec<std::int32_t>& e) { return e.k; }));
}

TEST(KeysReview, DenseInt64Extremes) {
  constexpr std::int64_t lo = std::numeric_limits<std::int64_t>::min();
  constexpr std::int64_t hi = std::numeric_limits<std::int64_t>::max();
  for (const std::int64_t base : {lo, hi - 6}) {
    std::vector<Rec<std::int64_t>> in;
    for (int i = 0; i < 5000; ++i) in.push_back(Rec<std::int64_t>{base + (i * 5) % 7, i});
    const auto ref = stableByKey(in, [](const Rec<std::int64_t>& e) { return e.k; });
    DView<Rec<std::int64_t>> out("out", in.size());
    const auto keys = sieve::keys::scatter_dense(TestExec{}, deviceOf(in), out);
    EXPECT_EQ(keys.min_key(), base);
    EXPECT_EQ(keys.max_key(), base + 6);
    EXPECT_EQ(keys.num_keys(), 7);
    EXPECT_EQ(toHost(out), ref);
  }
  std::vector<Rec<std::int64_t>> both{{lo, 0}, {hi, 1}};
  DView<Rec<std::int64_t>> out("out", 2);
  EXPECT_THROW(sieve::keys::scatter_dense(TestExec{}, deviceOf(both), out), std::invalid_argument);
  EXPECT_THROW(sieve::keys::scatter_dense(TestExec{}, deviceOf(both), lo, hi, out),
               std::invalid_argument);
}

TEST(KeysReview, ReduceCountsOutsideTheKeyRejected) {
  std::vector<Item> in;
  for (int i = 0; i < 40; ++i) in.push_back(Item{i % 4, i});
  DView<Item> out("out", in.size());
  const auto keys = sieve::keys::scatter_dense(TestExec{}, deviceOf(in), out);
  EXPECT_THROW(sieve::keys::reduce(TestExec{}, keys, out, BadCounts{}), std::invalid_argument);
}

TEST(KeysReview, ForEachKeyRangeShortOutputRejected) {
  std::vector<Item> in;
  for (int i = 0; i < 40; ++i) in.push_back(Item{i % 4, i});
  DView<Item> out("out", in.size()), small("small", 39);
  const auto keys = sieve::keys::scatter_dense(TestExec{}, deviceOf(in), out);
  EXPECT_THROW(sieve::keys::for_each_key_range(TestExec{}, keys, small, Noop{}),
               std::invalid_argument);
  sieve::keys::for_each_key_range(TestExec{}, keys, out, Noop{});
}

TEST(KeysReview, CompactMisuseRejected) {
  const int n = 5000;
  std::vector<Item> in(n);
  for (int i = 0; i < n; ++i) in[i] = Item{i % 5, (i * 7) % 11};
  DView<Item> out("out", n);
  const auto keys = sieve::keys::scatter_dense(TestExec{}, deviceOf(in), out);
  const auto reduced = sieve::keys::reduce(TestExec{}, keys, out, sieve::keys::SortUnique{});
  // In place: the copy would read elements other threads overwrite.
  EXPECT_THROW(sieve::keys::compact(TestExec{}, keys, reduced, out, out), std::invalid_argument);
  // Reduced keys of other keys with the same key count.
  DView<Item> out2("out2", n);
  std::vector<Item> other(n);
  for (int i = 0; i < n; ++i) other[i] = Item{i < n - 4 ? 0 : i % 5, i};
  const auto keys2 = sieve::keys::scatter_dense(TestExec{}, deviceOf(other), 0, 4, out2);
  DView<Item> c("c", n);
  EXPECT_THROW(sieve::keys::compact(TestExec{}, keys2, reduced, out2, c), std::invalid_argument);
  // The keys of a Grouping count groups, not survivors at the front.
  const auto g = sieve::keys::group(TestExec{}, keys2, out2, sieve::keys::SortGroup{});
  EXPECT_THROW(sieve::keys::compact(TestExec{}, keys2, g.keys, out2, c), std::invalid_argument);
  EXPECT_THROW(sieve::keys::compact(TestExec{}, g.groups, out2, out2), std::invalid_argument);
  // The right calls still match the reference (copies of keys share them).
  const auto keysCopy = keys;
  const i64 m = sieve::keys::compact(TestExec{}, keysCopy, reduced, out, c);
  EXPECT_EQ(m, 5 * 11);
  const auto h = toHost(c);
  for (int k = 0; k < 5; ++k)
    for (int v = 0; v < 11; ++v) EXPECT_EQ(h[k * 11 + v], (Item{k, v}));
}

TEST(KeysReview, SparseFloatKeys) {
  const int n = 6000;
  std::vector<Rec<double>> in(n);
  for (int i = 0; i < n; ++i) in[i] = Rec<double>{static_cast<double>((i * 37) % 101) - 50.5, i};
  const auto ref = stableByKey(in, [](const Rec<double>& e) { return e.k; });
  DView<Rec<double>> out("out", n);
  const auto keys =
      sieve::keys::scatter_sparse(TestExec{}, sieve::keys::keyed(deviceOf(in), FloatKey{}), out);
  EXPECT_EQ(keys.num_keys(), 101);
  EXPECT_EQ(toHost(out), ref);
  in[1234].k = std::numeric_limits<double>::quiet_NaN();
  const Rec<double> s{-1, -1};
  auto fresh = filled<Rec<double>>(n, s);
  EXPECT_THROW(
      sieve::keys::scatter_sparse(TestExec{}, sieve::keys::keyed(deviceOf(in), FloatKey{}), fresh),
      std::invalid_argument);
  for (const auto& e : toHost(fresh)) ASSERT_TRUE(e.k == s.k && e.rec == s.rec);
}

TEST(KeysReview, SortUniqueWithNaNNeverLosesSilently) {
  const int n = 30000;
  std::vector<Real> in(n);
  for (int i = 0; i < n; ++i)
    in[i] = Real{0, i % 3 == 0 ? std::numeric_limits<double>::quiet_NaN()
                               : static_cast<double>((i * 7919) % 1000)};
  DView<Real> out("out", n);
  const auto keys = sieve::keys::scatter_dense(TestExec{}, deviceOf(in), out);
  const auto before = toHost(out);
  const auto bits = [](const std::vector<Real>& v) {
    std::vector<std::uint64_t> b;
    for (const auto& e : v) {
      std::uint64_t u;
      std::memcpy(&u, &e.v, sizeof u);
      b.push_back(u);
    }
    std::sort(b.begin(), b.end());
    return b;
  };
  try {
    sieve::keys::reduce(TestExec{}, keys, out, sieve::keys::SortUnique{});
  } catch (const std::invalid_argument&) {
    const auto after = toHost(out);
    EXPECT_EQ(bits(after), bits(before)); // unchanged (as a multiset at least)
    return;
  }
  // Accepted: the key is still a permutation of its elements.
  EXPECT_EQ(bits(toHost(out)), bits(before));
}

// --- the asynchronous dense scatter on a DenseWorkspace ---------------------------

namespace {

template <class K>
void checkAsyncMod103(bool signedShift) {
  const Mod103<K> c(signedShift);
  const TestExec exec;
  const sieve::keys::DenseWorkspace<K, TestExec> ws(exec, c.n, c.lo, c.hi);
  EXPECT_EQ(ws.num_keys(), 103);
  const auto d = deviceOf(c.in);
  // The same workspace serves several calls; each writes the same bytes as
  // the sequential stable sort (and as the blocking form).
  for (int round = 0; round < 3; ++round) {
    DView<Rec<K>> out("out", c.n);
    const auto keys = sieve::keys::scatter_dense(exec, d, out, ws);
    exec.fence();
    EXPECT_EQ(keys.num_keys(), 103);
    EXPECT_EQ(keys.num_elements(), c.n);
    EXPECT_EQ(keys.min_key(), c.lo);
    EXPECT_EQ(keys.max_key(), c.hi);
    EXPECT_NO_THROW(ws.check(exec));
    EXPECT_EQ(toHost(out), c.ref) << "round " << round;
    EXPECT_EQ(offsetsOf(keys), c.refOff) << "round " << round;
    EXPECT_EQ(keys.offset(5), c.refOff[5]);
  }
}

} // namespace

TEST(KeysDenseAsync, Mod103MatchesTheReference) {
  checkAsyncMod103<std::int32_t>(true);
  checkAsyncMod103<std::int64_t>(true);
  checkAsyncMod103<std::uint8_t>(false);
}

TEST(KeysDenseAsync, EmptyAndOneKey) {
  const TestExec exec;
  {
    const sieve::keys::DenseWorkspace<int, TestExec> ws(exec, 0, 0, 9);
    DView<Rec<int>> in("in", 0), out("out", 0);
    const auto keys = sieve::keys::scatter_dense(exec, in, out, ws);
    exec.fence();
    EXPECT_EQ(keys.num_keys(), 10);
    EXPECT_EQ(offsetsOf(keys), std::vector<i64>(11, 0));
  }
  {
    std::vector<Rec<int>> in(777);
    for (int i = 0; i < 777; ++i) in[i] = Rec<int>{7, i};
    const sieve::keys::DenseWorkspace<int, TestExec> ws(exec, 777, 7, 7);
    DView<Rec<int>> out("out", 777);
    const auto keys = sieve::keys::scatter_dense(exec, deviceOf(in), out, ws);
    exec.fence();
    EXPECT_EQ(offsetsOf(keys), (std::vector<i64>{0, 777}));
    EXPECT_EQ(toHost(out), in);
  }
}

// Nothing is allocated, and nothing runs but the call's own kernels (and the
// scan's), all on the instance.
TEST(KeysDenseAsync, AllocatesNothing) {
  const int n = 20000;
  std::vector<Rec<int>> in(n);
  for (int i = 0; i < n; ++i) in[i] = Rec<int>{(i * 7919) % 4096, i};
  const TestExec exec;
  const sieve::keys::DenseWorkspace<int, TestExec> ws(exec, n, 0, 4095);
  const auto d = deviceOf(in);
  DView<Rec<int>> out("out", n);
  sieve::keys::scatter_dense(exec, d, out, ws); // Kokkos' own lazy buffers
  exec.fence();
  {
    const ToolsLog tools;
    sieve::keys::scatter_dense("async", exec, d, out, ws);
    exec.fence();
    EXPECT_EQ(ToolsLog::allocations(), 0) << ToolsLog::dump();
    EXPECT_TRUE(ToolsLog::hasPrefix("region async: sieve::keys::scatter_dense["))
        << ToolsLog::dump();
  }
  EXPECT_EQ(toHost(out), stableByKey(in, [](const Rec<int>& e) { return e.k; }));
}

// A key outside the workspace's range: nothing is written, every key is
// empty, and the error surfaces as an exception at check(), at offset() and
// in the calls that read the keys back; the next valid call clears it.
TEST(KeysDenseAsync, OutOfRangeKeysNeverLoseSilently) {
  const int n = 5000;
  std::vector<Rec<int>> in(n);
  for (int i = 0; i < n; ++i) in[i] = Rec<int>{i % 100, i};
  in[4321].k = 100;
  in[17].k = -1;
  const TestExec exec;
  const sieve::keys::DenseWorkspace<int, TestExec> ws(exec, n, 0, 99);
  const Rec<int> sentinel{-77, -77};
  auto out = filled<Rec<int>>(n, sentinel);
  const auto keys = sieve::keys::scatter_dense(exec, deviceOf(in), out, ws);
  exec.fence();
  i64 rejected = 0;
  Kokkos::deep_copy(rejected, ws.rejected());
  EXPECT_EQ(rejected, 2);
  EXPECT_THROW(ws.check(exec), std::invalid_argument);
  EXPECT_THROW(keys.offset(0), std::invalid_argument);
  EXPECT_THROW(sieve::keys::reduce(exec, keys, out, sieve::keys::SortUnique{}),
               std::invalid_argument);
  EXPECT_THROW(sieve::keys::group(exec, keys, out, sieve::keys::SortGroup{}),
               std::invalid_argument);
  EXPECT_EQ(offsetsOf(keys), std::vector<i64>(101, 0));
  for (const auto& e : toHost(out)) ASSERT_EQ(e, sentinel);
  in[4321].k = 21;
  in[17].k = 17;
  const auto fixed = sieve::keys::scatter_dense(exec, deviceOf(in), out, ws);
  EXPECT_NO_THROW(ws.check(exec));
  EXPECT_EQ(toHost(out), stableByKey(in, [](const Rec<int>& e) { return e.k; }));
  EXPECT_EQ(fixed.offset(100), n);
  // The rejected call's keys stay unusable: the workspace served a later call.
  EXPECT_THROW(keys.offset(0), std::invalid_argument);
  EXPECT_THROW(sieve::keys::reduce(exec, keys, out, sieve::keys::SortUnique{}),
               std::invalid_argument);
}

// The keys of a call share the workspace's offsets: once it serves another
// call, using them would read that call's offsets over the first output.
// Every use throws instead.
TEST(KeysDenseAsync, KeysOfAnEarlierCallThrow) {
  const int n = 3000;
  std::vector<Rec<int>> a(n), b(n);
  for (int i = 0; i < n; ++i) {
    a[i] = Rec<int>{i % 10, i};
    b[i] = Rec<int>{(i * 7) % 50, i};
  }
  const TestExec exec;
  const sieve::keys::DenseWorkspace<int, TestExec> ws(exec, n, 0, 49);
  DView<Rec<int>> outA("outA", n), outB("outB", n), more("more", n);
  const auto keysA = sieve::keys::scatter_dense(exec, deviceOf(a), outA, ws);
  EXPECT_EQ(offsetsOf(keysA), denseOffsets(a, 0, 49));
  EXPECT_EQ(keysA.offset(10), n);
  const auto keysB = sieve::keys::scatter_dense(exec, deviceOf(b), outB, ws);
  EXPECT_EQ(keysB.offset(50), n);
  EXPECT_EQ(toHost(outA), stableByKey(a, [](const Rec<int>& e) { return e.k; }));
  EXPECT_EQ(toHost(outB), stableByKey(b, [](const Rec<int>& e) { return e.k; }));
  EXPECT_THROW(keysA.offset(1), std::invalid_argument);
  EXPECT_THROW(sieve::keys::reduce(exec, keysA, outA, sieve::keys::SortUnique{}),
               std::invalid_argument);
  EXPECT_THROW(sieve::keys::group(exec, keysA, outA, sieve::keys::SortGroup{}),
               std::invalid_argument);
  EXPECT_THROW(sieve::keys::for_each_key_range(exec, keysA, outA, Noop{}), std::invalid_argument);
  // The current keys work, copies included.
  const auto copyB = keysB;
  const auto unique = sieve::keys::reduce(exec, copyB, outB, sieve::keys::SortUnique{});
  EXPECT_EQ(unique.num_keys(), 50);
  EXPECT_EQ(sieve::keys::compact(exec, keysB, unique, outB, more), unique.num_elements());
}

TEST(KeysDenseAsync, Misuse) {
  const TestExec exec;
  std::vector<Rec<int>> in{{1, 0}, {2, 1}, {1, 2}};
  const auto d = deviceOf(in);
  DView<Rec<int>> out("out", 3), shortOut("short", 2);
  const sieve::keys::DenseWorkspace<int, TestExec> ws(exec, 3, 0, 9), other(exec, 4, 0, 9);
  const sieve::keys::DenseWorkspace<int, TestExec> empty;
  sieve_test::expectInvalid([&] { sieve::keys::scatter_dense(exec, d, out, other); },
                            "workspace was made for 4");
  sieve_test::expectInvalid([&] { sieve::keys::scatter_dense(exec, d, out, empty); },
                            "workspace is empty");
  sieve_test::expectInvalid([&] { sieve::keys::scatter_dense(exec, d, shortOut, ws); },
                            "output.extent(0) = 2");
  sieve_test::expectInvalid([&] { sieve::keys::scatter_dense(exec, d, d, ws); }, "");
  sieve_test::expectInvalid([&] { sieve::keys::DenseWorkspace<int, TestExec>(exec, 3, 9, 0); },
                            "greater than max_key");
  sieve_test::expectInvalid([&] { sieve::keys::DenseWorkspace<int, TestExec>(exec, -1, 0, 9); },
                            "elements = -1");
  sieve_test::expectInvalid(
      [&] { sieve::keys::DenseWorkspace<std::uint8_t, TestExec>(exec, 3, 0, 300); },
      "max_key = 300 is not a value of the key type");
  EXPECT_NO_THROW(ws.check(exec)); // nothing ran on it yet
}
