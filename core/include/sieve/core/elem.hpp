// SPDX-License-Identifier: Apache-2.0
// Sieve — the element types a reorder plane moves, by size. A plane's bytes are
// moved as opaque words of its element size, so any trivially-copyable type of
// 1, 2, 4, 8 or 16 bytes moves bit for bit.
#pragma once

#include <sieve/core/macros.hpp>

#include <cstdint>

namespace sieve {
namespace Impl {

// The words are may_alias types: a plane of doubles (or of any user type) is
// read and written through them, which would otherwise break C++'s aliasing
// rule (a double is not an object of type std::uint64_t) and let an optimiser
// reorder the moves. Each word is a struct, so the attribute is part of the
// type and survives template arguments (an attribute on a typedef would not).
#if defined(__GNUC__) || defined(__clang__)
#define SIEVE_MAY_ALIAS [[gnu::may_alias]]
#else
#define SIEVE_MAY_ALIAS // MSVC does no type-based alias analysis
#endif

/// The word that moves a 1-byte element (unsigned char may alias anything).
using Bytes1 = unsigned char;
/// The word that moves a 2-byte element.
struct SIEVE_MAY_ALIAS alignas(2) Bytes2 {
  std::uint16_t v;
};
/// The word that moves a 4-byte element.
struct SIEVE_MAY_ALIAS alignas(4) Bytes4 {
  std::uint32_t v;
};
/// The word that moves an 8-byte element.
struct SIEVE_MAY_ALIAS alignas(8) Bytes8 {
  std::uint64_t v;
};
/// The word that moves a 16-byte element, as one value.
struct SIEVE_MAY_ALIAS alignas(16) Bytes16 {
  std::uint64_t lo, hi;
};

template <unsigned Bytes>
struct ElemOfT;
template <>
struct ElemOfT<1> {
  using type = Bytes1;
};
template <>
struct ElemOfT<2> {
  using type = Bytes2;
};
template <>
struct ElemOfT<4> {
  using type = Bytes4;
};
template <>
struct ElemOfT<8> {
  using type = Bytes8;
};
template <>
struct ElemOfT<16> {
  using type = Bytes16;
};

/// The word type that moves an element of `Bytes` bytes.
template <unsigned Bytes>
using ElemOf = typename ElemOfT<Bytes>::type;

template <class T>
struct TypeTag {
  using type = T;
};

/// Call `f(TypeTag<ElemOf<bytes>>{})` (host code: the dispatch of a plane to
/// its element type); `bytes` must be 1, 2, 4, 8 or 16 (validated before: any
/// other value calls nothing).
template <class F>
inline void withElem(std::uint32_t bytes, F&& f) {
  switch (bytes) {
  case 1u: f(TypeTag<ElemOf<1>>{}); break;
  case 2u: f(TypeTag<ElemOf<2>>{}); break;
  case 4u: f(TypeTag<ElemOf<4>>{}); break;
  case 8u: f(TypeTag<ElemOf<8>>{}); break;
  case 16u: f(TypeTag<ElemOf<16>>{}); break;
  default: break;
  }
}

} // namespace Impl
} // namespace sieve
