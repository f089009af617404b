// SPDX-License-Identifier: Apache-2.0
// Sieve Kokkos tests — scatter_sparse with a fixed SparseWorkspace (the
// asynchronous form): the same elements, offsets and keys as a sequential
// reference (std::stable_sort) for every integer width and signedness
// (extremes and hashes), and as the blocking form for View and keyed
// inputs; sizes up to the workspace's and 0; no allocation, reduction, deep
// copy or fence inside the call (Kokkos Tools); the key count on the device
// and the empty key ids past it, taken by reduce_by_key, reduce and
// for_each_key_range as they are; more distinct keys than the capacity
// leave every key empty and surface at check(); and the misuses, each a
// std::invalid_argument with nothing written.
#include "backend.hpp"
#include "keys_helpers.hpp"
#include "tools_log.hpp"

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

using namespace sieve_test;

namespace {

/// Keys of every kind for width K: extremes, a narrow run and hashes.
template <class K>
std::vector<K> keyPool(int distinct) {
  std::vector<K> pool;
  pool.push_back(std::numeric_limits<K>::lowest());
  pool.push_back(std::numeric_limits<K>::max());
  pool.push_back(K(0));
  for (int i = 0; pool.size() < static_cast<std::size_t>(distinct); ++i) {
    std::uint64_t z = static_cast<std::uint64_t>(i + 1) * 0x9E3779B97F4A7C15ULL;
    z ^= z >> 31;
    pool.push_back(static_cast<K>(i % 3 == 0 ? static_cast<std::uint64_t>(i) : z));
  }
  return pool;
}

/// The reference of a call: its output, its distinct keys and their offsets.
template <class K>
struct Ref {
  std::vector<Rec<K>> out;
  std::vector<K> keys;
  std::vector<i64> offsets;
};
template <class K>
Ref<K> reference(const std::vector<Rec<K>>& in) {
  Ref<K> r;
  r.out = stableByKey(in, [](const Rec<K>& e) { return e.k; });
  for (std::size_t p = 0; p < r.out.size(); ++p)
    if (p == 0 || r.out[p - 1].k < r.out[p].k) {
      r.keys.push_back(r.out[p].k);
      r.offsets.push_back(static_cast<i64>(p));
    }
  return r;
}

/// One asynchronous call against the reference: the keys up to the count,
/// then empty ids repeating the last key; nothing allocated, reduced, copied
/// or fenced inside it.
template <class K, class Ws>
void expectAsyncCall(const std::vector<Rec<K>>& in, const Ws& ws, const std::string& at) {
  const TestExec exec;
  const auto d = deviceOf(in);
  const int n = static_cast<int>(in.size());
  DView<Rec<K>> out("out", n);
  sieve::keys::SparseKeys<K, TestExec> keys;
  {
    const ToolsLog tools;
    keys = sieve::keys::scatter_sparse(exec, d, out, ws);
    EXPECT_EQ(ToolsLog::allocations(), 0) << at << "\n" << ToolsLog::dump();
    EXPECT_EQ(ToolsLog::reductions(), 0) << at;
    EXPECT_EQ(ToolsLog::deepCopies(), 0) << at;
    EXPECT_EQ(ToolsLog::fences(), 0) << at;
  }
  ws.check(exec);
  const Ref<K> ref = reference(in);
  const i64 cap = ws.capacity(), used = static_cast<i64>(ref.keys.size());
  EXPECT_EQ(toHost(out), ref.out) << at;
  EXPECT_EQ(keys.num_keys(), cap) << at;
  EXPECT_EQ(keys.num_elements(), n) << at;
  i64 count = -1;
  Kokkos::deep_copy(count, keys.key_count());
  EXPECT_EQ(count, used) << at;
  std::vector<i64> wantOffsets = ref.offsets;
  std::vector<K> wantKeys = ref.keys;
  wantOffsets.resize(static_cast<std::size_t>(cap + 1), n);
  wantKeys.resize(static_cast<std::size_t>(cap), used > 0 ? ref.keys.back() : K{});
  EXPECT_EQ(offsetsOf(keys), wantOffsets) << at;
  EXPECT_EQ(toHost(keys.keys()), wantKeys) << at;
}

template <class K>
void everySize() {
  const TestExec exec;
  const int big = 70001;
  sieve::keys::SparseWorkspace<K, TestExec> ws(exec, 600, big);
  EXPECT_EQ(ws.elements(), big);
  EXPECT_EQ(ws.capacity(), 600);
  struct Case {
    int n, distinct;
  };
  for (const Case c :
       {Case{0, 1}, Case{1, 1}, Case{5000, 3}, Case{big, 600}, Case{4097, 250}, Case{big, 37}}) {
    const auto pool = keyPool<K>(c.distinct);
    std::vector<Rec<K>> in(static_cast<std::size_t>(c.n));
    for (int i = 0; i < c.n; ++i)
      in[static_cast<std::size_t>(i)] =
          Rec<K>{pool[static_cast<std::size_t>((i * 7919) % static_cast<int>(pool.size()))], i};
    expectAsyncCall(in, ws,
                    "n = " + std::to_string(c.n) + ", " + std::to_string(sizeof(K)) +
                        "-byte keys, " + std::to_string(c.distinct) + " distinct");
  }
}

} // namespace

