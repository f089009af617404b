// SPDX-License-Identifier: Apache-2.0
// Sieve tests — the overlap rule (core/overlap.hpp) against a brute-force
// reference: the byte sets of two strided arrays, element by element.
//
// Random (offset, stride, width, extent) combinations of rank 1 and 2 and
// random sub-blocks, rows and columns of one LayoutLeft / LayoutRight table
// (as Kokkos describes them: extents and strides in bytes), plus random
// rank-3 strided arrays: shareBytes must say "overlap" whenever a byte is
// shared (never "disjoint" wrongly), and must say exactly that in the cases
// the rule is exact for (both arrays reduce to blocks along at most one
// stride, and one stride when both have one). No Kokkos: pure arithmetic.
#include <sieve/core/overlap.hpp>
#include <sieve/core/validate.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace {

using sieve::Impl::ArrayBytes;
using sieve::Impl::shareBytes;
using sieve::Impl::stridedBytes;
using u = std::uintptr_t;

/// A strided array relative to a base address.
struct Arr {
  u offset = 0, elem = 1;
  std::vector<u> extent, step; // step in bytes
};

constexpr u kBase = 1u << 20; // far from 0, so that offsets can be subtracted

ArrayBytes bytesOf(const Arr& a) {
  return stridedBytes("a", reinterpret_cast<const void*>(kBase + a.offset), a.elem,
                      static_cast<std::uint32_t>(a.extent.size()), a.extent.data(), a.step.data());
}

/// Every byte of every element (a byte map over [0, limit)).
std::vector<char> byteSet(const Arr& a, u limit) {
  std::vector<char> set(limit, 0);
  const std::size_t R = a.extent.size();
  for (u e : a.extent)
    if (e == 0) return set;
  std::vector<u> idx(R, 0);
  for (;;) {
    u at = a.offset;
    for (std::size_t d = 0; d < R; ++d) at += idx[d] * a.step[d];
    for (u b = 0; b < a.elem; ++b) set.at(at + b) = 1;
    std::size_t d = 0;
    while (d < R && ++idx[d] == a.extent[d]) idx[d++] = 0;
    if (d == R) return set;
  }
}

u reach(const Arr& a) {
  u last = a.offset + a.elem;
  for (std::size_t d = 0; d < a.extent.size(); ++d)
    if (a.extent[d] > 0) last += (a.extent[d] - 1) * a.step[d];
  return last;
}

bool bruteShare(const Arr& x, const Arr& y) {
  const u limit = std::max(reach(x), reach(y)) + 1;
  const std::vector<char> sx = byteSet(x, limit), sy = byteSet(y, limit);
  for (u b = 0; b < limit; ++b)
    if (sx[b] && sy[b]) return true;
  return false;
}

std::string describe(const Arr& a) {
  std::ostringstream o;
  o << "{offset " << a.offset << ", elem " << a.elem << ", (extent, step):";
  for (std::size_t d = 0; d < a.extent.size(); ++d)
    o << " (" << a.extent[d] << ", " << a.step[d] << ")";
  o << "}";
  return o.str();
}

/// Whether the rule is exact for the pair: each array's runs have at most
/// one dimension, and one stride when both have one.
bool exactFor(const Arr& x, const Arr& y) {
  using sieve::Impl::Overlap::runsOf;
  const ArrayBytes bx = bytesOf(x), by = bytesOf(y);
  if (bx.bytes == 0 || by.bytes == 0) return true;
  const auto a = runsOf(bx), b = runsOf(by);
  if (a.dims > 1 || b.dims > 1) return false;
  return a.dims == 0 || b.dims == 0 || a.s[0] == b.s[0];
}

struct Tally {
  int pairs = 0, exact = 0, sharing = 0, falseOverlaps = 0;
};

