// SPDX-License-Identifier: Apache-2.0
// Sieve (internal) — the per-key operations of sieve::keys: the
// element-balanced key-id ranges of for_each_key_range, reduce and group with
// a user's functor, their parallel forms for SortUnique / SortGroup (one
// stable merge sort of (key id, element) over all elements: balanced however
// the elements spread over the keys), and the two compactions.
#pragma once

#include <sieve/core/keys.hpp>
#include <sieve/core/tuning.hpp>
#include <sieve/impl/keys/counting.hpp>
#include <sieve/impl/keys/merge.hpp>

#include <cstdint>
#include <string>
#include <type_traits>

namespace sieve {
namespace Impl {
namespace Keys {

/// The ready functors of reduce and group (sieve::keys::SortUnique and
/// SortGroup, whose header specializes these): one parallel stable sort of
/// all elements by (key id, element) instead of a user's functor.
template <class F>
struct IsSortUnique : std::false_type {};
template <class F>
struct IsSortGroup : std::false_type {};

/// The number of key-id ranges a for_each_key_range makes: about
/// kRangePartsPerThread per thread, at least ~kRangePartMin
/// elements-plus-keys each, at most one per key.
template <class Exec>
i64 rangeParts(const Exec& exec, i64 n, i64 K) {
  using Tuning::Portable::kRangePartMin;
  i64 p = Tuning::Portable::kRangePartsPerThread * static_cast<i64>(exec.concurrency());
  const i64 bySize = (n + K + kRangePartMin - 1) / kRangePartMin;
  if (bySize < p) p = bySize;
  if (K < p) p = K;
  return p > 0 ? p : 1;
}

/// The first key id k in [0, K] with offsets(k) + k >= t.
template <class V>
KOKKOS_INLINE_FUNCTION i64 weightBound(const V& offsets, i64 K, i64 t) {
  i64 lo = 0, hi = K;
  while (lo < hi) {
    const i64 m = lo + (hi - lo) / 2;
    if (offsets(m) + m < t) lo = m + 1;
    else hi = m;
  }
  return lo;
}

/// The extra arguments of a for_each_key_range functor, held as one
/// copyable struct (a device lambda then captures no parameter pack).
template <class... A>
struct ArgPack {
  template <class F, class... Pre>
  KOKKOS_INLINE_FUNCTION void call(const F& f, const Pre&... pre) const {
    f(pre...);
  }
};
template <class A0, class... A>
struct ArgPack<A0, A...> {
  A0 head;
  ArgPack<A...> tail;
  template <class F, class... Pre>
  KOKKOS_INLINE_FUNCTION void call(const F& f, const Pre&... pre) const {
    tail.call(f, pre..., head);
  }
};
inline ArgPack<> makeArgPack() { return {}; }
template <class A0, class... A>
ArgPack<A0, A...> makeArgPack(const A0& a0, const A&... a) {
  return ArgPack<A0, A...>{a0, makeArgPack(a...)};
}

/// Call functor(output, b, e, offsets, args...) on element-balanced,
/// disjoint key-id ranges [b, e) covering [0, K), concurrently. Enqueued.
template <class Exec, class Keys, class Out, class F, class... Args>
void forEachKeyRange(const sieve::Impl::Names& names, const Exec& exec, const Keys& keys,
                     const Out& output, const F& functor, const Args&... args) {
  keys.checkCurrent("sieve::keys::for_each_key_range");
  sieve::Impl::checkKernelsAllowed<Exec>("sieve::keys::for_each_key_range");
  const i64 K = keys.num_keys(), n = keys.num_elements();
  // The functor indexes output by the offsets: it must hold every element.
  if (sieve::Impl::extent64(output) < n)
    sieve::Impl::fail(names.prefix.c_str(),
                      "output.extent(0) = " + std::to_string(output.extent(0)) +
                          " is smaller than the keys' " + std::to_string(n) + " elements");
  if (K == 0) return;
  const i64 P = rangeParts(exec, n, K);
  const auto offsets = keys.offsets();
  const auto pack = makeArgPack(args...);
  Kokkos::parallel_for(
      names("key_ranges"), Range<Exec>(exec, 0, P), KOKKOS_LAMBDA(const i64 p) {
        const i64 b = weightBound(offsets, K, splitTarget(p, P, n, K));
        const i64 e = weightBound(offsets, K, splitTarget(p + 1, P, n, K));
        if (b < e) pack.call(functor, output, b, e, offsets);
      });
}

/// An element with its key id, for the segmented sort.
template <class E>
struct Seg {
  i64 seg;
  E e;
};
struct SegLess {
  template <class T>
  KOKKOS_INLINE_FUNCTION bool operator()(const T& a, const T& b) const {
    return a.seg < b.seg || (a.seg == b.seg && a.e < b.e);
  }
};

/// Sort the elements of every key of `output` (stable), flag in starts(p)
/// the elements that differ from the previous one of their key (the first of
/// a key included; starts(n) = 0), and return the sorted (key id, element)
/// pairs. Enqueued.
template <class Exec, class Keys, class Out>
Kokkos::View<Seg<typename Out::non_const_value_type>*, typename Exec::memory_space> sortedRuns(
    const sieve::Impl::Names& names, const Exec& exec, const Keys& keys, const Out& output,
    const I64View<Exec>& starts) {
  using E = typename Out::non_const_value_type;
  using V = Kokkos::View<Seg<E>*, typename Exec::memory_space>;
  const i64 K = keys.num_keys(), n = keys.num_elements();
  const auto offsets = keys.offsets();
  V a = sieve::Impl::allocate<V>(
      Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, names("sort_a")), n);
  V b = sieve::Impl::allocate<V>(
      Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, names("sort_b")), n);
  Kokkos::parallel_for(
      names("sort_fill"), Range<Exec>(exec, 0, n), KOKKOS_LAMBDA(const i64 p) {
        a(p).seg = upperBound(offsets, 0, K + 1, p) - 1;
        a(p).e = output(p);
      });
  i64 disagreed = 0;
  const V r = mergeSort(exec, names, a, b, n, SegLess{}, &disagreed);
  if (disagreed > 0)
    sieve::Impl::fail(names.prefix.c_str(),
                      "the elements' operator< is not a strict weak order (the "
                      "sort's merge pieces disagreed " +
                          std::to_string(disagreed) + " time(s)); output was not changed");
  Kokkos::parallel_for(
      names("run_starts"), Range<Exec>(exec, 0, n + 1), KOKKOS_LAMBDA(const i64 p) {
        if (p == n) starts(n) = 0;
        else starts(p) = p == 0 || r(p - 1).seg != r(p).seg || r(p - 1).e < r(p).e ? 1 : 0;
      });
  // The other buffer of the sort is freed on return: wait for the passes.
  sieve::Impl::fence(exec, "keys: sort buffer freed");
  return r;
}

/// The checks of a call on keys and an output View.
template <class Keys, class Out>
void checkKeysOutput(const char* fn, const Keys& keys, const Out& output) {
  if (sieve::Impl::extent64(output) < keys.num_elements())
    sieve::Impl::fail(fn, "output.extent(0) = " + std::to_string(output.extent(0)) +
                              " is smaller than the keys' " + std::to_string(keys.num_elements()) +
                              " elements");
}

/// The elements of a call that scans one flag per element (SortUnique,
/// group): sieve's scan takes at most INT32_MAX words.
template <class Keys>
void checkScannedElements(const char* fn, const Keys& keys) {
  if (keys.num_elements() > kMaxSparseElements)
    sieve::Impl::fail(fn, "keys.num_elements() = " + std::to_string(keys.num_elements()) +
                              " is more than the " + std::to_string(kMaxSparseElements) +
                              " elements this call takes (one flag per element is scanned)");
}

/// `output` must share no byte with `input` (a compaction reads elements
/// that another thread's write would overwrite).
template <class In, class Out>
void checkApartViews(const char* fn, const In& input, const Out& output) {
  const char* a = reinterpret_cast<const char*>(input.data());
  const char* b = reinterpret_cast<const char*>(output.data());
  const std::size_t na = sieve::Impl::coveredBytes(input), nb = sieve::Impl::coveredBytes(output);
  if (a && b && na > 0 && nb > 0 && a < b + nb && b < a + na)
    sieve::Impl::fail(fn, "output overlaps input; compact needs a separate output View");
}

template <class V>
i64 readWord(const V& v, i64 at) {
  i64 x = 0;
  Kokkos::deep_copy(x, Kokkos::subview(v, at));
  return x;
}

/// reduce, checked types. Result: the ReducedKeys of Keys (made from the
/// survivors' offsets, the number of keys and survivors, the offsets of the
/// keys it was made from, and false: not groups).
template <class Result, class Exec, class Keys, class Out, class F>
Result reduce(const sieve::Impl::Names& names, const Exec& exec, const Keys& keys,
              const Out& output, const F& functor) {
  constexpr const char* fn = "sieve::keys::reduce";
  checkKeysOutput(fn, keys, output);
  const sieve::Impl::CallRegion region(names, sieve::Impl::Face::Portable);
  const i64 K = keys.num_keys(), n = keys.num_elements();
  const auto offsets = keys.offsets();
  I64View<Exec> counts = sieve::Impl::allocate<I64View<Exec>>(
      Kokkos::view_alloc(exec, names("offsets")), static_cast<std::size_t>(K + 1));
  const void* source = static_cast<const void*>(offsets.data());
  if constexpr (IsSortUnique<F>::value) {
    checkScannedElements(fn, keys);
    if (n > 0) {
      I64View<Exec> s = sieve::Impl::allocate<I64View<Exec>>(
          Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, names("run_starts")),
          static_cast<std::size_t>(n + 1));
      const auto r = sortedRuns(names, exec, keys, output, s);
      scanInPlace(exec, names, s);
      // Survivors (run starts) to the front of their key, in order; the
      // others after them, in order (the key stays a permutation).
      Kokkos::parallel_for(
          names("unique"), Range<Exec>(exec, 0, n), KOKKOS_LAMBDA(const i64 p) {
            const i64 k = r(p).seg, base = offsets(k);
            const i64 rank = s(p) - s(base), kept = s(offsets(k + 1)) - s(base);
            const bool first = s(p + 1) != s(p);
            output(first ? base + rank : base + kept + (p - base - rank)) = r(p).e;
          });
      Kokkos::parallel_for(
          names("reduced_offsets"), Range<Exec>(exec, 0, K + 1),
          KOKKOS_LAMBDA(const i64 k) { counts(k) = s(offsets(k)); });
      const i64 m = readWord(counts, K);
      return Result(counts, K, m, source, false, keys.madeByCall());
    }
    return Result(counts, K, 0, source, false, keys.madeByCall());
  } else {
    forEachKeyRange(names, exec, keys, output, functor, counts);
    i64 bad = 0;
    Kokkos::parallel_reduce(
        names("check_counts"), Range<Exec>(exec, 0, K),
        KOKKOS_LAMBDA(const i64 k, i64& sum) {
          const i64 c = counts(k);
          if (c < 0 || c > offsets(k + 1) - offsets(k)) ++sum;
        },
        bad);
    if (bad > 0)
      sieve::Impl::fail(fn,
                        "the functor wrote counts[k] outside [0, offset(k + 1) - offset(k)] for " +
                            std::to_string(bad) + " key(s)");
    Kokkos::parallel_for(
        names("count_end"), Range<Exec>(exec, K, K + 1),
        KOKKOS_LAMBDA(const i64 k) { counts(k) = 0; });
    scanInPlace(exec, names, counts);
    const i64 m = readWord(counts, K);
    return Result(counts, K, m, source, false, keys.madeByCall());
  }
}

