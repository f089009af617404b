// SPDX-License-Identifier: Apache-2.0
// Sieve (internal) — scatter_sparse, SparsePath::PortableRadix.
#pragma once

#include <sieve/core/keys.hpp>
#include <sieve/impl/keys/counting.hpp>
#include <sieve/impl/keys/sparse/common.hpp>

#include <cstdint>
#include <string>
#include <utility>

namespace sieve {
namespace Impl {
namespace Keys {

/// The first LSD radix pass, read from the source: (key - min, index).
template <class Exec, class S, bool Last>
struct FirstRadixSrc {
  using Key = typename S::key_type;
  using Item = RadixItem;
  S src;
  Key min;
  RadixItems<Exec> out;
  I64View<Exec> idx;
  std::uint64_t mask;
  i64 records() const { return src.records(); }
  KOKKOS_INLINE_FUNCTION int count(i64) const { return 1; }
  KOKKOS_INLINE_FUNCTION Item item(i64 i, int) const {
    return Item{keyDistance(src.key(src.element(i, 0)), min), i};
  }
  KOKKOS_INLINE_FUNCTION i64 digit(const Item& x) const { return static_cast<i64>(x.u & mask); }
  KOKKOS_INLINE_FUNCTION void put(const Item& x, i64 pos) const {
    if constexpr (Last) idx(pos) = x.idx;
    else out(pos) = x;
  }
};

/// The counting-sort view of one LSD radix pass over (word, index) items;
/// the last pass writes the indices only.
template <class Exec, bool Last>
struct RadixSrc {
  using Item = RadixItem;
  RadixItems<Exec> in, out;
  I64View<Exec> idx;
  int shift;
  std::uint64_t mask;
  i64 records() const { return static_cast<i64>(in.extent(0)); }
  KOKKOS_INLINE_FUNCTION int count(i64) const { return 1; }
  KOKKOS_INLINE_FUNCTION Item item(i64 i, int) const { return in(i); }
  KOKKOS_INLINE_FUNCTION i64 digit(const Item& x) const {
    return static_cast<i64>((x.u >> shift) & mask);
  }
  KOKKOS_INLINE_FUNCTION void put(const Item& x, i64 pos) const {
    if constexpr (Last) idx(pos) = x.idx;
    else out(pos) = x;
  }
};

/// The LSD passes of `bits` bits over (word, index) items: the first reads
/// the source (the words: key - min), the middle ones go between `a` and
/// `b`, the last writes the indices `idx` only; `pass(digits)` runs one
/// stable counting sort of a pass's digits (blocking, or asynchronous).
template <class Exec, class S, class Key, class Pass>
void lsdPasses(const S& src, const Key min, RadixItems<Exec> a, RadixItems<Exec> b,
               const I64View<Exec>& idx, int passes, int bits, const Pass& pass) {
  const std::uint64_t mask = (std::uint64_t(1) << bits) - 1;
  if (passes == 1) pass(FirstRadixSrc<Exec, S, true>{src, min, a, idx, mask});
  else pass(FirstRadixSrc<Exec, S, false>{src, min, a, idx, mask});
  for (int p = 1; p < passes; ++p) {
    if (p + 1 == passes) {
      pass(RadixSrc<Exec, true>{a, b, idx, p * bits, mask});
    } else {
      pass(RadixSrc<Exec, false>{a, b, idx, p * bits, mask});
      std::swap(a, b);
    }
  }
}

/// SparsePath::PortableRadix: integer keys spanning `span` above `min` by
/// LSD radix passes of at most kRadixBits bits over (word, index) items
/// (each a stable counting sort; the first reads the source), then the
/// gather (finishSparse). Any space. Blocks, then fences.
template <class Result, class Exec, class S, class Out, class Key>
Result sparseByPortableRadix(const sieve::Impl::Names& names, const Exec& exec, const S& src,
                             const Out& output, const Key min, const std::uint64_t span,
                             const SparseDest<Result, Exec>& dest) {
  constexpr const char* fn = "sieve::keys::scatter_sparse";
  const i64 n = src.records();
  const int passes = radixPasses(span);
  const int bits = radixPassBits(span);
  const i64 buckets = i64(1) << bits;
  const auto alloc = [&](const char* what) {
    return Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, names(what));
  };
  RadixItems<Exec> a =
      sieve::Impl::allocate<RadixItems<Exec>>(alloc("radix_items"), passes > 1 ? n : 0);
  RadixItems<Exec> b;
  if (passes > 2) b = sieve::Impl::allocate<RadixItems<Exec>>(alloc("radix_items_b"), n);
  I64View<Exec> idx = sieve::Impl::allocate<I64View<Exec>>(alloc("radix_indices"), n);
  I64View<Exec> offsets = sieve::Impl::allocate<I64View<Exec>>(
      alloc("radix_buckets"), static_cast<std::size_t>(buckets + 1));
  const auto pass = [&](const auto& digits) {
    CountingSort<Exec, std::decay_t<decltype(digits)>> sort(exec, names, digits, buckets);
    sort.histogram();
    const i64 bad = sort.scatter(offsets);
    sieve::Impl::fence(exec, "keys::scatter_sparse: radix histograms freed");
    if (bad > 0)
      sieve::Impl::fail(fn, "a key changed between the passes of the sort (" + std::to_string(bad) +
                                " element(s)): the key functor must return the same key for "
                                "an element on every call; output is incomplete");
  };
  lsdPasses<Exec>(src, min, a, b, idx, passes, bits, pass);
  return finishSparse<Result>(names, exec, src, output, n, IndexOrder<I64View<Exec>>{idx}, dest);
}

} // namespace Keys
} // namespace Impl
} // namespace sieve
