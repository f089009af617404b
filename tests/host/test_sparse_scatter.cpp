// SPDX-License-Identifier: Apache-2.0
// Sieve host tests — sparseScatterHost (keys::scatter_sparse's OpenMP twin for
// integer keys) against std::stable_sort by word: words of 0 .. 64 bits
// (every run sorted by insertion, by counting alone, or, for clustered words,
// by std::sort), records of 8 (indices), 12, 16 and 32 bytes, sizes on the
// team and run edges, teams of 1 .. 4 threads giving the same bytes, outputs
// placed at several phases of a cache line with guard bytes on both sides,
// the run table (each run's start and its distinct words), a run longer than
// maxRun (nothing written), a word above maxWord (nothing written), a word
// that changes between the reads (counted, nothing written outside out;
// before the sort of a run: the run still whole, its moved records last), and
// the argument checks.
#include <sieve/core/radix.hpp>
#include <sieve/native/host/scatter.hpp>

#include <gtest/gtest.h>

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

/// 16 bytes: the word and the input position.
struct R16 {
  u64 word, id;
};
/// 12 bytes (does not tile a line: no line buffers).
struct R12 {
  std::uint32_t lo, hi, id;
};
/// 32 bytes.
struct R32 {
  u64 word, id, a, b;
};

u64 wordOf(const R16& r) { return r.word; }
u64 wordOf(const R12& r) { return (u64(r.hi) << 32) | r.lo; }
u64 wordOf(const R32& r) { return r.word; }
u64 idOf(const R16& r) { return r.id; }
u64 idOf(const R12& r) { return r.id; }
u64 idOf(const R32& r) { return r.id; }
R16 make16(u64 w, u64 i) { return R16{w, i}; }
R12 make12(u64 w, u64 i) {
  return R12{static_cast<std::uint32_t>(w), static_cast<std::uint32_t>(w >> 32),
             static_cast<std::uint32_t>(i)};
}
R32 make32(u64 w, u64 i) { return R32{w, i, ~w, i * 3}; }

template <class R>
struct WordOf {
  u64 operator()(const R& r) const { return wordOf(r); }
};
template <class R>
struct RecordsOf {
  const R* in;
  R operator()(i64 i) const { return in[i]; }
};

using host_test::Fenced;

u64 maskOf(int bits) { return bits >= 64 ? ~u64(0) : (u64(1) << bits) - 1; }

/// n words of `bits` bits: uniform, or (clustered) a few hundred distinct
/// words sharing their top bits in groups (sub buckets of many records).
std::vector<u64> makeWords(i64 n, int bits, unsigned seed, bool clustered = false) {
  std::mt19937_64 g(seed);
  std::vector<u64> w(static_cast<std::size_t>(n));
  std::vector<u64> pool(300);
  for (auto& p : pool) p = g() & maskOf(bits);
  for (auto& x : w) {
    x = g() & maskOf(bits);
    if (clustered) x = pool[g() % pool.size()] ^ (g() & 7u & maskOf(bits));
  }
  return w;
}

/// The reference: the records stable-sorted by word; the first position of
/// each top digit's run and the distinct words before each run.
template <class R>
struct Reference {
  std::vector<R> out;
  std::vector<i64> runStart, runKeys;
  Reference(const std::vector<R>& in, u64 maxWord) : out(in) {
    std::stable_sort(out.begin(), out.end(),
                     [](const R& a, const R& b) { return wordOf(a) < wordOf(b); });
    int bits = 0;
    while (bits < 64 && (maxWord >> bits) != 0) ++bits;
    const auto plan = sieve::Impl::sparseScatterPlan(static_cast<i64>(in.size()), bits);
    const i64 V = i64(1) << plan.topBits;
    runStart.assign(static_cast<std::size_t>(V + 1), static_cast<i64>(in.size()));
    runKeys.assign(static_cast<std::size_t>(V + 1), 0);
    i64 distinct = 0;
    i64 v = 0;
    for (std::size_t p = 0; p <= out.size(); ++p) {
      const i64 top = p < out.size() ? static_cast<i64>(wordOf(out[p]) >> plan.lowBits) : V;
      for (; v <= top && v <= V; ++v) {
        runStart[static_cast<std::size_t>(v)] = static_cast<i64>(p);
        runKeys[static_cast<std::size_t>(v)] = distinct;
      }
      if (p < out.size() && (p == 0 || wordOf(out[p]) != wordOf(out[p - 1]))) ++distinct;
    }
  }
};

