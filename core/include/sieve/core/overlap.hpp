// SPDX-License-Identifier: Apache-2.0
// Sieve — the overlap rule (host only, backend-neutral): whether two strided
// arrays share a byte. Every overlap check of every call ends in shareBytes.
//
// An array is a set of elements of `elem` bytes each, whose first bytes lie at
//   begin + sum over d of i_d * step[d],   0 <= i_d < extent[d]
// (a View of any rank and layout: step[d] = stride(d) * sizeof(element)).
// Two arrays overlap iff some element of one shares a byte with some element
// of the other; the bytes between elements (a strided View's gaps, its
// padding) do not count. The rule is
//   - conservative: it never says "disjoint" for arrays that share a byte;
//   - cheap: O(rank^2), rank <= 8 (a sort of the dimensions, a gcd), no allocation;
//   - exact whenever each array reduces (below) to contiguous blocks along at
//     most one stride and, when both have one, the strides are equal: two
//     contiguous arrays; contiguous and strided; rank-1 Views of one stride
//     (columns of one LayoutRight table, rows of one LayoutLeft table); and
//     rank-2 LayoutLeft / LayoutRight / LayoutStride sub-blocks, rows or
//     columns of one table (e.g. subview(A, rows, cols) of a LayoutRight A is
//     blocks of cols elements every A.stride(0)).
//
// The math. Reduce each array to its *runs*: blocks of `width` bytes at
// begin + sum i_d * s_d, with every s_d > width, sorted ascending:
//   - a dimension of extent 1 or stride 0 adds nothing: dropped;
//   - a dimension whose stride is at most the block width turns the blocks
//     into one block: width += (n - 1) * s (the elements of a row, then the
//     rows of a table, ...);
//   - two dimensions with s_b == n_a * s_a are one of n_a * n_b (nested:
//     the rows of a column-pair of a LayoutRight table), two of one stride
//     one of n_a + n_b - 1.
// Blocks [p, p + wx) and [q, q + wy) share a byte iff v = p - q lies in
// [1 - wx, wy - 1]. With D = x.begin - y.begin, v = D + sum i_d s_d -
// sum j_d t_d; then:
//   1. spans: the address ranges must meet (else disjoint);
//   2. gcd: v = D (mod g), g the gcd of every run stride of both; no value
//      = D (mod g) in [1 - wx, wy - 1] proves them disjoint (the "offsets
//      modulo the stride" test: interleaved columns);
//   3. at most one dimension each, after merging all but the largest into
//      the block (a superset: exact when there was only one): v = D + i s - j t
//      - both blocks: D in [1 - wx, wy - 1];
//      - one dimension (n, s) against a block: some i in [0, n) with i s in
//        [1 - wx - D, wy - 1 - D] (the least i >= the bound's quotient);
//      - one stride s each: k = i - j takes every value in
//        [-(ny - 1), nx - 1], so some such k with k s in [1 - wx - D, wy - 1 - D];
//      - two strides: each run set against the other's span (a block).
//      No solution: disjoint; otherwise they overlap (exact in the cases above).
#pragma once

#include <cstddef>
#include <cstdint>
#include <numeric>
#include <string>
#include <utility>

