// SPDX-License-Identifier: Apache-2.0
// Sieve fault tests — every public call of the Kokkos face, on Kokkos::Serial
// (the portable face) and Kokkos::OpenMP (the OpenMP twins), with each of
// its allocations failing in turn (fault.hpp): the call throws
// std::bad_alloc, the caller's Views and objects are as before (the strong
// guarantee; where a call documents the basic one, only its outputs may
// differ), and the same call then succeeds with the bytes of a call that
// never failed. Under AddressSanitizer (-DSIEVE_TEST_SANITIZERS=ON) nothing leaks.
#include "fault.hpp"

#include <sieve/graph.hpp>
#include <sieve/scanner.hpp>
#include <sieve/sieve.hpp>

#include <cstdint>
#include <optional>
#include <vector>

namespace {

using sieve_fault::Armed;
using sieve_fault::Case;
using sieve_fault::Snapshot;
using sieve_fault::everyAllocation;
using sieve_fault::failEachAllocation;
using sieve_fault::joined;

template <class E>
using V1 = Kokkos::View<std::int32_t*, typename E::memory_space>;
template <class E>
using V64 = Kokkos::View<std::int64_t*, typename E::memory_space>;
template <class E>
using Mask = Kokkos::View<std::uint8_t*, typename E::memory_space>;
template <class E>
using Bytes = Kokkos::View<unsigned char*, typename E::memory_space>;

constexpr std::int64_t kN = 3000;

/// A deterministic pseudo-random value of i.
inline std::uint32_t mix(std::int64_t i, std::uint32_t seed) {
  std::uint64_t x = static_cast<std::uint64_t>(i) * 0x9E3779B97F4A7C15ULL + seed;
  x ^= x >> 31;
  x *= 0xBF58476D1CE4E5B9ULL;
  x ^= x >> 29;
  return static_cast<std::uint32_t>(x);
}

template <class V, class F>
V made(const std::string& label, std::int64_t n, F value) {
  V v(label, n);
  auto h = Kokkos::create_mirror_view(v);
  for (std::int64_t i = 0; i < n; ++i) h(i) = value(i);
  Kokkos::deep_copy(v, h);
  return v;
}

template <class E>
Mask<E> someMask(std::uint32_t seed = 1) {
  return made<Mask<E>>("mask", kN, [=](std::int64_t i) { return std::uint8_t(mix(i, seed) % 3 != 0); });
}
template <class E>
V1<E> someValues() {
  return made<V1<E>>("values", kN, [](std::int64_t i) { return std::int32_t(mix(i, 7) % 1000) - 400; });
}

/// findall's predicate form.
struct Positive {
  KOKKOS_INLINE_FUNCTION bool operator()(const std::int32_t x) const { return x > 0; }
};
/// findall's index form.
struct EveryThird {
  KOKKOS_INLINE_FUNCTION bool operator()(const std::int64_t i) const { return i % 3 == 0; }
};
/// A key by index (sort_permutation).
template <class V>
struct KeyAt {
  V keys;
  KOKKOS_INLINE_FUNCTION std::int32_t operator()(const std::int64_t i) const { return keys(i) / 16; }
};
/// An element with a key (the scatters, reduce, group and compact by key).
struct Keyed {
  std::int32_t k, v;
  KOKKOS_INLINE_FUNCTION std::int32_t key() const { return k; }
  KOKKOS_INLINE_FUNCTION bool operator<(const Keyed& o) const { return v < o.v; }
};
template <class E>
using KV = Kokkos::View<Keyed*, typename E::memory_space>;
template <class E>
KV<E> someKeyed() {
  return made<KV<E>>("keyed", kN, [](std::int64_t i) {
    return Keyed{std::int32_t(mix(i, 3) % 200), std::int32_t(mix(i, 5) % 7)};
  });
}

template <class E>
class Faults : public ::testing::Test {};
using Spaces = ::testing::Types<
#if defined(KOKKOS_ENABLE_SERIAL)
    Kokkos::Serial
#endif
#if defined(KOKKOS_ENABLE_SERIAL) && defined(KOKKOS_ENABLE_OPENMP)
    ,
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
    Kokkos::OpenMP
#endif
    >;
TYPED_TEST_SUITE(Faults, Spaces);

// --- compaction, scans --------------------------------------------------------------------

TYPED_TEST(Faults, CompactAndScans) {
  using E = TypeParam;
  struct W {
    Mask<E> mask;
    V1<E> values, map, out;
    Kokkos::View<std::uint32_t, typename E::memory_space> count;
    Bytes<E> scratch;
  };
  auto make = [] {
    W w{someMask<E>(), someValues<E>(), V1<E>("map", kN), V1<E>("out", kN), {}, {}};
    w.count = decltype(w.count)("count");
    w.scratch = Bytes<E>("scratch", sieve::compact_scratch_bytes(kN));
    return w;
  };
  auto see = [](W& w) {
    return Snapshot().view("mask", w.mask).view("values", w.values).view("map", w.map)
        .view("out", w.out).view("count", w.count);
  };
  failEachAllocation(Case<W>{"compact (given its scratch)", make,
                             [](W& w) { sieve::compact(E(), w.mask, w.map, w.count, w.scratch); }, see,
                             {"map", "count"}});
  failEachAllocation(Case<W>{"compact (no instance)", make,
                             [](W& w) { sieve::compact(w.mask, w.map, w.count, w.scratch); }, see,
                             {"map", "count"}});
  failEachAllocation(Case<W>{"inclusive_scan (no scratch)", make,
                             [](W& w) { sieve::inclusive_scan(E(), w.values, w.out); E().fence(); },
                             see, {"out"}});
  failEachAllocation(Case<W>{"exclusive_scan (no instance, no scratch)", make,
                             [](W& w) { sieve::exclusive_scan(w.values, w.out, 3); }, see, {"out"}});
  failEachAllocation(Case<W>{"inclusive_scan (in place, Max)", make,
                             [](W& w) { sieve::inclusive_scan(E(), w.values, w.values, sieve::Max{}); },
                             see, {"values"}});
  failEachAllocation(Case<W>{"reserve", make, [](W&) { sieve::reserve(E()); }, see});
}

TYPED_TEST(Faults, Scanner) {
  using E = TypeParam;
  using S = sieve::Scanner<std::int64_t, sieve::Sum, true, E>;
  struct W {
    std::optional<S> s;
  };
  failEachAllocation(Case<W>{
      "Scanner (construction, upload, scan, download)", [] { return W{}; },
      [](W& w) {
        S s("scan", kN);
        for (std::int64_t i = 0; i < kN; ++i) s.host_inputs()(i) = i % 13;
        s.upload(E());
        s.run(E());
        s.download(E());
        E().fence();
        w.s = s;
      },
      [](W& w) {
        Snapshot snap;
        if (w.s) snap.view("results", w.s->results());
        return snap;
      }});
}

// --- findall --------------------------------------------------------------------------------

TYPED_TEST(Faults, Findall) {
  using E = TypeParam;
  struct W {
    Mask<E> mask;
    V1<E> values;
    V64<E> result;
    V1<E> resultValues;
    Kokkos::View<std::int64_t, typename E::memory_space> count;
    sieve::FindallWorkspace<E> ws;
  };
  auto make = [] {
    W w{someMask<E>(), someValues<E>(), V64<E>("result", kN), V1<E>("result_values", kN), {}, {}};
    w.count = decltype(w.count)("count");
    return w;
  };
  auto see = [](W& w) {
    return Snapshot().view("mask", w.mask).view("values", w.values).view("result", w.result)
        .view("result_values", w.resultValues).view("count", w.count);
  };
  // The returned View is the caller's only when the call returns: copied to `result`.
  const std::set<std::string> outs = {"result", "result_values", "count"};
  failEachAllocation(Case<W>{"findall (indices)", make,
                             [](W& w) {
                               const auto r = sieve::findall(E(), w.mask);
                               Kokkos::deep_copy(Kokkos::subview(w.result, std::make_pair(std::size_t(0), r.extent(0))), r);
                             },
                             see, outs});
  failEachAllocation(Case<W>{"findall (predicate, values)", make,
                             [](W& w) {
                               const auto r = sieve::findall(E(), Positive{}, w.values);
                               Kokkos::deep_copy(Kokkos::subview(w.resultValues, std::make_pair(std::size_t(0), r.extent(0))), r);
                             },
                             see, outs});
  failEachAllocation(Case<W>{"findall (index form)", make,
                             [](W& w) {
                               const auto r = sieve::findall(E(), kN, EveryThird{});
                               Kokkos::deep_copy(Kokkos::subview(w.result, std::make_pair(std::size_t(0), r.extent(0))), r);
                             },
                             see, outs});
  failEachAllocation(Case<W>{"findall (items, into)", make,
                             [](W& w) {
                               sieve::findall(E(), w.mask, sieve::items(w.values),
                                              sieve::into(w.resultValues, w.count));
                               E().fence();
                             },
                             see, outs});
  failEachAllocation(Case<W>{"FindallWorkspace + findall (into, then a result)", make,
                             [](W& w) {
                               sieve::FindallWorkspace<E> ws(E(), kN);
                               sieve::findall(E(), w.mask, sieve::into(w.result, w.count), ws);
                               const auto r = sieve::findall(E(), w.mask, sieve::items(w.values), ws);
                               Kokkos::deep_copy(Kokkos::subview(w.resultValues, std::make_pair(std::size_t(0), r.extent(0))), r);
                               w.ws = ws;
                             },
                             see, outs});
  // A workspace whose result buffer must grow: the kept buffer stays usable.
  auto makeKept = [&] {
    W w = make();
    w.ws = sieve::FindallWorkspace<E>(E(), kN);
    Mask<E> none("none", kN);
    (void)sieve::findall(E(), none, w.ws);
    return w;
  };
  failEachAllocation(Case<W>{"findall (workspace, its result buffer grows)", makeKept,
                             [](W& w) {
                               const auto r = sieve::findall(E(), w.mask, w.ws);
                               Kokkos::deep_copy(Kokkos::subview(w.result, std::make_pair(std::size_t(0), r.extent(0))), r);
                             },
                             see, outs});
}

// --- keys -----------------------------------------------------------------------------------

TYPED_TEST(Faults, Keys) {
  using E = TypeParam;
  struct W {
    V1<E> values;
    KV<E> in, out, compacted;
    V64<E> perm, sums;
    Bytes<E> scratch;
    Kokkos::View<std::int32_t* [2], typename E::memory_space> rows;
    sieve::keys::SparseWorkspace<std::int32_t, E> sparse;
    std::int64_t keys = -1, kept = -1;
  };
  auto make = [] {
    W w;
    w.values = someValues<E>();
    w.in = someKeyed<E>();
    w.out = KV<E>("out", kN);
    w.compacted = KV<E>("compacted", kN);
    w.perm = V64<E>("perm", kN);
    w.sums = V64<E>("sums", kN);
    w.rows = decltype(w.rows)("rows", kN);
    w.scratch = Bytes<E>("scratch", sieve::permute_scratch_bytes(w.values, w.rows));
    return w;
  };
  auto see = [](W& w) {
    return Snapshot().view("values", w.values).view("in", w.in).view("out", w.out)
        .view("compacted", w.compacted).view("perm", w.perm).view("sums", w.sums)
        .view("rows", w.rows).value("keys", w.keys).value("kept", w.kept);
  };
  // The blocking keys calls fill their outputs as they go: the basic guarantee.
  const std::set<std::string> outs = {"out", "perm", "sums", "compacted", "keys", "kept"};
  failEachAllocation(Case<W>{"keys::sort_permutation", make,
                             [](W& w) {
                               const auto k = sieve::keys::sort_permutation(
                                   E(), kN, KeyAt<V1<E>>{w.values}, w.perm);
                               w.keys = k.num_keys();
                             },
                             see, outs});
  failEachAllocation(Case<W>{"keys::sort_permutation + reduce_by_key", make,
                             [](W& w) {
                               const auto k = sieve::keys::sort_permutation(
                                   E(), kN, KeyAt<V1<E>>{w.values}, -25, 37, w.perm);
                               sieve::keys::reduce_by_key(E(), k, w.perm, std::int64_t(0),
                                                          sieve::Sum{}, w.sums);
                               w.keys = k.num_keys();
                             },
                             see, outs});
  failEachAllocation(Case<W>{"keys::ReduceWorkspace + reduce_by_key", make,
                             [](W& w) {
                               const auto k = sieve::keys::sort_permutation(
                                   E(), kN, KeyAt<V1<E>>{w.values}, -25, 37, w.perm);
                               // (room for big keys: the workspace holds scratch)
                               const sieve::keys::ReduceWorkspace<std::int64_t, E> ws(E(), 10 * kN);
                               sieve::keys::reduce_by_key(E(), k, w.perm, std::int64_t(0),
                                                          sieve::Sum{}, w.sums, ws);
                               E().fence();
                               w.keys = k.num_keys();
                             },
                             see, outs});
  auto makePerm = [make] {
    W w = make();
    (void)sieve::keys::sort_permutation(E(), kN, KeyAt<V1<E>>{w.values}, w.perm);
    auto h = Kokkos::create_mirror_view(w.rows);
    for (std::int64_t i = 0; i < kN; ++i) h(i, 0) = std::int32_t(i), h(i, 1) = -std::int32_t(i);
    Kokkos::deep_copy(w.rows, h);
    return w;
  };
  failEachAllocation(Case<W>{"keys::permute", makePerm,
                             [](W& w) {
                               sieve::keys::permute(E(), w.perm, w.scratch, w.values, w.rows);
                               E().fence();
                             },
                             see});
  failEachAllocation(Case<W>{"keys::unpermute", makePerm,
                             [](W& w) {
                               sieve::keys::unpermute(E(), w.perm, w.scratch, w.rows);
                               E().fence();
                             },
                             see});
  failEachAllocation(Case<W>{"keys::PermuteWorkspace + permute (async) + check", makePerm,
                             [](W& w) {
                               const sieve::keys::PermuteWorkspace<E> ws(E(), w.values, w.rows);
                               // (check() first: one failing after the permute ran would
                               // leave it done, and the repeated call would permute twice)
                               ws.check(E());
                               sieve::keys::permute(E(), w.perm, ws, w.values, w.rows);
                               E().fence();
                             },
                             see});
  failEachAllocation(Case<W>{"keys::scatter_dense + reduce + compact", make,
                             [](W& w) {
                               const auto d = sieve::keys::scatter_dense(E(), w.in, w.out);
                               const auto u = sieve::keys::reduce(E(), d, w.out, sieve::keys::SortUnique{});
                               w.kept = sieve::keys::compact(E(), d, u, w.out, w.compacted);
                               w.keys = d.num_keys();
                             },
                             see, outs});
  failEachAllocation(Case<W>{"keys::DenseWorkspace + scatter_dense (async) + check", make,
                             [](W& w) {
                               sieve::keys::DenseWorkspace<std::int32_t, E> ws(E(), kN, 0, 199);
                               const auto d = sieve::keys::scatter_dense(E(), w.in, w.out, ws);
                               ws.check(E());
                               w.keys = d.num_keys();
                             },
                             see, outs});
  failEachAllocation(Case<W>{"keys::scatter_sparse + group", make,
                             [](W& w) {
                               const auto s = sieve::keys::scatter_sparse(E(), w.in, w.out);
                               const auto g = sieve::keys::group(E(), s, w.out, sieve::keys::SortGroup{});
                               w.keys = s.num_keys();
                               w.kept = g.keys.num_keys();
                             },
                             see, outs});
  failEachAllocation(Case<W>{"keys::SparseWorkspace (fixed) + scatter_sparse (async) + check",
                             make,
                             [](W& w) {
                               const sieve::keys::SparseWorkspace<std::int32_t, E> ws(E(), kN, kN);
                               const auto s = sieve::keys::scatter_sparse(E(), w.in, w.out, ws);
                               ws.check(E());
                               std::int64_t count = -1;
                               Kokkos::deep_copy(count, s.key_count());
                               w.keys = count;
                             },
                             see, outs});
  // A SparseWorkspace too small for the keys: its buffers grow in the call.
  auto makeSparse = [make] {
    W w = make();
    w.sparse = sieve::keys::SparseWorkspace<std::int32_t, E>(E(), 10);
    return w;
  };
  auto seeSparse = [see](W& w) {
    Snapshot s = see(w);
    s.value("capacity", w.sparse.capacity());
    return s;
  };
  failEachAllocation(Case<W>{"keys::scatter_sparse (SparseWorkspace grows)", makeSparse,
                             [](W& w) {
                               const auto s = sieve::keys::scatter_sparse(E(), w.in, w.out, w.sparse);
                               w.keys = s.num_keys();
                             },
                             seeSparse, {"out", "keys", "capacity"}});
}

// --- Population and Graph -------------------------------------------------------------------

template <class E>
struct PopWorld {
  sieve::Population<E> pop;
  Mask<E> alive;
  V1<E> id, slots;
  Kokkos::View<double*, typename E::memory_space> x;
  Kokkos::View<std::uint32_t, typename E::memory_space> k; // spawn_async's count: 50
};

template <class E>
Snapshot seePop(PopWorld<E>& w) {
  Snapshot s;
  s.view("alive", w.alive).view("id", w.id).view("x", w.x).view("slots", w.slots);
  if (w.pop.size() > 0) {
    s.view("count", w.pop.count()).view("index_map", w.pop.index_map()).view("perm", w.pop.perm())
        .view("inv", w.pop.inv()).view("live32", w.pop.trigger().live32)
        .view("span", w.pop.trigger().span).view("fire", w.pop.trigger().fire)
        .view("spawned", w.pop.spawned());
  }
  return s;
}

/// A compaction's outputs: after a failed one the population holds the old
/// compaction or the new one.
const std::set<std::string> kCompaction = {"count", "index_map", "live32", "span", "fire"};

template <class E>
PopWorld<E> makePop(bool born, std::uint32_t maxElem = 8) {
  PopWorld<E> w;
  if (born) w.pop = sieve::Population<E>("pop", E(), kN, {0.9f, maxElem});
  w.alive = someMask<E>(11);
  w.id = made<V1<E>>("id", kN, [](std::int64_t i) { return std::int32_t(i); });
  w.x = made<Kokkos::View<double*, typename E::memory_space>>("x", kN,
                                                              [](std::int64_t i) { return 0.5 * i; });
  w.slots = V1<E>("slots", kN);
  w.k = decltype(w.k)("k");
  Kokkos::deep_copy(w.k, 50u);
  return w;
}

TYPED_TEST(Faults, Population) {
  using E = TypeParam;
  using W = PopWorld<E>;
  failEachAllocation(Case<W>{"Population (construction)", [] { return makePop<E>(false); },
                             [](W& w) { w.pop = sieve::Population<E>("pop", E(), kN, {0.9f}); },
                             seePop<E>});
  failEachAllocation(Case<W>{"Population::compact", [] { return makePop<E>(true); },
                             [](W& w) { (void)w.pop.compact(E(), w.alive); }, seePop<E>,
                             kCompaction});
  auto compacted = [] {
    W w = makePop<E>(true);
    (void)w.pop.compact(E(), w.alive);
    return w;
  };
  failEachAllocation(Case<W>{"Population::reorder + restore", compacted,
                             [](W& w) {
                               const auto p = sieve::planes(w.alive, w.id, w.x);
                               w.pop.reorder(E(), p);
                               w.pop.restore(E(), p);
                               E().fence();
                             },
                             seePop<E>});
  // A population born without scratch: its first reorder allocates it.
  auto bare = [] {
    W w = makePop<E>(true, 0);
    (void)w.pop.compact(E(), w.alive);
    return w;
  };
  failEachAllocation(Case<W>{"Population::reorder (allocates its scratch)", bare,
                             [](W& w) {
                               w.pop.reorder(E(), sieve::planes(w.alive, w.id, w.x));
                               E().fence();
                             },
                             seePop<E>});
  failEachAllocation(Case<W>{"Population::spawn (allocates its scratch)", bare,
                             [](W& w) { w.pop.spawn(E(), 100, w.slots); }, seePop<E>});
  failEachAllocation(Case<W>{"Population::spawn_async", compacted,
                             [](W& w) {
                               w.pop.spawn_async(E(), w.k, w.slots);
                               E().fence();
                             },
                             seePop<E>});
  failEachAllocation(Case<W>{"Population::compact_async", compacted,
                             [](W& w) {
                               w.pop.compact_async(E(), w.alive);
                               E().fence();
                             },
                             seePop<E>, kCompaction});
  failEachAllocation(Case<W>{"Population::indices", compacted,
                             [](W& w) { w.slots = w.pop.indices(); }, seePop<E>, {"slots"}});
  failEachAllocation(Case<W>{"Population::clone", compacted,
                             [](W& w) { w.pop = w.pop.clone(E()); }, seePop<E>});
}

// A reorder that fails leaves the plane set the earlier reorders recorded:
// a restore of another set right after it throws (it would move a plane the
// reorders never moved), and a restore of the recorded set puts every sample
// back. (Every heap allocation: the second reorder makes none of Sieve's
// buffers, its scratch is there.)
TYPED_TEST(Faults, RestoreAfterAFailedReorderChecksTheRecordedPlanes) {
  using E = TypeParam;
  using W = PopWorld<E>;
  everyAllocation() = true;
  auto make = [] {
    W w = makePop<E>(true);
    (void)w.pop.compact(E(), w.alive);
    w.pop.reorder(E(), sieve::planes(w.alive, w.id));
    E().fence();
    return w;
  };
  W golden = make();
  std::int64_t points = 0;
  {
    Armed counting(-1);
    golden.pop.reorder(E(), sieve::planes(golden.alive, golden.id));
    E().fence();
    points = counting.seen();
  }
  ASSERT_GT(points, 0);
  golden = make();
  golden.pop.restore(E(), sieve::planes(golden.alive, golden.id));
  const Snapshot want = seePop<E>(golden);
  for (std::int64_t k = 0; k < points; ++k) {
    W w = make();
    const auto recorded = sieve::planes(w.alive, w.id);
    const Snapshot before = seePop<E>(w);
    std::string what = "nothing";
    {
      Armed fail(k);
      try {
        w.pop.reorder(E(), recorded);
      } catch (const std::bad_alloc&) {
        what = "bad_alloc";
      }
    }
    E().fence();
    EXPECT_EQ(what, "bad_alloc") << "allocation " << k << " of " << points;
    EXPECT_TRUE(seePop<E>(w).changed(before).empty()) << "allocation " << k;
    EXPECT_THROW(w.pop.restore(E(), sieve::planes(w.alive, w.id, w.x)), std::invalid_argument)
        << "allocation " << k << ": a restore of another plane set";
    EXPECT_TRUE(seePop<E>(w).changed(before).empty()) << "allocation " << k;
    w.pop.restore(E(), recorded);
    const auto wrong = seePop<E>(w).changed(want);
    EXPECT_TRUE(wrong.empty()) << "allocation " << k << ", restored: " << joined(wrong);
  }
  everyAllocation() = false;
}

TYPED_TEST(Faults, Graph) {
  using E = TypeParam;
  struct W : PopWorld<E> {
    sieve::Graph<E> g;
  };
  auto make = [] {
    W w;
    static_cast<PopWorld<E>&>(w) = makePop<E>(true, 0);
    w.g = sieve::Graph<E>("step");
    const auto p = sieve::planes(w.alive, w.id, w.x);
    w.g.compact(w.pop, w.alive);
    w.g.reorder(w.pop, p);
    w.g.restore(w.pop, p);
    return w;
  };
  failEachAllocation(Case<W>{"Graph::launch (first: instantiates, commits the arena)", make,
                             [](W& w) {
                               w.g.launch(E());
                               E().fence();
                             },
                             [](W& w) { return seePop<E>(w); },
                             // The nodes before the failing one ran (each as its call).
                             {"count", "index_map", "live32", "span", "fire", "perm", "inv", "alive",
                              "id", "x"}});
}

} // namespace