/// group's end: the scanned starts give the groups and the keys of the groups.
/// Result: the Grouping of Keys, {groups, keys}.
template <class Result, class Exec, class Keys>
Result finishGroups(const sieve::Impl::Names& names, const Exec& exec, const Keys& keys,
                    const I64View<Exec>& s) {
  const i64 K = keys.num_keys(), n = keys.num_elements();
  const auto offsets = keys.offsets();
  scanInPlace(exec, names, s);
  const i64 G = readWord(s, n);
  I64View<Exec> groups = sieve::Impl::allocate<I64View<Exec>>(
      Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, names("group_offsets")),
      static_cast<std::size_t>(G + 1));
  I64View<Exec> perKey = sieve::Impl::allocate<I64View<Exec>>(
      Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, names("offsets")),
      static_cast<std::size_t>(K + 1));
  Kokkos::parallel_for(
      names("group_offsets"), Range<Exec>(exec, 0, n + 1), KOKKOS_LAMBDA(const i64 p) {
        if (p == n) groups(G) = n;
        else if (s(p + 1) != s(p)) groups(s(p)) = p;
      });
  Kokkos::parallel_for(
      names("reduced_offsets"), Range<Exec>(exec, 0, K + 1),
      KOKKOS_LAMBDA(const i64 k) { perKey(k) = s(offsets(k)); });
  sieve::Impl::fence(exec, "keys::group: temporaries freed");
  using Groups = decltype(Result::groups);
  using Reduced = decltype(Result::keys);
  return Result{
      Groups(groups, G, n),
      Reduced(perKey, K, G, static_cast<const void*>(offsets.data()), true, keys.madeByCall())};
}

