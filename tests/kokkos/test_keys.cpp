// SPDX-License-Identifier: Apache-2.0
// Sieve Kokkos tests — sieve::keys beyond the dense scatter (that is
// test_keys_dense.cpp): sparse scatters (integer extremes, hashes, pairs,
// floating-point keys, NaN rejected), 1-to-M mappers (and mappers whose counts
// or keys change between the passes), reduce / group / compact with the ready
// functors and with user functors (non-adjacent repeated values, counts outside
// a key, NaN values), for_each_key_range on a 90%-one-key distribution, the
// tetrahedral mesh unique-edges example, the no-instance and label forms, and
// the misuse errors. Every result is compared with a plain sequential
// reference (std::stable_sort, std::sort + std::unique) element by element,
// so every backend and thread count is held to the same values.
#include "backend.hpp"
#include "keys_helpers.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

using namespace sieve_test;

namespace {

/// A value with a key (for reduce / group: equal values are duplicates).
struct Item {
  std::int32_t k;
  std::int32_t v;
  KOKKOS_INLINE_FUNCTION std::int32_t key() const { return k; }
  KOKKOS_INLINE_FUNCTION bool operator<(const Item& o) const { return v < o.v; }
};
bool operator==(const Item& a, const Item& b) { return a.k == b.k && a.v == b.v; }

} // namespace

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

struct FloatKey {
  KOKKOS_INLINE_FUNCTION double operator()(const Rec<double>& e) const { return e.k; }
};
} // namespace

TEST(KeysSparse, Hashes) {
  std::vector<std::int64_t> pool;
  for (int k = 0; k < 103; ++k) pool.push_back(spread(k));
  checkSparse(pool, 1033);
  checkSparse(pool, 20000);
}

