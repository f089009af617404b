// SPDX-License-Identifier: Apache-2.0
// Sieve host tests — denseScatterHost (keys::scatter_dense's OpenMP twin)
// against a plain sequential counting sort: records of 4, 8, 12, 16 and 32
// bytes, bucket counts on the one-pass / two-pass edges (1, 2, 2048, 2049,
// 2^16, 2^23) and on the buffer's edges (16 lines a bucket up to 512 high
// buckets, 8 up to 1024, 4 above: 512, 513, 1024, 1025, 2^19 + 1 (513 high
// buckets), 2^21 + 1 (1025)), skewed keys (every record in one run), sizes
// on the line and team edges, teams of 1 .. 4 threads giving the same bytes,
// placements of the output within a cache line and within a bucket's block
// of 4, 8 and 16 lines (its last line included), guard bytes on both sides of
// out and offsets, a digit outside the buckets (nothing written), a digit
// that changes between the reads (counted, nothing written outside out;
// before the sort of a run: the run still whole, its moved records last),
// and the argument checks.
#include <sieve/core/radix.hpp>
#include <sieve/native/host/scatter.hpp>

#include <gtest/gtest.h>

#include "../common/cases.hpp"
#include "scatter_helpers.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using i64 = std::int64_t;
using u64 = std::uint64_t;

/// A record of `W` 32-bit words: word 0 the key, word 1 the input position.
template <int W>
struct Rec {
  std::uint32_t w[W];
};
template <int W>
struct DigitOf {
  u64 operator()(const Rec<W>& r) const { return r.w[0]; }
};

/// The records of an input array, as the scatter reads them.
template <class R>
struct RecordsOf {
  const R* in;
  R operator()(i64 i) const { return in[i]; }
};
template <class R>
RecordsOf<R> recordsOf(const R* in) {
  return RecordsOf<R>{in};
}
template <class R>
RecordsOf<R> recordsOf(const std::vector<R>& in) {
  return RecordsOf<R>{in.data()};
}

using host_test::Fenced;

template <int W>
std::vector<Rec<W>> makeRecords(i64 n, i64 K, unsigned seed, bool skew = false) {
  std::mt19937_64 g(seed);
  std::vector<Rec<W>> v(static_cast<std::size_t>(n));
  for (i64 i = 0; i < n; ++i) {
    Rec<W>& r = v[static_cast<std::size_t>(i)];
    for (int j = 0; j < W; ++j) r.w[j] = static_cast<std::uint32_t>(g());
    // skew: 15 of 16 records in the top key (one high run holds them all).
    r.w[0] = static_cast<std::uint32_t>(skew && g() % 16 != 0 ? K - 1 : g() % static_cast<u64>(K));
    if (W > 1) r.w[1] = static_cast<std::uint32_t>(i);
  }
  return v;
}

/// The independent reference: a sequential counting sort (stable).
template <int W>
void reference(const std::vector<Rec<W>>& in, i64 K, std::vector<Rec<W>>& out,
               std::vector<i64>& off) {
  off.assign(static_cast<std::size_t>(K + 1), 0);
  for (const auto& r : in) ++off[r.w[0] + 1];
  for (i64 k = 0; k < K; ++k)
    off[static_cast<std::size_t>(k + 1)] += off[static_cast<std::size_t>(k)];
  std::vector<i64> cur(off.begin(), off.end() - 1);
  out.resize(in.size());
  for (const auto& r : in) out[static_cast<std::size_t>(cur[r.w[0]]++)] = r;
}

