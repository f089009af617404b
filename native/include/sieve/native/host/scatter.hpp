// SPDX-License-Identifier: Apache-2.0
// Sieve — denseScatterHost, the OpenMP stable counting scatter of records by a
// dense digit (host memory): keys::scatter_dense's twin on Kokkos::OpenMP; and
// sparseScatterHost, the stable sort of records by a 64-bit word, under
// keys::scatter_sparse of integer keys there.
//
// The passes (core/radix.hpp, denseScatterPlan): one read of the records
// counts, per thread (a contiguous chunk of the input), the high digit of
// every record and the digits outside [0, buckets) (then nothing is written).
// The scatter by the high digit follows, every thread from its own base in
// every bucket (the buckets below plus the bucket's records in the chunks
// before it), through per-bucket buffers of whole cache lines (non-temporal
// stores for large outputs): stable. With a low digit, each high bucket's run
// of the output (~n / 2^highBits records: it stays in cache) is then sorted
// by the low digit: up to 2^16 buckets the first read counted every bucket
// (DenseScatterPlan::countWhole, where the threads' counts take at most 8
// bytes a record), so one read of the run places each record in its slot
// of the thread's buffer, copied back; otherwise the run is copied
// to the buffer, its low digits computed from the records there (the
// native faces take records that carry their key) and counted (which gives
// the offsets of its keys), and the run written back in order: stable again.
// Every record is read three times and written twice; beside the records
// only the counts cross memory (no plane of digits).
//
// The sparse sort shares the first two passes (scatterByTop), by the top
// bits of the word (core/radix.hpp, sparseScatterPlan), and sorts each run in
// cache by the bits below (sortWideRun): a counting pass by the next ~15
// bits (~1 record in 2 of those sub buckets), then the sub buckets of two
// records or more (~1 in 10) sorted alone.
#pragma once

#include <sieve/core/check.hpp>
#include <sieve/core/macros.hpp>
#include <sieve/core/radix.hpp>
#include <sieve/core/scatter_result.hpp>
#include <sieve/native/host/lines.hpp>
#include <sieve/native/host/team.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace sieve {
namespace Impl {
namespace DenseHost {

/// A functor as the hot loops hold it: a copy in the loop's own frame when
/// it is trivially copyable and small, else the caller's object (a copy
/// could allocate, or split a state the caller shares). A record store (a
/// Rec with int fields) may alias an int the caller's functor refers to, so
/// through a reference the compiler reloads it on every record; a copy in
/// the frame cannot be aliased (faster scatters: docs/tuning.md).
template <class F>
using FrameFn = std::conditional_t<std::is_trivially_copyable_v<std::decay_t<F>> &&
                                       sizeof(std::decay_t<F>) <= Tuning::Host::kFrameCopyMaxBytes,
                                   const std::decay_t<F>, const F&>;

/// The top digit of a record, digitOf(r) >> shift, or V (outside) for a
/// digit above `last` (the dense and the sparse scatters' first passes).
template <class Rec, class DigitOf>
struct TopDigit {
  FrameFn<DigitOf> digitOf; // (with FrameFn, a copy of this struct holds it)
  std::uint64_t last, V;
  int shift;
  std::uint64_t operator()(const Rec& r) const {
    const std::uint64_t d = digitOf(r);
    return d > last ? V : d >> shift;
  }
};

/// Below this many records per thread a thread is not worth its start.
inline constexpr std::int64_t kMinPerThread = Tuning::Host::kScatterMinPerThread;
/// From this many output bytes the scatter streams (non-temporal) lines.
inline constexpr std::int64_t kStreamBytes = Tuning::Host::kScatterStreamBytes;
/// A thread's line buffers: up to kMaxLines lines a bucket within
/// kBufferLines lines (512 KiB: in a core's L2 beside the records in flight;
/// docs/tuning.md).
inline constexpr std::int64_t kMaxLines = Tuning::Host::kScatterMaxLines;
inline constexpr std::int64_t kBufferLines = Tuning::Host::kScatterBufferLines;
/// How far ahead the first read of a run by its sort prefetches: the
/// scatter streamed the run to memory.
inline constexpr std::int64_t kRunAheadBytes = Tuning::Host::kSparseRunAheadBytes;

/// Records kRunAheadBytes hold (at least one).
template <class Rec>
inline constexpr std::int64_t kRunAhead =
    std::max<std::int64_t>(kRunAheadBytes / static_cast<std::int64_t>(sizeof(Rec)), 1);

/// One thread's scatter by the high digit through per-bucket line buffers.
/// Cursors are virtual: destination + ph, ph the slot of out[0] within its
/// block, so a cursor's low bits are its slot in the bucket's buffer and a
/// block is full when that slot is the last. A block that starts before the
/// thread's first destination in its bucket, and the tails at the end, are
/// written record by record: no byte outside the thread's slots is touched.
template <class Rec>
struct LineScatter {
  static constexpr std::int64_t kPerLine =
      kHostLine % sizeof(Rec) == 0 ? kHostLine / static_cast<std::int64_t>(sizeof(Rec)) : 0;
  Rec* out;
  std::int64_t V, B, ph; // buckets; records a block (0: no buffers); phase
  std::vector<std::int64_t> cur, first, end;
  Aligned buf;

  LineScatter(Rec* o, std::int64_t buckets)
      : out(o), V(buckets), B(blockOf(o, buckets)), ph(B > 0 ? phaseOf(o, B) : 0),
        cur(static_cast<std::size_t>(buckets)), first(static_cast<std::size_t>(buckets)),
        end(static_cast<std::size_t>(buckets)),
        buf(static_cast<std::size_t>(B > 0 ? buckets * B : 0) * sizeof(Rec)) {}

