// SPDX-License-Identifier: Apache-2.0
// Sieve (internal) — reading the optional, typed arguments of an entry point
// (a mask polarity, a trigger, the tail of planes) at compile time, so that a
// wrong argument list meets a readable static_assert and nothing else.
#pragma once

#include <sieve/impl/common.hpp>

#include <cstddef>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

namespace sieve {
namespace Impl {

/// Stands for an argument that is not there.
struct Absent {};

template <class T>
struct IsKokkosArray : std::false_type {};
template <class T, std::size_t N>
struct IsKokkosArray<Kokkos::Array<T, N>> : std::true_type {};

/// Whether P can be a plane moved by bytes on Exec (reorder, restore,
/// permute, rebalance): a writable rank-1 or rank-2 View (extent(0): the
/// samples; a rank-2 plane moves its rows) of trivially-copyable elements
/// accessible from Exec (on Kokkos < 4.4 a View of Kokkos::Array must be rank
/// 1 and LayoutRight: only then are the arrays stored whole, one after the
/// other).
template <class Exec, class P>
constexpr bool bytePlaneOk() {
  if constexpr ((Safe<P>::rank != 1 && Safe<P>::rank != 2) ||
                std::is_void_v<typename Safe<P>::value>) {
    return false;
  } else {
    using T = typename Safe<P>::value;
    bool ok = Safe<P>::writable && std::is_trivially_copyable_v<T> &&
              Safe<P>::template accessible<Exec>();
#if KOKKOS_VERSION < 40400
    ok = ok &&
         (!IsKokkosArray<T>::value ||
          (Safe<P>::rank == 1 && std::is_same_v<typename P::array_layout, Kokkos::LayoutRight>));
#endif
    return ok;
  }
}

/// The index of the first false of ok[0 .. N - 1) (the last entry is a
/// sentinel), or -1.
template <std::size_t N>
constexpr int firstFalse(const bool (&ok)[N]) {
  for (int i = 0; i + 1 < static_cast<int>(N); ++i)
    if (!ok[i]) return i;
  return -1;
}

/// The I-th type of Args..., or Absent past the end.
template <std::size_t I, class... Args>
struct NthT {
  using type = Absent;
};
template <class A0, class... Args>
struct NthT<0, A0, Args...> {
  using type = A0;
};
template <std::size_t I, class A0, class... Args>
struct NthT<I, A0, Args...> : NthT<I - 1, Args...> {};
template <std::size_t I, class... Args>
using Nth = typename NthT<I, std::decay_t<Args>...>::type;

/// False for every T: a static_assert in a template fires only when it is
/// instantiated (the catch-all overloads that keep Sieve's sentence first
/// for a wrong argument list).
template <class... T>
inline constexpr bool kNever = false;

/// Whether T may be a call's leading label.
template <class T>
inline constexpr bool kLabelLike = std::is_convertible_v<const T&, std::string>;

/// The I-th argument.
template <std::size_t I, class... Args>
decltype(auto) nth(const Args&... args) {
  return std::get<I>(std::forward_as_tuple(args...));
}

/// Whether the first of Args... is a sieve::MaskPolarity.
template <class... Args>
inline constexpr bool kLeadingPolarity = std::is_same_v<Nth<0, Args...>, MaskPolarity>;

/// The polarity argument, when there is one (else keep).
template <class... Args>
MaskPolarity polarityOf(const Args&... args) {
  if constexpr (kLeadingPolarity<Args...>) return nth<0>(args...);
  else return MaskPolarity::keep;
}

/// Call f(args[From], args[From+1], ...) — the tail of an argument list.
template <std::size_t From, class F, class Tuple, std::size_t... Is>
decltype(auto) applyTailImpl(F&& f, const Tuple& t, std::index_sequence<Is...>) {
  return f(std::get<From + Is>(t)...);
}
template <std::size_t From, class F, class... Args>
decltype(auto) applyTail(F&& f, const Args&... args) {
  static_assert(From <= sizeof...(Args));
  return applyTailImpl<From>(std::forward<F>(f), std::forward_as_tuple(args...),
                             std::make_index_sequence<sizeof...(Args) - From>());
}

/// A byte scratch View accessible from Exec (rank 1, one-byte trivially
/// copyable elements, writable).
template <class Exec, class V>
inline constexpr bool kByteScratch =
    Safe<V>::rank == 1 && !std::is_void_v<typename Safe<V>::value> && Safe<V>::writable &&
    Safe<V>::template accessible<Exec>() &&
    sizeof(std::conditional_t<std::is_void_v<typename Safe<V>::value>, char,
                              typename Safe<V>::value>) == 1 &&
    std::is_trivially_copyable_v<
        std::conditional_t<std::is_void_v<typename Safe<V>::value>, char, typename Safe<V>::value>>;

} // namespace Impl
} // namespace sieve