/// Every team of 1 .. 4 threads and output shifts within a line against the reference.
template <int W>
void expectScatter(i64 n, i64 K, unsigned seed, bool skew = false) {
  const auto in = makeRecords<W>(n, K, seed, skew);
  std::vector<Rec<W>> ref;
  std::vector<i64> refOff;
  reference(in, K, ref, refOff);
  const std::size_t bytes = in.size() * sizeof(Rec<W>);
  for (int threads : {1, 2, 3, 4}) {
    // out starts kGuardBytes (256) + shift bytes past a 1024-byte boundary,
    // rb the record size: on a line, one or three records in, in the next
    // line, in the last line of a block of 4 and of 8 lines (192 + rb: 448 +
    // rb past the boundary), mid-block of 16 (448 + rb) and in the last line
    // of a block of 16 lines (704 + rb: 960 + rb).
    const std::size_t rb = sizeof(Rec<W>);
    for (std::size_t shift : {std::size_t(0), rb, 3 * rb, 64 + rb, 192 + rb, 448 + rb, 704 + rb}) {
      Fenced out(bytes, shift), off(static_cast<std::size_t>(K + 1) * 8, 0);
      const auto r = sieve::denseScatterHost(sieve::HostTeam{threads}, recordsOf(in), n,
                                             DigitOf<W>{}, K, reinterpret_cast<Rec<W>*>(out.data()),
                                             reinterpret_cast<i64*>(off.data()));
      const std::string what = "n = " + std::to_string(n) + ", K = " + std::to_string(K) +
                               ", record " + std::to_string(sizeof(Rec<W>)) + " B, threads " +
                               std::to_string(threads) + ", shift " + std::to_string(shift);
      EXPECT_EQ(r.outside, 0) << what;
      EXPECT_EQ(r.changed, 0) << what;
      ASSERT_TRUE(out.guardsIntact()) << "bytes around out written: " << what;
      ASSERT_TRUE(off.guardsIntact()) << "bytes around offsets written: " << what;
      ASSERT_TRUE(n == 0 || std::memcmp(out.data(), ref.data(), bytes) == 0) << what;
      ASSERT_EQ(std::memcmp(off.data(), refOff.data(), refOff.size() * 8), 0) << what;
    }
  }
}

// The buffer: 16 lines a bucket up to 512 high buckets, 8 up to 1024, 4
// above (one pass: 512, 513, 1024, 1025; two: ((2^19 + 1 - 1) >> 10) + 1 =
// 513 high buckets).
const i64 kBuckets[] = {1,    2,    3,    255,  256,  512,          513,    700,
                        1024, 1025, 2048, 2049, 4097, i64(1) << 16, 100003, (i64(1) << 19) + 1};

} // namespace

TEST(HostDenseScatter, MatchesTheSequentialCountingSort) {
  for (i64 K : kBuckets)
    for (i64 n : {i64(0), i64(1), i64(7), i64(64), i64(1000), i64(40001)})
      expectScatter<2>(n, K, 11u + static_cast<unsigned>(K + n));
  // (Under the sanitizers the one-pass cases take a quarter of the records.)
  const i64 big = i64(1) << (sieve_test::kSanitized ? 18 : 20);
  expectScatter<2>(big, 1024, 5u);
  expectScatter<2>(big, i64(1) << 16, 6u);
  expectScatter<2>(i64(1) << 20, (i64(1) << 19) + 1, 7u); // two passes, streamed, 8 lines a bucket
  expectScatter<2>(i64(1) << 19, (i64(1) << 21) + 1, 8u); // 1025 high buckets, 4 lines a bucket
  // Whole blocks of 16 and of 4 lines in one pass (the small cases above
  // mostly end in partial blocks).
  expectScatter<2>(big, 512, 9u);
  expectScatter<2>(big, 1025, 10u);
}

TEST(HostDenseScatter, RecordSizes) {
  for (i64 K : {i64(5), i64(2048), i64(70000)}) {
    expectScatter<1>(50001, K, 21u);
    expectScatter<3>(50001, K, 22u);
    expectScatter<4>(50001, K, 23u);
    expectScatter<8>(50001, K, 24u);
  }
}

