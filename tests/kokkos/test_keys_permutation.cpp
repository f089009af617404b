// SPDX-License-Identifier: Apache-2.0
// Sieve Kokkos tests — sieve::keys::sort_permutation: the stable order of the
// indices 0 .. n - 1 by a computed key (BinSort's permute vector) with int64
// and int32 perms, with and without a key range, the asynchronous form on a
// DenseWorkspace sized by a capacity (any n up to it, the count as an integer
// or a rank-0 View on the device), cells of an MD box computed from two
// arrays, and the misuse errors. Every result is compared with a plain
// sequential reference (std::stable_sort of the indices by key).
#include "../common/expect.hpp"
#include "backend.hpp"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <stdexcept>
#include <vector>

using namespace sieve_test;

namespace {

using i64 = std::int64_t;

/// The reference: the indices 0 .. n - 1 stably sorted by key, and the
/// offsets of every key of [lo, hi].
struct RefPerm {
  std::vector<i64> perm;
  std::vector<i64> offsets;
};
RefPerm reference(const std::vector<int>& keys, int lo, int hi) {
  RefPerm r;
  r.perm.resize(keys.size());
  std::iota(r.perm.begin(), r.perm.end(), i64(0));
  std::stable_sort(r.perm.begin(), r.perm.end(),
                   [&](i64 a, i64 b) { return keys[size_t(a)] < keys[size_t(b)]; });
  r.offsets.assign(size_t(hi - lo + 2), 0);
  for (const int k : keys) ++r.offsets[size_t(k - lo + 1)];
  for (size_t k = 1; k < r.offsets.size(); ++k) r.offsets[k] += r.offsets[k - 1];
  return r;
}

/// Keys of a View read by index: what an MD code's cell functor does.
struct KeyOf {
  DView<int> keys;
  KOKKOS_INLINE_FUNCTION int operator()(const i64 i) const { return keys(i); }
};

/// The MD binning call with its key as a user writes it, a lambda: the cell
/// of (x, y) in a cells x cells grid (a free function: nvcc rejects an
/// extended lambda in a gtest TEST body).
sieve::keys::DenseKeys<int, TestExec> binByCell(const TestExec& exec, const i64 n,
                                                const DView<double>& dx, const DView<double>& dy,
                                                const int cells, const DView<i64>& perm) {
  return sieve::keys::sort_permutation(
      "md_binning", exec, n,
      KOKKOS_LAMBDA(const i64 i) { return int(dx(i) * cells) * cells + int(dy(i) * cells); }, 0,
      cells * cells - 1, perm);
}

/// scatter_dense of keyed(ids, a key lambda) (a free function, as above).
void scatterKeyedByLambda(const TestExec& exec, const DView<i64>& ids, const DView<int>& dkeys,
                          const DView<i64>& out) {
  sieve::keys::scatter_dense(exec,
                             sieve::keys::keyed(
                                 ids, KOKKOS_LAMBDA(const i64 i) { return dkeys(i); }),
                             0, 999, out);
}

/// A key functor that answers 1 for the upper half of the indices on its
/// first call per index, 0 afterwards (a key that changes between the reads).
struct ChangingKey {
  Kokkos::View<int*, TestDevice> calls;
  i64 n;
  KOKKOS_INLINE_FUNCTION int operator()(const i64 i) const {
    const int c = Kokkos::atomic_fetch_add(&calls(i), 1);
    return c == 0 && i >= n / 2 ? 1 : 0;
  }
};

std::vector<int> randomKeys(size_t n, int lo, int hi, unsigned seed) {
  std::mt19937 g(seed);
  std::uniform_int_distribution<int> d(lo, hi);
  std::vector<int> v(n);
  for (auto& x : v) x = d(g);
  return v;
}

template <class T>
std::vector<i64> widen(const std::vector<T>& v) {
  return std::vector<i64>(v.begin(), v.end());
}

template <class PermT>
void checkAgainstReference(size_t n, int lo, int hi, bool withRange, unsigned seed) {
  const auto keys = randomKeys(n, lo, hi, seed);
  const auto ref = reference(keys, lo, hi);
  const TestExec exec;
  DView<PermT> perm("perm", n);
  const KeyOf f{toDevice(keys, "keys")};
  const auto dk = withRange ? sieve::keys::sort_permutation(exec, i64(n), f, lo, hi, perm)
                            : sieve::keys::sort_permutation(exec, i64(n), f, perm);
  EXPECT_EQ(widen(toHost(perm)), ref.perm) << "n = " << n;
  EXPECT_EQ(dk.num_elements(), i64(n));
  if (n == 0) return;
  // Without a range it is the keys' own: compare the offsets over it.
  const int kmin = *std::min_element(keys.begin(), keys.end());
  const int kmax = *std::max_element(keys.begin(), keys.end());
  const int a = withRange ? lo : kmin, b = withRange ? hi : kmax;
  EXPECT_EQ(dk.min_key(), a);
  EXPECT_EQ(dk.max_key(), b);
  const auto off = toHost(dk.offsets());
  ASSERT_EQ(off.size(), size_t(b - a + 2));
  for (int k = a; k <= b + 1; ++k)
    EXPECT_EQ(off[size_t(k - a)], ref.offsets[size_t(k - lo)]) << "key " << k;
}

} // namespace