namespace sieve {
namespace Impl {

/// The most dimensions an ArrayBytes describes (a Kokkos View's rank).
inline constexpr std::uint32_t kArrayBytesDims = 8;

/// The bytes one array covers, for the overlap rule (shareBytes).
///
/// `begin`: its first element's first byte; `bytes`: its span, from begin to
/// one past the last byte of its last element (0: it has no element). With
/// `dims` > 0 (stridedBytes: a View of any rank) its elements of `elem` bytes
/// start at begin + sum_d i_d * step[d], 0 <= i_d < extent[d], d < dims. With
/// dims == 0 (arrayBytes, or an aggregate of the first four numbers) they
/// start every `stride` bytes over the span (stride <= elem: contiguous).
struct ArrayBytes {
  std::string name;
  std::uintptr_t begin = 0, bytes = 0, stride = 1, elem = 1;
  std::uint32_t dims = 0;
  std::uintptr_t extent[kArrayBytesDims] = {}, step[kArrayBytesDims] = {};
};

/// `elems` elements of `elem` bytes, one every `stride` bytes (0: elem,
/// contiguous), from `p`.
inline ArrayBytes arrayBytes(std::string name, const void* p, std::int64_t elems, std::size_t elem,
                             std::size_t stride = 0) {
  ArrayBytes a;
  a.name = std::move(name);
  a.begin = reinterpret_cast<std::uintptr_t>(p);
  a.stride = stride != 0 ? stride : elem;
  a.elem = elem;
  a.bytes = elems > 0 ? static_cast<std::uintptr_t>(elems - 1) * a.stride + elem : 0;
  return a;
}

/// The elements of a strided array of `dims` <= kArrayBytesDims dimensions:
/// `elem` bytes each, at p + sum_d i_d * step[d], 0 <= i_d < extent[d] (the
/// steps in bytes). O(dims).
inline ArrayBytes stridedBytes(std::string name, const void* p, std::size_t elem,
                               std::uint32_t dims, const std::uintptr_t* extent,
                               const std::uintptr_t* step) {
  ArrayBytes a;
  a.name = std::move(name);
  a.begin = reinterpret_cast<std::uintptr_t>(p);
  a.elem = elem;
  a.stride = elem;
  a.dims = dims < kArrayBytesDims ? dims : kArrayBytesDims;
  std::uintptr_t last = 0;
  bool empty = false;
  for (std::uint32_t d = 0; d < a.dims; ++d) {
    a.extent[d] = extent[d];
    a.step[d] = step[d];
    if (extent[d] == 0) empty = true;
    else last += (extent[d] - 1) * step[d];
  }
  a.bytes = empty ? 0 : last + elem;
  if (a.dims == 1) a.stride = step[0];
  return a;
}

namespace Overlap {

/// An array's runs: blocks of `width` bytes at begin + sum_d i_d * s[d],
/// 0 <= i_d < n[d], every n[d] >= 2, s ascending and every s[d] > width.
struct Runs {
  std::uintptr_t begin = 0, width = 0;
  std::uint32_t dims = 0;
  std::uintptr_t n[kArrayBytesDims] = {}, s[kArrayBytesDims] = {};