void check(const Arr& x, const Arr& y, Tally& t, bool mustBeExact = false) {
  const bool truth = bruteShare(x, y);
  const bool rule = shareBytes(bytesOf(x), bytesOf(y));
  const bool ruleYX = shareBytes(bytesOf(y), bytesOf(x));
  const bool exact = exactFor(x, y);
  ++t.pairs;
  t.exact += exact ? 1 : 0;
  t.sharing += truth ? 1 : 0;
  t.falseOverlaps += (rule && !truth) ? 1 : 0;
  ASSERT_EQ(rule, ruleYX) << describe(x) << " vs " << describe(y) << ": not symmetric";
  if (x.extent.size() == 1 && y.extent.size() == 1 && x.step[0] > 0 && y.step[0] > 0) {
    // The rank-1 description (arrayBytes: elements every stride bytes) says the same.
    const auto legacy = [](const Arr& a) {
      return sieve::Impl::arrayBytes("a", reinterpret_cast<const void*>(kBase + a.offset),
                                     static_cast<std::int64_t>(a.extent[0]), a.elem, a.step[0]);
    };
    ASSERT_EQ(shareBytes(legacy(x), legacy(y)), rule) << describe(x) << " vs " << describe(y);
  }
  if (truth) ASSERT_TRUE(rule) << describe(x) << " and " << describe(y) << " share a byte";
  if (exact) ASSERT_EQ(rule, truth) << describe(x) << " vs " << describe(y) << " (an exact case)";
  if (mustBeExact) ASSERT_TRUE(exact) << describe(x) << " vs " << describe(y);
}

/// The tally, in the test's log.
void record(const Tally& t) {
  ::testing::Test::RecordProperty("pairs", t.pairs);
  ::testing::Test::RecordProperty("exact", t.exact);
  ::testing::Test::RecordProperty("sharing", t.sharing);
  ::testing::Test::RecordProperty("false_overlaps", t.falseOverlaps);
}

/// `pairs` random pairs from pair(g), each checked (check: exact cases must
/// be decided exactly), stopping at the first fatal failure; the tally,
/// recorded in the test's log.
template <class Pair>
Tally sweep(std::uint64_t seed, int pairs, bool mustBeExact, const Pair& pair) {
  std::mt19937_64 g(seed);
  Tally t;
  for (int it = 0; it < pairs && !::testing::Test::HasFatalFailure(); ++it) {
    const auto [x, y] = pair(g, it);
    check(x, y, t, mustBeExact);
  }
  record(t);
  return t;
}

/// A rank-1 array of random offset, stride, width and extent.
Arr rank1(std::mt19937_64& g, u maxOffset, u stride) {
  std::uniform_int_distribution<u> off(0, maxOffset), width(1, 9), ext(0, 12);
  Arr a;
  a.offset = off(g);
  a.elem = width(g);
  a.extent = {ext(g)};
  a.step = {stride};
  return a;
}

TEST(Overlap, RandomRank1SameStrideIsExact) {
  const Tally t = sweep(0x5eed01, 40000, true, [&](std::mt19937_64& g, int) {
    const u stride = std::uniform_int_distribution<u>(0, 20)(g);
    const Arr x = rank1(g, 40, stride), y = rank1(g, 40, stride);
    return std::make_pair(x, y);
  });
  EXPECT_EQ(t.falseOverlaps, 0);
  EXPECT_GT(t.sharing, t.pairs / 10);
  EXPECT_LT(t.sharing, t.pairs * 9 / 10);
}

TEST(Overlap, RandomContiguousAgainstStridedIsExact) {
  const Tally t = sweep(0x5eed02, 40000, true, [&](std::mt19937_64& g, int it) {
    const u stride = std::uniform_int_distribution<u>(0, 24)(g);
    Arr x = rank1(g, 60, stride), y = rank1(g, 60, 0);
    y.step = {y.elem}; // contiguous
    if (it % 2) std::swap(x, y);
    return std::make_pair(x, y);
  });
  EXPECT_EQ(t.falseOverlaps, 0);
}

TEST(Overlap, RandomRank1AnyStridesIsSafe) {
  std::uniform_int_distribution<u> stride(0, 24);
  const Tally t = sweep(0x5eed03, 40000, false, [&](std::mt19937_64& g, int) {
    const Arr x = rank1(g, 60, stride(g)), y = rank1(g, 60, stride(g));
    return std::make_pair(x, y);
  });
  // The gcd and span tests prove most disjoint pairs disjoint.
  EXPECT_LT(t.falseOverlaps, (t.pairs - t.sharing) / 4) << t.falseOverlaps << " of " << t.pairs;
}

