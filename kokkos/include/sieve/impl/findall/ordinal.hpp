// SPDX-License-Identifier: Apache-2.0
// Sieve (internal) — sieve::findall's ordinal positions: how the k-th element
// of a View of any rank and layout is found, what a mask or a predicate
// selects, and what item is written for a selected position.
//
// Ordinal order is the layout order: LayoutLeft walks the first index
// fastest; LayoutRight and LayoutStride walk the last index fastest (a
// LayoutStride View is ordered as its indices, whatever its strides). A View
// whose strides are exactly those of its ordinal order ("flat") is read
// through its data pointer; any other is read by unravelling k.
#pragma once

#include <sieve/core/bits.hpp>
#include <sieve/impl/args.hpp>
#include <sieve/impl/common.hpp>

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

namespace sieve {
namespace Impl {
namespace Findall {

using i64 = std::int64_t;

/// Whether V's ordinal order walks the first index fastest.
template <class V>
inline constexpr bool kLeftOrder = std::is_same_v<typename V::array_layout, Kokkos::LayoutLeft>;

/// The number of elements of a View of any rank (1 for rank 0).
template <class V>
i64 size64(const V& v) {
  i64 s = 1;
  for (int d = 0; d < static_cast<int>(V::rank); ++d) s *= static_cast<i64>(v.extent(d));
  return s;
}

/// The multi-index of ordinal k in a rank-R shape, in layout order.
template <int R, bool Left>
struct Unravel {
  Kokkos::Array<i64, (R > 0 ? R : 1)> ext;

  template <class V>
  static Unravel of(const V& v) {
    Unravel u{};
    for (int d = 0; d < R; ++d) u.ext[d] = static_cast<i64>(v.extent(d));
    return u;
  }
  KOKKOS_INLINE_FUNCTION Kokkos::Array<i64, R> operator()(i64 k) const {
    Kokkos::Array<i64, R> idx{};
    if constexpr (R > 0) {
      if constexpr (Left) {
        for (int d = 0; d < R; ++d) {
          idx[d] = k % ext[d];
          k /= ext[d];
        }
      } else {
        for (int d = R - 1; d >= 0; --d) {
          idx[d] = k % ext[d];
          k /= ext[d];
        }
      }
    }
    return idx;
  }
};

/// Whether V's elements lie at data()[k] for every ordinal k (its strides are
/// those of its ordinal order; extents of one do not count). Kokkos::Array
/// elements are never read flat before Kokkos 4.4 (their data() is a pointer
/// to the scalars there).
template <class V>
bool flat(const V& v) {
  constexpr int R = static_cast<int>(V::rank);
#if KOKKOS_VERSION < 40400
  if constexpr (IsKokkosArray<typename V::non_const_value_type>::value) return false;
#endif
  if constexpr (R == 0) {
    return true;
  } else {
    i64 expect = 1;
    for (int j = 0; j < R; ++j) {
      const int d = kLeftOrder<V> ? j : R - 1 - j;
      const i64 e = static_cast<i64>(v.extent(d));
      if (e == 0) return true;
      if (e > 1 && static_cast<i64>(v.stride(d)) != expect) return false;
      expect *= e;
    }
    return true;
  }
}

/// Element k of a flat View.
template <class V>
struct FlatAt {
  typename V::pointer_type p;
  KOKKOS_INLINE_FUNCTION decltype(auto) operator()(const i64 k) const { return p[k]; }
};

/// Element k of any View (unravelled in its layout order).
template <class V>
struct ViewAt {
  static constexpr int R = static_cast<int>(V::rank);
  V v;
  Unravel<R, kLeftOrder<V>> un;