TEST(HostDenseScatter, SkewedAndLargestRange) {
  for (i64 K : {i64(2), i64(2048), i64(4096), i64(1) << 16}) expectScatter<2>(100000, K, 31u, true);
  // The largest range: 2^23 buckets (11 + 12 bits), most of them empty.
  expectScatter<2>(200000, i64(1) << 23, 32u);
  const auto plan = sieve::Impl::denseScatterPlan(i64(1) << 23);
  EXPECT_TRUE(plan.ok);
  EXPECT_EQ(plan.highBits + plan.lowBits, 23);
  EXPECT_FALSE(sieve::Impl::denseScatterPlan((i64(1) << 23) + 1).ok);
  EXPECT_EQ(sieve::Impl::denseScatterPlan(2048).lowBits, 0);
  EXPECT_GT(sieve::Impl::denseScatterPlan(2049).lowBits, 0);
  // The first read counts every bucket from two passes up to 2^16 buckets
  // (the cases above and MatchesTheSequentialCountingSort run both sorts of
  // a run: 4097 and 2^16 buckets with it, 100003 and 2^23 without).
  EXPECT_FALSE(sieve::Impl::denseScatterPlan(2048).countWhole);
  EXPECT_TRUE(sieve::Impl::denseScatterPlan(2049).countWhole);
  EXPECT_TRUE(sieve::Impl::denseScatterPlan(i64(1) << 16).countWhole);
  EXPECT_FALSE(sieve::Impl::denseScatterPlan((i64(1) << 16) + 1).countWhole);
  // ... while the threads' counts take at most 8 bytes a record.
  const auto p16 = sieve::Impl::denseScatterPlan(i64(1) << 16);
  EXPECT_TRUE(sieve::Impl::denseCountWhole(p16, i64(1) << 16, i64(1) << 17, 2));
  EXPECT_FALSE(sieve::Impl::denseCountWhole(p16, i64(1) << 16, (i64(1) << 17) - 1, 2));
  EXPECT_TRUE(sieve::Impl::denseCountWhole(p16, i64(1) << 16, i64(1) << 16, 0));
  EXPECT_FALSE(
      sieve::Impl::denseCountWhole(sieve::Impl::denseScatterPlan(2048), 2048, i64(1) << 24, 1));
}

TEST(HostDenseScatter, OutsideDigitWritesNothing) {
  for (i64 K : {i64(10), i64(5000)}) {
    for (int threads : {1, 3}) {
      auto in = makeRecords<2>(60000, K, 41u);
      in[777].w[0] = static_cast<std::uint32_t>(K);
      in[59999].w[0] = 0xFFFFFFFFu;
      Fenced out(in.size() * 8, 8), off(static_cast<std::size_t>(K + 1) * 8, 0);
      const auto r = sieve::denseScatterHost(sieve::HostTeam{threads}, recordsOf(in), 60000,
                                             DigitOf<2>{}, K, reinterpret_cast<Rec<2>*>(out.data()),
                                             reinterpret_cast<i64*>(off.data()));
      EXPECT_EQ(r.outside, 2);
      EXPECT_TRUE(out.untouched()) << "K = " << K << ", threads " << threads;
      EXPECT_TRUE(off.untouched()) << "K = " << K << ", threads " << threads;
    }
  }
}

namespace {

/// n records of 2 words, record i's key i * 7919 % K (every key, spread).
std::vector<Rec<2>> spreadRecords(i64 n, i64 K) {
  std::vector<Rec<2>> in(static_cast<std::size_t>(n));
  for (i64 i = 0; i < n; ++i)
    in[static_cast<std::size_t>(i)] =
        Rec<2>{{static_cast<std::uint32_t>(i * 7919 % K), static_cast<std::uint32_t>(i)}};
  return in;
}

/// Whether out[0, n) holds each record 0 .. n - 1 (by its word 1) once.
::testing::AssertionResult eachRecordOnce(const unsigned char* bytes, i64 n) {
  std::vector<int> seen(static_cast<std::size_t>(n), 0);
  const auto* o = reinterpret_cast<const Rec<2>*>(bytes);
  for (i64 p = 0; p < n; ++p)
    if (o[p].w[1] < static_cast<std::uint32_t>(n)) ++seen[o[p].w[1]];
  for (i64 i = 0; i < n; ++i)
    if (seen[static_cast<std::size_t>(i)] != 1)
      return ::testing::AssertionFailure()
             << "record " << i << " is there " << seen[static_cast<std::size_t>(i)] << " times";
  return ::testing::AssertionSuccess();
}

/// denseScatterHost of `in` by `digit` into guarded out and offsets.
struct FencedScatter {
  sieve::DenseScatterResult r;
  Fenced out, off;
};
template <class Digit>
FencedScatter scatterFenced(int threads, const std::vector<Rec<2>>& in, const Digit& digit, i64 K) {
  const i64 n = static_cast<i64>(in.size());
  FencedScatter f{{},
                  Fenced(static_cast<std::size_t>(n) * 8, 8),
                  Fenced(static_cast<std::size_t>(K + 1) * 8, 0)};
  f.r = sieve::denseScatterHost(sieve::HostTeam{threads}, recordsOf(in), n, digit, K,
                                reinterpret_cast<Rec<2>*>(f.out.data()),
                                reinterpret_cast<i64*>(f.off.data()));
  return f;
}

} // namespace