/// group, checked types. Result: the Grouping of Keys.
template <class Result, class Exec, class Keys, class Out, class F>
Result group(const sieve::Impl::Names& names, const Exec& exec, const Keys& keys, const Out& output,
             const F& functor) {
  constexpr const char* fn = "sieve::keys::group";
  checkKeysOutput(fn, keys, output);
  checkScannedElements(fn, keys);
  const sieve::Impl::CallRegion region(names, sieve::Impl::Face::Portable);
  const i64 K = keys.num_keys(), n = keys.num_elements();
  const auto offsets = keys.offsets();
  I64View<Exec> s = sieve::Impl::allocate<I64View<Exec>>(
      Kokkos::view_alloc(exec, names("group_starts")), static_cast<std::size_t>(n + 1));
  if constexpr (IsSortGroup<F>::value) {
    if (n > 0) {
      const auto r = sortedRuns(names, exec, keys, output, s);
      Kokkos::parallel_for(
          names("grouped"), Range<Exec>(exec, 0, n),
          KOKKOS_LAMBDA(const i64 p) { output(p) = r(p).e; });
    }
  } else {
    forEachKeyRange(names, exec, keys, output, functor, s);
    // Any non-zero word is a start; the first element of every key is one.
    Kokkos::parallel_for(
        names("starts"), Range<Exec>(exec, 0, n + 1),
        KOKKOS_LAMBDA(const i64 p) { s(p) = p < n && s(p) != 0 ? 1 : 0; });
    Kokkos::parallel_for(
        names("key_starts"), Range<Exec>(exec, 0, K), KOKKOS_LAMBDA(const i64 k) {
          if (offsets(k) < offsets(k + 1)) s(offsets(k)) = 1;
        });
  }
  return finishGroups<Result>(names, exec, keys, s);
}