TEST(KeysSparseAsync, EveryWidthAndSizeAsTheReference) {
  everySize<std::int8_t>();
  everySize<std::uint16_t>();
  everySize<std::int32_t>();
  everySize<std::uint64_t>();
}

// A View of bare keys and a keyed View: the keys and the elements as the
// blocking form's.
TEST(KeysSparseAsync, BareAndKeyedInputs) {
  const TestExec exec;
  const int n = 20000;
  std::vector<std::int64_t> bare(n);
  for (int i = 0; i < n; ++i) bare[static_cast<std::size_t>(i)] = (i * 2654435761LL) % 977 - 400;
  sieve::keys::SparseWorkspace<std::int64_t, TestExec> ws(exec, 1000, n);
  const auto d = toDevice(bare);
  DView<std::int64_t> out("out", n), want("want", n);
  const auto keys = sieve::keys::scatter_sparse(exec, d, out, ws);
  const auto ref = sieve::keys::scatter_sparse(exec, d, want);
  EXPECT_EQ(toHost(out), toHost(want));
  const auto refKeys = toHost(ref.keys());
  auto got = toHost(keys.keys());
  got.resize(refKeys.size());
  EXPECT_EQ(got, refKeys);
  // keyed: the key is the record's negated residue.
  const auto negated = KOKKOS_LAMBDA(const std::int64_t e) { return static_cast<int>(-(e % 50)); };
  sieve::keys::SparseWorkspace<int, TestExec> wk(exec, 100, n);
  DView<std::int64_t> outK("out_keyed", n), wantK("want_keyed", n);
  const auto kk = sieve::keys::scatter_sparse(exec, sieve::keys::keyed(d, negated), outK, wk);
  const auto rk = sieve::keys::scatter_sparse(exec, sieve::keys::keyed(d, negated), wantK);
  EXPECT_EQ(toHost(outK), toHost(wantK));
  std::int64_t count = 0;
  Kokkos::deep_copy(count, kk.key_count());
  EXPECT_EQ(count, rk.num_keys());
  EXPECT_EQ(kk.offset(rk.num_keys()), n);
  EXPECT_EQ(kk.offset(100), n);
}

