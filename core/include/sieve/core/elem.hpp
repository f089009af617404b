// SPDX-License-Identifier: Apache-2.0
// Sieve — the element types a reorder plane moves, by size. A plane's bytes are
// moved as opaque words of its element size, so any trivially-copyable type of
// 1, 2, 4, 8 or 16 bytes moves bit for bit.
#pragma once

#include <sieve/core/macros.hpp>

#include <cstdint>

namespace sieve {
namespace Impl {

/// A 16-byte element, moved as one value.
struct alignas(16) Bytes16 {
  std::uint64_t lo, hi;
};

template <unsigned Bytes>
struct ElemOfT;
template <>
struct ElemOfT<1> {
  using type = std::uint8_t;
};
template <>
struct ElemOfT<2> {
  using type = std::uint16_t;
};
template <>
struct ElemOfT<4> {
  using type = std::uint32_t;
};
template <>
struct ElemOfT<8> {
  using type = std::uint64_t;
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