  template <std::size_t... Is>
  KOKKOS_INLINE_FUNCTION decltype(auto) at(const Kokkos::Array<i64, R>& idx,
                                           std::index_sequence<Is...>) const {
    return v(idx[Is]...);
  }
  KOKKOS_INLINE_FUNCTION decltype(auto) operator()(const i64 k) const {
    if constexpr (R == 0) {
      (void)k;
      return v();
    } else if constexpr (R == 1) {
      return v(k);
    } else {
      return at(un(k), std::make_index_sequence<R>());
    }
  }
};

/// V, unmanaged (what the kernels capture).
template <class V>
using UnmanagedOf = Kokkos::View<typename V::data_type, typename V::array_layout,
                                 typename V::device_type, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

/// The general reader of V's elements by ordinal.
template <class V>
ViewAt<UnmanagedOf<V>> viewAt(const V& v) {
  return ViewAt<UnmanagedOf<V>>{UnmanagedOf<V>(v),
                                Unravel<static_cast<int>(V::rank), kLeftOrder<V>>::of(v)};
}

/// Call f(reader) with the cheapest reader of V's elements by ordinal: the
/// data pointer of a flat View of rank >= 2, else the View itself.
template <class V, class F>
void withReader(const V& v, F&& f) {
  if constexpr (static_cast<int>(V::rank) >= 2) {
    if (flat(v)) {
      f(FlatAt<UnmanagedOf<V>>{v.data()});
      return;
    }
  }
  f(viewAt(v));
}

// --- what is selected ---------------------------------------------------------------

KOKKOS_INLINE_FUNCTION std::uint64_t load8(const unsigned char* p) {
  std::uint64_t w;
  std::memcpy(&w, p, 8);
  return w;
}

/// 0x01 in every byte of w that is non-zero, 0x00 elsewhere (SWAR, any target).
KOKKOS_INLINE_FUNCTION std::uint64_t nonzeroBytes(const std::uint64_t w) {
  const std::uint64_t lo7 = 0x7F7F7F7F7F7F7F7FULL;
  return ((((w & lo7) + lo7) | w) & ~lo7) >> 7;
}

/// Bit j of the result set when byte p[j] is non-zero, j < 8.
KOKKOS_INLINE_FUNCTION std::uint32_t nonzeroBits8(const unsigned char* p) {
  return static_cast<std::uint32_t>((nonzeroBytes(load8(p)) * 0x0102040810204080ULL) >> 56);
}

/// A mask of bytes read as bool (bool or uint8 elements; the predicate's mask
/// in the workspace) at p[k]: non-zero selects.
struct ByteKeep {
  const unsigned char* p;
  KOKKOS_INLINE_FUNCTION bool operator()(const i64 k) const { return p[k] != 0; }
  /// Selected elements of [a, b).
  KOKKOS_INLINE_FUNCTION i64 count(const i64 a, const i64 b) const {
    i64 c = 0, k = a;
    // 8 bytes at a time: per-byte 0/1 lanes summed in a word (at most 255
    // words per lane sum), then folded in 16-bit lanes (the eight byte sums
    // reach 2040: a byte-wide fold would wrap).
    while (b - k >= 8) {
      const i64 words = (b - k) / 8 < 255 ? (b - k) / 8 : 255;
      std::uint64_t lanes = 0;
      for (i64 w = 0; w < words; ++w) lanes += nonzeroBytes(load8(p + k + 8 * w));
      const std::uint64_t pairs =
          (lanes & 0x00FF00FF00FF00FFULL) + ((lanes >> 8) & 0x00FF00FF00FF00FFULL);
      c += static_cast<i64>((pairs * 0x0001000100010001ULL) >> 48);
      k += 8 * words;
    }
    for (; k < b; ++k) c += p[k] != 0 ? 1 : 0;
    return c;
  }
  /// Bit j set when element k0 + j is selected, j < len <= 32.
  KOKKOS_INLINE_FUNCTION std::uint32_t bits(const i64 k0, const i64 len) const {
    if (len == 32) {
      const std::uint64_t w0 = load8(p + k0), w1 = load8(p + k0 + 8), w2 = load8(p + k0 + 16),
                          w3 = load8(p + k0 + 24);
      if ((w0 | w1 | w2 | w3) == 0) return 0u;
      const std::uint64_t m = 0x0102040810204080ULL;
      return static_cast<std::uint32_t>((nonzeroBytes(w0) * m) >> 56) |
             (static_cast<std::uint32_t>((nonzeroBytes(w1) * m) >> 56) << 8) |
             (static_cast<std::uint32_t>((nonzeroBytes(w2) * m) >> 56) << 16) |
             (static_cast<std::uint32_t>((nonzeroBytes(w3) * m) >> 56) << 24);
    }
    std::uint32_t b = 0;
    i64 j = 0;
    for (; j + 8 <= len; j += 8) b |= nonzeroBits8(p + k0 + j) << j;
    for (; j < len; ++j) b |= static_cast<std::uint32_t>(p[k0 + j] != 0) << j;
    return b;
  }
};

/// A mask View of any rank and layout, read by ordinal through `at`.
template <class At>
struct ViewKeep {
  At at;
  KOKKOS_INLINE_FUNCTION bool operator()(const i64 k) const { return static_cast<bool>(at(k)); }
  KOKKOS_INLINE_FUNCTION i64 count(const i64 a, const i64 b) const {
    i64 c = 0;
    for (i64 k = a; k < b; ++k) c += static_cast<bool>(at(k)) ? 1 : 0;
    return c;
  }
  KOKKOS_INLINE_FUNCTION std::uint32_t bits(const i64 k0, const i64 len) const {
    std::uint32_t b = 0;
    for (i64 j = 0; j < len; ++j)
      b |= static_cast<std::uint32_t>(static_cast<bool>(at(k0 + j))) << j;
    return b;
  }
};

/// An index predicate (the index form, findall(exec, n, pred)): element k is
/// selected when pred(k) is true. Nothing is stored: the count phase and the
/// write phase each call pred (so pred must be pure).
template <class Pred>
struct PredKeep {
  Pred pred;
  KOKKOS_INLINE_FUNCTION bool operator()(const i64 k) const {
    return static_cast<bool>(pred(static_cast<std::int64_t>(k)));
  }
  KOKKOS_INLINE_FUNCTION i64 count(const i64 a, const i64 b) const {
    const Pred f = pred; // a local copy: stores elsewhere cannot alias it
    i64 c = 0;
    for (i64 k = a; k < b; ++k) c += f(static_cast<std::int64_t>(k)) ? 1 : 0;
    return c;
  }
  KOKKOS_INLINE_FUNCTION std::uint32_t bits(const i64 k0, const i64 len) const {
    const Pred f = pred;
    std::uint32_t b = 0;
    for (i64 j = 0; j < len; ++j)
      b |= static_cast<std::uint32_t>(f(static_cast<std::int64_t>(k0 + j)) ? 1u : 0u) << j;
    return b;
  }
};

/// The index form on host spaces, count phase: pred evaluated once per index,
/// its answers recorded as bits (bit k % 32 of words[k / 32]) and counted.
/// A unit's words must be its thread's alone (tiles of whole words); the
/// write phase then reads the bits (BitKeep) instead of calling pred again.
template <class Pred>
struct RecordKeep {
  Pred pred;
  std::uint32_t* words;
  KOKKOS_INLINE_FUNCTION void put(const i64 k, const bool on) const {
    const std::uint32_t bit = std::uint32_t(1) << (k & 31);
    words[k >> 5] = on ? (words[k >> 5] | bit) : (words[k >> 5] & ~bit);
  }
  KOKKOS_INLINE_FUNCTION i64 count(const i64 a, const i64 b) const {
    const Pred f = pred;
    std::uint32_t* const w = words;
    i64 c = 0, k = a;
    for (; k < b && (k & 31) != 0; ++k) {
      const bool on = f(static_cast<std::int64_t>(k));
      put(k, on);
      c += on ? 1 : 0;
    }
    for (; b - k >= 32; k += 32) {
      std::uint32_t bits = 0;
      for (int j = 0; j < 32; ++j)
        bits |= static_cast<std::uint32_t>(f(static_cast<std::int64_t>(k + j)) ? 1u : 0u) << j;
      w[k >> 5] = bits;
      c += popcount32(bits);
    }
    for (; k < b; ++k) {
      const bool on = f(static_cast<std::int64_t>(k));
      put(k, on);
      c += on ? 1 : 0;
    }
    return c;
  }
};

/// The bits a RecordKeep recorded: element k is selected when bit k % 32 of
/// words[k / 32] is set.
struct BitKeep {
  const std::uint32_t* words;
  KOKKOS_INLINE_FUNCTION bool operator()(const i64 k) const {
    return ((words[k >> 5] >> (k & 31)) & 1u) != 0u;
  }
  KOKKOS_INLINE_FUNCTION i64 count(const i64 a, const i64 b) const {
    i64 c = 0;
    for (i64 k0 = a; k0 < b; k0 += 32) c += popcount32(bits(k0, b - k0 < 32 ? b - k0 : 32));
    return c;
  }
  /// Bit j set when element k0 + j is selected, j < len <= 32.
  KOKKOS_INLINE_FUNCTION std::uint32_t bits(const i64 k0, const i64 len) const {
    const int s = static_cast<int>(k0 & 31);
    std::uint32_t b = words[k0 >> 5] >> s;
    if (s != 0 && len > 32 - s) b |= words[(k0 >> 5) + 1] << (32 - s);
    return len == 32 ? b : b & ((std::uint32_t(1) << len) - 1u);
  }
};

// --- what is written ------------------------------------------------------------------

/// The indices of a rank-R View (int64 for rank 1, Kokkos::Array<int64, R> otherwise).
template <int R, bool Left>
struct IndexItems {
  Unravel<R, Left> un;
  KOKKOS_INLINE_FUNCTION auto operator()(const i64 k) const {
    if constexpr (R == 1) return k;
    else return un(k);
  }
};

/// Ordinal positions.
struct LinearItems {
  KOKKOS_INLINE_FUNCTION i64 operator()(const i64 k) const { return k; }
};

/// The values of a View, by ordinal.
template <class At>
struct ValueItems {
  At at;
  KOKKOS_INLINE_FUNCTION decltype(auto) operator()(const i64 k) const { return at(k); }
};

/// int64 positions written as std::int32_t (into() an int32 result; the
/// call checked that every position fits).
template <class Items>
struct Narrow32 {
  Items items;
  KOKKOS_INLINE_FUNCTION std::int32_t operator()(const i64 k) const {
    return static_cast<std::int32_t>(items(k));
  }
};

/// The unit functions of the tile kernels over n elements in units of `w`
/// elements: unit u is [u w, min(u w + w, n)). `count(u)` counts its selected
/// elements; `write(u, pos)` writes the items of the selected ones to
/// out(pos), out(pos + 1), ... (never at or past `cap`) and returns how many
/// were selected.
template <class Keep, class Items, class Out>
struct Units {
  Keep keep;
  Items items;
  Out out;
  i64 n, w, cap;