template <class R, class Make>
std::vector<R> recordsOfWords(const std::vector<u64>& words, Make make) {
  std::vector<R> in(words.size());
  for (std::size_t i = 0; i < words.size(); ++i) in[i] = make(words[i], i);
  return in;
}

/// Every team of 1 .. 4 threads and a few output phases within a line
/// against the reference; maxRun = n (every input taken).
template <class R>
void expectSorted(const std::vector<R>& in, const std::string& what) {
  const i64 n = static_cast<i64>(in.size());
  u64 maxWord = 0;
  for (const auto& r : in) maxWord = std::max(maxWord, wordOf(r));
  const Reference<R> ref(in, maxWord);
  const std::size_t bytes = in.size() * sizeof(R), rb = sizeof(R);
  for (int threads : {1, 2, 3, 4}) {
    for (std::size_t shift : {std::size_t(0), rb, 64 + 3 * rb}) {
      Fenced out(bytes, shift);
      const auto r =
          sieve::sparseScatterHost(sieve::HostTeam{threads}, RecordsOf<R>{in.data()}, n,
                                   WordOf<R>{}, maxWord, n, reinterpret_cast<R*>(out.data()));
      const std::string at = what + ", n = " + std::to_string(n) + ", record " +
                             std::to_string(rb) + " B, threads " + std::to_string(threads) +
                             ", shift " + std::to_string(shift);
      EXPECT_TRUE(r.taken) << at;
      EXPECT_EQ(r.outside, 0) << at;
      EXPECT_EQ(r.changed, 0) << at;
      ASSERT_TRUE(out.guardsIntact()) << "bytes around out written: " << at;
      ASSERT_TRUE(n == 0 || std::memcmp(out.data(), ref.out.data(), bytes) == 0) << at;
      EXPECT_EQ(r.runStart, ref.runStart) << at;
      EXPECT_EQ(r.runKeys, ref.runKeys) << at;
    }
  }
}

const int kBits[] = {0, 1, 7, 13, 20, 33, 40, 52, 63, 64};

} // namespace

TEST(HostSparseScatter, MatchesStableSortAtEveryWidth) {
  for (int bits : kBits)
    for (i64 n : {i64(0), i64(1), i64(5), i64(1000), (i64(1) << 14) + 3, i64(100003)}) {
      const auto words = makeWords(n, bits, 7u + static_cast<unsigned>(bits * 31 + n));
      expectSorted(recordsOfWords<R16>(words, make16), "bits " + std::to_string(bits));
    }
}

TEST(HostSparseScatter, RecordSizes) {
  for (int bits : {9, 40, 64}) {
    const auto words = makeWords(70001, bits, 99u + static_cast<unsigned>(bits));
    expectSorted(recordsOfWords<R12>(words, make12), "bits " + std::to_string(bits));
    expectSorted(recordsOfWords<R32>(words, make32), "bits " + std::to_string(bits));
  }
}

// Clustered words: sub buckets of hundreds of records (sorted whole, then
// by insertion); equal words in long stretches; words in descending order;
// two words at the ends of the 64-bit range.
TEST(HostSparseScatter, ClusteredEqualAndDescendingWords) {
  for (int bits : {20, 45, 64}) {
    const auto words = makeWords(200003, bits, 5u + static_cast<unsigned>(bits), true);
    expectSorted(recordsOfWords<R16>(words, make16), "clustered, bits " + std::to_string(bits));
  }
  std::vector<u64> equal(150001), descending(150001), ends(150001);
  for (std::size_t i = 0; i < equal.size(); ++i) {
    equal[i] = (u64(i) / 5000) << 37;
    descending[i] = u64(equal.size() - i) << 30;
    ends[i] = i % 3 == 0 ? 0 : ~u64(0);
  }
  expectSorted(recordsOfWords<R16>(equal, make16), "equal stretches");
  expectSorted(recordsOfWords<R16>(descending, make16), "descending");
  expectSorted(recordsOfWords<R16>(ends, make16), "0 and 2^64 - 1");
}