  void drop(std::uint32_t d) {
    for (std::uint32_t k = d + 1; k < dims; ++k) {
      n[k - 1] = n[k];
      s[k - 1] = s[k];
    }
    --dims;
  }
  /// Dimensions of stride at most the block width join the block.
  void absorb() {
    while (dims > 0 && s[0] <= width) {
      width += (n[0] - 1) * s[0];
      drop(0);
    }
  }
};

/// The runs of an array with bytes > 0 (see the header's reduction). O(dims^2).
inline Runs runsOf(const ArrayBytes& a) {
  Runs r;
  r.begin = a.begin;
  r.width = a.elem;
  if (a.dims == 0) {
    if (a.stride <= a.elem || a.bytes <= a.stride) {
      r.width = a.bytes; // contiguous (or one element)
    } else {
      r.n[0] = (a.bytes + a.stride - 1) / a.stride; // every start below the span's end
      r.s[0] = a.stride;
      r.dims = 1;
    }
    return r;
  }
  for (std::uint32_t d = 0; d < a.dims; ++d) {
    if (a.extent[d] < 2 || a.step[d] == 0) continue;
    std::uint32_t k = r.dims++; // insert, ascending by stride
    while (k > 0 && r.s[k - 1] > a.step[d]) {
      r.n[k] = r.n[k - 1];
      r.s[k] = r.s[k - 1];
      --k;
    }
    r.n[k] = a.extent[d];
    r.s[k] = a.step[d];
  }
  r.absorb();
  for (bool merged = true; merged;) { // nested or equal strides: one dimension
    merged = false;
    for (std::uint32_t x = 0; x < r.dims && !merged; ++x)
      for (std::uint32_t y = x + 1; y < r.dims && !merged; ++y) {
        if (r.s[y] == r.s[x]) r.n[x] += r.n[y] - 1;
        else if (r.s[y] == r.n[x] * r.s[x]) r.n[x] *= r.n[y];
        else continue;
        r.drop(y);
        merged = true;
      }
  }
  return r;
}

/// All dimensions but the largest merged into the block (a superset of the
/// runs' bytes; the runs themselves when they have at most one).
inline Runs outermost(Runs r) {
  if (r.dims <= 1) return r;
  for (std::uint32_t d = 0; d + 1 < r.dims; ++d) r.width += (r.n[d] - 1) * r.s[d];
  r.n[0] = r.n[r.dims - 1];
  r.s[0] = r.s[r.dims - 1];
  r.dims = 1;
  r.absorb();
  return r;
}

/// The runs' whole span as one block.
inline Runs spanOf(Runs r) {
  for (std::uint32_t d = 0; d < r.dims; ++d) r.width += (r.n[d] - 1) * r.s[d];
  r.dims = 0;
  return r;
}

inline std::int64_t ceilDiv(std::int64_t a, std::int64_t b) { // b > 0
  return a >= 0 ? (a + b - 1) / b : -((-a) / b);
}

/// Whether some k in [kmin, kmax] has k * s in [lo, hi] (s > 0).
inline bool multipleIn(std::int64_t kmin, std::int64_t kmax, std::int64_t s, std::int64_t lo,
                       std::int64_t hi) {
  if (kmin > kmax || lo > hi) return false;
  std::int64_t k = ceilDiv(lo, s);
  if (k < kmin) k = kmin;
  return k <= kmax && k * s <= hi;
}

/// Whether runs x and y (each with at most one dimension) may share a byte,
/// x.begin - y.begin = D: exact for two blocks, a block and a dimension, or
/// one dimension each of one stride; else each against the other's span.
inline bool runsMeet(const Runs& x, const Runs& y, std::int64_t D) {
  const std::int64_t lo = 1 - static_cast<std::int64_t>(x.width) - D; // i s - j t in [lo, hi]
  const std::int64_t hi = static_cast<std::int64_t>(y.width) - 1 - D;
  const auto nx = static_cast<std::int64_t>(x.dims ? x.n[0] : 1);
  const auto ny = static_cast<std::int64_t>(y.dims ? y.n[0] : 1);
  if (x.dims == 0 && y.dims == 0) return lo <= 0 && 0 <= hi;
  if (y.dims == 0) return multipleIn(0, nx - 1, static_cast<std::int64_t>(x.s[0]), lo, hi);
  if (x.dims == 0) return multipleIn(1 - ny, 0, static_cast<std::int64_t>(y.s[0]), lo, hi);
  if (x.s[0] == y.s[0])
    return multipleIn(1 - ny, nx - 1, static_cast<std::int64_t>(x.s[0]), lo, hi);
  return runsMeet(x, spanOf(y), D) && runsMeet(spanOf(x), y, D);
}

/// Spans past this are not reasoned about (they are taken to overlap when
/// their address ranges meet): every offset below stays far from INT64_MAX.
inline constexpr std::uintptr_t kLargestSpan = std::uintptr_t(1) << 60;

} // namespace Overlap

/// Whether arrays x and y share a byte (the rule and its exactness: the
/// header). Conservative: true for arrays that share a byte, also true for
/// some that do not (several strides, spans past 2^60 bytes). O(rank^2).
inline bool shareBytes(const ArrayBytes& x, const ArrayBytes& y) {
  using namespace Overlap;
  if (x.bytes == 0 || y.bytes == 0) return false;
  if (!(x.begin < y.begin + y.bytes && y.begin < x.begin + x.bytes)) return false; // 1. spans
  if (x.bytes > kLargestSpan || y.bytes > kLargestSpan) return true;
  const Runs a = runsOf(x), b = runsOf(y);
  // The spans meet: |D| < 2^60.
  const std::int64_t D = x.begin >= y.begin ? static_cast<std::int64_t>(x.begin - y.begin)
                                            : -static_cast<std::int64_t>(y.begin - x.begin);
  std::int64_t g = 0; // 2. the gcd of every stride
  for (std::uint32_t d = 0; d < a.dims; ++d) g = std::gcd(static_cast<std::int64_t>(a.s[d]), g);
  for (std::uint32_t d = 0; d < b.dims; ++d) g = std::gcd(static_cast<std::int64_t>(b.s[d]), g);
  if (g > 1) {
    const std::int64_t lo = 1 - static_cast<std::int64_t>(a.width);
    const std::int64_t hi = static_cast<std::int64_t>(b.width) - 1;
    const std::int64_t r = (D - lo) % g;
    if (lo + (r < 0 ? r + g : r) > hi) return false; // no v = D (mod g) in [lo, hi]
  }
  return runsMeet(outermost(a), outermost(b), D); // 3.
}

/// Whether two rank-1 strided arrays share a byte: array x starts at `xb`,
/// covers `xspan` bytes and holds `xe`-byte elements every `xs` bytes (xs ==
/// xe when contiguous). Exact for one stride (interleaved columns of one
/// table share nothing), or one of them contiguous.
inline bool shareBytes(std::uintptr_t ab, std::uintptr_t aspan, std::uintptr_t as,
                       std::uintptr_t ae, std::uintptr_t bb, std::uintptr_t bspan,
                       std::uintptr_t bs, std::uintptr_t be) {
  ArrayBytes a, b;
  a.begin = ab;
  a.bytes = aspan;
  a.stride = as;
  a.elem = ae;
  b.begin = bb;
  b.bytes = bspan;
  b.stride = bs;
  b.elem = be;
  return shareBytes(a, b);
}

} // namespace Impl
} // namespace sieve