TEST(KeysSortPermutation, MatchesAStableSortInt64) {
  for (const size_t n : {size_t(0), size_t(1), size_t(2), size_t(1000), size_t(100003)}) {
    checkAgainstReference<i64>(n, -5, 300, true, 7u + unsigned(n));
    checkAgainstReference<i64>(n, -5, 300, false, 11u + unsigned(n));
  }
}

TEST(KeysSortPermutation, MatchesAStableSortInt32) {
  for (const size_t n : {size_t(1), size_t(999), size_t(70001)}) {
    checkAgainstReference<std::int32_t>(n, 0, 4095, true, 3u + unsigned(n));
    checkAgainstReference<std::int32_t>(n, 0, 0, true, 5u + unsigned(n)); // one key
  }
}

TEST(KeysSortPermutation, CellsOfAnMdBox) {
  // ExaMiniMD's binning: the cell of atom i from its position (two arrays).
  const size_t n = 50000;
  const int cells = 8; // per dimension
  std::mt19937 g(42);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<double> x(n), y(n);
  for (size_t i = 0; i < n; ++i) {
    x[i] = u(g);
    y[i] = u(g);
  }
  std::vector<int> keys(n);
  for (size_t i = 0; i < n; ++i)
    keys[i] = int(x[i] * cells) * cells + int(y[i] * cells); // the same arithmetic as below
  const auto ref = reference(keys, 0, cells * cells - 1);
  const auto dx = toDevice(x, "x"), dy = toDevice(y, "y");
  DView<i64> perm("perm", n);
  const TestExec exec;
  const auto dk = binByCell(exec, i64(n), dx, dy, cells, perm);
  EXPECT_EQ(toHost(perm), ref.perm);
  EXPECT_EQ(toHost(dk.offsets()), ref.offsets);
  EXPECT_EQ(dk.num_keys(), cells * cells);
}