// sort_permutation's shape: the records are int64 indices (made by recOf,
// not read), the word read through them.
TEST(HostSparseScatter, IndicesByWord) {
  const i64 n = 90001;
  const auto words = makeWords(n, 48, 3u);
  std::vector<i64> ref(static_cast<std::size_t>(n));
  for (i64 i = 0; i < n; ++i) ref[static_cast<std::size_t>(i)] = i;
  std::stable_sort(ref.begin(), ref.end(), [&](i64 a, i64 b) {
    return words[static_cast<std::size_t>(a)] < words[static_cast<std::size_t>(b)];
  });
  const u64 maxWord = *std::max_element(words.begin(), words.end());
  for (int threads : {1, 2, 4}) {
    std::vector<i64> out(static_cast<std::size_t>(n), -1);
    const auto r = sieve::sparseScatterHost(
        sieve::HostTeam{threads}, [](i64 i) { return i; }, n,
        [&](i64 i) { return words[static_cast<std::size_t>(i)]; }, maxWord, n, out.data());
    EXPECT_TRUE(r.taken);
    EXPECT_EQ(r.outside + r.changed, 0);
    EXPECT_EQ(out, ref) << "threads " << threads;
  }
}

// A run longer than maxRun (skewed words: the caller sorts another way), or a
// word above maxWord: nothing is written.
TEST(HostSparseScatter, LongRunOrWordAboveMaxWritesNothing) {
  const i64 n = 100000;
  auto words = makeWords(n, 40, 17u);
  for (std::size_t i = 0; i < words.size(); i += 2) words[i] &= 0xFFFF; // half in run 0
  const auto in = recordsOfWords<R16>(words, make16);
  const u64 maxWord = *std::max_element(words.begin(), words.end());
  for (int threads : {1, 2, 4}) {
    Fenced out(in.size() * sizeof(R16), 16);
    auto r =
        sieve::sparseScatterHost(sieve::HostTeam{threads}, RecordsOf<R16>{in.data()}, n,
                                 WordOf<R16>{}, maxWord, n / 4, reinterpret_cast<R16*>(out.data()));
    EXPECT_FALSE(r.taken) << "threads " << threads;
    EXPECT_EQ(r.outside + r.changed, 0);
    EXPECT_TRUE(out.untouched()) << "threads " << threads;
    r = sieve::sparseScatterHost(sieve::HostTeam{threads}, RecordsOf<R16>{in.data()}, n,
                                 WordOf<R16>{}, maxWord - 1, n, reinterpret_cast<R16*>(out.data()));
    EXPECT_EQ(r.outside, 1) << "threads " << threads;
    EXPECT_TRUE(out.untouched()) << "threads " << threads;
  }
  // maxRun at the longest run: taken; one less: not.
  const Reference<R16> ref(in, maxWord);
  i64 longest = 0;
  for (std::size_t v = 0; v + 1 < ref.runStart.size(); ++v)
    longest = std::max(longest, ref.runStart[v + 1] - ref.runStart[v]);
  for (const i64 maxRun : {longest, longest - 1}) {
    Fenced out(in.size() * sizeof(R16), 0);
    const auto r =
        sieve::sparseScatterHost(sieve::HostTeam{2}, RecordsOf<R16>{in.data()}, n, WordOf<R16>{},
                                 maxWord, maxRun, reinterpret_cast<R16*>(out.data()));
    EXPECT_EQ(r.taken, maxRun == longest);
    if (r.taken) EXPECT_EQ(std::memcmp(out.data(), ref.out.data(), in.size() * sizeof(R16)), 0);
    else EXPECT_TRUE(out.untouched());
  }
}