/// A sub-block of a rows x cols table of `elem`-byte elements, LayoutRight
/// (right) or LayoutLeft, as a rank-2 View of it: extents and byte strides.
Arr subBlock(u rows, u cols, u elem, bool right, u r0, u nr, u c0, u nc) {
  Arr a;
  a.elem = elem;
  const u s0 = right ? cols * elem : elem, s1 = right ? elem : rows * elem;
  a.offset = r0 * s0 + c0 * s1;
  a.extent = {nr, nc};
  a.step = {s0, s1};
  return a;
}

TEST(Overlap, RandomSubBlocksOfOneTableAreExact) {
  const Tally t = sweep(0x5eed04, 20000, true, [&](std::mt19937_64& g, int) {
    const u rows = std::uniform_int_distribution<u>(1, 9)(g);
    const u cols = std::uniform_int_distribution<u>(1, 9)(g);
    const u elem = u(1) << std::uniform_int_distribution<int>(0, 3)(g);
    const bool right = g() % 2;
    auto block = [&]() {
      const u r0 = std::uniform_int_distribution<u>(0, rows - 1)(g);
      const u c0 = std::uniform_int_distribution<u>(0, cols - 1)(g);
      const u nr = std::uniform_int_distribution<u>(1, rows - r0)(g);
      const u nc = std::uniform_int_distribution<u>(1, cols - c0)(g);
      return subBlock(rows, cols, elem, right, r0, nr, c0, nc);
    };
    const Arr x = block(), y = block();
    return std::make_pair(x, y);
  });
  EXPECT_EQ(t.falseOverlaps, 0);
}

TEST(Overlap, RandomRowsAndColumnsOfOneTableAreExact) {
  // A row or a column (rank 1) of a LayoutRight / LayoutLeft table against
  // another row, column or sub-block of it.
  const Tally t = sweep(0x5eed05, 20000, true, [&](std::mt19937_64& g, int) {
    const u rows = std::uniform_int_distribution<u>(1, 9)(g);
    const u cols = std::uniform_int_distribution<u>(1, 9)(g);
    const u elem = u(1) << std::uniform_int_distribution<int>(0, 3)(g);
    const bool right = g() % 2;
    auto line = [&]() {
      const bool column = g() % 2;
      const u k = std::uniform_int_distribution<u>(0, (column ? cols : rows) - 1)(g);
      Arr a = column ? subBlock(rows, cols, elem, right, 0, rows, k, 1)
                     : subBlock(rows, cols, elem, right, k, 1, 0, cols);
      // as a rank-1 View: the one dimension
      const std::size_t d = column ? 0 : 1;
      a.extent = {a.extent[d]};
      a.step = {a.step[d]};
      return a;
    };
    const Arr x = line();
    const Arr y = g() % 2 ? line() : subBlock(rows, cols, elem, right, 0, rows, 0, cols);
    return std::make_pair(x, y);
  });
  EXPECT_EQ(t.falseOverlaps, 0) << "of " << t.pairs;
}

TEST(Overlap, RandomRank2And3StridedIsSafe) {
  std::uniform_int_distribution<u> ext(0, 5), stride(0, 30), width(1, 8), off(0, 40);
  std::uniform_int_distribution<int> rank(1, 3);
  const Tally t = sweep(0x5eed06, 40000, false, [&](std::mt19937_64& g, int) {
    auto any = [&]() {
      Arr a;
      a.offset = off(g);
      a.elem = width(g);
      for (int d = rank(g); d > 0; --d) {
        a.extent.push_back(ext(g));
        a.step.push_back(stride(g));
      }
      return a;
    };
    const Arr x = any(), y = any();
    return std::make_pair(x, y);
  });
  EXPECT_GT(t.exact, t.pairs / 4);
}

