// SPDX-License-Identifier: Apache-2.0
// Sieve (internal) — a stable parallel merge sort in portable Kokkos
// patterns, for keys that only have operator< (sparse keys that are not
// integers) and for the segmented sorts of SortUnique / SortGroup: runs of
// kRun items sorted by insertion, then log2(n / kRun) merge passes, each
// split into blocks of kBlock output positions that find their start on the
// merge path by binary search, so every pass is balanced whatever the data.
// O(n log n) work, O(log n) passes; ties keep input order.
#pragma once

#include <sieve/core/tuning.hpp>
#include <sieve/impl/keys/counting.hpp>

#include <cstdint>

namespace sieve {
namespace Impl {
namespace Keys {

inline constexpr i64 kRun = Tuning::Portable::kMergeRun;
inline constexpr i64 kBlock = Tuning::Portable::kMergeBlock;

/// The first position p in [lo, hi) with v(p) > x (hi when none).
template <class V>
KOKKOS_INLINE_FUNCTION i64 upperBound(const V& v, i64 lo, i64 hi, i64 x) {
  while (lo < hi) {
    const i64 m = lo + (hi - lo) / 2;
    if (x < v(m)) hi = m;
    else lo = m + 1;
  }
  return lo;
}
/// The first position p in [lo, hi) with v(p) >= x (hi when none).
template <class V>
KOKKOS_INLINE_FUNCTION i64 lowerBound(const V& v, i64 lo, i64 hi, i64 x) {
  while (lo < hi) {
    const i64 m = lo + (hi - lo) / 2;
    if (v(m) < x) lo = m + 1;
    else hi = m;
  }
  return lo;
}

/// Sort a(0 .. n) stably by `less`, with b as the other buffer of the
/// passes; returns the View holding the result (a or b). Every pass writes a
/// permutation of its input when `less` is a strict weak order; when it is
/// not (e.g. NaN), the pieces of a merge may disagree: nothing is then read
/// or written out of bounds, and `*unordered` (when given) receives the
/// number of pieces that disagreed (read back at the end: blocks). Else
/// enqueued on exec.
template <class Exec, class V, class Less>
V mergeSort(const Exec& exec, const sieve::Impl::Names& names, V a, V b, i64 n, const Less& less,
            i64* unordered = nullptr) {
  if (unordered) *unordered = 0;
  if (n <= 1) return a;
  auto errors = sieve::Impl::allocate<Kokkos::View<i64, typename Exec::memory_space>>(
      Kokkos::view_alloc(exec, names("merge_errors")));
  Kokkos::parallel_for(
      names("sort_runs"), Range<Exec>(exec, 0, (n + kRun - 1) / kRun), KOKKOS_LAMBDA(const i64 r) {
        const i64 lo = r * kRun, hi = lo + kRun < n ? lo + kRun : n;
        for (i64 i = lo + 1; i < hi; ++i) {
          const auto x = a(i);
          i64 j = i;
          for (; j > lo && less(x, a(j - 1)); --j) a(j) = a(j - 1);
          a(j) = x;
        }
      });
  for (i64 w = kRun; w < n; w *= 2) {
    const V src = a, dst = b;
    Kokkos::parallel_for(
        names("merge"), Range<Exec>(exec, 0, (n + kBlock - 1) / kBlock),
        KOKKOS_LAMBDA(const i64 blk) {
          const i64 p1 = (blk + 1) * kBlock < n ? (blk + 1) * kBlock : n;
          for (i64 p = blk * kBlock; p < p1;) {
            const i64 lo = p / (2 * w) * (2 * w);
            const i64 mid = lo + w < n ? lo + w : n;
            const i64 hi = lo + 2 * w < n ? lo + 2 * w : n;
            const i64 end = p1 < hi ? p1 : hi;
            const i64 na = mid - lo, nb = hi - mid;
            // How many of the first `diag` outputs come from the left run.
            const auto split = [&](const i64 diag) {
              i64 l = diag > nb ? diag - nb : 0, r = diag < na ? diag : na;
              while (l < r) {
                const i64 m = l + (r - l) / 2;
                if (less(src(mid + diag - m - 1), src(lo + m))) r = m;
                else l = m + 1;
              }
              return l;
            };
            // Both ends of this piece of the merge, by the same search as the
            // neighbouring pieces: when they are ordered, the pieces take
            // disjoint inputs covering the runs, so every input is written
            // exactly once. When they are not (`less` is not a strict weak
            // order, e.g. NaN), nothing out of bounds: copy, and report.
            const i64 l0 = split(p - lo), l1 = split(end - lo);
            if (l1 < l0 || end - lo - l1 < p - lo - l0) {
              Kokkos::atomic_add(&errors(), i64(1));
              for (; p < end; ++p) dst(p) = src(p);
              continue;
            }
            i64 i = lo + l0, j = mid + (p - lo - l0);
            const i64 iEnd = lo + l1, jEnd = mid + (end - lo - l1);
            for (; p < end; ++p) {
              if (j >= jEnd || (i < iEnd && !less(src(j), src(i)))) dst(p) = src(i++);
              else dst(p) = src(j++);
            }
          }
        });
    a = dst;
    b = src;
  }
  if (unordered) Kokkos::deep_copy(*unordered, errors);
  return a;
}

} // namespace Keys
} // namespace Impl
} // namespace sieve