TEST(KeysSortPermutation, WorkspaceServesAnyCountUpToItsCapacity) {
  const TestExec exec;
  const i64 cap = 20000;
  const int lo = -3, hi = 500;
  sieve::keys::DenseWorkspace<int, TestExec> ws(exec, cap, lo, hi);
  const auto keys = randomKeys(size_t(cap), lo, hi, 99u);
  const KeyOf f{toDevice(keys, "keys")};
  DView<std::int32_t> perm("perm", size_t(cap));
  for (const i64 n : {i64(0), i64(1), i64(777), cap - 1, cap, i64(12345)}) {
    const std::vector<int> head(keys.begin(), keys.begin() + n);
    const auto ref = reference(head, lo, hi);
    Kokkos::deep_copy(perm, -1);
    const auto dk = sieve::keys::sort_permutation(exec, n, f, perm, ws);
    exec.fence();
    ws.check(exec);
    auto got = widen(toHost(perm));
    for (i64 j = n; j < cap; ++j) EXPECT_EQ(got[size_t(j)], -1) << "written past n at " << j;
    got.resize(size_t(n));
    EXPECT_EQ(got, ref.perm) << "n = " << n;
    EXPECT_EQ(toHost(dk.offsets()), ref.offsets) << "n = " << n;
    EXPECT_EQ(dk.offset(dk.num_keys()), n);
  }
}

TEST(KeysSortPermutation, CountOnTheDevice) {
  const TestExec exec;
  const i64 cap = 9000;
  sieve::keys::DenseWorkspace<int, TestExec> ws(exec, cap, 0, 63);
  const auto keys = randomKeys(size_t(cap), 0, 63, 5u);
  const KeyOf f{toDevice(keys, "keys")};
  DView<i64> perm("perm", size_t(cap));
  Kokkos::View<i64, TestDevice> count("count");
  for (const i64 n : {i64(4321), i64(0), cap}) {
    Kokkos::deep_copy(count, n);
    const auto dk = sieve::keys::sort_permutation(exec, count, f, perm, ws);
    ws.check(exec);
    const std::vector<int> head(keys.begin(), keys.begin() + n);
    const auto ref = reference(head, 0, 63);
    auto got = toHost(perm);
    got.resize(size_t(n));
    EXPECT_EQ(got, ref.perm) << "n = " << n;
    EXPECT_EQ(toHost(dk.offsets()), ref.offsets);
    EXPECT_EQ(dk.offset(64), n);
  }
  // A count outside [0, capacity]: rejected on the device, nothing written.
  for (const i64 bad : {i64(-1), cap + 1}) {
    Kokkos::deep_copy(perm, 7);
    Kokkos::deep_copy(count, bad);
    const auto dk = sieve::keys::sort_permutation(exec, count, f, perm, ws);
    EXPECT_THROW(ws.check(exec), std::invalid_argument) << bad;
    EXPECT_THROW(dk.offset(0), std::invalid_argument) << bad;
    for (const i64 p : toHost(perm)) ASSERT_EQ(p, 7);
  }
}

TEST(KeysSortPermutation, AsyncKeyOutsideTheRangeWritesNothing) {
  const TestExec exec;
  sieve::keys::DenseWorkspace<int, TestExec> ws(exec, 100, 0, 9);
  std::vector<int> keys(100, 3);
  keys[57] = 10;
  const KeyOf f{toDevice(keys, "keys")};
  DView<i64> perm("perm", 100);
  Kokkos::deep_copy(perm, -2);
  const auto dk = sieve::keys::sort_permutation(exec, i64(100), f, perm, ws);
  EXPECT_THROW(ws.check(exec), std::invalid_argument);
  EXPECT_THROW(dk.offset(1), std::invalid_argument);
  for (const i64 p : toHost(perm)) ASSERT_EQ(p, -2);
}