// The rules the run sort relies on: its items (the word's bits below the sub
// digit, then the record's place in the run) fit 64 bits for every run it
// takes (sparseRunCap), and its sub digits fit below kNoLow.
TEST(HostSparseScatter, RunSortItemsFit) {
  using sieve::Impl::ceilLog2;
  using sieve::Impl::sparseRunSubBits;
  for (int shift = 0; shift <= 63; ++shift) {
    const i64 cap = sieve::Impl::DenseHost::sparseRunCap(shift);
    for (i64 m : {i64(1), i64(2), i64(3), i64(1000), i64(1) << 14, (i64(1) << 14) + 1, i64(1) << 20,
                  cap / 2 + 1, cap}) {
      if (m > cap) continue;
      const int sub = sparseRunSubBits(m, shift);
      EXPECT_LE((shift - sub) + ceilLog2(m), 64) << "shift " << shift << ", m " << m;
      EXPECT_LT((i64(1) << sub) - 1, i64(sieve::Impl::DenseHost::kNoLow));
    }
  }
  // Every run sparseScatterMaxRun lets through, the run sort takes.
  for (int lg = 0; lg <= 31; ++lg)
    for (i64 n : {(i64(1) << lg) - 1, i64(1) << lg, (i64(1) << lg) + 1})
      for (u64 maxWord : {u64(0), u64(1), u64(1) << 40, ~u64(0) >> 1, ~u64(0)}) {
        const auto plan = sieve::Impl::sparseScatterPlan(n, sieve::Impl::bitWidth(maxWord));
        const i64 maxRun = sieve::Impl::sparseScatterMaxRun(n, maxWord);
        EXPECT_LE(maxRun, i64(1) << 18);
        EXPECT_LE(maxRun, sieve::Impl::DenseHost::sparseRunCap(plan.lowBits))
            << "n " << n << ", maxWord " << maxWord;
      }
}

namespace {

/// Whether out[0, n) holds every input id 0 .. n-1 once.
bool eachRecordOnce(const R16* out, i64 n) {
  std::vector<char> seen(static_cast<std::size_t>(n), 0);
  for (i64 p = 0; p < n; ++p) {
    const u64 id = out[p].id;
    if (id >= static_cast<u64>(n) || seen[id]) return false;
    seen[id] = 1;
  }
  return true;
}

} // namespace

// After the first read every third record answers another word (within
// maxWord): the runs' counts move, which is reported; never a byte outside
// out.
TEST(HostSparseScatter, ChangingWordIsCountedAndStaysInside) {
  const i64 n = 100000;
  const auto words = makeWords(n, 40, 23u);
  const auto in = recordsOfWords<R16>(words, make16);
  const u64 maxWord = maskOf(40);
  for (int threads : {1, 2, 4}) {
    std::atomic<i64> calls{0};
    const auto word = [&](const R16& r) -> u64 {
      const i64 c = calls.fetch_add(1, std::memory_order_relaxed);
      if (c >= n && r.id % 3 == 0) return (r.word + (u64(c) * 2654435761u)) & maxWord;
      return r.word;
    };
    Fenced out(in.size() * sizeof(R16), 0);
    const auto r = sieve::sparseScatterHost(sieve::HostTeam{threads}, RecordsOf<R16>{in.data()}, n,
                                            word, maxWord, n, reinterpret_cast<R16*>(out.data()));
    EXPECT_TRUE(r.taken);
    EXPECT_EQ(r.outside, 0);
    EXPECT_TRUE(out.guardsIntact()) << "threads " << threads;
    EXPECT_GT(r.changed, 0) << "threads " << threads;
  }
}

// A word that answers differently on every read of the run sort (it reads
// each record twice): every record stays in its run once (the sort places
// a record by the digit its first read counted), nothing outside out.
TEST(HostSparseScatter, WordFlickeringWithinTheRunSort) {
  const i64 n = 200000;
  const int bits = 40;
  const auto plan = sieve::Impl::sparseScatterPlan(n, bits);
  const u64 maxWord = maskOf(bits), low = (u64(1) << plan.lowBits) - 1;
  const auto in = recordsOfWords<R16>(makeWords(n, bits, 37u), make16);
  for (int threads : {1, 2, 4}) {
    std::atomic<i64> calls{0};
    const auto word = [&](const R16& r) -> u64 {
      const i64 c = calls.fetch_add(1, std::memory_order_relaxed);
      if (c < 2 * n || (c & 1) == 0) return r.word;
      return (r.word & ~low) | ((r.word ^ (u64(c) * 0x9E3779B97F4A7C15ULL)) & low);
    };
    Fenced out(in.size() * sizeof(R16), 0);
    const auto r = sieve::sparseScatterHost(sieve::HostTeam{threads}, RecordsOf<R16>{in.data()}, n,
                                            word, maxWord, n, reinterpret_cast<R16*>(out.data()));
    EXPECT_EQ(r.outside + r.changed, 0) << "threads " << threads;
    EXPECT_TRUE(out.guardsIntact()) << "threads " << threads;
    const auto* o = reinterpret_cast<const R16*>(out.data());
    EXPECT_TRUE(eachRecordOnce(o, n)) << "threads " << threads;
    for (i64 v = 0; v + 1 < static_cast<i64>(r.runStart.size()); ++v) // each in its own run
      for (i64 p = r.runStart[static_cast<std::size_t>(v)];
           p < r.runStart[static_cast<std::size_t>(v + 1)]; ++p)
        ASSERT_EQ(o[p].word >> plan.lowBits, static_cast<u64>(v)) << "threads " << threads;
  }
}