TEST(HostDenseScatter, ChangingDigitIsCountedAndStaysInside) {
  // After the first read, every third record answers another digit.
  int reported = 0;
  for (i64 K : {i64(7), i64(300), i64(5000), i64(1) << 16}) {
    for (int threads : {1, 2, 4}) {
      const i64 n = 100000;
      const auto in = spreadRecords(n, K);
      std::atomic<i64> calls{0};
      const auto digit = [&](const Rec<2>& r) -> u64 {
        const i64 c = calls.fetch_add(1, std::memory_order_relaxed);
        if (c >= n && r.w[1] % 3 == 0)
          return (r.w[0] + 1 + (static_cast<u64>(c) * 2654435761u >> 7) % 5) % K;
        return r.w[0];
      };
      auto f = scatterFenced(threads, in, digit, K);
      const auto& r = f.r;
      EXPECT_EQ(r.outside, 0);
      EXPECT_TRUE(f.out.guardsIntact()) << "K = " << K << ", threads " << threads;
      EXPECT_TRUE(f.off.guardsIntact()) << "K = " << K << ", threads " << threads;
      // Unless the change is reported, no record is lost: out holds every
      // input record once (a change that keeps every bucket's count only
      // moves records between equal-sized slots).
      if (r.changed == 0) {
        EXPECT_TRUE(eachRecordOnce(f.out.data(), n)) << "K = " << K << ", threads " << threads;
      } else {
        ++reported;
      }
    }
  }
  EXPECT_GT(reported, 8); // most changes move a bucket's count: reported
}

namespace {

/// The record ids (word 1) of out[0, n), in order.
std::vector<std::uint32_t> idsOf(const unsigned char* bytes, i64 n) {
  std::vector<std::uint32_t> ids(static_cast<std::size_t>(n));
  const auto* o = reinterpret_cast<const Rec<2>*>(bytes);
  for (i64 p = 0; p < n; ++p) ids[static_cast<std::size_t>(p)] = o[p].w[1];
  return ids;
}

} // namespace