  /// Records a bucket's block holds: the most lines (a power of two, up to
  /// kMaxLines) that keep the buffers within kBufferLines lines; 0 (direct
  /// stores) for records that do not tile a line or a misaligned output.
  static std::int64_t blockOf(const Rec* o, std::int64_t buckets) {
    if (kPerLine == 0 || reinterpret_cast<std::uintptr_t>(o) % sizeof(Rec) != 0) return 0;
    std::int64_t lines = kMaxLines;
    while (lines > 1 && lines * buckets > kBufferLines) lines /= 2;
    return kPerLine * lines;
  }
  static std::int64_t phaseOf(const Rec* o, std::int64_t B) {
    const auto bytes = static_cast<std::uintptr_t>(B) * sizeof(Rec);
    return static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(o) % bytes / sizeof(Rec));
  }
  Rec* lines(std::int64_t v) { return reinterpret_cast<Rec*>(buf.p) + v * B; }

  /// Bucket v's slots [base, base + count) are this thread's.
  void range(std::int64_t v, std::int64_t base, std::int64_t count) {
    cur[v] = first[v] = base + ph;
    end[v] = base + count + ph;
  }

  /// Bucket v's block was filled by cursor c: whole lines when the block is
  /// the thread's, else record by record within [first, end) (a key functor
  /// that answered differently may overrun a bucket: counted, not written).
  template <bool Stream>
  SIEVE_NOINLINE void flush(std::int64_t v, std::int64_t c) {
    const std::int64_t ls = c - (B - 1);
    const Rec* l = lines(v);
    if (SIEVE_LIKELY(ls >= first[v] && c < end[v])) {
      auto* d = reinterpret_cast<unsigned char*>(out + (ls - ph));
      const auto* s = reinterpret_cast<const unsigned char*>(l);
      for (std::int64_t b = 0; b < B * static_cast<std::int64_t>(sizeof(Rec)); b += kHostLine)
        storeLine<Stream>(d + b, s + b);
    } else {
      writeOut(v, ls, c + 1);
    }
  }

  /// Slots [q0, q1) of bucket v from its buffer, clipped to the thread's.
  void writeOut(std::int64_t v, std::int64_t q0, std::int64_t q1) {
    const Rec* l = lines(v);
    const std::int64_t a = q0 > first[v] ? q0 : first[v], b = q1 < end[v] ? q1 : end[v];
    for (std::int64_t q = a; q < b; ++q)
      std::memcpy(static_cast<void*>(out + (q - ph)), l + (q & (B - 1)), sizeof(Rec));
  }

  /// The records still in the buffers; returns the records past the
  /// thread's slots (0 unless a key changed between the reads).
  std::int64_t tails() {
    std::int64_t over = 0;
    for (std::int64_t v = 0; v < V; ++v) {
      const std::int64_t c = cur[v];
      if (c > end[v]) over += c - end[v];
      if (B > 0) writeOut(v, c - (c & (B - 1)), c);
    }
    return over;
  }
};

/// Thread t's scatter of in[a, b) by the top digit topOf(record) (one >= w.V
/// is outside: counted, not written) (the hot loop on local pointers: the
/// buffer stores do not make the compiler reload them).
template <bool Stream, class Rec, class RecOf, class TopOf>
std::int64_t scatterHigh(LineScatter<Rec>& w, const RecOf& recOfArg, std::int64_t a, std::int64_t b,
                         const TopOf& topOfArg) {
  const FrameFn<RecOf> recOf = recOfArg;
  const FrameFn<TopOf> topOf = topOfArg;
  std::int64_t changed = 0;
  std::int64_t* SIEVE_RESTRICT cur = w.cur.data();
  const std::int64_t* SIEVE_RESTRICT end = w.end.data();
  const auto V = static_cast<std::uint64_t>(w.V);
  if (w.B == 0) {
    Rec* SIEVE_RESTRICT out = w.out;
    for (std::int64_t i = a; i < b; ++i) {
      const Rec r = recOf(i);
      const std::uint64_t v = topOf(r);
      if (SIEVE_UNLIKELY(v >= V) || SIEVE_UNLIKELY(cur[v] >= end[v])) {
        ++changed;
        continue;
      }
      out[cur[v]++] = r;
    }
    return changed;
  }
  Rec* SIEVE_RESTRICT buf = reinterpret_cast<Rec*>(w.buf.p);
  const std::int64_t B = w.B, last = w.B - 1;
  for (std::int64_t i = a; i < b; ++i) {
    const Rec r = recOf(i);
    const std::uint64_t v = topOf(r);
    if (SIEVE_UNLIKELY(v >= V)) {
      ++changed;
      continue;
    }
    const std::int64_t c = cur[v]++;
    const std::int64_t s = c & last;
    buf[static_cast<std::int64_t>(v) * B + s] = r;
    if (SIEVE_UNLIKELY(s == last)) w.template flush<Stream>(static_cast<std::int64_t>(v), c);
  }
  changed += w.tails();
  if constexpr (Stream) storeFence();
  return changed;
}

/// What scatterByTop found (see denseScatterHost, sparseScatterHost).
struct TopScatterResult {
  std::int64_t outside = 0, changed = 0;
  bool taken = true;
};

/// Every thread's counts of the fine digits a scatterByTop's first read
/// counted (FineCount): row u, `stride` words (whole cache lines, so no two
/// threads count on one line), is thread u's; the thread zeroes its own.
struct FineCounts {
  std::unique_ptr<std::int64_t[]> words;
  std::int64_t threads = 0, digits = 0, stride = 0;