// A word that changes only on the third read (the sort of each run). Moved
// to another run (every third record): counted, and each run holds its
// other records in word order with the moved ones after them in record
// order (every record once). Only its low bits changed: not counted, placed
// by the new word in its run (what a stable sort by the third read's words
// gives), the run's distinct words those of the third read.
TEST(HostSparseScatter, WordChangedBeforeTheRunSort) {
  const i64 n = 200000;
  const int bits = 40;
  const auto plan = sieve::Impl::sparseScatterPlan(n, bits);
  const u64 maxWord = maskOf(bits), low = (u64(1) << plan.lowBits) - 1;
  const auto words = makeWords(n, bits, 31u);
  const auto in = recordsOfWords<R16>(words, make16);
  for (const bool topMoves : {true, false}) {
    const auto third = [&](const R16& r) -> u64 {
      if (r.id % 3 != 0) return r.word;
      return topMoves ? (r.word + (low + 1)) & maxWord : (r.word & ~low) | ((r.word * 7 + 1) & low);
    };
    // The reference: the records by first word's run; in each run, those
    // staying by their third word (stable), then the moved ones.
    std::vector<R16> byRun(in);
    std::stable_sort(byRun.begin(), byRun.end(), [&](const R16& a, const R16& b) {
      return (a.word >> plan.lowBits) < (b.word >> plan.lowBits);
    });
    std::vector<u64> ref;
    i64 refKeys = 0;
    for (std::size_t s = 0; s < byRun.size();) {
      std::size_t e = s;
      while (e < byRun.size() && (byRun[e].word >> plan.lowBits) == (byRun[s].word >> plan.lowBits))
        ++e;
      std::vector<R16> stay, moved;
      for (std::size_t j = s; j < e; ++j)
        ((third(byRun[j]) >> plan.lowBits) == (byRun[j].word >> plan.lowBits) ? stay : moved)
            .push_back(byRun[j]);
      std::stable_sort(stay.begin(), stay.end(),
                       [&](const R16& a, const R16& b) { return third(a) < third(b); });
      for (std::size_t j = 0; j < stay.size(); ++j) {
        ref.push_back(stay[j].id);
        if (j == 0 || third(stay[j]) != third(stay[j - 1])) ++refKeys;
      }
      for (const auto& m : moved) ref.push_back(m.id);
      s = e;
    }
    for (int threads : {1, 2, 4}) {
      std::atomic<i64> calls{0};
      const auto word = [&](const R16& r) -> u64 {
        return calls.fetch_add(1, std::memory_order_relaxed) >= 2 * n ? third(r) : r.word;
      };
      Fenced out(in.size() * sizeof(R16), 0);
      const auto r =
          sieve::sparseScatterHost(sieve::HostTeam{threads}, RecordsOf<R16>{in.data()}, n, word,
                                   maxWord, n, reinterpret_cast<R16*>(out.data()));
      const std::string what = std::string(topMoves ? "top digit moved" : "low bits changed") +
                               ", threads " + std::to_string(threads);
      EXPECT_EQ(r.outside, 0) << what;
      EXPECT_EQ(r.changed, topMoves ? (n + 2) / 3 : 0) << what;
      EXPECT_TRUE(out.guardsIntact()) << what;
      const auto* o = reinterpret_cast<const R16*>(out.data());
      EXPECT_TRUE(eachRecordOnce(o, n)) << what;
      std::vector<u64> ids(static_cast<std::size_t>(n));
      for (i64 p = 0; p < n; ++p) ids[static_cast<std::size_t>(p)] = o[p].id;
      EXPECT_EQ(ids, ref) << what;
      EXPECT_EQ(r.runKeys.back(), refKeys) << what;
    }
  }
}