// The calls after it take the device count as it is: the empty ids past it
// fold to init, have no survivors and no range to visit.
TEST(KeysSparseAsync, LaterCallsTakeTheCountOnTheDevice) {
  const TestExec exec;
  const int n = 30000, distinct = 70, cap = 96;
  std::vector<Rec<std::int32_t>> in(n);
  for (int i = 0; i < n; ++i)
    in[static_cast<std::size_t>(i)] = Rec<std::int32_t>{(i * 37) % distinct * 1000 - 5000, i};
  sieve::keys::SparseWorkspace<std::int32_t, TestExec> ws(exec, cap, n);
  DView<Rec<std::int32_t>> out("out", n), uniq("uniq", n);
  const auto keys = sieve::keys::scatter_sparse(exec, deviceOf(in), out, ws);
  // reduce_by_key: the sum of the records of each key id; init past the count.
  std::vector<i64> values(n);
  for (int i = 0; i < n; ++i) values[static_cast<std::size_t>(i)] = i % 11 + 1;
  const auto order = toHost(out);
  std::vector<i64> sorted(n);
  for (int p = 0; p < n; ++p)
    sorted[static_cast<std::size_t>(p)] = values[static_cast<std::size_t>(order[p].rec)];
  DView<i64> sums("sums", cap);
  sieve::keys::reduce_by_key(exec, keys, toDevice(sorted), i64(-3), sieve::Sum{}, sums);
  const Ref<std::int32_t> ref = reference(in);
  std::vector<i64> want(cap, -3);
  for (int k = 0; k < distinct; ++k) {
    const i64 p1 = k + 1 < distinct ? ref.offsets[static_cast<std::size_t>(k + 1)] : n;
    for (i64 p = ref.offsets[static_cast<std::size_t>(k)]; p < p1; ++p)
      want[static_cast<std::size_t>(k)] += sorted[static_cast<std::size_t>(p)];
  }
  EXPECT_EQ(toHost(sums), want);
  // The same through a ReduceWorkspace: nothing read back.
  const sieve::keys::ReduceWorkspace<i64, TestExec> kept(exec, n);
  DView<i64> sums2("sums2", cap);
  const auto values2 = toDevice(sorted);
  {
    const ToolsLog tools;
    sieve::keys::reduce_by_key(exec, keys, values2, i64(-3), sieve::Sum{}, sums2, kept);
    EXPECT_EQ(ToolsLog::deepCopies(), 0);
    EXPECT_EQ(ToolsLog::fences(), 0);
    EXPECT_EQ(ToolsLog::allocations(), 0);
  }
  EXPECT_EQ(toHost(sums2), want);
  // reduce: one survivor per real key (its first record), none past the count.
  const auto unique = sieve::keys::reduce(exec, keys, out, sieve::keys::SortUnique{});
  EXPECT_EQ(unique.num_keys(), cap);
  EXPECT_EQ(unique.offset(cap), unique.offset(distinct));
  // for_each_key_range visits the elements of every real key once.
  DView<i64> seen("seen", n);
  sieve::keys::for_each_key_range(
      exec, keys, out,
      KOKKOS_LAMBDA(const DView<Rec<std::int32_t>>&, i64 begin, i64 end, const auto& off) {
        for (i64 k = begin; k < end; ++k)
          for (i64 p = off(k); p < off(k + 1); ++p) seen(p) += 1;
      });
  EXPECT_EQ(toHost(seen), std::vector<i64>(n, 1));
}

// More distinct keys than the capacity: the output sorted all the same,
// every key empty, the count and the rejection word set, check() and
// offset() throw; the next call that fits clears it.
TEST(KeysSparseAsync, MoreKeysThanTheCapacityLeaveEveryKeyEmpty) {
  const TestExec exec;
  const int n = 5000;
  std::vector<Rec<std::int64_t>> in(n);
  for (int i = 0; i < n; ++i) in[static_cast<std::size_t>(i)] = Rec<std::int64_t>{i % 50, i};
  sieve::keys::SparseWorkspace<std::int64_t, TestExec> ws(exec, 10, n);
  DView<Rec<std::int64_t>> out("out", n);
  Kokkos::deep_copy(out, Rec<std::int64_t>{-1, -1});
  const auto keys = sieve::keys::scatter_sparse(exec, deviceOf(in), out, ws);
  EXPECT_THROW(ws.check(exec), std::invalid_argument);
  EXPECT_THROW(keys.offset(0), std::invalid_argument);
  EXPECT_THROW(sieve::keys::reduce(exec, keys, out, sieve::keys::SortUnique{}),
               std::invalid_argument);
  try {
    ws.check(exec);
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("50 distinct keys"), std::string::npos) << e.what();
  }
  EXPECT_EQ(toHost(out), reference(in).out);
  EXPECT_EQ(offsetsOf(keys), std::vector<i64>(11, 0));
  std::int64_t count = 0, rejected = 0;
  Kokkos::deep_copy(count, ws.key_count());
  Kokkos::deep_copy(rejected, ws.rejected());
  EXPECT_EQ(count, 50);
  EXPECT_EQ(rejected, 50);
  for (auto& r : in) r.k %= 10;
  expectAsyncCall(in, ws, "after a rejected call");
  // A capacity of 0 takes no element.
  sieve::keys::SparseWorkspace<std::int64_t, TestExec> none(exec, 0, n);
  const auto k0 = sieve::keys::scatter_sparse(exec, deviceOf(in), out, none);
  EXPECT_THROW(none.check(exec), std::invalid_argument);
  DView<Rec<std::int64_t>> empty("empty", 0);
  const auto k1 = sieve::keys::scatter_sparse(exec, empty, empty, none);
  none.check(exec);
  EXPECT_EQ(k1.offset(0), 0);
}