  /// Room for `teamSize` threads' counts of `fineDigits` digits (not zeroed).
  void allocate(std::int64_t teamSize, std::int64_t fineDigits) {
    constexpr std::int64_t kLineWords = kHostLine / static_cast<std::int64_t>(sizeof(std::int64_t));
    threads = teamSize;
    digits = fineDigits;
    stride = (fineDigits + kLineWords - 1) / kLineWords * kLineWords;
    allocationPoint();
    words.reset(new std::int64_t[static_cast<std::size_t>(threads * stride)]);
  }
  /// Thread u's row.
  std::int64_t* row(std::int64_t u) const { return words.get() + u * stride; }
  /// The records of fine digit f, over every thread.
  std::int64_t total(std::int64_t f) const {
    std::int64_t c = 0;
    for (std::int64_t u = 0; u < threads; ++u) c += words[static_cast<std::size_t>(u * stride + f)];
    return c;
  }
};

/// What the first read of scatterByTop counts instead of the top digits:
/// digitOf(record), a fine digit in [0, digits) (one >= digits is outside),
/// `bits` bits below the top digit: topOf(record) == digitOf(record) >>
/// bits for every record, the same records outside, V == ((digits - 1) >>
/// bits) + 1. The counts are kept in *counts for the sorts of the runs (the
/// top digits' counts are their sums). counts null: the top digits are
/// counted.
template <class CountOf>
struct FineCount {
  const CountOf& digitOf;
  std::int64_t digits;
  int bits;
  FineCounts* counts;
};

/// The passes every host scatter of records by a top digit shares
/// (denseScatterHost, sparseScatterHost), on `team`: one read of the records
/// counts, per thread (a contiguous chunk), their top digit topOf(record)
/// (one >= V is outside: counted, then nothing is written); when the largest
/// bucket holds more than `maxRun` records nothing is written either (`taken`
/// false); else the stable scatter by the top digit into `out`, every thread
/// from its own base in every bucket (the buckets below plus the bucket's
/// records in the chunks before it), through line buffers (non-temporal
/// stores for large outputs). starts[v] (V + 1 of them) is bucket v's first
/// position. With fine.counts, the first read counts the fine digits instead
/// (the top digits' counts are their sums). Before the scatter each thread
/// calls prepare(t, lo, hi) for the runs that start in [lo, hi) (its share of
/// the output), which allocates what their sort needs and returns the sort;
/// when no record moved between the reads, each thread then calls it, and
/// what it returns is added to `changed`. Every allocation (the counts, the
/// line buffers, prepare's) is made before any byte of out is written: one
/// that fails leaves out untouched, and its exception is rethrown after the
/// team's region.
template <class Rec, class RecOf, class CountOf, class TopOf, class Prepare>
TopScatterResult scatterByTop(const HostTeam& team, const RecOf& recOf, std::int64_t n,
                              const FineCount<CountOf>& fine, const TopOf& topOf, std::int64_t V,
                              std::int64_t maxRun, Rec* out, std::vector<std::int64_t>& starts,
                              const Prepare& prepare) {
  using Sort =
      std::invoke_result_t<const Prepare&, const Impl::TeamCtx&, std::int64_t, std::int64_t>;
  const bool stream = n * static_cast<std::int64_t>(sizeof(Rec)) >= kStreamBytes;
  const int threads = Impl::teamSizeFor(team, n, kMinPerThread);
  const auto T = static_cast<std::size_t>(threads);
  // What the first read counts: fine digits (Vc of them, fine.bits below
  // the top digit), or the top digits themselves.
  const std::int64_t Vc = fine.counts != nullptr ? fine.digits : V;
  std::vector<std::int64_t> hist(T * static_cast<std::size_t>(V));
  if (fine.counts != nullptr) fine.counts->allocate(threads, Vc);
  starts.assign(static_cast<std::size_t>(V + 1), 0);
  std::vector<std::int64_t> outside(T, 0), changed(T, 0), sortChanged(T, 0);
  // What each thread threw, per phase (the count, the line buffers,
  // prepare): a phase's slots are read only after the barrier that ends it.
  std::vector<std::exception_ptr> errors(3 * T);
  bool taken = true;
  Impl::runTeam(threads, [&](const Impl::TeamCtx& t) {
    // Runs f, keeping what it throws for after the region (a team cannot throw).
    const auto guarded = [&](int phase, auto&& f) {
      try {
        f();
      } catch (...) {
        errors[static_cast<std::size_t>(phase) * T + static_cast<std::size_t>(t.id)] =
            std::current_exception();
      }
    };
    // (After the barrier that ends `phase`: every thread sees the same.)
    const auto failed = [&](int phase) {
      for (int u = 0; u < t.size; ++u)
        if (errors[static_cast<std::size_t>(phase) * T + static_cast<std::size_t>(u)]) return true;
      return false;
    };
    std::int64_t a, b;
    Impl::teamShare(t, n, a, b);
    // Counted in the thread's own array (the team's shared one would put
    // the threads' counters on common cache lines), then published; fine
    // digits in the thread's own row of fine.counts.
    std::vector<std::int64_t> own;
    guarded(0, [&] {
      const FrameFn<RecOf> recOfT = recOf;
      if (fine.counts == nullptr) own.assign(static_cast<std::size_t>(V), 0);
      std::int64_t* SIEVE_RESTRICT h = fine.counts == nullptr ? own.data() : fine.counts->row(t.id);
      if (fine.counts != nullptr) std::fill(h, h + Vc, std::int64_t(0));
      std::int64_t outs = 0;
      const auto countBy = [&](const auto& digitOfArg) {
        const FrameFn<std::decay_t<decltype(digitOfArg)>> digitOfT = digitOfArg;
        for (std::int64_t i = a; i < b; ++i) {
          const std::uint64_t v = digitOfT(recOfT(i));
          if (v >= static_cast<std::uint64_t>(Vc)) ++outs;
          else ++h[v];
        }
      };
      if (fine.counts == nullptr) {
        countBy(topOf);
        std::copy(h, h + V, hist.begin() + t.id * V);
      } else {
        countBy(fine.digitOf);
        for (std::int64_t v = 0; v < V; ++v) { // the top digits' counts
          const std::int64_t f1 = (v + 1) << fine.bits;
          std::int64_t c = 0;
          for (std::int64_t f = v << fine.bits; f < (f1 < Vc ? f1 : Vc); ++f) c += h[f];
          hist[t.id * V + v] = c;
        }
      }
      outside[t.id] = outs;
    });
    Impl::teamBarrier(t);
    if (failed(0)) return;
    std::int64_t allOut = 0;
    for (int u = 0; u < t.size; ++u) allOut += outside[u];
    if (allOut > 0) return; // every thread sees it: nothing is written
    std::int64_t largest = 0;
    for (std::int64_t v = 0; v < V; ++v) {
      std::int64_t all = 0;
      for (int u = 0; u < t.size; ++u) all += hist[u * V + v];
      largest = all > largest ? all : largest;
    }
    if (largest > maxRun) { // every thread sees it: nothing is written
      if (t.id == 0) taken = false;
      return;
    }
    // Thread t's bases: the buckets below, and this bucket in the chunks before.
    std::unique_ptr<LineScatter<Rec>> w;
    guarded(1, [&] {
      w.reset(new LineScatter<Rec>(out, V));
      std::int64_t below = 0;
      for (std::int64_t v = 0; v < V; ++v) {
        std::int64_t before = 0, all = 0;
        for (int u = 0; u < t.size; ++u) {
          const std::int64_t c = hist[u * V + v];
          if (u < t.id) before += c;
          all += c;
        }
        w->range(v, below + before, hist[t.id * V + v]);
        if (t.id == 0) starts[v] = below;
        below += all;
      }
      if (t.id == 0) starts[V] = below;
    });
    Impl::teamBarrier(t); // (starts complete)
    // Thread t sorts the runs that start in its share of the output.
    const std::int64_t lo = n * t.id / t.size;
    const std::int64_t hi = t.id + 1 == t.size ? n + 1 : n * (t.id + 1) / t.size;
    std::optional<Sort> sort;
    if (!failed(1)) guarded(2, [&] { sort.emplace(prepare(t, lo, hi)); });
    Impl::teamBarrier(t);
    if (failed(1) || failed(2)) return; // nothing is written
    changed[t.id] = stream ? scatterHigh<true>(*w, recOf, a, b, topOf)
                           : scatterHigh<false>(*w, recOf, a, b, topOf);
    Impl::teamBarrier(t);
    std::int64_t allChanged = 0;
    for (int u = 0; u < t.size; ++u) allChanged += changed[u];
    // A key that changed left slots unwritten: the output is incomplete,
    // reported; the runs are not sorted.
    if (allChanged > 0) return;
    sortChanged[t.id] = (*sort)();
  });
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
  TopScatterResult res;
  res.taken = taken;
  for (std::size_t u = 0; u < T; ++u) {
    res.outside += outside[u];
    res.changed += changed[u] + sortChanged[u];
  }
  return res;
}

/// The longest run of `starts` that starts in [lo, hi) (0: none).
inline std::int64_t longestRun(const std::vector<std::int64_t>& starts, std::int64_t lo,
                               std::int64_t hi) {
  std::int64_t longest = 0;
  for (std::size_t v = 0; v + 1 < starts.size(); ++v)
    if (starts[v] >= lo && starts[v] < hi && starts[v + 1] - starts[v] > longest)
      longest = starts[v + 1] - starts[v];
  return longest;
}

/// A low digit no record has: a record of the run whose digit changed since
/// the scatter (written back at the run's end).
inline constexpr std::uint16_t kNoLow = 0xFFFF;
static_assert(Impl::denseScatterPlan(Tuning::Host::kDenseMaxBuckets).lowBits < 16,
              "low digits must fit 16 bits below kNoLow");
static_assert(Impl::sparseRunSubBits(std::int64_t(1) << 40, 64) < 16,
              "sub digits must fit 16 bits below kNoLow");

/// The run [s, s + m) of out (high bucket h) sorted in place by the low
/// digit: copied to the scratch `tmp` (m records) while its low digits are
/// computed into `low` (m) and counted, then the run written back in order;
/// the offsets of its keys written. In cache: a run is ~n / 2^highBits
/// records. Returns the records whose digit is no longer in bucket h (a key
/// functor that answers differently: they end the run, in record order,
/// after digitOf is called once more on the run's records).
template <class Rec, class DigitOf>
std::int64_t sortRun(Rec* out, std::int64_t s, std::int64_t m, std::uint64_t h,
                     const DigitOf& digitOfArg, std::uint64_t K, int shift, Rec* tmp,
                     std::uint16_t* low, std::int64_t* cnt, std::int64_t* offsets) {
  const FrameFn<DigitOf> digitOf = digitOfArg;
  const std::int64_t L = std::int64_t(1) << shift;
  const std::uint64_t lowMask = static_cast<std::uint64_t>(L - 1);
  for (std::int64_t l = 0; l < L; ++l) cnt[l] = 0;
  std::uint64_t moved = 0; // nonzero once a digit left bucket h
  const Rec* SIEVE_RESTRICT run = out + s;
  for (std::int64_t j = 0; j < m; ++j) {
    if (j + kRunAhead<Rec> < m) SIEVE_PREFETCH(run + j + kRunAhead<Rec>);
    const Rec r = run[j];
    tmp[j] = r;
    const std::uint64_t d = digitOf(r);
    moved |= ((d >> shift) ^ h) | static_cast<std::uint64_t>(d >= K);
    low[j] = static_cast<std::uint16_t>(d & lowMask);
    ++cnt[low[j]];
  }
  std::int64_t changed = 0;
  if (SIEVE_UNLIKELY(moved != 0)) { // counted again without the records that moved
    for (std::int64_t l = 0; l < L; ++l) cnt[l] = 0;
    for (std::int64_t j = 0; j < m; ++j) {
      const std::uint64_t d = digitOf(tmp[j]);
      if (d >= K || (d >> shift) != h) {
        low[j] = kNoLow;
        ++changed;
      } else {
        low[j] = static_cast<std::uint16_t>(d & lowMask);
        ++cnt[low[j]];
      }
    }
  }
  std::int64_t c = s;
  for (std::int64_t l = 0; l < L; ++l) {
    const std::uint64_t k = (h << shift) + static_cast<std::uint64_t>(l);
    if (k < K) offsets[k] = c;
    const std::int64_t t = cnt[l];
    cnt[l] = c;
    c += t;
  }
  if (SIEVE_UNLIKELY(changed > 0)) { // the records that moved last: out stays a permutation
    std::int64_t rest = s + m - changed;
    for (std::int64_t j = 0; j < m; ++j) out[low[j] != kNoLow ? cnt[low[j]]++ : rest++] = tmp[j];
    return changed;
  }
  for (std::int64_t j = 0; j < m; ++j) out[cnt[low[j]]++] = tmp[j];
  return 0;
}

/// The run [s, s + m) of out (high bucket h) sorted in place by the low
/// digit when the first read counted every bucket (DenseScatterPlan::
/// countWhole; `counts` of the K buckets): the run's offsets come from those
/// counts, so one read of the run places every record straight into its slot
/// of `tmp` (m records; every slot clamped inside it), which is copied back;
/// the offsets of its keys written. `cur` holds 2^(shift + 1) words. Returns
/// false, with the run and the offsets untouched, when the run's digits no
/// longer match the counts (a key functor that answers differently: a digit
/// left bucket h, or a low digit's count differs): sortRun then sorts the
/// run. Digits that changed but keep every count place their records by
/// the new digits, as sortRun would.
template <class Rec, class DigitOf>
bool sortRunCounted(Rec* out, std::int64_t s, std::int64_t m, std::uint64_t h,
                    const DigitOf& digitOfArg, std::uint64_t K, int shift, Rec* tmp,
                    std::int64_t* cur, const FineCounts& counts, std::int64_t* offsets) {
  const FrameFn<DigitOf> digitOf = digitOfArg;
  const std::int64_t L = std::int64_t(1) << shift;
  const std::uint64_t lowMask = static_cast<std::uint64_t>(L - 1);
  const auto Ki = static_cast<std::int64_t>(K);
  const auto first = static_cast<std::int64_t>(h << shift); // the run's first key
  std::int64_t* SIEVE_RESTRICT at = cur;                    // the next slot of every low digit
  std::int64_t* SIEVE_RESTRICT ends = cur + L;              // where each low digit's slots end
  std::int64_t c = 0;
  for (std::int64_t l = 0; l < L; ++l) {
    at[l] = c;
    if (first + l < Ki) c += counts.total(first + l);
    ends[l] = c;
  }
  if (c != m) return false; // (a check: the run's length came from the same counts)
  std::uint64_t moved = 0;  // nonzero once a digit left bucket h
  const Rec* SIEVE_RESTRICT run = out + s;
  const std::int64_t lastSlot = m - 1;
  for (std::int64_t j = 0; j < m; ++j) {
    if (j + kRunAhead<Rec> < m) SIEVE_PREFETCH(run + j + kRunAhead<Rec>);
    const Rec r = run[j];
    const std::uint64_t d = digitOf(r);
    moved |= ((d >> shift) ^ h) | static_cast<std::uint64_t>(d >= K);
    const std::int64_t q = at[d & lowMask]++;
    tmp[q < lastSlot ? q : lastSlot] = r; // (a changed digit stays within tmp)
  }
  if (SIEVE_UNLIKELY(moved != 0)) return false;
  for (std::int64_t l = 0; l < L; ++l)
    if (SIEVE_UNLIKELY(at[l] != ends[l])) return false;
  for (std::int64_t l = 0; l < L && first + l < Ki; ++l)
    offsets[first + l] = s + (l == 0 ? 0 : ends[l - 1]);
  std::memcpy(static_cast<void*>(out + s), tmp, static_cast<std::size_t>(m) * sizeof(Rec));
  return true;
}

/// Buckets of the sparse run sort up to this many records are sorted by
/// insertion; larger ones (skewed words) by std::sort.
inline constexpr std::int64_t kInsertionMax = Tuning::Host::kSparseInsertionMax;

/// The longest run the sparse run sort takes when the words' bits below the
/// top digit are `shift`: its items pack the bits below the sub digit above
/// a record's place in the run, within 64 bits (and its counts are 32-bit).
inline std::int64_t sparseRunCap(int shift) {
  const int maxSub = Impl::sparseRunSubBits(std::int64_t(1) << 30, 64);
  const int placeBits = shift <= maxSub ? 31 : 64 - (shift - maxSub);
  return std::int64_t(1) << (placeBits < 31 ? placeBits : 31);
}

/// The run [s, s + m) of out (top digit h: the words whose bits from `shift`
/// up are h) sorted in place by word, stably, in cache (a run is at most
/// ~2^14 records for uniform words up to 2^24 records): one read counts the
/// records by their sub digit (the top sparseRunSubBits of the `shift` low
/// bits, kept in `subs`), a second places each record's item (the word's
/// bits below the sub digit, then its place in the run: one 64-bit value,
/// so items order as (word, place)) in `items` by that digit, then the sub
/// buckets of two items or more (listed in `multi`, m / 2 + 1 entries, by
/// the scan of the counts: ~1 bucket in 10 for uniform words) are sorted
/// (two items compared and swapped; a few by insertion; long ones, of skewed
/// words, by std::sort), and the records are gathered in that order into
/// `tmp` and copied back. `keys` = the distinct words of the run (the
/// nonempty sub buckets, plus the changes of word within the listed ones).
/// Returns the records whose word is no longer in bucket h at the count (a
/// key functor that answered differently: they end the run, in record
/// order; one that answers differently again later moves only within its
/// sub bucket: every record stays in the run once).
template <class Rec, class WordOf>
std::int64_t sortWideRun(Rec* out, std::int64_t s, std::int64_t m, std::uint64_t h,
                         const WordOf& wordOfArg, std::uint64_t maxWord, int shift, Rec* tmp,
                         std::uint64_t* items, std::uint16_t* subs, std::uint32_t* cnt,
                         std::uint32_t* multi, std::int64_t& keys) {
  const FrameFn<WordOf> wordOf = wordOfArg;
  const int sub = Impl::sparseRunSubBits(m, shift);
  const int subShift = shift - sub, placeBits = Impl::ceilLog2(m);
  const std::uint64_t subMask = (std::uint64_t(1) << sub) - 1;
  const std::uint64_t restMask = (std::uint64_t(1) << subShift) - 1;
  const std::uint64_t placeMask = (std::uint64_t(1) << placeBits) - 1;
  const std::int64_t S = std::int64_t(1) << sub;
  std::fill(cnt, cnt + S, 0u);
  Rec* SIEVE_RESTRICT run = out + s;
  std::int64_t moved = 0; // records whose word left bucket h
  for (std::int64_t j = 0; j < m; ++j) {
    if (j + kRunAhead<Rec> < m) SIEVE_PREFETCH(run + j + kRunAhead<Rec>);
    const std::uint64_t w = wordOf(run[j]);
    if (SIEVE_UNLIKELY(w > maxWord || (w >> shift) != h)) {
      subs[j] = kNoLow;
      ++moved;
      continue;
    }
    const auto d = static_cast<std::uint16_t>((w >> subShift) & subMask);
    subs[j] = d;
    ++cnt[d];
  }
  // Exclusive counts; the buckets of two items or more listed, with no
  // branch (~1 in 10 is listed: a branch would mispredict): (t - 2) >> 31
  // is 1 for t < 2, else 0 (t <= m <= 2^31).
  std::uint32_t c = 0;
  std::int64_t listed = 0;
  std::uint32_t* SIEVE_RESTRICT list = multi;
  for (std::int64_t d = 0; d < S; ++d) {
    const std::uint32_t t = cnt[d];
    cnt[d] = c;
    list[listed] = static_cast<std::uint32_t>(d);
    listed += 1 - static_cast<std::int64_t>((t - 2u) >> 31);
    c += t;
  }
  if (moved == 0) {
    for (std::int64_t j = 0; j < m; ++j)
      items[cnt[subs[j]]++] =
          ((wordOf(run[j]) & restMask) << placeBits) | static_cast<std::uint64_t>(j);
  } else { // the moved records' places after the others, in record order
    std::int64_t q = m - moved;
    for (std::int64_t j = 0; j < m; ++j) {
      if (subs[j] == kNoLow) {
        items[q++] = static_cast<std::uint64_t>(j);
        continue;
      }
      items[cnt[subs[j]]++] =
          ((wordOf(run[j]) & restMask) << placeBits) | static_cast<std::uint64_t>(j);
    }
  }
  // A word starts each nonempty sub bucket (there are m - moved - the sum of
  // len - 1 over the listed buckets); within a listed one, where the bits below
  // the sub digit change (from the items: no key is read again). Every item
  // of a bucket has one word when there are no such bits.
  std::int64_t distinct = m - moved;
  for (std::int64_t i = 0; i < listed; ++i) {
    // (cnt[d] is now the end of bucket d, so cnt[d - 1] its start.)
    const std::uint32_t d = list[i];
    const std::int64_t lo = d == 0 ? 0 : cnt[d - 1], len = cnt[d] - lo;
    distinct -= len - 1;
    if (subShift == 0) continue;
    std::uint64_t* SIEVE_RESTRICT b = items + lo;
    if (len == 2) {
      const std::uint64_t x = b[0], y = b[1];
      b[0] = x < y ? x : y;
      b[1] = x < y ? y : x;
      distinct += (x >> placeBits) != (y >> placeBits) ? 1 : 0;
      continue;
    }
    if (SIEVE_UNLIKELY(len > kInsertionMax)) {
      std::sort(b, b + len);
    } else {
      for (std::int64_t p = 1; p < len; ++p) {
        const std::uint64_t x = b[p];
        std::int64_t q = p;
        for (; q > 0 && b[q - 1] > x; --q) b[q] = b[q - 1];
        b[q] = x;
      }
    }
    for (std::int64_t p = 1; p < len; ++p)
      distinct += (b[p] >> placeBits) != (b[p - 1] >> placeBits) ? 1 : 0;
  }
  for (std::int64_t p = 0; p < m; ++p) tmp[p] = run[items[p] & placeMask];
  std::memcpy(static_cast<void*>(run), tmp, static_cast<std::size_t>(m) * sizeof(Rec));
  keys = distinct;
  return moved;
}

} // namespace DenseHost
} // namespace Impl