// Two passes, a digit that changes only on the third read (the sort of each
// run). Moved to another high bucket (every third record): counted there,
// and each run holds its other records in order with the moved ones after
// them in record order (out holds every record once), the offsets those of
// the records that stayed. Only its low digit changed: not counted, placed
// by the new digit in its run (the order a stable sort by the digits of the
// third read gives); also when every changed digit becomes its run's last
// (more records than that key was counted for: a sort that placed them by
// the first read's counts would write past the run).
TEST(HostDenseScatter, DigitChangedBeforeTheRunSort) {
  const i64 K = i64(1) << 16, n = 200000;
  const int lowBits = sieve::Impl::denseScatterPlan(K).lowBits;
  ASSERT_GT(lowBits, 0);
  const u64 lowMask = (u64(1) << lowBits) - 1;
  const auto in = spreadRecords(n, K);
  enum Change { HighMoves, LowMoves, LowToLast };
  for (const Change change : {HighMoves, LowMoves, LowToLast}) {
    const bool highMoves = change == HighMoves;
    const auto third = [&](const Rec<2>& r) -> u64 {
      if (r.w[1] % 3 != 0) return r.w[0];
      if (change == HighMoves) return (r.w[0] + (u64(1) << lowBits)) % K;
      if (change == LowMoves) return (r.w[0] & ~lowMask) | ((r.w[0] + 1) & lowMask);
      return r.w[0] | lowMask;
    };
    // The reference: each high bucket's run, its staying records by their
    // third digit (stable), then (highMoves) its moved records.
    std::vector<std::vector<std::uint32_t>> stay(static_cast<std::size_t>(K));
    std::vector<std::vector<std::uint32_t>> moved(static_cast<std::size_t>(K >> lowBits));
    for (const auto& r : in) {
      if ((third(r) >> lowBits) == (r.w[0] >> lowBits)) stay[third(r)].push_back(r.w[1]);
      else moved[r.w[0] >> lowBits].push_back(r.w[1]);
    }
    std::vector<std::uint32_t> ref;
    std::vector<i64> refOff(static_cast<std::size_t>(K + 1), -1);
    for (i64 k = 0; k < K; ++k) {
      refOff[static_cast<std::size_t>(k)] = static_cast<i64>(ref.size());
      ref.insert(ref.end(), stay[static_cast<std::size_t>(k)].begin(),
                 stay[static_cast<std::size_t>(k)].end());
      if ((static_cast<u64>(k) & lowMask) == lowMask) // the run's last key: its moved records
        ref.insert(ref.end(), moved[static_cast<std::size_t>(k >> lowBits)].begin(),
                   moved[static_cast<std::size_t>(k >> lowBits)].end());
    }
    refOff[static_cast<std::size_t>(K)] = n;
    ASSERT_EQ(static_cast<i64>(ref.size()), n);
    for (int threads : {1, 2, 4}) {
      std::atomic<i64> calls{0};
      const auto digit = [&](const Rec<2>& r) -> u64 {
        return calls.fetch_add(1, std::memory_order_relaxed) >= 2 * n ? third(r) : r.w[0];
      };
      auto f = scatterFenced(threads, in, digit, K);
      const std::string what = std::string(highMoves            ? "high digit moved"
                                           : change == LowMoves ? "low digit moved"
                                                                : "low digit to the run's last") +
                               ", threads " + std::to_string(threads);
      EXPECT_EQ(f.r.outside, 0) << what;
      EXPECT_EQ(f.r.changed, highMoves ? (n + 2) / 3 : 0) << what;
      EXPECT_TRUE(f.out.guardsIntact()) << what;
      EXPECT_TRUE(f.off.guardsIntact()) << what;
      EXPECT_TRUE(eachRecordOnce(f.out.data(), n)) << what;
      EXPECT_EQ(idsOf(f.out.data(), n), ref) << what;
      EXPECT_EQ(std::memcmp(f.off.data(), refOff.data(), refOff.size() * 8), 0) << what;
    }
  }
}