// Misuse: each throws std::invalid_argument before anything is enqueued.
TEST(KeysSparseAsync, MisuseThrowsAndWritesNothing) {
  const TestExec exec;
  const int n = 1000;
  std::vector<std::int64_t> keysIn(n);
  for (int i = 0; i < n; ++i) keysIn[static_cast<std::size_t>(i)] = i % 13;
  const auto d = toDevice(keysIn);
  EXPECT_THROW((sieve::keys::SparseWorkspace<std::int64_t, TestExec>(exec, -1, n)),
               std::invalid_argument);
  EXPECT_THROW((sieve::keys::SparseWorkspace<std::int64_t, TestExec>(exec, 5, -2)),
               std::invalid_argument);
  sieve::keys::SparseWorkspace<std::int64_t, TestExec> ws(exec, 20, n - 1);
  DView<std::int64_t> out("out", n);
  Kokkos::deep_copy(out, std::int64_t(-9));
  const auto expectUntouched = [&] { EXPECT_EQ(toHost(out), std::vector<std::int64_t>(n, -9)); };
  // More elements than the workspace was made for.
  EXPECT_THROW(sieve::keys::scatter_sparse(exec, d, out, ws), std::invalid_argument);
  expectUntouched();
  // A short output.
  const auto d999 = Kokkos::subview(d, std::make_pair(0, n - 1));
  EXPECT_THROW(
      sieve::keys::scatter_sparse(exec, d999, Kokkos::subview(out, std::make_pair(0, 5)), ws),
      std::invalid_argument);
  expectUntouched();
  // The workspace's keys as the output, or as the input.
  sieve::keys::SparseWorkspace<std::int64_t, TestExec> wide(exec, 2000, n);
  EXPECT_THROW(sieve::keys::scatter_sparse(
                   exec, d, Kokkos::subview(wide.kept().keys, std::make_pair(0, n)), wide),
               std::invalid_argument);
  EXPECT_THROW(sieve::keys::scatter_sparse(
                   exec, Kokkos::subview(wide.kept().keys, std::make_pair(0, n)), out, wide),
               std::invalid_argument);
  expectUntouched();
  // A mapper: its element count would have to be read back.
  struct Pairs {
    using element_type = std::int64_t;
    std::int64_t size() const { return 10; }
    KOKKOS_INLINE_FUNCTION int count(i64) const { return 2; }
    KOKKOS_INLINE_FUNCTION std::int64_t element(i64 i, int j) const { return i + j; }
  };
  EXPECT_THROW(sieve::keys::scatter_sparse(exec, Pairs{}, out, wide), std::invalid_argument);
  expectUntouched();
  // The keys of a call are stale after the next one, even a rejected one.
  const auto first = sieve::keys::scatter_sparse(exec, d, out, wide);
  EXPECT_EQ(first.offset(13), n);
  EXPECT_THROW(
      sieve::keys::scatter_sparse(exec, d, Kokkos::subview(out, std::make_pair(0, 5)), wide),
      std::invalid_argument);
  EXPECT_THROW(first.offset(0), std::invalid_argument);
}

#if KOKKOS_VERSION >= 40000
// A workspace made on an instance of one thread serves a call on an instance
// of more (its scratch was laid out for one): the same result.
TEST(KeysSparseAsync, AWorkspaceOfOneThreadServesMore) {
  if (TestExec().concurrency() < 2) GTEST_SKIP() << "one thread: nothing to partition";
  const auto one = Kokkos::Experimental::partition_space(TestExec(), 1, 1)[0];
  const int n = 300000;
  std::vector<Rec<std::int64_t>> in(n);
  for (int i = 0; i < n; ++i)
    in[static_cast<std::size_t>(i)] = Rec<std::int64_t>{(i * 7919LL) % 5003 - 2500, i};
  sieve::keys::SparseWorkspace<std::int64_t, TestExec> ws(one, 6000, n);
  one.fence();
  expectAsyncCall(in, ws, "made on one thread, called on all");
}
#endif
