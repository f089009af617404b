// SPDX-License-Identifier: Apache-2.0
// Sieve tests — selection (sieve::findall's native write, core/select.hpp),
// one body for every face.
//
//   SIEVE_SELECT_SUITE(CudaSelect, CudaSelectFace)
//
// defines, for the face's adapter (a face adapter of faces.hpp with one more
// member:
//
//   static SelectOut selection(const SelectIn&);
//       out comes back whole (cap items), pre-filled with kSelectSentinel; the
//       count word pre-filled with kSelectCountSentinel; the adapter reports a
//       byte written past the arrays with ADD_FAILURE),
//
//   CudaSelect.MatchesReference/<n>_<percent>       every item kind, cap = n
//   CudaSelectCap.NothingPastCap/<n>_<percent>      caps below, at and past the count
//   CudaSelectAlign.Offsets/<mask>_<values>_<out>   arrays off their alignment
// (a single case: --gtest_filter='*CudaSelect.MatchesReference/n8193_p50').
#pragma once

#include "faces.hpp"

#include <sieve/core/select.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <ostream>
#include <random>
#include <string>
#include <vector>

namespace sieve_test {

/// The fill of the output: a byte still holding it was not written.
inline constexpr unsigned char kSelectSentinel = 0x5A;
/// The fill of the count word.
inline constexpr std::int64_t kSelectCountSentinel = 0x5A5A5A5A5A5A5A5ALL;

struct SelectIn {
  std::vector<std::uint8_t> mask;
  sieve::SelectItem item = sieve::SelectItem::Index64;
  std::uint32_t elemBytes = 8;
  std::vector<unsigned char> values; ///< Value: n elements of elemBytes bytes
  std::int64_t cap = 0;
  /// Bytes each array starts past its allocation's (64-byte) alignment.
  std::size_t maskOffset = 0, valuesOffset = 0, outOffset = 0;
};

struct SelectOut {
  std::vector<unsigned char> out; ///< all cap items
  std::int64_t count = 0;
};

/// The item kinds: Index64, Index32, Value of 1, 2, 4 and 8 bytes.
struct SelectKind {
  sieve::SelectItem item;
  std::uint32_t elemBytes;
};
inline const std::vector<SelectKind>& selectKinds() {
  static const std::vector<SelectKind> k{
      {sieve::SelectItem::Index64, 8}, {sieve::SelectItem::Index32, 4},
      {sieve::SelectItem::Value, 1},   {sieve::SelectItem::Value, 2},
      {sieve::SelectItem::Value, 4},   {sieve::SelectItem::Value, 8}};
  return k;
}
inline std::string name(const SelectKind& k) {
  return k.item == sieve::SelectItem::Index64   ? "index64"
         : k.item == sieve::SelectItem::Index32 ? "index32"
                                                : "value" + std::to_string(k.elemBytes);
}

/// A mask selecting about `percent` % of n (0: none, 100: all); selected
/// bytes are any non-zero value, not only 1.
inline std::vector<std::uint8_t> percentMask(int percent, std::int64_t n, std::uint32_t seed = 11) {
  std::vector<std::uint8_t> m(static_cast<std::size_t>(n), 0);
  std::mt19937 g(seed + static_cast<std::uint32_t>(n) * 131u + static_cast<std::uint32_t>(percent));
  for (auto& b : m)
    b = static_cast<int>(g() % 100u) < percent ? static_cast<std::uint8_t>(1u + g() % 255u) : 0u;
  return m;
}

/// n elements of `elemBytes` bytes, every byte distinct enough to catch a
/// wrong element or a byte out of place.
inline std::vector<unsigned char> selectValues(std::int64_t n, std::uint32_t elemBytes) {
  std::vector<unsigned char> v(static_cast<std::size_t>(n) * elemBytes);
  std::mt19937 g(static_cast<std::uint32_t>(n) * 7u + elemBytes);
  for (auto& b : v) b = static_cast<unsigned char>(g());
  return v;
}

inline SelectIn selectIn(const std::vector<std::uint8_t>& mask, const SelectKind& k,
                         std::int64_t cap) {
  SelectIn in;
  in.mask = mask;
  in.item = k.item;
  in.elemBytes = k.elemBytes;
  if (k.item == sieve::SelectItem::Value)
    in.values = selectValues(static_cast<std::int64_t>(mask.size()), k.elemBytes);
  in.cap = cap;
  return in;
}

/// The reference: a plain loop over the samples, every selected item's bytes
/// (all of them, cap aside) and their number.
struct RefSelect {
  std::vector<unsigned char> items;
  std::int64_t count = 0;
};
inline RefSelect refSelect(const SelectIn& in) {
  RefSelect r;
  const auto n = static_cast<std::int64_t>(in.mask.size());
  for (std::int64_t k = 0; k < n; ++k) {
    if (in.mask[static_cast<std::size_t>(k)] == 0) continue;
    ++r.count;
    unsigned char b[8];
    std::size_t size = 0;
    if (in.item == sieve::SelectItem::Index64) {
      const std::int64_t v = k;
      std::memcpy(b, &v, size = 8);
    } else if (in.item == sieve::SelectItem::Index32) {
      const auto v = static_cast<std::int32_t>(k);
      std::memcpy(b, &v, size = 4);
    } else {
      size = in.elemBytes;
      std::memcpy(b, in.values.data() + static_cast<std::size_t>(k) * size, size);
    }
    r.items.insert(r.items.end(), b, b + size);
  }
  return r;
}

/// The contract, against the reference: the count (all selected), the first
/// min(cap, count) items, and every byte of out past them unwritten.
template <class Face>
void expectSelect(const SelectIn& in, const std::string& what) {
  SCOPED_TRACE(what);
  const RefSelect ref = refSelect(in);
  const SelectOut o = Face::selection(in);
  const std::size_t size = sieve::Impl::selectItemBytes(in.item, in.elemBytes);
  ASSERT_EQ(o.count, ref.count) << "the count is every selected sample, cap or not";
  ASSERT_EQ(o.out.size(), static_cast<std::size_t>(in.cap) * size)
      << "the adapter returns cap items";
  const std::int64_t written = in.cap < ref.count ? in.cap : ref.count;
  const auto bytes = static_cast<std::size_t>(written) * size;
  for (std::size_t i = 0; i < bytes; ++i)
    ASSERT_EQ(o.out[i], ref.items[i]) << "item " << i / size << " byte " << i % size;
  for (std::size_t i = bytes; i < o.out.size(); ++i)
    ASSERT_EQ(o.out[i], kSelectSentinel)
        << "item " << i / size << " at or past min(cap, count) = " << written << " was written";
}

/// One case of the size x density sweep.
struct SelectCase {
  std::int64_t n;
  int percent;
};
inline std::string name(const SelectCase& c) {
  return "n" + std::to_string(c.n) + "_p" + std::to_string(c.percent);
}
/// Sizes on the group and tile edges (`tile`: the face's tile), and several
/// tiles; densities 1, 50, 99 %, all and none.
inline std::vector<SelectCase> selectCases(std::int64_t tile) {
  std::vector<SelectCase> out{{0, 0}};
  for (const std::int64_t n : {std::int64_t(1), std::int64_t(31), std::int64_t(32),
                               std::int64_t(33), tile - 1, tile, tile + 1, 3 * tile + 100})
    for (const int p : {1, 50, 99, 100, 0}) out.push_back({n, p});
  return out;
}

template <class Face>
void selectMatchesReference(const SelectCase& c) {
  const auto mask = percentMask(c.percent, c.n);
  forEachConfig<Face>([&] {
    for (const auto& k : selectKinds()) expectSelect<Face>(selectIn(mask, k, c.n), name(k));
  });
}

/// Caps below the count (in the first tile, across a tile edge, 0, 1,
/// count - 1), at it and past it.
template <class Face>
void selectNothingPastCap(const SelectCase& c) {
  const auto mask = percentMask(c.percent, c.n);
  std::int64_t count = 0;
  for (auto b : mask) count += b != 0;
  forEachConfig<Face>([&] {
    for (const std::int64_t cap :
         {std::int64_t(0), std::int64_t(1), count / 3, count / 2 + 7, count - 1, count, count + 5})
      for (const auto& k : {selectKinds()[0], selectKinds()[3]}) {
        if (cap < 0) continue;
        expectSelect<Face>(selectIn(mask, k, cap), name(k) + " cap " + std::to_string(cap) +
                                                       " of " + std::to_string(count));
      }
  });
}

struct AlignCase {
  std::size_t mask, values, out;
};
inline std::string name(const AlignCase& c) {
  return "mask" + std::to_string(c.mask) + "_values" + std::to_string(c.values) + "_out" +
         std::to_string(c.out);
}
inline std::vector<AlignCase> alignCases() {
  return {{1, 0, 0}, {3, 0, 0}, {15, 0, 0}, {0, 1, 0}, {0, 0, 1},
          {0, 0, 3}, {0, 2, 6}, {5, 3, 1},  {15, 4, 4}};
}

/// Arrays off their alignment: the mask (vector loads realigned), values and
/// out (items placed as memcpy would).
template <class Face>
void selectOffsets(const AlignCase& c, std::int64_t tile) {
  for (const std::int64_t n : {std::int64_t(33), std::int64_t(161), 2 * tile + 77}) {
    const auto mask = percentMask(50, n);
    forEachConfig<Face>([&] {
      for (const auto& k : selectKinds()) {
        SelectIn in = selectIn(mask, k, n);
        in.maskOffset = c.mask;
        in.valuesOffset = c.values;
        in.outOffset = c.out;
        expectSelect<Face>(in, name(k) + " n " + std::to_string(n));
      }
    });
  }
}

inline void PrintTo(const SelectCase& c, std::ostream* os) { *os << name(c); }
inline void PrintTo(const AlignCase& c, std::ostream* os) { *os << name(c); }

/// gtest parameter names: the case's readable name.
struct SelectParamName {
  template <class P>
  std::string operator()(const ::testing::TestParamInfo<P>& info) const {
    return name(info.param);
  }
};

} // namespace sieve_test

