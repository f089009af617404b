// SPDX-License-Identifier: Apache-2.0
// Sieve Kokkos tests — a View's elements on the host in logical order,
// whatever its layout, strides and memory space. Kokkos copies between memory
// spaces only when both Views are contiguous with the same layout (a strided
// device subview has no host mirror it can be copied to), and a LayoutLeft
// View's bytes are in another order than a LayoutRight one's: both go through
// a contiguous LayoutRight copy in the View's own space first.
#pragma once

#include <sieve/impl/args.hpp> // Impl::IsKokkosArray

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <string>
#include <type_traits>
#include <utility>

namespace sieve_test {

namespace detail {
/// T with R levels of pointer: the data type of a rank-R View of T.
template <class T, std::size_t R>
struct Stars {
  using type = typename Stars<T, R - 1>::type*;
};
template <class T>
struct Stars<T, 0> {
  using type = T;
};
template <class V, std::size_t... I>
auto rightCopy(const V& d, std::index_sequence<I...>) {
  using T = typename V::non_const_value_type;
  using R = Kokkos::View<typename Stars<T, sizeof...(I)>::type, Kokkos::LayoutRight,
                         typename V::memory_space>;
  R r(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("sieve_test::right_copy")),
      d.extent(I)...);
  Kokkos::deep_copy(r, d);
  return r;
}
} // namespace detail

/// A host LayoutRight View holding d's elements (any rank, layout, strides,
/// memory space): h(i, j, ...) == d(i, j, ...), and h.data() lists them last
/// index fastest. Fences.
template <class V>
auto hostCopy(const V& d) {
  constexpr auto R = static_cast<std::size_t>(V::rank);
  using L = typename V::array_layout;
  // Already in logical order (and copyable as it is: Kokkos::Array elements
  // included, which Kokkos 3.4 copies only between Views of one layout; but
  // a LayoutLeft View of Kokkos::Array there lays out one component after
  // another, so only LayoutRight counts for those).
  constexpr bool inOrder = std::is_same_v<L, Kokkos::LayoutRight> ||
                           (R <= 1 && std::is_same_v<L, Kokkos::LayoutLeft> &&
                            !sieve::Impl::IsKokkosArray<typename V::non_const_value_type>::value);
  Kokkos::fence();
  if constexpr (inOrder) {
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), d);
    Kokkos::fence();
    return h;
  } else {
    const auto r = detail::rightCopy(d, std::make_index_sequence<R>{});
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), r);
    Kokkos::fence();
    return h;
  }
}

} // namespace sieve_test