TEST(Overlap, ColumnsOfOneLayoutRightTable) {
  // The (64, 2) LayoutRight table of 8-byte elements: its columns share no
  // byte; a column shares with the table, a row and itself.
  const u n = 64, e = 8;
  const Arr col0 = subBlock(n, 2, e, true, 0, n, 0, 1), col1 = subBlock(n, 2, e, true, 0, n, 1, 1);
  const Arr table = subBlock(n, 2, e, true, 0, n, 0, 2), row5 = subBlock(n, 2, e, true, 5, 1, 0, 2);
  EXPECT_FALSE(shareBytes(bytesOf(col0), bytesOf(col1)));
  EXPECT_TRUE(shareBytes(bytesOf(col0), bytesOf(col0)));
  EXPECT_TRUE(shareBytes(bytesOf(col1), bytesOf(table)));
  EXPECT_TRUE(shareBytes(bytesOf(col1), bytesOf(row5)));
  // As rank-1 Views (stride 16 bytes) and as the rank-1 description of arrayBytes.
  Arr c0 = col0, c1 = col1;
  c0.extent = {n}, c0.step = {2 * e}, c1.extent = {n}, c1.step = {2 * e};
  EXPECT_FALSE(shareBytes(bytesOf(c0), bytesOf(c1)));
  const char* base = reinterpret_cast<const char*>(kBase);
  EXPECT_FALSE(shareBytes(sieve::Impl::arrayBytes("c0", base, n, e, 2 * e),
                          sieve::Impl::arrayBytes("c1", base + e, n, e, 2 * e)));
  EXPECT_TRUE(shareBytes(sieve::Impl::arrayBytes("c0", base, n, e, 2 * e),
                         sieve::Impl::arrayBytes("c1", base + e, n, 2 * e)));
  // A column of 4-byte elements in the table of 8-byte ones (a column's
  // halves): the low halves of column 1 against column 0.
  Arr low1 = c1;
  low1.elem = 4;
  EXPECT_FALSE(shareBytes(bytesOf(c0), bytesOf(low1)));
  low1.offset -= 4; // the high halves of column 0
  EXPECT_TRUE(shareBytes(bytesOf(c0), bytesOf(low1)));
}

TEST(Overlap, PlanesOfRank3Table) {
  // subview(A, ALL, ALL, c) of a LayoutRight (M, K, 2) table: planes c = 0
  // and 1 interleave (one stride after merging); a part of their rows too
  // (two strides: the gcd test).
  const u M = 5, K = 7, e = 4;
  Arr p0, p1;
  p0.elem = p1.elem = e;
  p0.extent = p1.extent = {M, K};
  p0.step = p1.step = {K * 2 * e, 2 * e};
  p1.offset = e;
  EXPECT_FALSE(shareBytes(bytesOf(p0), bytesOf(p1)));
  EXPECT_TRUE(exactFor(p0, p1));
  Arr q0 = p0, q1 = p1;
  q0.extent = q1.extent = {M, K - 2};
  EXPECT_FALSE(shareBytes(bytesOf(q0), bytesOf(q1)));
  EXPECT_FALSE(exactFor(q0, q1));
  EXPECT_FALSE(bruteShare(q0, q1));
  EXPECT_TRUE(shareBytes(bytesOf(p0), bytesOf(q0)));
}

TEST(Overlap, EmptyAndLegacyDescriptions) {
  const char* base = reinterpret_cast<const char*>(kBase);
  const ArrayBytes none = sieve::Impl::arrayBytes("none", base, 0, 8);
  const ArrayBytes some = sieve::Impl::arrayBytes("some", base, 4, 8);
  EXPECT_FALSE(shareBytes(none, some));
  EXPECT_TRUE(shareBytes(some, some));
  // An aggregate of the span alone (stride = elem = 1): contiguous.
  const ArrayBytes span{"span", kBase + 31, 2, 1, 1};
  EXPECT_TRUE(shareBytes(span, some));
  const ArrayBytes past{"past", kBase + 32, 2, 1, 1};
  EXPECT_FALSE(shareBytes(past, some));
  // A rank-0 array: one element.
  const ArrayBytes word = stridedBytes("word", base + 24, 8, 0, nullptr, nullptr);
  EXPECT_EQ(word.bytes, 8u);
  EXPECT_TRUE(shareBytes(word, some));
  // The eight-number form (checkScan's).
  EXPECT_FALSE(sieve::Impl::shareBytes(kBase, 64 * 16 - 8, 16, 8, kBase + 8, 64 * 16 - 8, 16, 8));
  EXPECT_TRUE(sieve::Impl::shareBytes(kBase, 64 * 16 - 8, 16, 8, kBase + 4, 64 * 16 - 8, 16, 8));
}

} // namespace