  KOKKOS_INLINE_FUNCTION i64 count(const i64 u) const {
    const i64 a = u * w, b = a + w < n ? a + w : n;
    return keep.count(a, b);
  }
  KOKKOS_INLINE_FUNCTION void put(const i64 pos, const i64 k) const {
    if (pos < cap) out(pos) = items(k);
  }
  KOKKOS_INLINE_FUNCTION i64 write(const i64 u, const i64 at) const {
    const i64 a = u * w, b = a + w < n ? a + w : n;
    i64 pos = at;
    for (i64 k0 = a; k0 < b; k0 += 32) {
      const i64 len = b - k0 < 32 ? b - k0 : 32;
      const std::uint32_t bits = keep.bits(k0, len);
      if (bits == 0u) continue;
      if (len == 32 && bits == 0xFFFFFFFFu && pos + 32 <= cap) {
        for (int j = 0; j < 32; ++j) out(pos + j) = items(k0 + j);
        pos += 32;
      } else if (pos + 32 <= cap) {
        for (std::uint32_t x = bits; x != 0u; x &= x - 1u) out(pos++) = items(k0 + ctz32(x));
      } else {
        for (std::uint32_t x = bits; x != 0u; x &= x - 1u) put(pos++, k0 + ctz32(x));
      }
    }
    return pos - at;
  }
};

} // namespace Findall
} // namespace Impl
} // namespace sieve