/// compact(keys, reduced, input, output), checked types.
template <class Exec, class Keys, class Reduced, class In, class Out>
i64 compactReduced(const sieve::Impl::Names& names, const Exec& exec, const Keys& keys,
                   const Reduced& reduced, const In& input, const Out& output) {
  constexpr const char* fn = "sieve::keys::compact";
  keys.checkCurrent(fn);
  sieve::Impl::checkKernelsAllowed<Exec>(fn);
  if (reduced.num_keys() != keys.num_keys())
    sieve::Impl::fail(fn, "reduced has " + std::to_string(reduced.num_keys()) +
                              " key ids; keys has " + std::to_string(keys.num_keys()) +
                              " (reduced must come from reduce(keys, ...))");
  if (reduced.grouped())
    sieve::Impl::fail(fn,
                      "reduced is the keys of a Grouping (it counts groups, not survivors at "
                      "the front of each key); use compact(grouping.groups, input, output)");
  if (reduced.source() != static_cast<const void*>(keys.offsets().data()) ||
      reduced.sourceCall() != keys.madeByCall())
    sieve::Impl::fail(fn,
                      "reduced was not made by reduce(keys, ...) from these keys (or a copy "
                      "of them; a workspace's keys of another call do not count); its counts "
                      "do not describe keys' elements");
  if (sieve::Impl::extent64(input) < keys.num_elements())
    sieve::Impl::fail(fn, "input.extent(0) = " + std::to_string(input.extent(0)) +
                              " is smaller than the keys' " + std::to_string(keys.num_elements()) +
                              " elements");
  const i64 m = reduced.num_elements(), K = keys.num_keys();
  if (sieve::Impl::extent64(output) < m)
    sieve::Impl::fail(fn, "output.extent(0) = " + std::to_string(output.extent(0)) +
                              " is smaller than the " + std::to_string(m) + " survivors");
  checkApartViews(fn, input, output);
  const sieve::Impl::CallRegion region(names, sieve::Impl::Face::Portable);
  const auto offsets = keys.offsets();
  const auto roffsets = reduced.offsets();
  Kokkos::parallel_for(
      names("copy"), Range<Exec>(exec, 0, m), KOKKOS_LAMBDA(const i64 q) {
        const i64 k = upperBound(roffsets, 0, K + 1, q) - 1;
        output(q) = input(offsets(k) + (q - roffsets(k)));
      });
  return m;
}

/// compact(groups, input, output), checked types.
template <class Exec, class Groups, class In, class Out>
i64 compactGroups(const sieve::Impl::Names& names, const Exec& exec, const Groups& groups,
                  const In& input, const Out& output) {
  constexpr const char* fn = "sieve::keys::compact";
  sieve::Impl::checkKernelsAllowed<Exec>(fn);
  const i64 G = groups.num_groups();
  if (sieve::Impl::extent64(input) < groups.num_elements())
    sieve::Impl::fail(fn, "input.extent(0) = " + std::to_string(input.extent(0)) +
                              " is smaller than the " + std::to_string(groups.num_elements()) +
                              " grouped elements");
  if (sieve::Impl::extent64(output) < G)
    sieve::Impl::fail(fn, "output.extent(0) = " + std::to_string(output.extent(0)) +
                              " is smaller than the " + std::to_string(G) + " groups");
  checkApartViews(fn, input, output);
  const sieve::Impl::CallRegion region(names, sieve::Impl::Face::Portable);
  const auto offsets = groups.offsets();
  Kokkos::parallel_for(
      names("copy"), Range<Exec>(exec, 0, G),
      KOKKOS_LAMBDA(const i64 g) { output(g) = input(offsets(g)); });
  return G;
}

} // namespace Keys
} // namespace Impl
} // namespace sieve