// The sort of one run from the first read's counts (sortRunCounted), alone:
// high bucket 3 of 4-bit low digits with K = 60 (the run holds keys 48 ..
// 59, the last bucket cut short), 500 records at out[7, 507), counts of two
// threads. When the run matches the counts: true, the run stable by key, the
// offsets of its keys, nothing else written. When a record's digit left the
// bucket, is outside [0, K), or moved to another low digit: false, with the
// run, the offsets and every byte around the copy (exactly m records)
// untouched.
TEST(HostDenseScatter, RunSortFromTheCounts) {
  const int shift = 4;
  const u64 K = 60, h = 3;
  const i64 s = 7, m = 500;
  std::mt19937 g(17u);
  std::vector<Rec<2>> out(static_cast<std::size_t>(s + m + 5), Rec<2>{{0xEEEEu, 0xEEEEu}});
  for (i64 j = 0; j < m; ++j)
    out[static_cast<std::size_t>(s + j)] =
        Rec<2>{{static_cast<std::uint32_t>(48 + g() % 12), static_cast<std::uint32_t>(j)}};
  sieve::Impl::DenseHost::FineCounts counts;
  counts.allocate(2, static_cast<i64>(K));
  std::fill(counts.row(0), counts.row(0) + K, i64(0));
  std::fill(counts.row(1), counts.row(1) + K, i64(0));
  counts.row(0)[5] = 1000; // (another run's key: not this run's concern)
  for (i64 j = 0; j < m; ++j) ++counts.row(j % 2)[out[static_cast<std::size_t>(s + j)].w[0]];
  std::vector<i64> cur(std::size_t(2) << shift);
  const auto call = [&](std::vector<Rec<2>>& o, std::vector<i64>& off, Fenced& tmp) {
    return sieve::Impl::DenseHost::sortRunCounted(o.data(), s, m, h, DigitOf<2>{}, K, shift,
                                                  reinterpret_cast<Rec<2>*>(tmp.data()), cur.data(),
                                                  counts, off.data());
  };
  const auto bytesOf = [](const std::vector<Rec<2>>& v) {
    std::vector<std::uint32_t> b;
    for (const auto& r : v) b.insert(b.end(), {r.w[0], r.w[1]});
    return b;
  };
  { // The run as counted.
    std::vector<Rec<2>> ref = out;
    std::stable_sort(ref.begin() + s, ref.begin() + s + m,
                     [](const Rec<2>& a, const Rec<2>& b) { return a.w[0] < b.w[0]; });
    std::vector<i64> refOff(K + 1, -1), off(K + 1, -1);
    for (i64 p = s + m - 1; p >= s; --p) refOff[ref[static_cast<std::size_t>(p)].w[0]] = p;
    for (u64 k = 59; k >= 48; --k) // keys absent from the run start where the next one does
      if (refOff[k] < 0) refOff[k] = k == 59 ? s + m : refOff[k + 1];
    std::vector<Rec<2>> o = out;
    Fenced tmp(static_cast<std::size_t>(m) * sizeof(Rec<2>), 0);
    ASSERT_TRUE(call(o, off, tmp));
    EXPECT_EQ(bytesOf(o), bytesOf(ref));
    EXPECT_EQ(off, refOff);
    EXPECT_TRUE(tmp.guardsIntact());
  }
  // One record changed since the count: every change makes it false.
  for (const std::uint32_t key :
       {std::uint32_t(10), std::uint32_t(60), std::uint32_t(0xFFFFFFFFu), std::uint32_t(59)}) {
    for (const i64 at : {i64(0), m / 2, m - 1}) {
      std::vector<Rec<2>> o = out;
      auto& r = o[static_cast<std::size_t>(s + at)];
      r.w[0] = r.w[0] == key ? 48 : key; // (a different low digit when key is the run's own)
      const std::vector<Rec<2>> before = o;
      std::vector<i64> off(K + 1, -1);
      Fenced tmp(static_cast<std::size_t>(m) * sizeof(Rec<2>), 0);
      EXPECT_FALSE(call(o, off, tmp)) << "key " << key << " at " << at;
      EXPECT_EQ(bytesOf(o), bytesOf(before)) << "key " << key << " at " << at;
      EXPECT_EQ(off, std::vector<i64>(K + 1, -1)) << "key " << key << " at " << at;
      EXPECT_TRUE(tmp.guardsIntact()) << "key " << key << " at " << at;
    }
  }
}

TEST(HostDenseScatter, ArgumentChecks) {
  std::vector<Rec<2>> in(4, Rec<2>{{0, 0}}), out(4);
  std::vector<i64> off(8, -1);
  const auto call = [&](const Rec<2>* i, i64 n, i64 K, Rec<2>* o, i64* f) {
    return sieve::denseScatterHost(sieve::HostTeam{2}, recordsOf(i), n, DigitOf<2>{}, K, o, f);
  };
  const auto throwsNaming = [&](auto&& f, const char* word) {
    host_test::expectThrowsNaming(f, "sieve::denseScatterHost", word);
  };
  throwsNaming([&] { call(in.data(), -1, 4, out.data(), off.data()); }, "n = -1");
  throwsNaming([&] { call(in.data(), 4, 0, out.data(), off.data()); }, "buckets = 0");
  throwsNaming([&] { call(in.data(), 4, (i64(1) << 23) + 1, out.data(), off.data()); }, "buckets");
  throwsNaming([&] { call(in.data(), 4, 4, nullptr, off.data()); }, "null");
  throwsNaming([&] { call(in.data(), 4, 4, out.data(), nullptr); }, "null");
  for (i64 v : off) EXPECT_EQ(v, -1);
  // n = 0: only the offsets, all 0.
  const auto r = call(nullptr, 0, 4, nullptr, off.data());
  EXPECT_EQ(r.outside + r.changed, 0);
  for (int k = 0; k <= 4; ++k) EXPECT_EQ(off[static_cast<std::size_t>(k)], 0);
}

