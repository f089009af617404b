// SPDX-License-Identifier: Apache-2.0
// Sieve (internal) — sieve::keys::reduce_by_key: one value per key id, the
// fold of its elements' values in the fixed order of core's kFoldPiece rule
// (whoever computes it: one thread per key, or the pieces of a big key in
// parallel). Portable Kokkos patterns; the same bytes on every backend.
#pragma once

#include <sieve/core/keys.hpp>
#include <sieve/impl/keys/counting.hpp>
#include <sieve/impl/keys/merge.hpp>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace sieve {
namespace Impl {
namespace Keys {

/// The values of reduce_by_key: value(p) of a View, or a projection of it.
template <class V>
struct ViewValues {
  V v;
  KOKKOS_INLINE_FUNCTION auto operator()(const i64 p) const { return v(p); }
};
template <class V, class F>
struct ProjectedValues {
  V v;
  F f;
  KOKKOS_INLINE_FUNCTION auto operator()(const i64 p) const { return f(v(p)); }
};

/// The fold of values [p, q) left to right from the first (p < q).
template <class T, class Values, class Op>
KOKKOS_INLINE_FUNCTION T foldRun(const Values& value, const Op& op, i64 p, i64 q) {
  T acc = static_cast<T>(value(p));
  for (i64 x = p + 1; x < q; ++x) acc = static_cast<T>(op(acc, static_cast<T>(value(x))));
  return acc;
}

/// init op piece_0 op piece_1 ... of the positions [a, z), the pieces cut at
/// the multiples of kFoldPiece (sequentially: a key of a few pieces).
template <class T, class Values, class Op>
KOKKOS_INLINE_FUNCTION T foldKey(const Values& value, const T& init, const Op& op, i64 a, i64 z) {
  constexpr i64 B = kFoldPiece;
  T r = init;
  for (i64 p = a; p < z;) {
    const i64 q = (p / B + 1) * B < z ? (p / B + 1) * B : z;
    r = static_cast<T>(op(r, foldRun<T>(value, op, p, q)));
    p = q;
  }
  return r;
}

/// Piece b's positions [s, e): empty past the elements (offsets(K), at most
/// the host's bound; less with a count on the device).
template <class Offsets>
KOKKOS_INLINE_FUNCTION void pieceOf(const Offsets& offsets, i64 K, i64 b, i64& s, i64& e) {
  constexpr i64 B = kFoldPiece;
  const i64 n = offsets(K);
  s = b * B;
  e = s + B < n ? s + B : n;
}
/// The key holding position p (the last of equal offsets: empty keys skipped).
template <class Offsets>
KOKKOS_INLINE_FUNCTION i64 keyAt(const Offsets& offsets, i64 K, i64 p) {
  return upperBound(offsets, 0, K + 1, p) - 1;
}

/// result(k) = init op piece_0 op piece_1 ... for every key id k (init for an
/// empty key); N: the elements, or a bound of them (offsets(K) is read).
/// Keys of at most kFoldBigKey elements: one thread each. Larger keys (they
/// would serialise): their pieces in parallel — the part of the key holding a
/// piece's first position (first) and of a key starting inside the piece
/// (last) — then one thread per piece combines the big key ending there.
/// Enqueued on `exec`. Without a workspace (`kept`: a ReduceWorkspace, or
/// nullptr) the pieces' scratch is allocated here and freed on return, so it
/// fences `exec` first; with one, nothing is allocated and nothing fences.
/// `gate`: the rejection word of the asynchronous call that made the keys
/// (on the device; non-zero: nothing is written), or null.
template <class Exec, class Offsets, class Values, class T, class Op, class Result,
          class Kept = std::nullptr_t>
void foldByKey(const sieve::Impl::Names& names, const Exec& exec, const Offsets& offsets, i64 K,
               i64 N, const Values& value, const T& init, const Op& op, const Result& result,
               const Kept& kept = nullptr, const i64* gate = nullptr) {
  if (K == 0) return;
  using Mem = typename Exec::memory_space;
  constexpr i64 B = kFoldPiece;
  constexpr i64 big = kFoldBigKey;
  constexpr bool kOwn = std::is_same_v<Kept, std::nullptr_t>;
  Kokkos::parallel_for(
      names("keys"), Range<Exec>(exec, 0, K), KOKKOS_LAMBDA(const i64 k) {
        if (gate != nullptr && *gate != 0) return;
        const i64 a = offsets(k), z = offsets(k + 1);
        if (z - a <= big) result(k) = foldKey<T>(value, init, op, a, z);
      });
  // Big keys need more than kFoldBigKey elements: none (no scratch) when N is smaller.
  const i64 pieces = foldScratchPieces(N);
  if (pieces == 0) return;
  Kokkos::View<T*, Mem> first, last;
  if constexpr (kOwn) {
    first = sieve::Impl::allocate<Kokkos::View<T*, Mem>>(
        Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, names("first")),
        static_cast<std::size_t>(pieces));
    last = sieve::Impl::allocate<Kokkos::View<T*, Mem>>(
        Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, names("last")),
        static_cast<std::size_t>(pieces));
  } else {
    first = kept.first();
    last = kept.last();
  }
  Kokkos::parallel_for(
      names("big_pieces"), Range<Exec>(exec, 0, pieces), KOKKOS_LAMBDA(const i64 b) {
        if (gate != nullptr && *gate != 0) return;
        i64 s = 0, e = 0;
        pieceOf(offsets, K, b, s, e);
        if (s >= e) return;
        const i64 k0 = keyAt(offsets, K, s);
        const i64 z0 = offsets(k0 + 1);
        if (z0 - offsets(k0) > big) first(b) = foldRun<T>(value, op, s, z0 < e ? z0 : e);
        if (z0 >= e) return;
        // The key holding e - 1, when it starts inside the piece.
        const i64 k1 = keyAt(offsets, K, e - 1);
        const i64 a1 = offsets(k1);
        if (offsets(k1 + 1) - a1 > big) last(b) = foldRun<T>(value, op, a1, e);
      });
  Kokkos::parallel_for(
      names("big_keys"), Range<Exec>(exec, 0, pieces), KOKKOS_LAMBDA(const i64 b) {
        if (gate != nullptr && *gate != 0) return;
        i64 s = 0, e = 0;
        pieceOf(offsets, K, b, s, e);
        if (s >= e) return;
        // The big key ending in this piece holds its first position.
        const i64 k = keyAt(offsets, K, s);
        const i64 a = offsets(k), z = offsets(k + 1);
        if (z - a <= big || z > e) return;
        const i64 ba = a / B;
        T r = static_cast<T>(op(init, a == ba * B ? first(ba) : last(ba)));
        for (i64 c = ba + 1; c <= b; ++c) r = static_cast<T>(op(r, first(c)));
        result(k) = r;
      });
  if constexpr (kOwn) sieve::Impl::fence(exec, "keys::reduce_by_key: pieces freed");
}

} // namespace Keys
} // namespace Impl
} // namespace sieve