TEST(KeysSortPermutation, Misuse) {
  const TestExec exec;
  const auto keys = randomKeys(100, 0, 9, 1u);
  const KeyOf f{toDevice(keys, "keys")};
  DView<i64> perm("perm", 100);
  Kokkos::deep_copy(perm, -3);
  const auto untouched = [&] {
    for (const i64 p : toHost(perm))
      if (p != -3) return false;
    return true;
  };
  // Thrown, naming what is wrong, with nothing written.
  const auto expectThrow = [&](auto&& call, const char* what) {
    expectInvalid(call, what);
    EXPECT_TRUE(untouched()) << what;
  };
  expectThrow([&] { sieve::keys::sort_permutation(exec, -1, f, 0, 9, perm); }, "negative");
  expectThrow([&] { sieve::keys::sort_permutation(exec, 101, f, 0, 9, perm); }, "perm.extent(0)");
  expectThrow([&] { sieve::keys::sort_permutation(exec, 100, f, 0, 8, perm); }, "outside");
  expectThrow([&] { sieve::keys::sort_permutation(exec, 100, f, 9, 0, perm); }, "min_key");
  // An int32 perm cannot hold the indices of 2^31 + 5 elements (checked first).
  DView<std::int32_t> p32("p32", 4);
  EXPECT_THROW(sieve::keys::sort_permutation(exec, (i64(1) << 31) + 5, f, 0, 9, p32),
               std::invalid_argument);
  sieve::keys::DenseWorkspace<int, TestExec> ws(exec, 50, 0, 9);
  expectThrow([&] { sieve::keys::sort_permutation(exec, 51, f, perm, ws); }, "capacity");
  DView<i64> shortPerm("short", 40);
  Kokkos::View<i64, TestDevice> count("count");
  EXPECT_THROW(sieve::keys::sort_permutation(exec, count, f, shortPerm, ws),
               std::invalid_argument); // perm must hold the capacity
  sieve::keys::DenseWorkspace<int, TestExec> empty;
  expectThrow([&] { sieve::keys::sort_permutation(exec, 10, f, perm, empty); }, "empty");
}

TEST(KeysSortPermutation, NoInstanceForm) {
  const auto keys = randomKeys(3000, 2, 40, 77u);
  const auto ref = reference(keys, 2, 40);
  DView<i64> perm("perm", 3000);
  const auto dk = sieve::keys::sort_permutation(i64(3000), KeyOf{toDevice(keys, "k")}, 2, 40, perm);
  EXPECT_EQ(toHost(perm), ref.perm);
  EXPECT_EQ(dk.offset(39), ref.offsets[39]);
}

TEST(KeysSortPermutation, SameBytesAsScatterDenseOfKeyedIndices) {
  // The permutation equals the records of scatter_dense over keyed(iota).
  const size_t n = 30011;
  const auto keys = randomKeys(n, 0, 999, 13u);
  const auto dkeys = toDevice(keys, "keys");
  std::vector<i64> iota(n);
  std::iota(iota.begin(), iota.end(), i64(0));
  const auto ids = toDevice(iota, "ids");
  DView<i64> a("a", n), b("b", n);
  const TestExec exec;
  scatterKeyedByLambda(exec, ids, dkeys, a);
  sieve::keys::sort_permutation(exec, i64(n), KeyOf{dkeys}, 0, 999, b);
  EXPECT_EQ(toHost(a), toHost(b));
}

TEST(KeysSortPermutation, KeyFnAnsweringDifferentlyOnItsSecondCallThrows) {
  // The first call (the histogram) sees half the indices in key 1, the
  // second (the scatter) sees every index in key 0: every write stays inside
  // [0, n), so only the exact slot check can see it.
  const TestExec exec;
  const i64 n = 20000;
  Kokkos::View<int*, TestDevice> calls("calls", n);
  DView<i64> perm("perm", n);
  const ChangingKey key{calls, n};
  expectInvalid([&] { sieve::keys::sort_permutation(exec, n, key, 0, 1, perm); },
                "changed between the counting and the scatter passes");
  // The same through keyed(view, key_fn).
  Kokkos::deep_copy(calls, 0);
  std::vector<i64> iota(n);
  for (i64 i = 0; i < n; ++i) iota[size_t(i)] = i;
  const auto ids = toDevice(iota, "ids");
  expectInvalid([&] { sieve::keys::scatter_dense(exec, sieve::keys::keyed(ids, key), 0, 1, perm); },
                "changed between the counting and the scatter passes");
}