/// The stable counting scatter of `n` records, recOf(0) .. recOf(n - 1)
/// (each called twice: the count and the scatter), by a dense digit: out holds
/// the records of digit 0, then those of digit 1, ..., each digit's records
/// in input order (so the result is unique: the same bytes on every team
/// size), and offsets[d] = the first position of digit d (offsets[buckets] =
/// n; buckets + 1 words). `digitOf(rec)` returns the record's digit as a
/// std::uint64_t (called on every record in the count and the scatter, and
/// for more than 2^11 buckets once more on the records of each run, up to
/// three times on a run where a digit changed: cheap where the record
/// carries its key, as on the native faces); one >= buckets is outside
/// (returned, nothing written).
/// A trivially copyable recOf or digitOf of at most 256 bytes may be called
/// through copies (FrameFn): keep no state in it that its calls update.
/// Rec: trivially copyable. `buckets` in [1, 2^23]
/// (denseScatterPlan(buckets).ok).
///
/// One read of the records (the high-digit histograms per thread; every
/// bucket's, 8 bytes each, where DenseScatterPlan::countWhole and the
/// threads' counts take at most 8 bytes a record), the
/// scatter by the high digit into `out` (line buffers; non-temporal stores
/// from 8 MiB), and for more than 2^11 buckets every high bucket's run sorted
/// by the low digit in place (in cache). O(n + buckets), blocking, on `team`
/// (its own parallel region; fewer threads below 2^14 records per thread).
/// Allocates, per call, per thread its buffers (up to 512 KiB), its counts
/// (8 bytes a bucket where every bucket is counted) and, with a low digit, a
/// copy of the longest run it sorts (records and 2 bytes each: ~n /
/// 2^highBits for even keys, up to n when a few keys hold them all).
/// What recOf reads must not overlap `out` (not checked here: the caller's
/// rule). A digit that changes between the reads is counted in `changed`
/// when it moves its record out of its high bucket: between the count and
/// the scatter it leaves slots unwritten; only before the sort of its run,
/// the records that left the run end it (out holds every record once, not
/// in order). One that changes only its low digit before the sort places
/// its record by the new digit, in its run (nothing lost, not counted).
///
/// Throws std::invalid_argument, with nothing written, for n < 0, buckets
/// outside [1, 2^23], or a null pointer (offsets always; out when n > 0).
template <class Rec, class RecOf, class DigitOf>
DenseScatterResult denseScatterHost(const HostTeam& team, const RecOf& recOf, std::int64_t n,
                                    const DigitOf& digitOf, std::int64_t buckets, Rec* out,
                                    std::int64_t* offsets) {
  static_assert(std::is_trivially_copyable_v<Rec>,
                "sieve::denseScatterHost moves records as bytes: Rec must be trivially copyable");
  using namespace Impl::DenseHost;
  constexpr const char* fn = "sieve::denseScatterHost";
  const Impl::DenseScatterPlan plan = Impl::denseScatterPlan(buckets);
  if (n < 0) Impl::fail(fn, "n = " + std::to_string(n) + "; it must be >= 0");
  if (buckets < 1 || !plan.ok)
    Impl::fail(fn, "buckets = " + std::to_string(buckets) + "; it must be in [1, 2^23]");
  if (offsets == nullptr || (n > 0 && out == nullptr))
    Impl::fail(fn, "a null out or offsets pointer (offsets takes buckets + 1 words)");
  const std::uint64_t K = static_cast<std::uint64_t>(buckets);
  const int shift = plan.lowBits;
  const std::int64_t V = static_cast<std::int64_t>(((K - 1) >> shift) + 1);
  const TopDigit<Rec, DigitOf> topOf{digitOf, K - 1, static_cast<std::uint64_t>(V), shift};
  std::vector<std::int64_t> starts;
  // The first read counts every bucket (digitOf itself: one >= buckets is
  // outside) where the plan says so and the threads' counts take at most 8
  // bytes a record (not for many threads and few records).
  FineCounts whole;
  const bool countWhole =
      Impl::denseCountWhole(plan, buckets, n, Impl::teamSizeFor(team, n, kMinPerThread));
  const FineCount<DigitOf> fine{digitOf, buckets, shift, countWhole ? &whole : nullptr};
  // A thread's sort of its runs (the copy of its longest run and its low
  // digits allocated here, before the scatter).
  const auto prepare = [&](const Impl::TeamCtx& t, std::int64_t lo, std::int64_t hi) {
    const std::int64_t longest = shift == 0 ? 0 : longestRun(starts, lo, hi);
    auto tmp = std::make_shared<Impl::Aligned>(static_cast<std::size_t>(longest) * sizeof(Rec));
    Impl::allocationPoint();
    std::shared_ptr<std::uint16_t[]> low(new std::uint16_t[static_cast<std::size_t>(longest)]);
    std::shared_ptr<std::int64_t[]> cnt(new std::int64_t[std::size_t(2) << shift]);
    return [&, t, lo, hi, tmp, low, cnt] {
      if (t.id == 0) offsets[buckets] = n;
      if (shift == 0) {
        if (t.id == 0)
          for (std::int64_t v = 0; v < V; ++v) offsets[v] = starts[v];
        return std::int64_t(0);
      }
      std::int64_t moved = 0;
      Rec* const copy = reinterpret_cast<Rec*>(tmp->p);
      for (std::int64_t v = 0; v < V; ++v) {
        if (starts[v] < lo || starts[v] >= hi) continue;
        const std::int64_t s = starts[v], m = starts[v + 1] - s;
        const auto h = static_cast<std::uint64_t>(v);
        if (countWhole &&
            sortRunCounted(out, s, m, h, digitOf, K, shift, copy, cnt.get(), whole, offsets))
          continue;
        moved += sortRun(out, s, m, h, digitOf, K, shift, copy, low.get(), cnt.get(), offsets);
      }
      return moved;
    };
  };
  const TopScatterResult r = scatterByTop(team, recOf, n, fine, topOf, V, n, out, starts, prepare);
  DenseScatterResult res;
  res.outside = r.outside;
  res.changed = r.changed;
  return res;
}

