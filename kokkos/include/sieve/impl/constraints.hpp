// SPDX-License-Identifier: Apache-2.0
// Sieve (internal) — the compile-time rules for the arguments of compact,
// reorder, restore and the calls built on them (Population, Graph, the MPI
// face), each written once: an entry names each predicate once, asserts it
// with its own sentence, and proceeds only when all hold (so a bad call gives
// Sieve's sentence and nothing else).
#pragma once

#include <sieve/impl/args.hpp>
#include <sieve/impl/common.hpp>
#include <sieve/impl/trigger.hpp>

#include <cstddef>
#include <cstdint>
#include <tuple>
#include <utility>

namespace sieve {
namespace Impl {

/// A mask read by a compaction: rank-1 std::uint8_t (const allowed).
template <class Exec, class V>
inline constexpr bool kMaskArg = kViewOf<Exec, V, 1, std::uint8_t, false>;
/// A mask of a Population or Graph: rank-1 std::uint8_t or bool, one byte a
/// sample (const allowed).
template <class Exec, class V>
inline constexpr bool kByteMaskArg =
    Safe<V>::rank == 1 &&
    (std::is_same_v<typename Safe<V>::value, std::uint8_t> ||
     std::is_same_v<typename Safe<V>::value, bool>)&&Safe<V>::template accessible<Exec>();
/// A mask moved by a reorder with the planes: writable rank-1 std::uint8_t.
template <class Exec, class V>
inline constexpr bool kMovedMaskArg = kViewOf<Exec, V, 1, std::uint8_t, true>;
/// An index map, perm or inv: writable rank-1 std::int32_t.
template <class Exec, class V>
inline constexpr bool kSlotsArg = kViewOf<Exec, V, 1, std::int32_t, true>;
/// A count, span or fire word: writable rank-0 std::uint32_t.
template <class Exec, class V>
inline constexpr bool kWordArg = kViewOf<Exec, V, 0, std::uint32_t, true>;

/// Whether P can be a plane of a reorder on Exec: a plane moved by bytes
/// (bytePlaneOk: writable, rank 1 or 2, trivially copyable, accessible) of 1,
/// 2, 4, 8 or 16-byte elements.
template <class Exec, class P>
constexpr bool planeOk() {
  if constexpr (bytePlaneOk<Exec, P>()) {
    constexpr std::size_t b = sizeof(typename Safe<P>::value);
    return b == 1 || b == 2 || b == 4 || b == 8 || b == 16;
  } else {
    return false;
  }
}

/// The index of the first plane that is not one (-1: all are).
template <class Exec, class... Planes>
constexpr int firstBadPlane() {
  const bool ok[] = {planeOk<Exec, Planes>()..., true};
  return firstFalse(ok);
}

/// firstBadPlane over the elements [From, From + sizeof Is) of a tuple type.
template <class Exec, std::size_t From, class Tuple, std::size_t... Is>
constexpr int firstBadTail(std::index_sequence<Is...>) {
  return firstBadPlane<Exec, std::tuple_element_t<From + Is, Tuple>...>();
}

} // namespace Impl
} // namespace sieve