// --- throwing functors ----------------------------------------------------------------------
// A user's predicate, key function, mapper or operator that throws on a host
// space: the exception reaches the caller as it was thrown, the inputs are as
// before, the objects stay usable and the next call succeeds. On
// Kokkos::Serial only: an exception cannot leave an OpenMP parallel region
// (the program terminates), which docs/conventions.md says.

namespace {

/// Throws std::runtime_error at its throwAt-th call (counting from 0) of a
/// call; -1: never.
struct Countdown {
  static std::int64_t& calls() {
    static std::int64_t c = 0;
    return c;
  }
  static std::int64_t& throwAt() {
    static std::int64_t t = -1;
    return t;
  }
  static void tick() {
    if (calls()++ == throwAt()) throw std::runtime_error("a user's functor threw");
  }
};

struct ThrowingPositive {
  bool operator()(const std::int32_t x) const {
    Countdown::tick();
    return x > 0;
  }
};
template <class V>
struct ThrowingKey {
  V keys;
  std::int32_t operator()(const std::int64_t i) const {
    Countdown::tick();
    return keys(i) / 16;
  }
};
struct ThrowingKeyOf {
  std::int32_t operator()(const Keyed& e) const {
    Countdown::tick();
    return e.k;
  }
};
struct ThrowingSum {
  template <class T>
  static constexpr T identity() {
    return T(0);
  }
  template <class T>
  T operator()(const T& a, const T& b) const {
    Countdown::tick();
    return a + b;
  }
};

/// Runs the call once to count the functor's calls, then once per call with
/// that one throwing (at most `most` of them, spread over the whole range).
template <class W>
void throwAtEachCall(const Case<W>& c, std::int64_t most = 40) {
  SCOPED_TRACE(c.name);
  W golden = c.make();
  Countdown::calls() = 0;
  Countdown::throwAt() = -1;
  c.call(golden);
  const std::int64_t calls = Countdown::calls();
  const Snapshot want = c.see(golden);
  ASSERT_GT(calls, 0) << "the functor was never called";
  const std::int64_t step = calls > most ? calls / most : 1;
  for (std::int64_t k = 0; k < calls; k += step) {
    W w = c.make();
    const Snapshot before = c.see(w);
    Countdown::calls() = 0;
    Countdown::throwAt() = k;
    std::string what = "nothing";
    try {
      c.call(w);
    } catch (const std::runtime_error& e) {
      what = e.what();
    } catch (const std::exception& e) {
      what = std::string("another exception: ") + e.what();
    }
    Countdown::throwAt() = -1;
    EXPECT_EQ(what, "a user's functor threw") << "call " << k << " of " << calls;
    const auto changed = c.see(w).changed(before, c.outputs);
    EXPECT_TRUE(changed.empty()) << "call " << k << " threw, and these changed: " << joined(changed);
    try {
      c.call(w);
      const auto wrong = c.see(w).changed(want);
      EXPECT_TRUE(wrong.empty()) << "after call " << k << " threw, the next call left wrong: "
                                 << joined(wrong);
    } catch (const std::exception& e) {
      ADD_FAILURE() << "after call " << k << " threw, the next call threw: " << e.what();
      break;
    }
  }
}

} // namespace