/// The stable sort of `n` records, recOf(0) .. recOf(n - 1) (each called
/// twice: the count and the scatter), by a 64-bit word wordOf(record) in [0,
/// maxWord] (e.g. a key's distance from the smallest key; called on every
/// record in the count, the scatter and the sort of its run): out holds the
/// records in ascending word order, equal words in input order (so the
/// result is unique: the same bytes on every team size). Rec: trivially
/// copyable.
///
/// One read of the records (the histograms of the top digit per thread,
/// core/radix.hpp sparseScatterPlan), the scatter by the top digit into
/// `out` (line buffers; non-temporal stores from 8 MiB), then every run of
/// one top digit (at most ~2^14 records for uniform words up to 2^24
/// records) sorted by the bits below in cache (sortWideRun: a counting pass,
/// then the few sub buckets of two records or more sorted alone). Every
/// record is read three times and written twice,
/// whatever the width of the words. When the longest run exceeds `maxRun`
/// records (skewed words: pass Impl::sparseScatterMaxRun(n, maxWord)) or
/// what the run sort takes (sparseRunCap: runs past 2^25 records with 64-bit
/// words) nothing is written and `taken` is false. O(n), blocking, on `team`
/// (its own parallel region; fewer threads below 2^14 records per thread).
/// Allocates, per call, per thread its line buffers (up to 512 KiB) and, for
/// the run sort, ~12 bytes beside each record of the longest run it sorts
/// plus a copy of it, and up to 128 KiB of counts; all before any byte of
/// out is written (a std::bad_alloc leaves out untouched). What recOf reads
/// must not overlap `out` (not checked here: the caller's rule). A word that
/// changes between the reads is counted (see SparseScatterResult).
/// recOf and wordOf may be called through copies, as in denseScatterHost.
/// What recOf or wordOf throw on the first read reaches the caller with
/// nothing written; on a later read it ends the program (it leaves an OpenMP region).
///
/// Throws std::invalid_argument, with nothing written, for n < 0, maxRun <
/// 0, or a null out while n > 0.
template <class Rec, class RecOf, class WordOf>
SparseScatterResult sparseScatterHost(const HostTeam& team, const RecOf& recOf, std::int64_t n,
                                      const WordOf& wordOf, std::uint64_t maxWord,
                                      std::int64_t maxRun, Rec* out) {
  static_assert(std::is_trivially_copyable_v<Rec>,
                "sieve::sparseScatterHost moves records as bytes: Rec must be trivially copyable");
  using namespace Impl::DenseHost;
  constexpr const char* fn = "sieve::sparseScatterHost";
  if (n < 0) Impl::fail(fn, "n = " + std::to_string(n) + "; it must be >= 0");
  if (maxRun < 0) Impl::fail(fn, "maxRun = " + std::to_string(maxRun) + "; it must be >= 0");
  if (n > 0 && out == nullptr) Impl::fail(fn, "out is null");
  const Impl::SparseScatterPlan plan = Impl::sparseScatterPlan(n, Impl::bitWidth(maxWord));
  const int shift = plan.lowBits;
  const std::int64_t V = std::int64_t(1) << plan.topBits;
  // Runs the run sort cannot take go elsewhere too.
  const std::int64_t runCap = maxRun < sparseRunCap(shift) ? maxRun : sparseRunCap(shift);
  const TopDigit<Rec, WordOf> topOf{wordOf, maxWord, static_cast<std::uint64_t>(V), shift};
  SparseScatterResult res;
  std::vector<std::int64_t> keys(static_cast<std::size_t>(V), 0);
  std::vector<std::int64_t>& starts = res.runStart;
  // A thread's sort of its runs (its buffers, for its longest run,
  // allocated here, before the scatter).
  const auto prepare = [&](const Impl::TeamCtx&, std::int64_t lo, std::int64_t hi) {
    const std::int64_t longest = longestRun(starts, lo, hi);
    const auto L = static_cast<std::size_t>(longest);
    auto tmp = std::make_shared<Impl::Aligned>(L * sizeof(Rec));
    Impl::allocationPoint();
    std::shared_ptr<std::uint64_t[]> items(new std::uint64_t[L]);
    std::shared_ptr<std::uint16_t[]> subs(new std::uint16_t[L]);
    std::shared_ptr<std::uint32_t[]> multi(new std::uint32_t[L / 2 + 1]);
    std::shared_ptr<std::uint32_t[]> cnt(
        new std::uint32_t[std::size_t(1) << Impl::sparseRunSubBits(longest, shift)]);
    return [&, lo, hi, tmp, items, subs, multi, cnt] {
      std::int64_t moved = 0;
      for (std::int64_t v = 0; v < V; ++v) {
        const std::int64_t s = starts[v], m = starts[v + 1] - s;
        if (m > 0 && s >= lo && s < hi)
          moved += sortWideRun(out, s, m, static_cast<std::uint64_t>(v), wordOf, maxWord, shift,
                               reinterpret_cast<Rec*>(tmp->p), items.get(), subs.get(), cnt.get(),
                               multi.get(), keys[static_cast<std::size_t>(v)]);
      }
      return moved;
    };
  };
  const FineCount<TopDigit<Rec, WordOf>> topOnly{topOf, V, 0, nullptr};
  const TopScatterResult r =
      scatterByTop(team, recOf, n, topOnly, topOf, V, runCap, out, starts, prepare);
  res.taken = r.taken;
  res.outside = r.outside;
  res.changed = r.changed;
  res.runKeys.assign(static_cast<std::size_t>(V + 1), 0);
  for (std::int64_t v = 0; v < V; ++v)
    res.runKeys[static_cast<std::size_t>(v + 1)] =
        res.runKeys[static_cast<std::size_t>(v)] + keys[static_cast<std::size_t>(v)];
  return res;
}

} // namespace sieve