// Enough elements for every thread of a native radix order to take a chunk
// (and its line buffers to fill whole lines), over wide keys and over keys
// that share their high bytes (digits no pass needs).
TEST(KeysSparse, ManyElementsWideAndNarrowKeys) {
  std::vector<std::int64_t> wide, narrow;
  for (int k = 0; k < 40009; ++k) {
    wide.push_back(spread(k));
    narrow.push_back((std::int64_t(1) << 50) + (spread(k) & 0xFFFFF));
  }
  checkSparse(wide, 300007);
  checkSparse(narrow, 200003);
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

TEST(KeysSparse, FloatKeys) {
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

namespace {
/// The reference distinct keys and offsets of records sorted by key.
template <class E, class KeyFn>
void expectKeysOf(const std::vector<E>& sorted, KeyFn key, const std::vector<i64>& offsets,
                  const std::vector<decltype(key(sorted[0]))>& keys, const std::string& at) {
  std::vector<decltype(key(sorted[0]))> distinct;
  std::vector<i64> off;
  for (std::size_t p = 0; p < sorted.size(); ++p)
    if (p == 0 || key(sorted[p - 1]) < key(sorted[p])) {
      distinct.push_back(key(sorted[p]));
      off.push_back(static_cast<i64>(p));
    }
  off.push_back(static_cast<i64>(sorted.size()));
  EXPECT_EQ(keys, distinct) << at;
  EXPECT_EQ(offsets, off) << at;
}

/// scatter_sparse of `in` given the workspace, against the same call without
/// it and a sequential reference (the records, the keys, the offsets);
/// returns its keys.
template <class Ws>
auto expectWorkspaceCall(const std::vector<Rec<std::int64_t>>& in, const Ws& ws,
                         const std::string& at) {
  const TestExec exec;
  const auto key = [](const Rec<std::int64_t>& e) { return e.k; };
  const auto ref = stableByKey(in, key);
  const auto dIn = deviceOf(in);
  DView<Rec<std::int64_t>> out("out", in.size()), plainOut("plain_out", in.size());
  const auto keys = sieve::keys::scatter_sparse(exec, dIn, out, ws);
  const auto plain = sieve::keys::scatter_sparse(exec, dIn, plainOut);
  EXPECT_EQ(toHost(out), ref) << at;
  EXPECT_EQ(toHost(out), toHost(plainOut)) << at;
  EXPECT_EQ(keys.num_keys(), plain.num_keys()) << at;
  expectKeysOf(ref, key, offsetsOf(keys), toHost(keys.keys()), at);
  EXPECT_EQ(toHost(keys.keys()), toHost(plain.keys())) << at;
  EXPECT_EQ(offsetsOf(keys), offsetsOf(plain)) << at;
  return keys;
}
} // namespace

// One SparseWorkspace through calls of every path (no element first, on the
// fresh workspace; narrow keys; a few keys; wide hashes, on the native sort
// where it pays; one key): each call gives the bytes of the call without it,
// its keys are Views of exactly num_keys() (+ 1) entries, and a call whose
// keys fit the buffers reuses them (no new result memory); one with more keys
// grows them.
TEST(KeysSparseWorkspace, SameResultsAndBuffersReused) {
  sieve::keys::SparseWorkspace<std::int64_t, TestExec> ws;
  EXPECT_EQ(ws.capacity(), 0);
  struct Case {
    int n;
    int distinct; // 0: every key distinct (hashes of the index)
    bool narrow;
  };
  const Case cases[] = {{0, 0, false},       {20000, 0, true}, {5000, 3, false},
                        {1100003, 0, false}, {1000, 1, false}, {1100003, 0, false}};
  const void* buffer = nullptr;
  i64 capacity = -1; // (before the first call)
  for (const Case& c : cases) {
    std::vector<Rec<std::int64_t>> in(static_cast<std::size_t>(c.n));
    for (int i = 0; i < c.n; ++i) {
      const std::int64_t h = spread(c.distinct > 0 ? i % c.distinct : i);
      in[static_cast<std::size_t>(i)] = Rec<std::int64_t>{c.narrow ? h & 0xFFFF : h, i};
    }
    const std::string at = "n = " + std::to_string(c.n);
    const auto keys = expectWorkspaceCall(in, ws, at);
    EXPECT_EQ(keys.num_elements(), c.n) << at;
    EXPECT_EQ(static_cast<i64>(keys.keys().extent(0)), keys.num_keys()) << at;
    EXPECT_EQ(static_cast<i64>(keys.offsets().extent(0)), keys.num_keys() + 1) << at;
    EXPECT_EQ(keys.offset(keys.num_keys()), c.n) << at;
    EXPECT_GE(ws.capacity(), keys.num_keys()) << at;
    if (keys.num_keys() <= capacity) {
      EXPECT_EQ(static_cast<const void*>(keys.keys().data()), buffer) << at << ": not reused";
      EXPECT_EQ(ws.capacity(), capacity) << at;
    } else if (capacity >= 0) {
      EXPECT_EQ(ws.capacity(), std::max<i64>(keys.num_keys(), capacity + capacity / 2)) << at;
    }
    buffer = keys.keys().data();
    capacity = ws.capacity();
  }
}

// The keys of a call are the workspace's until its next call: then every
// use of the older keys throws (their offsets are the new call's), the new
// ones work, and a copy of the workspace is the same workspace.
TEST(KeysSparseWorkspace, OlderKeysThrowAfterTheNextCall) {
  const TestExec exec;
  const int n = 3000;
  std::vector<Rec<std::int64_t>> a(n), b(n);
  for (int i = 0; i < n; ++i) {
    a[static_cast<std::size_t>(i)] = Rec<std::int64_t>{spread(i % 40), i};
    b[static_cast<std::size_t>(i)] = Rec<std::int64_t>{spread(i % 70), i};
  }
  sieve::keys::SparseWorkspace<std::int64_t, TestExec> ws;
  const auto copy = ws;
  DView<Rec<std::int64_t>> outA("out_a", n), outB("out_b", n), red("reduced", n);
  const auto first = sieve::keys::scatter_sparse(exec, deviceOf(a), outA, ws);
  EXPECT_EQ(first.offset(40), n);
  const auto second = sieve::keys::scatter_sparse("labelled", exec, deviceOf(b), outB, copy);
  EXPECT_THROW(first.offset(0), std::invalid_argument);
  EXPECT_THROW(sieve::keys::reduce(exec, first, red, sieve::keys::SortUnique{}),
               std::invalid_argument);
  EXPECT_THROW(sieve::keys::group(exec, first, red, sieve::keys::SortGroup{}),
               std::invalid_argument);
  EXPECT_THROW(sieve::keys::for_each_key_range(exec, first, red, Noop{}), std::invalid_argument);
  Kokkos::View<std::int64_t*, TestExec::memory_space> sums("sums", 40);
  const auto ids = Kokkos::View<std::int64_t*, TestExec::memory_space>("ids", n);
  EXPECT_THROW(sieve::keys::reduce_by_key(exec, first, ids, std::int64_t(0), sieve::Sum{}, sums),
               std::invalid_argument);
  EXPECT_EQ(second.num_keys(), 70);
  EXPECT_EQ(second.offset(70), n);
  EXPECT_EQ(toHost(outB), stableByKey(b, [](const Rec<std::int64_t>& e) { return e.k; }));
  // A call given the workspace makes the keys before it stale even when its
  // arguments are rejected (it writes nothing then).
  DView<Rec<std::int64_t>> shortOut("short", n - 1);
  EXPECT_THROW(sieve::keys::scatter_sparse(exec, deviceOf(a), shortOut, ws), std::invalid_argument);
  EXPECT_THROW(second.offset(0), std::invalid_argument);
  // compact takes reduced keys only from the very call that made them: two
  // calls with as many keys share the buffers' address, not their offsets.
  auto c = a;
  std::reverse(c.begin(), c.end());
  DView<Rec<std::int64_t>> outC("out_c", n), kept("kept", n);
  const auto third = sieve::keys::scatter_sparse(exec, deviceOf(a), outA, ws);
  const auto unique = sieve::keys::reduce(exec, third, outA, sieve::keys::SortUnique{});
  EXPECT_EQ(sieve::keys::compact(exec, third, unique, outA, kept), unique.num_elements());
  const auto fourth = sieve::keys::scatter_sparse(exec, deviceOf(c), outC, ws);
  ASSERT_EQ(fourth.num_keys(), third.num_keys());
  ASSERT_EQ(fourth.offsets().data(), third.offsets().data());
  EXPECT_THROW(sieve::keys::compact(exec, fourth, unique, outC, kept), std::invalid_argument);
}

// An input of no element writes its one offset (0) into buffers that held
// another call's; a moved-from workspace stays usable (a move copies).
TEST(KeysSparseWorkspace, EmptyInputAndMovedFromWorkspace) {
  const TestExec exec;
  sieve::keys::SparseWorkspace<std::int64_t, TestExec> ws(exec, 10);
  Kokkos::deep_copy(ws.kept().offsets, std::int64_t(-7)); // poison
  DView<Rec<std::int64_t>> none("none", 0);
  const auto empty = sieve::keys::scatter_sparse(exec, none, none, ws);
  EXPECT_EQ(empty.num_keys(), 0);
  EXPECT_EQ(empty.num_elements(), 0);
  EXPECT_EQ(offsetsOf(empty), std::vector<i64>{0});
  EXPECT_EQ(empty.offsets().data(), ws.kept().offsets.data());
  sieve::keys::SparseWorkspace<std::int64_t, TestExec> moved(std::move(ws));
  EXPECT_EQ(ws.capacity(), 10); // NOLINT(bugprone-use-after-move): a move copies
  std::vector<Rec<std::int64_t>> in(100);
  for (int i = 0; i < 100; ++i) in[static_cast<std::size_t>(i)] = Rec<std::int64_t>{i % 7, i};
  DView<Rec<std::int64_t>> out("out", 100);
  const auto keys = sieve::keys::scatter_sparse(exec, deviceOf(in), out, ws);
  EXPECT_EQ(keys.num_keys(), 7);
  EXPECT_THROW(empty.offset(0), std::invalid_argument);
  EXPECT_EQ(sieve::keys::scatter_sparse(exec, deviceOf(in), out, moved).num_keys(), 7);
  EXPECT_THROW(keys.offset(0), std::invalid_argument); // (moved is ws: copies share)
}

// A call reading or writing the workspace's buffers (the previous call's
// keys as its input or its output) takes fresh ones: the result is right and
// what it read was not overwritten while read.
TEST(KeysSparseWorkspace, BuffersAsInputOrOutputAreNotOverwritten) {
  const TestExec exec;
  const int n = 4000;
  std::vector<Rec<std::int64_t>> in(n);
  for (int i = 0; i < n; ++i) in[static_cast<std::size_t>(i)] = Rec<std::int64_t>{spread(n - i), i};
  sieve::keys::SparseWorkspace<std::int64_t, TestExec> ws;
  DView<Rec<std::int64_t>> out("out", n);
  const auto first = sieve::keys::scatter_sparse(exec, deviceOf(in), out, ws);
  ASSERT_EQ(first.num_keys(), n);
  // The keys (integers: their own keys) scattered again, read from the buffers.
  const auto keysIn = first.keys();
  auto ints = toHost(keysIn);
  std::reverse(ints.begin(), ints.end());
  const auto dInts = toDevice(ints);
  Kokkos::deep_copy(keysIn, dInts); // descending now, in the workspace's buffer
  DView<std::int64_t> sortedOut("sorted", n);
  const auto again = sieve::keys::scatter_sparse(exec, keysIn, sortedOut, ws);
  std::reverse(ints.begin(), ints.end());
  EXPECT_EQ(toHost(sortedOut), ints);
  EXPECT_EQ(toHost(again.keys()), ints);
  EXPECT_NE(static_cast<const void*>(again.keys().data()), static_cast<const void*>(keysIn.data()));
  // The buffers as the output: the keys go elsewhere.
  const auto outIn = again.keys();
  std::vector<std::int64_t> small(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) small[static_cast<std::size_t>(i)] = (i * 7) % 13;
  const auto third = sieve::keys::scatter_sparse(exec, toDevice(small), outIn, ws);
  std::sort(small.begin(), small.end());
  EXPECT_EQ(toHost(outIn), small);
  EXPECT_EQ(third.num_keys(), 13);
  const std::vector<std::int64_t> thirteen = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  EXPECT_EQ(toHost(third.keys()), thirteen);
  // The offsets buffer (int64 words) as the input: it is read, not overwritten.
  const auto offsetsIn = Kokkos::subview(
      ws.kept().offsets, std::make_pair(std::size_t(0), static_cast<std::size_t>(n)));
  std::vector<std::int64_t> words(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) words[static_cast<std::size_t>(i)] = (i * 11) % 17;
  Kokkos::deep_copy(offsetsIn, toDevice(words));
  DView<std::int64_t> wordsOut("words_out", n);
  const auto fourth = sieve::keys::scatter_sparse(exec, offsetsIn, wordsOut, ws);
  std::sort(words.begin(), words.end());
  EXPECT_EQ(toHost(wordsOut), words);
  EXPECT_EQ(fourth.num_keys(), 17);
  EXPECT_EQ(fourth.offset(17), n);
}

// The reserving constructor: its capacity, used without growing; its
// argument checks; a workspace of another key type (pairs, merge sort).
TEST(KeysSparseWorkspace, ReserveAndOtherKeyTypes) {
  const TestExec exec;
  sieve::keys::SparseWorkspace<std::int64_t, TestExec> ws(exec, 500);
  EXPECT_EQ(ws.capacity(), 500);
  std::vector<Rec<std::int64_t>> in(2000);
  for (int i = 0; i < 2000; ++i) in[static_cast<std::size_t>(i)] = Rec<std::int64_t>{i % 500, i};
  DView<Rec<std::int64_t>> out("out", 2000);
  const void* before = ws.kept().keys.data();
  const auto keys = sieve::keys::scatter_sparse(exec, deviceOf(in), out, ws);
  EXPECT_EQ(keys.num_keys(), 500);
  EXPECT_EQ(static_cast<const void*>(keys.keys().data()), before);
  EXPECT_EQ(ws.capacity(), 500);
  // Growth: to max(keys, 1.5 x the capacity) (not capped by a call's elements:
  // a loop whose key count creeps up regrows once in a while, not every call).
  for (int i = 0; i < 2000; ++i) in[static_cast<std::size_t>(i)].k = i % 600;
  EXPECT_EQ(sieve::keys::scatter_sparse(exec, deviceOf(in), out, ws).num_keys(), 600);
  EXPECT_EQ(ws.capacity(), 750);
  for (int i = 0; i < 2000; ++i) in[static_cast<std::size_t>(i)].k = i % 1900;
  EXPECT_EQ(sieve::keys::scatter_sparse(exec, deviceOf(in), out, ws).num_keys(), 1900);
  EXPECT_EQ(ws.capacity(), 1900);
  for (int i = 0; i < 2000; ++i) in[static_cast<std::size_t>(i)].k = i;
  EXPECT_EQ(sieve::keys::scatter_sparse(exec, deviceOf(in), out, ws).num_keys(), 2000);
  EXPECT_EQ(ws.capacity(), 2850);
  using Ws = sieve::keys::SparseWorkspace<std::int64_t, TestExec>;
  EXPECT_THROW(Ws(exec, -1), std::invalid_argument);
  EXPECT_THROW(Ws(exec, std::int64_t(1) << 31), std::invalid_argument);
  std::vector<Rec<int>> pin(1500);
  for (int i = 0; i < 1500; ++i) pin[static_cast<std::size_t>(i)] = Rec<int>{(i * 37) % 101, i};
  sieve::keys::SparseWorkspace<Kokkos::pair<int, int>, TestExec> pws;
  DView<Rec<int>> pout("pairs_out", 1500), plainOut("pairs_plain", 1500);
  const auto pk =
      sieve::keys::scatter_sparse(exec, sieve::keys::keyed(deviceOf(pin), PairKey{}), pout, pws);
  const auto pp =
      sieve::keys::scatter_sparse(exec, sieve::keys::keyed(deviceOf(pin), PairKey{}), plainOut);
  EXPECT_EQ(toHost(pout), toHost(plainOut));
  ASSERT_EQ(pk.num_keys(), pp.num_keys());
  EXPECT_EQ(offsetsOf(pk), offsetsOf(pp));
  const auto a = toHost(pk.keys()), b = toHost(pp.keys());
  for (std::size_t k = 0; k < a.size(); ++k)
    EXPECT_TRUE(a[k].first == b[k].first && a[k].second == b[k].second) << k;
}

// Integer keys that take the native radix order (wide keys below the record
// sort's size; skewed ones above it) sort in the workspace's scratch: the
// calls give the bytes of calls without it, a call that fits reuses the
// scratch (the same memory), a larger one grows it. (The portable face
// sorts without it.)
TEST(KeysSparseWorkspace, RadixOrderScratchKept) {
  sieve::keys::SparseWorkspace<std::int64_t, TestExec> ws;
  EXPECT_EQ(ws.scratch_bytes(), 0u);
  // What a call does to the scratch of the calls before it.
  enum class Then { Fresh, Reused, GrownByHalf, GrownToNeed };
  struct Case {
    int n;
    bool skewed; // half the keys one key
    Then then;
  };
  const Case cases[] = {{300007, false, Then::Fresh},
                        {200003, false, Then::Reused},
                        {330007, false, Then::GrownByHalf}, // needs more, less than 1.5x
                        {1100009, true, Then::GrownToNeed}, // needs more than 1.5x
                        {300007, true, Then::Reused}};
  const void* scratch = nullptr;
  std::size_t bytes = 0;
  for (const Case& c : cases) {
    std::vector<Rec<std::int64_t>> in(static_cast<std::size_t>(c.n));
    for (int i = 0; i < c.n; ++i)
      in[static_cast<std::size_t>(i)] =
          Rec<std::int64_t>{c.skewed && i % 2 == 0 ? std::int64_t(4242) : spread(i), i};
    const std::string at = "n = " + std::to_string(c.n) + (c.skewed ? ", skewed" : "");
    expectWorkspaceCall(in, ws, at);
    const void* now = ws.kept().scratch.data();
#if !defined(SIEVE_TEST_SERIAL)
    // A native radix order: 32 bytes an element or more (the words, the
    // order, the sort's).
    EXPECT_GE(ws.scratch_bytes(), 32u * static_cast<std::size_t>(c.n)) << at;
#endif
    if (ws.scratch_bytes() > 0) { // (the portable face sorts without it)
      switch (c.then) {
      case Then::Fresh: EXPECT_EQ(scratch, nullptr) << at; break;
      case Then::Reused:
        EXPECT_EQ(now, scratch) << at << ": not reused";
        EXPECT_EQ(ws.scratch_bytes(), bytes) << at;
        break;
      case Then::GrownByHalf:
        EXPECT_NE(now, scratch) << at;
        EXPECT_EQ(ws.scratch_bytes(), bytes + bytes / 2) << at;
        break;
      case Then::GrownToNeed:
        EXPECT_NE(now, scratch) << at;
        EXPECT_GT(ws.scratch_bytes(), bytes + bytes / 2) << at;
        EXPECT_LT(ws.scratch_bytes(), 40u * static_cast<std::size_t>(c.n)) << at << ": the need";
        break;
      }
    }
    scratch = now;
    bytes = ws.scratch_bytes();
  }
}

// A call whose output lies in the workspace's scratch (a View that does not
// own it) takes fresh scratch and keeps the replaced one until it returns:
// the output is written while it is still there (a freed buffer would be
// unmapped under the call's writes).
TEST(KeysSparseWorkspace, OutputOverTheReplacedScratch) {
  const TestExec exec;
  sieve::keys::SparseWorkspace<std::int64_t, TestExec> ws;
  const int n = 200003;
  std::vector<Rec<std::int64_t>> in(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) in[static_cast<std::size_t>(i)] = Rec<std::int64_t>{spread(i), i};
  const auto dIn = deviceOf(in);
  DView<Rec<std::int64_t>> out("out", static_cast<std::size_t>(n));
  sieve::keys::scatter_sparse(exec, dIn, out, ws);
  if (ws.scratch_bytes() == 0) GTEST_SKIP() << "this face sorts without the scratch";
  ASSERT_GE(ws.scratch_bytes(), sizeof(Rec<std::int64_t>) * static_cast<std::size_t>(n));
  const void* before = ws.kept().scratch.data();
  const Kokkos::View<Rec<std::int64_t>*, typename TestExec::memory_space,
                     Kokkos::MemoryTraits<Kokkos::Unmanaged>>
      over(reinterpret_cast<Rec<std::int64_t>*>(ws.kept().scratch.data()), n);
  const auto keys = sieve::keys::scatter_sparse(exec, dIn, over, ws);
  EXPECT_NE(ws.kept().scratch.data(), before);
  EXPECT_EQ(keys.num_keys(), n); // (over is gone with the replaced scratch)
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

// Mappers whose counts or keys misbehave: every call either matches the
// sequential reference or throws std::invalid_argument with nothing written
// outside the Views it was given.
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

template <class E>
std::vector<std::int32_t> recsOf(const std::vector<E>& v) {
  std::vector<std::int32_t> r;
  for (const auto& e : v) r.push_back(e.rec);
  std::sort(r.begin(), r.end());
  return r;
}
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

TEST(KeysMapper, NegativeCountRejected) {
  const Rec<int> s{-9, -9};
  Guarded<Rec<int>> g(0, s);
  const NegativeCount m;
  EXPECT_THROW(sieve::keys::count_elements(TestExec{}, m), std::invalid_argument);
  EXPECT_THROW(sieve::keys::scatter_dense(TestExec{}, m, 0, 2, g.out), std::invalid_argument);
  EXPECT_THROW(sieve::keys::scatter_dense(TestExec{}, m, g.out), std::invalid_argument);
  EXPECT_THROW(sieve::keys::scatter_sparse(TestExec{}, m, g.out), std::invalid_argument);
  EXPECT_TRUE(g.padIntact());
}

TEST(KeysMapper, CountChangesBetweenPasses) {
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

TEST(KeysMapper, KeyChangesNeverLosesSilently) {
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

/// Writes a count one past the size of key id 1 and -1 for key id 2.
struct BadCounts {
  template <class Out, class Off, class Counts>
  KOKKOS_INLINE_FUNCTION void operator()(const Out&, i64 b, i64 e, const Off& off,
                                         const Counts& counts) const {
    for (i64 k = b; k < e; ++k) counts(k) = k == 1 ? off(k + 1) - off(k) + 1 : k == 2 ? -1 : 0;
  }
};

/// A value whose operator< is not a strict weak order when v is NaN.
struct Real {
  std::int32_t k;
  double v;
  KOKKOS_INLINE_FUNCTION std::int32_t key() const { return k; }
  KOKKOS_INLINE_FUNCTION bool operator<(const Real& o) const { return v < o.v; }
};
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

TEST(KeysReduce, CountsOutsideTheKeyRejected) {
  std::vector<Item> in;
  for (int i = 0; i < 40; ++i) in.push_back(Item{i % 4, i});
  DView<Item> out("out", in.size());
  const auto keys = sieve::keys::scatter_dense(TestExec{}, deviceOf(in), out);
  EXPECT_THROW(sieve::keys::reduce(TestExec{}, keys, out, BadCounts{}), std::invalid_argument);
}

TEST(KeysReduce, CompactMisuseRejected) {
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

TEST(KeysReduce, SortUniqueWithNaNNeverLosesSilently) {
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

TEST(KeysRanges, ForEachKeyRangeShortOutputRejected) {
  std::vector<Item> in;
  for (int i = 0; i < 40; ++i) in.push_back(Item{i % 4, i});
  DView<Item> out("out", in.size()), small("small", 39);
  const auto keys = sieve::keys::scatter_dense(TestExec{}, deviceOf(in), out);
  EXPECT_THROW(sieve::keys::for_each_key_range(TestExec{}, keys, small, Noop{}),
               std::invalid_argument);
  sieve::keys::for_each_key_range(TestExec{}, keys, out, Noop{});
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