// sort_permutation's shape: the records are the indices themselves (int64 or
// int32, made by recOf, not read), the digit read through them.
TEST(HostDenseScatter, IndicesByKey) {
  for (i64 K : {i64(9), i64(3000), i64(1) << 17}) {
    for (int threads : {1, 2, 4}) {
      const i64 n = 90001;
      std::mt19937_64 g(static_cast<unsigned>(K));
      std::vector<std::uint32_t> key(static_cast<std::size_t>(n));
      for (auto& k : key) k = static_cast<std::uint32_t>(g() % static_cast<u64>(K));
      std::vector<i64> ref(static_cast<std::size_t>(n)), refOff(static_cast<std::size_t>(K + 1), 0);
      for (const auto k : key) ++refOff[k + 1];
      for (i64 k = 0; k < K; ++k)
        refOff[static_cast<std::size_t>(k + 1)] += refOff[static_cast<std::size_t>(k)];
      std::vector<i64> cur(refOff.begin(), refOff.end() - 1);
      for (i64 i = 0; i < n; ++i)
        ref[static_cast<std::size_t>(cur[key[static_cast<std::size_t>(i)]]++)] = i;
      std::vector<i64> p64(static_cast<std::size_t>(n)), off(static_cast<std::size_t>(K + 1));
      std::vector<std::int32_t> p32(static_cast<std::size_t>(n));
      const auto d64 = [&](const i64 i) { return u64(key[static_cast<std::size_t>(i)]); };
      const auto d32 = [&](const std::int32_t i) { return u64(key[static_cast<std::size_t>(i)]); };
      auto r = sieve::denseScatterHost(
          sieve::HostTeam{threads}, [](i64 i) { return i; }, n, d64, K, p64.data(), off.data());
      EXPECT_EQ(r.outside + r.changed, 0);
      EXPECT_EQ(p64, ref) << "K = " << K << ", threads " << threads;
      EXPECT_EQ(off, refOff);
      r = sieve::denseScatterHost(
          sieve::HostTeam{threads}, [](i64 i) { return static_cast<std::int32_t>(i); }, n, d32, K,
          p32.data(), off.data());
      EXPECT_EQ(r.outside + r.changed, 0);
      EXPECT_EQ(std::vector<i64>(p32.begin(), p32.end()), ref) << "K = " << K;
      EXPECT_EQ(off, refOff);
    }
  }
}

// A record reader that throws on the first read (as an allocation inside the
// team may): the exception reaches the caller after the team's region, and
// nothing is written.
TEST(HostDenseScatter, ThrowOnTheCountingReadWritesNothing) {
  const i64 n = 100000, K = i64(1) << 16;
  const auto in = makeRecords<2>(n, K, 43u);
  for (int threads : {1, 2, 4}) {
    std::atomic<i64> calls{0};
    const auto recOf = [&](i64 i) {
      if (calls.fetch_add(1, std::memory_order_relaxed) < n && i == 7)
        throw std::runtime_error("reader failed");
      return in[static_cast<std::size_t>(i)];
    };
    Fenced out(in.size() * sizeof(Rec<2>), 0), off(static_cast<std::size_t>(K + 1) * 8, 0);
    EXPECT_THROW(sieve::denseScatterHost(sieve::HostTeam{threads}, recOf, n, DigitOf<2>{}, K,
                                         reinterpret_cast<Rec<2>*>(out.data()),
                                         reinterpret_cast<i64*>(off.data())),
                 std::runtime_error);
    EXPECT_TRUE(out.untouched()) << "threads " << threads;
    EXPECT_TRUE(off.untouched()) << "threads " << threads;
  }
}