/// `tile`: the face's tile (samples), for the sizes on its edges.
#define SIEVE_SELECT_SUITE(Suite, Face, tile)                                                      \
  class Suite : public ::testing::TestWithParam<::sieve_test::SelectCase> {};                      \
  TEST_P(Suite, MatchesReference) {                                                                \
    SIEVE_FACE_REQUIRED(Face);                                                                     \
    ::sieve_test::selectMatchesReference<Face>(GetParam());                                        \
  }                                                                                                \
  INSTANTIATE_TEST_SUITE_P(Sweep, Suite, ::testing::ValuesIn(::sieve_test::selectCases(tile)),     \
                           ::sieve_test::SelectParamName{});                                       \
  class Suite##Cap : public ::testing::TestWithParam<::sieve_test::SelectCase> {};                 \
  TEST_P(Suite##Cap, NothingPastCap) {                                                             \
    SIEVE_FACE_REQUIRED(Face);                                                                     \
    ::sieve_test::selectNothingPastCap<Face>(GetParam());                                          \
  }                                                                                                \
  INSTANTIATE_TEST_SUITE_P(Caps, Suite##Cap,                                                       \
                           ::testing::Values(::sieve_test::SelectCase{100, 50},                    \
                                             ::sieve_test::SelectCase{3 * (tile) + 100, 50},       \
                                             ::sieve_test::SelectCase{2 * (tile) + 5, 99}),        \
                           ::sieve_test::SelectParamName{});                                       \
  class Suite##Align : public ::testing::TestWithParam<::sieve_test::AlignCase> {};                \
  TEST_P(Suite##Align, Offsets) {                                                                  \
    SIEVE_FACE_REQUIRED(Face);                                                                     \
    ::sieve_test::selectOffsets<Face>(GetParam(), tile);                                           \
  }                                                                                                \
  INSTANTIATE_TEST_SUITE_P(Offsets, Suite##Align, ::testing::ValuesIn(::sieve_test::alignCases()), \
                           ::sieve_test::SelectParamName{})
