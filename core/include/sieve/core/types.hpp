// SPDX-License-Identifier: Apache-2.0
// Sieve — index type, flags, constants and the plain descriptors shared by
// every face (host twins, CUDA kernels, Kokkos API). No Kokkos, no CUDA runtime.
#pragma once

#include <sieve/core/macros.hpp>

#include <cstdint>
#include <limits>
#include <type_traits>

namespace sieve {

/// The index type of the index map, the scan planes and the permutation.
using idx_t = std::int32_t;

/// Mask flag: a set (non-zero) mask byte drops the sample; without it a set
/// byte keeps the sample.
inline constexpr std::uint32_t kCompactMaskIsDrop = 1u;

/// What a non-zero mask byte means to compaction and reorder (the public
/// API's typed form of the native layer's kCompactMaskIsDrop flag): `keep`
/// (the default) keeps the sample, `drop` drops it.
enum class MaskPolarity : std::uint32_t { keep = 0u, drop = 1u };

namespace Impl {
/// The native layer's flags for a polarity.
SIEVE_INLINE constexpr std::uint32_t flagsOf(MaskPolarity p) {
  return p == MaskPolarity::drop ? kCompactMaskIsDrop : 0u;
}
} // namespace Impl

/// The largest sample count the int32 index map can address.
inline constexpr std::int64_t kCompactMaxSamples = INT32_MAX;

/// The smallest span a reorder is worth firing for: below it the fixed launch
/// cost of the moves exceeds what the restored coalescing saves.
inline constexpr std::uint32_t kReorderMinSpan = 4096u;

/// The largest element a reorder plane may carry, in bytes.
inline constexpr std::uint32_t kReorderMaxElemBytes = 16u;

/// Every flag bit compaction and reorder understand; other bits are rejected.
inline constexpr std::uint32_t kCompactKnownFlags = kCompactMaskIsDrop;

/// A per-sample plane a reorder moves: `n` elements of `elemBytes` bytes at
/// `data`, aligned to the element size.
struct ReorderPlane {
  void* data = nullptr;        ///< n elements
  std::uint32_t elemBytes = 0; ///< 1, 2, 4, 8 or 16
};

/// The locality trigger a compaction can compute on the way (the input of the
/// occasional physical reorder). Every pointer is a one-word buffer in the
/// compaction's memory space: `live32` and `fire` are written, `span` is read.
struct ReorderTrigger {
  std::uint32_t* live32 = nullptr;     ///< OUT: aligned 32-sample groups holding a kept sample
  const std::uint32_t* span = nullptr; ///< IN: samples [0, span) may still be kept
  std::uint32_t* fire = nullptr;       ///< OUT: 1 when a reorder pays, else 0
  float theta = 0.5f;                  ///< the locality threshold, in (0, 1)
};

// ---------------------------------------------------------------------------
// Scan operators. Any associative binary functor works; these three also know
// their identity (the default `init`). Integer sums wrap (two's complement)
// instead of overflowing, so every face produces the same bits.
// ---------------------------------------------------------------------------

namespace Impl {
template <class T>
SIEVE_INLINE constexpr T wrappingAdd(const T& a, const T& b) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  } else {
    return a + b;
  }
}
} // namespace Impl

/// `a + b` (integers wrap). Identity 0.
struct Sum {
  template <class T>
  SIEVE_INLINE constexpr T operator()(const T& a, const T& b) const {
    return Impl::wrappingAdd(a, b);
  }
  template <class T>
  static constexpr T identity() {
    return T(0);
  }
};

/// `min(a, b)`. Identity: the largest value of T (+inf for floating point).
struct Min {
  template <class T>
  SIEVE_INLINE constexpr T operator()(const T& a, const T& b) const {
    return b < a ? b : a;
  }
  template <class T>
  static constexpr T identity() {
    if constexpr (std::numeric_limits<T>::has_infinity) return std::numeric_limits<T>::infinity();
    else return std::numeric_limits<T>::max();
  }
};

/// `max(a, b)`. Identity: the lowest value of T (-inf for floating point).
struct Max {
  template <class T>
  SIEVE_INLINE constexpr T operator()(const T& a, const T& b) const {
    return a < b ? b : a;
  }
  template <class T>
  static constexpr T identity() {
    if constexpr (std::numeric_limits<T>::has_infinity) return -std::numeric_limits<T>::infinity();
    else return std::numeric_limits<T>::lowest();
  }
};

namespace Impl {
template <class Op, class T, class = void>
struct HasIdentity : std::false_type {};
template <class Op, class T>
struct HasIdentity<Op, T, std::void_t<decltype(Op::template identity<T>())>> : std::true_type {};
} // namespace Impl

/// The identity of `Op` for `T` (the default scan `init`). A user operator can
/// provide one as `template <class T> static constexpr T identity()`; without
/// it, callers must pass `init` explicitly.
template <class Op, class T>
constexpr T identityOf() {
  static_assert(Impl::HasIdentity<Op, T>::value,
                "sieve: this scan operator has no identity(); pass `init` explicitly");
  return Op::template identity<T>();
}

} // namespace sieve