#if defined(KOKKOS_ENABLE_SERIAL)
TEST(ThrowingFunctors, Serial) {
  using E = Kokkos::Serial;
  struct W {
    V1<E> values, out;
    KV<E> in, sorted;
    V64<E> perm, sums;
    std::int64_t keys = -1;
  };
  auto make = [] {
    W w;
    w.values = someValues<E>();
    w.out = V1<E>("out", kN);
    w.in = someKeyed<E>();
    w.sorted = KV<E>("sorted", kN);
    w.perm = V64<E>("perm", kN);
    w.sums = V64<E>("sums", kN);
    return w;
  };
  auto see = [](W& w) {
    return Snapshot().view("values", w.values).view("out", w.out).view("in", w.in)
        .view("sorted", w.sorted).view("perm", w.perm).view("sums", w.sums).value("keys", w.keys);
  };
  const std::set<std::string> outs = {"out", "sorted", "perm", "sums", "keys"};
  throwAtEachCall(Case<W>{"findall (a throwing predicate)", make,
                          [](W& w) {
                            const auto r = sieve::findall(E(), ThrowingPositive{}, w.values);
                            w.keys = static_cast<std::int64_t>(r.extent(0));
                          },
                          see, outs});
  throwAtEachCall(Case<W>{"keys::sort_permutation (a throwing key_fn)", make,
                          [](W& w) {
                            w.keys = sieve::keys::sort_permutation(
                                         E(), kN, ThrowingKey<V1<E>>{w.values}, w.perm)
                                         .num_keys();
                          },
                          see, outs});
  throwAtEachCall(Case<W>{"keys::scatter_sparse (a throwing key functor)", make,
                          [](W& w) {
                            w.keys = sieve::keys::scatter_sparse(
                                         E(), sieve::keys::keyed(w.in, ThrowingKeyOf{}), w.sorted)
                                         .num_keys();
                          },
                          see, outs});
  throwAtEachCall(Case<W>{"keys::scatter_dense (a throwing key functor)", make,
                          [](W& w) {
                            w.keys = sieve::keys::scatter_dense(
                                         E(), sieve::keys::keyed(w.in, ThrowingKeyOf{}), w.sorted)
                                         .num_keys();
                          },
                          see, outs});
  throwAtEachCall(Case<W>{"keys::reduce_by_key (a throwing operator)", make,
                          [](W& w) {
                            const auto k = sieve::keys::sort_permutation(
                                E(), kN, KeyAt<V1<E>>{w.values}, w.perm);
                            sieve::keys::reduce_by_key(E(), k, w.perm, std::int64_t(0),
                                                       ThrowingSum{}, w.sums);
                            w.keys = k.num_keys();
                          },
                          see, outs});
  throwAtEachCall(Case<W>{"inclusive_scan (a throwing operator)", make,
                          [](W& w) { sieve::inclusive_scan(E(), w.values, w.out, ThrowingSum{}); },
                          see, outs});
}
#endif
