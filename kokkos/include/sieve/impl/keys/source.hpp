// SPDX-License-Identifier: Apache-2.0
// Sieve (internal) — the inputs of sieve::keys, seen one way: records
// (0 .. records) of 0 .. M elements each, the element j of record i, and the
// key of an element. A View of elements is one element per record; a
// sieve::keys::Keyed pairs a View with a key functor; anything else is a
// mapper (see sieve/keys.hpp for the concept).
#pragma once

#include <sieve/core/keys.hpp>
#include <sieve/impl/common.hpp>

#include <cstdint>
#include <memory>
#include <type_traits>
#include <utility>

namespace sieve {
namespace Impl {
namespace Keys {

using i64 = std::int64_t;

/// A View with a key functor (sieve::keys::Keyed, whose header specializes
/// it): `view`, `key` and their types.
template <class T>
struct IsKeyed : std::false_type {};

/// An element type with a key() member.
template <class E, class = void>
struct HasKeyMember : std::false_type {};
template <class E>
struct HasKeyMember<E, std::void_t<decltype(std::declval<const E&>().key())>> : std::true_type {};

/// An element that carries its key: an integer (its own key) or a type with key().
template <class E>
inline constexpr bool kKeyedElement = kIntegralKey<E> || HasKeyMember<E>::value;

/// The key of an element: itself for an integer, else its key().
template <class E>
KOKKOS_INLINE_FUNCTION auto elementKey(const E& e) {
  if constexpr (kIntegralKey<E>) return e;
  else return e.key();
}

/// The key functor of elements that carry their key.
struct MemberKey {
  template <class E>
  KOKKOS_INLINE_FUNCTION auto operator()(const E& e) const {
    return elementKey(e);
  }
};

/// A mapper's optional key(element) member.
template <class M, class = void>
struct HasMapperKey : std::false_type {};
template <class M>
struct HasMapperKey<M, std::void_t<decltype(std::declval<const M&>().key(
                           std::declval<const typename M::element_type&>()))>> : std::true_type {};

/// The key functor of a mapper's elements: mapper.key(e) when it has one,
/// else the element's own key.
template <class M>
struct MapperKey {
  M mapper;
  template <class E>
  KOKKOS_INLINE_FUNCTION auto operator()(const E& e) const {
    if constexpr (HasMapperKey<M>::value) return mapper.key(e);
    else return elementKey(e);
  }
};

/// The mapper concept's members.
template <class M, class = void>
struct IsMapper : std::false_type {};
template <class M>
struct IsMapper<M, std::void_t<typename M::element_type, decltype(std::declval<const M&>().size()),
                               decltype(std::declval<const M&>().count(i64(0))),
                               decltype(std::declval<const M&>().element(i64(0), 0))>>
    : std::true_type {};

/// Records of one element each: a rank-1 View with a key functor.
template <class V, class KeyFn>
struct ArraySource {
  using element_type = typename V::non_const_value_type;
  using key_type =
      std::decay_t<decltype(std::declval<const KeyFn&>()(std::declval<const element_type&>()))>;
  static constexpr bool kOneToOne = true;
  /// The key is a caller's functor (it could answer differently between the
  /// passes): the blocking dense scatter then checks every slot exactly.
  static constexpr bool kUserKey = !std::is_same_v<KeyFn, MemberKey>;
  V view;
  KeyFn keyFn;
  i64 records() const { return static_cast<i64>(view.extent(0)); }
  KOKKOS_INLINE_FUNCTION int count(i64) const { return 1; }
  KOKKOS_INLINE_FUNCTION element_type element(i64 i, int) const { return view(i); }
  KOKKOS_INLINE_FUNCTION key_type key(const element_type& e) const { return keyFn(e); }
  /// Record i is read soon (a gather in sorted order: a random read). (Not
  /// through a View whose elements are proxies: atomic access.)
  KOKKOS_INLINE_FUNCTION void prefetch(i64 i) const {
    if constexpr (std::is_lvalue_reference_v<typename V::reference_type>)
      SIEVE_PREFETCH(std::addressof(view(i)));
    else (void)i;
  }
};

/// Records of 0 .. M elements: a mapper.
template <class M>
struct MapperSource {
  using element_type = typename M::element_type;
  using key_type = std::decay_t<decltype(std::declval<const MapperKey<M>&>()(
      std::declval<const element_type&>()))>;
  static constexpr bool kOneToOne = false;
  static constexpr bool kUserKey = true;
  M mapper;
  i64 records() const { return static_cast<i64>(mapper.size()); }
  KOKKOS_INLINE_FUNCTION int count(i64 i) const { return static_cast<int>(mapper.count(i)); }
  KOKKOS_INLINE_FUNCTION element_type element(i64 i, int j) const { return mapper.element(i, j); }
  KOKKOS_INLINE_FUNCTION void prefetch(i64) const {} // (the mapper's memory is its own)
  KOKKOS_INLINE_FUNCTION key_type key(const element_type& e) const {
    // (Not through a MapperKey: that would copy the mapper for every element.)
    if constexpr (HasMapperKey<M>::value) return mapper.key(e);
    else return elementKey(e);
  }
};

/// The indices 0 .. n - 1 keyed by key(i) (sort_permutation's records): one
/// element per record, the element being its index. `live`: with a count on
/// the device, that count (read in the kernels, clamped to [0, n]); n is then
/// the capacity.
template <class KeyFn, class = void>
struct IndexKey {
  using type = void;
};
template <class KeyFn>
struct IndexKey<KeyFn, std::void_t<decltype(std::declval<const KeyFn&>()(i64(0)))>> {
  using type = std::decay_t<decltype(std::declval<const KeyFn&>()(i64(0)))>;
};
template <class KeyFn>
struct IndexSource {
  using element_type = i64;
  using key_type = typename IndexKey<KeyFn>::type;
  static constexpr bool kOneToOne = true;
  static constexpr bool kUserKey = true;
  i64 n;
  KeyFn keyFn;
  const i64* live = nullptr;
  i64 records() const { return n; }
  KOKKOS_INLINE_FUNCTION int count(i64) const { return 1; }
  KOKKOS_INLINE_FUNCTION element_type element(i64 i, int) const { return i; }
  KOKKOS_INLINE_FUNCTION key_type key(const element_type& i) const { return keyFn(i); }
  KOKKOS_INLINE_FUNCTION void prefetch(i64) const {} // (an index is not read)
};

/// sort_permutation's input: `n` indices (or, with `live`, a device count of
/// at most n) keyed by `key`.
template <class KeyFn>
struct Indices {
  i64 n;
  KeyFn key;
  const i64* live = nullptr;
};
template <class T>
struct IsIndices : std::false_type {};
template <class F>
struct IsIndices<Indices<F>> : std::true_type {};

/// What an input argument is (safe on any type: a wrong one gives void
/// types and `ok == false`, for the entry points' readable static_asserts).
template <class In, class = void>
struct InputOf {
  static constexpr bool ok = false;
  static constexpr bool isView = false;
  using element_type = void;
  using key_type = void;
  using source = void;
};
template <class V>
struct InputOf<V, std::enable_if_t<IsView<V>::value>> {
  using element_type = typename Safe<V>::value;
  static constexpr bool isView = true;
  static constexpr bool ok = Safe<V>::rank == 1 && kKeyedElement<element_type>;
  using source = ArraySource<V, MemberKey>;
  using key_type = std::conditional_t<ok, typename source::key_type, void>;
  static source make(const V& v) { return source{v, MemberKey{}}; }
  template <class Exec>
  static constexpr bool accessible() {
    return Safe<V>::template accessible<Exec>();
  }
};
template <class K>
struct InputOf<
    K, std::enable_if_t<IsKeyed<K>::value && IsView<typename IsKeyed<K>::view_type>::value>> {
  using V = typename IsKeyed<K>::view_type;
  using F = typename IsKeyed<K>::key_fn_type;
  using element_type = typename Safe<V>::value;
  static constexpr bool isView = true;
  static constexpr bool ok =
      Safe<V>::rank == 1 && std::is_invocable_v<const F&, const element_type&>;
  using source = ArraySource<V, F>;
  using key_type = std::conditional_t<ok, typename source::key_type, void>;
  static source make(const K& k) { return source{k.view, k.key}; }
  template <class Exec>
  static constexpr bool accessible() {
    return Safe<V>::template accessible<Exec>();
  }
};
template <class F>
struct InputOf<Indices<F>> {
  using element_type = i64;
  static constexpr bool isView = false;
  static constexpr bool ok = kIntegralKey<typename IndexKey<F>::type>;
  using source = IndexSource<F>;
  using key_type = typename IndexKey<F>::type;
  static source make(const Indices<F>& x) { return source{x.n, x.key, x.live}; }
  template <class Exec>
  static constexpr bool accessible() {
    return true;
  }
};
template <class M>
struct InputOf<M, std::enable_if_t<!IsView<M>::value && !IsKeyed<M>::value &&
                                   !IsIndices<M>::value && IsMapper<M>::value>> {
  using element_type = typename M::element_type;
  static constexpr bool isView = false;
  static constexpr bool ok = HasMapperKey<M>::value || kKeyedElement<element_type>;
  using source = MapperSource<M>;
  using key_type = std::conditional_t<ok, typename source::key_type, void>;
  static source make(const M& m) { return source{m}; }
  template <class Exec>
  static constexpr bool accessible() {
    return true;
  }
};

/// The View an input reads (for the overlap check), or nothing for a mapper.
template <class In>
const void* inputData(const In& in) {
  if constexpr (IsView<In>::value) return in.data();
  else if constexpr (IsKeyed<In>::value) return in.view.data();
  else return nullptr;
}
template <class In>
std::size_t inputBytes(const In& in) {
  if constexpr (IsView<In>::value) return sieve::Impl::coveredBytes(in);
  else if constexpr (IsKeyed<In>::value) return sieve::Impl::coveredBytes(in.view);
  else return 0;
}

/// The bytes of the View an input reads (none for a mapper).
template <class In>
sieve::Impl::ArrayBytes inputBytesOf(const In& in) {
  return sieve::Impl::arrayBytes("input", inputData(in), static_cast<i64>(inputBytes(in)), 1);
}

/// The output must not share a byte with the input View.
template <class In, class Out>
void checkApartFromInput(const char* fn, const In& in, const Out& out) {
  if (sieve::Impl::shareBytes(inputBytesOf(in), sieve::Impl::viewBytes("output", out)))
    sieve::Impl::fail(fn, "output overlaps the input; a scatter needs a separate output View");
}

} // namespace Keys
} // namespace Impl
} // namespace sieve