TEST(HostSparseScatter, ArgumentChecks) {
  std::vector<R16> in(4, R16{0, 0}), out(4, R16{9, 9});
  const auto call = [&](i64 n, i64 maxRun, R16* o) {
    return sieve::sparseScatterHost(sieve::HostTeam{2}, RecordsOf<R16>{in.data()}, n, WordOf<R16>{},
                                    0, maxRun, o);
  };
  const auto throwsNaming = [&](auto&& f, const char* word) {
    host_test::expectThrowsNaming(f, "sieve::sparseScatterHost", word);
  };
  throwsNaming([&] { call(-1, 4, out.data()); }, "n = -1");
  throwsNaming([&] { call(4, -1, out.data()); }, "maxRun = -1");
  throwsNaming([&] { call(4, 4, nullptr); }, "out is null");
  for (const auto& r : out) EXPECT_EQ(r.word, 9u);
  // n = 0: nothing to do, an empty run table.
  const auto r = call(0, 0, nullptr);
  EXPECT_TRUE(r.taken);
  EXPECT_EQ(r.runKeys.back(), 0);
  EXPECT_EQ(r.runStart.back(), 0);
}

// A record reader that throws on the first read (as an allocation inside the
// team may): the exception reaches the caller after the team's region, and
// nothing is written.
TEST(HostSparseScatter, ThrowOnTheCountingReadWritesNothing) {
  const i64 n = 100000;
  const auto in = recordsOfWords<R16>(makeWords(n, 40, 41u), make16);
  for (int threads : {1, 2, 4}) {
    std::atomic<i64> calls{0};
    const auto recOf = [&](i64 i) {
      if (calls.fetch_add(1, std::memory_order_relaxed) < n && i == n - 5)
        throw std::runtime_error("reader failed");
      return in[static_cast<std::size_t>(i)];
    };
    Fenced out(in.size() * sizeof(R16), 0);
    EXPECT_THROW(sieve::sparseScatterHost(sieve::HostTeam{threads}, recOf, n, WordOf<R16>{},
                                          maskOf(40), n, reinterpret_cast<R16*>(out.data())),
                 std::runtime_error);
    EXPECT_TRUE(out.untouched()) << "threads " << threads;
  }
}

// The shared driver (scatterByTop): a thread whose preparation throws after
// the count (an allocation for its runs): every thread leaves at the same
// barrier, nothing is written, and the exception reaches the caller; with
// the top digits counted, and with finer digits counted (the dense
// scatter's whole count).
TEST(HostSparseScatter, ThrowInAThreadsPreparationWritesNothing) {
  const i64 n = 100000;
  const auto in = recordsOfWords<R16>(makeWords(n, 40, 47u), make16);
  const auto topOf = [](const R16& r) { return r.word >> 30; };
  const auto fineOf = [](const R16& r) { return r.word >> 28; };
  for (const bool fine : {false, true}) {
    for (int threads : {2, 3, 4}) {
      for (int thrower = 0; thrower < threads; ++thrower) {
        Fenced out(in.size() * sizeof(R16), 0);
        std::vector<i64> starts;
        sieve::Impl::DenseHost::FineCounts counts;
        const auto prepare = [&](const sieve::Impl::TeamCtx& t, i64, i64) {
          if (t.id == thrower) throw std::runtime_error("no memory for the runs");
          return [] { return i64(0); };
        };
        using sieve::Impl::DenseHost::FineCount;
        const auto run = [&](const auto& count) {
          sieve::Impl::DenseHost::scatterByTop(sieve::HostTeam{threads}, RecordsOf<R16>{in.data()},
                                               n, count, topOf, i64(1) << 10, n,
                                               reinterpret_cast<R16*>(out.data()), starts, prepare);
        };
        if (fine)
          EXPECT_THROW(run(FineCount<decltype(fineOf)>{fineOf, i64(1) << 12, 2, &counts}),
                       std::runtime_error);
        else
          EXPECT_THROW(run(FineCount<decltype(topOf)>{topOf, i64(1) << 10, 0, nullptr}),
                       std::runtime_error);
        EXPECT_TRUE(out.untouched())
            << "threads " << threads << ", thrower " << thrower << ", fine " << fine;
      }
    }
  }
}
