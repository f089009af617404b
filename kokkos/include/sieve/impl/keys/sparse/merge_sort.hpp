// SPDX-License-Identifier: Apache-2.0
// Sieve (internal) — scatter_sparse, SparsePath::MergeSort.
#pragma once

#include <sieve/impl/keys/merge.hpp>
#include <sieve/impl/keys/sparse/common.hpp>

#include <string>
#include <type_traits>

namespace sieve {
namespace Impl {
namespace Keys {

/// A key with the index of its element, for the merge sort.
template <class Key>
struct Tagged {
  Key key;
  i64 idx;
};
struct TaggedLess {
  template <class T>
  KOKKOS_INLINE_FUNCTION bool operator()(const T& a, const T& b) const {
    return a.key < b.key;
  }
};

/// SparsePath::MergeSort: keys ordered by operator< only, as (key, index)
/// pairs by a stable merge sort (merge.hpp), then the gather (finishSparse).
/// Throws for keys without a strict weak order. Blocks, then fences.
template <class Result, class Exec, class S, class Out>
Result sparseByMergeSort(const sieve::Impl::Names& names, const Exec& exec, const S& src,
                         const Out& output, const SparseDest<Result, Exec>& dest) {
  constexpr const char* fn = "sieve::keys::scatter_sparse";
  using Key = typename S::key_type;
  using Mem = typename Exec::memory_space;
  const i64 n = src.records();
  using T = Tagged<Key>;
  auto a = sieve::Impl::allocate<Kokkos::View<T*, Mem>>(
      Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, names("sort_a")), n);
  auto b = sieve::Impl::allocate<Kokkos::View<T*, Mem>>(
      Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, names("sort_b")), n);
  // A key that is not ordered by operator< (a floating-point NaN, or
  // k < k) has no place in the sorted order: an error, not a silent group.
  i64 unordered = 0;
  Kokkos::parallel_reduce(
      names("sort_fill"), Range<Exec>(exec, 0, n),
      KOKKOS_LAMBDA(const i64 i, i64& bad) {
        const Key k = src.key(src.element(i, 0));
        if constexpr (std::is_floating_point_v<Key>) {
          if (!(k == k)) ++bad;
        }
        if (k < k) ++bad;
        a(i).key = k;
        a(i).idx = i;
      },
      unordered);
  if (unordered > 0)
    sieve::Impl::fail(fn, std::to_string(unordered) +
                              " element key(s) are not ordered by operator< (NaN, or k < k); "
                              "the keys need a strict weak order; nothing was written");
  i64 disagreed = 0;
  const auto r = mergeSort(exec, names, a, b, n, TaggedLess{}, &disagreed);
  if (disagreed > 0)
    sieve::Impl::fail(fn,
                      "the keys' operator< is not a strict weak order (the sort's merge "
                      "pieces disagreed " +
                          std::to_string(disagreed) + " time(s)); nothing was written");
  return finishSparse<Result>(names, exec, src, output, n,
                              TaggedOrder<std::decay_t<decltype(r)>>{r}, dest);
}

} // namespace Keys
} // namespace Impl
} // namespace sieve
