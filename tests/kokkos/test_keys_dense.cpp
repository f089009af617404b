// SPDX-License-Identifier: Apache-2.0
// Sieve Kokkos tests — sieve::keys, the dense scatter: empty, one key, all
// keys equal, i % 103 for int32 / int64 / uint8 (and the sparse scatter on the
// same keys), integer elements, int64 extremes, out-of-range keys and range
// arguments that are not values of the key type rejected with nothing written,
// and the asynchronous form on a DenseWorkspace (no allocation, errors surfaced
// at check(), keys of an earlier call unusable), with the misuse errors. Every
// result is compared with a plain sequential reference (std::stable_sort)
// element by element, so every backend and thread count is held to the same
// values.
#include "../common/expect.hpp"
#include "backend.hpp"
#include "keys_helpers.hpp"
#include "tools_log.hpp"

#include <atomic>
#include <cstdint>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

using namespace sieve_test;

namespace {
constexpr i64 kPadDense = 64;
}

namespace {

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

TEST(KeysDense, RangeArgumentsMustFitTheKeyType) {
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

TEST(KeysDense, Int64Extremes) {
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
  // The next call's keys share the offsets' address, not their values: the
  // survivors counted from keysB do not describe them.
  const auto keysC = sieve::keys::scatter_dense(exec, deviceOf(a), outA, ws);
  ASSERT_EQ(keysC.offsets().data(), keysB.offsets().data());
  EXPECT_THROW(sieve::keys::compact(exec, keysC, unique, outA, more), std::invalid_argument);
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

namespace {
/// Random keys over `K` keys from `lo` (skewed: 15 of 16 in the last key),
/// with their sequential references.
struct Wide {
  std::vector<Rec<int>> in, ref;
  std::vector<i64> refOff;
  Wide(i64 n, int lo, i64 K, unsigned seed, bool skew) : in(static_cast<std::size_t>(n)) {
    std::mt19937_64 g(seed);
    for (i64 i = 0; i < n; ++i) {
      const i64 k =
          skew && g() % 16 != 0 ? K - 1 : static_cast<i64>(g() % static_cast<std::uint64_t>(K));
      in[static_cast<std::size_t>(i)] =
          Rec<int>{static_cast<int>(lo + k), static_cast<std::int32_t>(i)};
    }
    ref = stableByKey(in, [](const Rec<int>& e) { return e.k; });
    refOff = denseOffsets(in, lo, static_cast<int>(lo + K - 1));
  }
};

/// A key functor that answers differently once every element was read once:
/// after n calls, every third element's key moves to the next key.
struct ShiftingKey {
  i64 n;
  int lo, hi;
  Kokkos::View<i64, TestMem> calls;
  KOKKOS_INLINE_FUNCTION int operator()(const Rec<int>& e) const {
    const bool later = Kokkos::atomic_fetch_add(&calls(), i64(1)) >= n;
    return later && e.rec % 3 == 0 ? (e.k == hi ? lo : e.k + 1) : e.k;
  }
};
} // namespace

// Ranges on both sides of the one-pass limit of the native faces (2^11 keys)
// and skewed keys, large enough for every thread, into an output that starts
// 3 elements past a line boundary (a subview), with guard elements after it.
TEST(KeysDense, WideRangesAndOffsetOutput) {
  const i64 n = 70001;
  for (const bool skew : {false, true}) {
    for (const i64 K : {i64(2), i64(2048), i64(2049), i64(1) << 16, i64(300007)}) {
      const Wide w(n, -1000, K, 7u + static_cast<unsigned>(K), skew);
      const Rec<int> s{-5, -5};
      const auto all = filled<Rec<int>>(n + 3 + kPadDense, s);
      const auto out = Kokkos::subview(all, std::make_pair(i64(3), n + 3));
      const auto keys = sieve::keys::scatter_dense(TestExec{}, deviceOf(w.in), -1000,
                                                   static_cast<int>(-1000 + K - 1), out);
      EXPECT_EQ(keys.num_keys(), K);
      ASSERT_EQ(toHost(out), w.ref) << "K = " << K << (skew ? ", skewed" : "");
      ASSERT_EQ(offsetsOf(keys), w.refOff) << "K = " << K;
      const auto h = toHost(all);
      for (i64 i = 0; i < 3; ++i) ASSERT_EQ(h[static_cast<std::size_t>(i)], s);
      for (std::size_t i = static_cast<std::size_t>(n + 3); i < h.size(); ++i) ASSERT_EQ(h[i], s);
      // The range computed: the same bytes.
      DView<Rec<int>> out2("out2", n);
      sieve::keys::scatter_dense(TestExec{}, deviceOf(w.in), out2);
      ASSERT_EQ(toHost(out2), w.ref) << "K = " << K << ", range computed";
    }
  }
}

// A key functor that answers differently between the reads of the scatter:
// an exception, or (a change no count can see) every record exactly once;
// never a write outside the output.
TEST(KeysDense, ViewKeyChangesNeverLosesSilently) {
  const i64 n = 60000;
  for (const int K : {5, 3000, 70000}) {
    const Wide w(n, 0, K, 99u, false);
    const Rec<int> s{-9, -9};
    const auto all = filled<Rec<int>>(n + kPadDense, s);
    const auto out = Kokkos::subview(all, std::make_pair(i64(0), n));
    const ShiftingKey key{n, 0, K - 1, Kokkos::View<i64, TestMem>("calls")};
    bool threw = false;
    try {
      sieve::keys::scatter_dense(TestExec{}, sieve::keys::keyed(deviceOf(w.in), key), 0, K - 1,
                                 out);
    } catch (const std::invalid_argument&) {
      threw = true;
    }
    const auto h = toHost(all);
    for (std::size_t i = static_cast<std::size_t>(n); i < h.size(); ++i) ASSERT_EQ(h[i], s) << K;
    if (!threw) {
      std::vector<int> seen(static_cast<std::size_t>(n), 0);
      for (i64 p = 0; p < n; ++p) {
        const auto r = h[static_cast<std::size_t>(p)].rec;
        ASSERT_TRUE(r >= 0 && r < n) << "slot " << p << " not written, K = " << K;
        ++seen[static_cast<std::size_t>(r)];
      }
      for (const int c : seen) ASSERT_EQ(c, 1) << K;
    }
    EXPECT_TRUE(threw) << "K = " << K << ": a third of the keys moved, unreported";
  }
}

namespace {
// n 8-byte records over K keys from -7: every face must give the reference's
// bytes: blocking, range computed, and on a workspace, into an output 3
// elements past a line boundary; a key outside the range throws (blocking)
// or is surfaced by check() (workspace) with nothing written.
void expectLargeDense(const i64 n, const int K) {
  std::vector<Rec<int>> in(static_cast<std::size_t>(n));
  std::uint64_t x = 12345;
  for (i64 i = 0; i < n; ++i) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    in[static_cast<std::size_t>(i)] =
        Rec<int>{static_cast<int>((x >> 33) % K) - 7, static_cast<std::int32_t>(i)};
  }
  // The reference: a sequential counting sort (stable).
  const std::vector<i64> refOff = denseOffsets(in, -7, K - 8);
  std::vector<Rec<int>> ref(in.size());
  {
    std::vector<i64> cur(refOff.begin(), refOff.end() - 1);
    for (const auto& e : in)
      ref[static_cast<std::size_t>(cur[static_cast<std::size_t>(e.k + 7)]++)] = e;
  }
  const auto d = deviceOf(in);
  const Rec<int> s{-5, -5};
  const auto all = filled<Rec<int>>(static_cast<std::size_t>(n + 3 + kPadDense), s);
  const auto out = Kokkos::subview(all, std::make_pair(i64(3), n + 3));
  const auto guardsIntact = [&] {
    const auto h = toHost(all);
    for (std::size_t i = 0; i < 3; ++i)
      if (!(h[i] == s)) return false;
    for (std::size_t i = static_cast<std::size_t>(n + 3); i < h.size(); ++i)
      if (!(h[i] == s)) return false;
    return true;
  };
  {
    const ToolsLog tools;
    const auto keys = sieve::keys::scatter_dense(TestExec{}, d, -7, K - 8, out);
    EXPECT_EQ(toHost(out), ref);
    EXPECT_EQ(offsetsOf(keys), refOff);
    EXPECT_TRUE(guardsIntact());
#if defined(SIEVE_TEST_OPENMP)
    EXPECT_TRUE(ToolsLog::has("region sieve::keys::scatter_dense[openmp:dense_scatter]"))
        << ToolsLog::dump();
#endif
  }
  Kokkos::deep_copy(all, s);
  {
    const auto keys = sieve::keys::scatter_dense(TestExec{}, d, out); // range computed
    EXPECT_EQ(keys.min_key(), -7);
    EXPECT_EQ(toHost(out), ref);
    EXPECT_EQ(offsetsOf(keys), refOff);
  }
  Kokkos::deep_copy(all, s);
  const TestExec exec;
  const sieve::keys::DenseWorkspace<int, TestExec> ws(exec, n, -7, K - 8);
  {
    const auto keys = sieve::keys::scatter_dense(exec, d, out, ws);
    exec.fence();
    EXPECT_NO_THROW(keys.check("test"));
    EXPECT_EQ(toHost(out), ref);
    EXPECT_EQ(offsetsOf(keys), refOff);
    EXPECT_TRUE(guardsIntact());
  }
  // One key past the range, above it or below it (the native faces bound the
  // key's distance from min: a key below min wraps past max - min, also from
  // the type's extremes): nothing written, every key empty.
  for (const int outside :
       {K - 7, -8, std::numeric_limits<int>::min(), std::numeric_limits<int>::max()}) {
    SCOPED_TRACE("key " + std::to_string(outside));
    Kokkos::deep_copy(all, s);
    in[static_cast<std::size_t>(n / 3)].k = outside;
    const auto bad = deviceOf(in);
    EXPECT_THROW(sieve::keys::scatter_dense(TestExec{}, bad, -7, K - 8, out),
                 std::invalid_argument);
    EXPECT_TRUE(guardsIntact());
    {
      const auto keys = sieve::keys::scatter_dense(exec, bad, out, ws);
      exec.fence();
      EXPECT_THROW(keys.check("test"), std::invalid_argument);
      for (const i64 o : toHost(ws.offsets())) ASSERT_EQ(o, 0);
    }
    for (const auto& e : toHost(all)) ASSERT_EQ(e, s);
  }
}
} // namespace

namespace {

/// b - a for integers a <= b of type K, exact (the difference of their
/// 64-bit two's complement words: b - a < 2^64).
template <class K>
std::uint64_t above(const K a, const K b) {
  return static_cast<std::uint64_t>(b) - static_cast<std::uint64_t>(a);
}

/// DenseDigitOf over [lo, hi] for every key in [from, to] of type K: the
/// digit is key - lo inside the range and at least the range's size outside.
template <class K>
void expectDigitsBound(const K lo, const K hi, const K from, const K to) {
  const sieve::Impl::Keys::DenseDigitOf<K, Rec<K>> digitOf{lo};
  const std::uint64_t buckets = above(lo, hi) + 1; // (2^64 - 2 at most here)
  for (K k = from;; ++k) {
    const std::uint64_t d = digitOf(Rec<K>{k, 0});
    const bool inside = lo <= k && k <= hi;
    if (inside) ASSERT_EQ(d, above(lo, k)) << "key " << +k << " in [" << +lo << ", " << +hi << "]";
    else ASSERT_GE(d, buckets) << "key " << +k << " outside [" << +lo << ", " << +hi << "]";
    if (k == to) break;
  }
}

/// Ranges of K touching its limits, crossing zero and of one key, each
/// against every key of K (8- and 16-bit types) or the keys near the range's
/// ends and the type's limits (wider types).
template <class K>
void expectDigitsBoundAll() {
  using L = std::numeric_limits<K>;
  const K mn = L::min(), mx = L::max();
  const K mid = static_cast<K>(mn / 2 + mx / 2);
  const std::pair<K, K> ranges[] = {{mn, static_cast<K>(mn + 3)},
                                    {static_cast<K>(mx - 3), mx},
                                    {static_cast<K>(mid - 5), static_cast<K>(mid + 7)},
                                    {mid, mid},
                                    {static_cast<K>(mn + 1), static_cast<K>(mx - 1)}};
  for (const auto& r : ranges) {
    if constexpr (sizeof(K) <= 2) {
      expectDigitsBound<K>(r.first, r.second, mn, mx);
    } else {
      const K centres[] = {mn, r.first, r.second, mx};
      for (const K c : centres) {
        const K from = above(mn, c) < 8 ? mn : static_cast<K>(c - 8);
        const K to = above(c, mx) < 8 ? mx : static_cast<K>(c + 8);
        expectDigitsBound<K>(r.first, r.second, from, to);
      }
    }
  }
}

} // namespace

// The native faces' digit (the key's distance from min, bounded by the
// scatters alone) puts every key outside the range outside the buckets, for
// every integer key type: below min it wraps, also from the type's limits.
TEST(KeysDense, NativeDigitBoundsEveryKeyType) {
  expectDigitsBoundAll<std::int8_t>();
  expectDigitsBoundAll<std::uint8_t>();
  expectDigitsBoundAll<std::int16_t>();
  expectDigitsBoundAll<std::uint16_t>();
  expectDigitsBoundAll<std::int32_t>();
  expectDigitsBoundAll<std::uint32_t>();
  expectDigitsBoundAll<std::int64_t>();
  expectDigitsBoundAll<std::uint64_t>();
}

// Past 32 MiB of output with more than 2^12 keys the native faces run the
// scatter (OpenMP: denseScatterHost's two passes).
TEST(KeysDense, LargeOutputs) { expectLargeDense((i64(1) << 22) + 5, 70000); }

// Past 128 MiB of output with up to 2^11 keys the OpenMP face runs the
// native scatter's one pass (through line buffers of 8 lines a bucket).
TEST(KeysDense, LargeOutputsFewKeys) { expectLargeDense((i64(1) << 24) + 5, 1000); }

namespace {

/// How a large scatter_sparse on the OpenMP face sorts its keys.
enum class SparseWay { Dense, Records, RadixGather };

/// scatter_sparse of n records with keys keyOf(i) against std::stable_sort
/// and the distinct keys of a sequential pass (every backend); on the OpenMP
/// face, also the way it took (its kernels: the radix order and the gather
/// launch "radix_keys" and "gather", the others neither).
template <class K, class KeyOf>
void expectLargeSparse(const i64 n, const KeyOf& keyOf, const SparseWay way) {
  std::vector<Rec<K>> in(static_cast<std::size_t>(n));
  for (i64 i = 0; i < n; ++i)
    in[static_cast<std::size_t>(i)] = Rec<K>{keyOf(i), static_cast<std::int32_t>(i)};
  const auto ref = stableByKey(in, [](const Rec<K>& e) { return e.k; });
  std::vector<K> refKeys;
  std::vector<i64> refOff;
  for (i64 p = 0; p < n; ++p)
    if (p == 0 || ref[static_cast<std::size_t>(p)].k != ref[static_cast<std::size_t>(p - 1)].k) {
      refKeys.push_back(ref[static_cast<std::size_t>(p)].k);
      refOff.push_back(p);
    }
  refOff.push_back(n);
  DView<Rec<K>> out("out", static_cast<std::size_t>(n));
  const ToolsLog tools;
  const auto keys = sieve::keys::scatter_sparse(TestExec{}, deviceOf(in), out);
  EXPECT_EQ(keys.num_keys(), static_cast<i64>(refKeys.size()));
  EXPECT_EQ(keys.num_elements(), n);
  EXPECT_EQ(toHost(keys.keys()), refKeys);
  EXPECT_EQ(offsetsOf(keys), refOff);
  EXPECT_EQ(toHost(out), ref);
#if defined(SIEVE_TEST_OPENMP)
  // The region names the path that ran (a declined record sort first).
  const char* path = way == SparseWay::Dense     ? "dense_scatter"
                     : way == SparseWay::Records ? "record_sort"
                                                 : "radix_order";
  EXPECT_TRUE(ToolsLog::has(std::string("region sieve::keys::scatter_sparse[openmp:") + path + "]"))
      << ToolsLog::dump();
  EXPECT_EQ(ToolsLog::has("region sieve::keys::scatter_sparse[openmp:record_sort]"),
            way != SparseWay::Dense)
      << ToolsLog::dump();
  EXPECT_FALSE(ToolsLog::has("region sieve::keys::scatter_sparse[portable:portable_radix]"))
      << ToolsLog::dump();
  const bool radix = ToolsLog::has("kernel sieve::keys::scatter_sparse::radix_keys");
  const bool gather = ToolsLog::has("kernel sieve::keys::scatter_sparse::gather");
  EXPECT_EQ(radix, way == SparseWay::RadixGather) << ToolsLog::dump();
  EXPECT_EQ(gather, way == SparseWay::RadixGather) << ToolsLog::dump();
  EXPECT_EQ(ToolsLog::has("kernel sieve::keys::scatter_sparse::keys_present"),
            way == SparseWay::Dense)
      << ToolsLog::dump();
#else
  (void)way;
#endif
}

/// A 64-bit hash of i and a seed (the keys' bits).
std::uint64_t mixed(i64 i, std::uint64_t seed) {
  std::uint64_t x = static_cast<std::uint64_t>(i) * 0x9E3779B97F4A7C15ULL + seed;
  x ^= x >> 31;
  x *= 0xBF58476D1CE4E5B9ULL;
  return x ^ (x >> 29);
}

} // namespace

// scatter_sparse of keys whose span holds at most 2^23 keys, past 32 MiB of
// output: the native faces take the dense scatter, then the keys present.
// int64 keys far below zero, every third key of the span absent.
TEST(KeysSparse, LargeOutputsOfANarrowSpan) {
  using K64 = std::int64_t;
  const K64 base = -(K64(1) << 40);
  expectLargeSparse<K64>((i64(1) << 21) + 7, // 16-byte records: just past 32 MiB
                         [&](i64 i) {
                           const K64 k = static_cast<K64>((mixed(i, 777) >> 33) % 300000);
                           return base + (k % 3 == 1 ? k - 1 : k);
                         },
                         SparseWay::Dense);
}

// Past 16 MiB of records of up to 32 bytes with wider spans, the OpenMP face
// moves the records themselves (sparseScatterHost: a scatter by the top
// digit, each run sorted in cache), no gather: int64 keys over 2^40 below
// zero; uint64 keys over the whole range with both extremes; int32 keys over
// the whole range (8-byte records); and keys that repeat in long stretches.
TEST(KeysSparse, LargeOutputsOfAWideSpan) {
  const i64 n = (i64(1) << 20) + 7; // 16-byte records: just past 16 MiB
  expectLargeSparse<std::int64_t>(
      n,
      [](i64 i) { return -(std::int64_t(1) << 40) + static_cast<std::int64_t>(mixed(i, 5) >> 24); },
      SparseWay::Records);
  using U64 = std::numeric_limits<std::uint64_t>;
  expectLargeSparse<std::uint64_t>(
      n, [](i64 i) { return i == 3   ? U64::max()
                            : i == 5 ? U64::min()
                                     : mixed(i, 6); },
      SparseWay::Records);
  expectLargeSparse<std::int32_t>((i64(1) << 21) + 3,
                                  [](i64 i) { return static_cast<std::int32_t>(mixed(i, 7)); },
                                  SparseWay::Records);
  expectLargeSparse<std::int64_t>(
      n, [](i64 i) { return static_cast<std::int64_t>(mixed(i / 1000, 8) >> 2); },
      SparseWay::Records);
}

// Skewed wide keys (half of them one key: its run is longer than the run
// sort takes): the OpenMP face sorts the keys (radix order) and gathers.
TEST(KeysSparse, LargeOutputsOfSkewedWideKeys) {
  expectLargeSparse<std::int64_t>(
      (i64(1) << 20) + 9,
      [](i64 i) {
        return i % 2 == 0 ? std::int64_t(12345) : static_cast<std::int64_t>(mixed(i, 9) >> 14);
      },
      SparseWay::RadixGather);
}

#if defined(SIEVE_TEST_OPENMP)
namespace {

/// A record whose key() answers differently from its `after`-th call on
/// (every third record: its key's bit `bit` flipped), for the OpenMP face's
/// record sort, which reads every key once for the extent, once for the
/// count, once for the scatter, in the sort of each run, and last for the
/// offsets.
std::atomic<i64> g_keyCalls{0};
i64 g_keyAfter = -1;
int g_keyBit = 0;
struct Flaky {
  std::int64_t k, id;
  std::int64_t key() const {
    const i64 c = g_keyCalls.fetch_add(1, std::memory_order_relaxed);
    return g_keyAfter >= 0 && c >= g_keyAfter && id % 3 == 0 ? k ^ (std::int64_t(1) << g_keyBit)
                                                             : k;
  }
};

} // namespace

// A key that changes on any read of the record sort throws, with every record
// written at most once (nothing outside the output).
TEST(KeysSparse, KeyChangingDuringTheRecordSortThrows) {
  const i64 n = (i64(1) << 20) + 3;
  Kokkos::View<Flaky*, Kokkos::HostSpace> in("in", n), out("out", n);
  for (i64 i = 0; i < n; ++i)
    in(i) = Flaky{static_cast<std::int64_t>(mixed(i, 11) >> 20), static_cast<std::int64_t>(i)};
  // How many times the call reads each key (a pure call, counted).
  for (i64 i = 0; i < n; ++i) out(i) = Flaky{-1, -1};
  g_keyCalls = 0;
  g_keyAfter = -1;
  {
    const ToolsLog tools;
    sieve::keys::scatter_sparse(TestExec{}, in, out);
    // The record sort, not the radix order and gather.
    ASSERT_TRUE(ToolsLog::has("region sieve::keys::scatter_sparse[openmp:record_sort]"))
        << ToolsLog::dump();
    ASSERT_FALSE(ToolsLog::has("region sieve::keys::scatter_sparse[openmp:radix_order]"))
        << ToolsLog::dump();
    ASSERT_FALSE(ToolsLog::has("kernel sieve::keys::scatter_sparse::gather")) << ToolsLog::dump();
  }
  const i64 calls = g_keyCalls.load();
  ASSERT_EQ(calls % n, 0) << "every key read the same number of times";
  const i64 passes = calls / n;
  // The extent, the count, the scatter, at least one read in the run sort,
  // the offsets.
  ASSERT_GE(passes, 5);
  // From the read after the count, after the scatter (the record leaves
  // its run), and the last (the offsets see keys out of order). (A key
  // that changes before the count, and stays, is sorted as it now is.)
  const std::pair<i64, int> cases[] = {{2, 42}, {3, 42}, {passes - 1, 42}};
  for (const auto& [reads, bit] : cases) {
    for (i64 i = 0; i < n; ++i) out(i) = Flaky{-1, -1};
    g_keyCalls = 0;
    g_keyAfter = reads * n;
    g_keyBit = bit;
    EXPECT_THROW(sieve::keys::scatter_sparse(TestExec{}, in, out), std::invalid_argument)
        << "from read " << reads;
    g_keyAfter = -1;
    std::vector<char> seen(static_cast<std::size_t>(n), 0);
    for (i64 i = 0; i < n; ++i) {
      const auto id = out(i).id;
      if (id < 0) continue;
      ASSERT_LT(id, n);
      ASSERT_EQ(seen[static_cast<std::size_t>(id)], 0) << "a record written twice";
      seen[static_cast<std::size_t>(id)] = 1;
    }
  }
  // Pure again: sorted.
  const auto keys = sieve::keys::scatter_sparse(TestExec{}, in, out);
  EXPECT_EQ(keys.num_elements(), n);
  for (i64 i = 1; i < n; ++i) ASSERT_LE(out(i - 1).k, out(i).k);
}
#endif
// Every scatter_sparse opens one region named after the path its plan chose
// (core/keys_plan.hpp), and the result is the stable sort's whatever the path.
TEST(KeysSparse, RegionNamesThePathThatRuns) {
  const auto sparseRegions = [] {
    std::vector<std::string> r;
    for (const auto& e : ToolsLog::events())
      if (e.rfind("region sieve::keys::scatter_sparse[", 0) == 0) r.push_back(e);
    return r;
  };
  const auto check = [&](const auto& v, const std::string& want) {
    using E = typename std::decay_t<decltype(v)>::value_type;
    auto out = sieve_test::DView<E>("out", v.size());
    const ToolsLog tools;
    const auto keys = sieve::keys::scatter_sparse(TestExec{}, deviceOf(v), out);
    const auto ref = stableByKey(v, [](const E& e) { return e.key(); });
    EXPECT_TRUE(sieve_test::toHost(out) == ref) << want;
    EXPECT_EQ(keys.num_elements(), static_cast<i64>(v.size()));
    const auto regions = sparseRegions();
    ASSERT_EQ(regions.size(), 1u) << ToolsLog::dump();
    if (!want.empty()) EXPECT_EQ(regions[0], "region sieve::keys::scatter_sparse[" + want + "]");
  };
  check(std::vector<Rec<std::int64_t>>{}, "portable:empty");
  std::vector<Rec<std::int64_t>> same(1000);
  for (int i = 0; i < 1000; ++i) same[static_cast<std::size_t>(i)] = {-5, i};
  check(same, "portable:one_key");
  std::vector<Rec<double>> reals(1000);
  for (int i = 0; i < 1000; ++i) reals[static_cast<std::size_t>(i)] = {(i * 37 % 101) * 0.5, i};
  check(reals, "portable:merge_sort");
  std::vector<Rec<std::int64_t>> wide(5000);
  for (int i = 0; i < 5000; ++i)
    wide[static_cast<std::size_t>(i)] = {static_cast<std::int64_t>(mixed(i, 3) >> 3), i};
#if defined(SIEVE_TEST_SERIAL)
  check(wide, "portable:portable_radix");
#else
  // The native face's own rules choose among its paths: any one region.
  check(wide, "");
#endif
  // With the native face switched off (benchmarks and tests), the generic path.
  const sieve::Impl::ForcePortable portable;
  check(wide, "portable:portable_radix");
}
