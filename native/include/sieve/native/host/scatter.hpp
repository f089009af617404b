// SPDX-License-Identifier: Apache-2.0
// Sieve — denseScatterHost, the OpenMP stable counting scatter of records by a
// dense digit (host memory): keys::scatter_dense's twin on Kokkos::OpenMP.
//
// The passes (core/radix.hpp, denseScatterPlan): one read of the records
// counts, per thread (a contiguous chunk of the input), the high digit of
// every record and the digits outside [0, buckets) (then nothing is written).
// The scatter by the high digit follows, every thread from its own base in
// every bucket (the buckets below plus the bucket's records in the chunks
// before it), through per-bucket buffers of whole cache lines (non-temporal
// stores for large outputs): stable. With a low digit, each high bucket's run
// of the output (~n / 2^highBits records: it stays in cache) is then copied
// to the thread's buffer, its low digits computed from the records there (the
// native faces take records that carry their key) and counted (which gives
// the offsets of its keys), and the run written back in order: stable again.
// Every record is read three times and written twice; nothing but the
// records crosses memory (no plane of digits beside them).
#pragma once

#include <sieve/core/check.hpp>
#include <sieve/core/macros.hpp>
#include <sieve/core/radix.hpp>
#include <sieve/native/host/lines.hpp>
#include <sieve/native/host/team.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <type_traits>
#include <vector>

namespace sieve {

/// What denseScatterHost found: records whose digit is outside [0, buckets)
/// (counted by the first read: then nothing was written), and records whose
/// digit changed between its reads (a key functor that answers differently;
/// 0 for a pure one): before the scatter, they were written nowhere (the
/// output is incomplete); before the sort of their run, they end the run
/// (every record is in out once, not all in digit order).
struct DenseScatterHostResult {
  std::int64_t outside = 0;
  std::int64_t changed = 0;
};

namespace Impl {
namespace DenseHost {

/// Below this many records per thread a thread is not worth its start.
inline constexpr std::int64_t kMinPerThread = std::int64_t(1) << 14;
/// From this many output bytes the scatter streams (non-temporal) lines.
inline constexpr std::int64_t kStreamBytes = std::int64_t(8) << 20;
/// A thread's line buffers: up to kMaxLines lines a bucket within
/// kBufferLines lines (512 KiB: in a core's 1 MiB L2 beside the records in
/// flight). Measured (2 threads, 2^24 8-byte records, one pass): 1024
/// buckets at 1 / 2 / 4 / 8 / 16 lines a bucket 36.6 / 29.0 / 26.1 / 25.0 /
/// 23.9 ms (8: 512 KiB, within the noise of 16); 2048 buckets at 8 lines
/// (1 MiB) 27.8 ms, at 16 (2 MiB) 39.9 ms; 256 buckets at 16 lines 22.6 ms.
inline constexpr std::int64_t kMaxLines = 16;
inline constexpr std::int64_t kBufferLines = 8192;

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

/// Thread t's scatter of in[a, b) by the high digit (the hot loop on local
/// pointers: the buffer stores do not make the compiler reload them).
template <bool Stream, class Rec, class RecOf, class DigitOf>
std::int64_t scatterHigh(LineScatter<Rec>& w, const RecOf& recOf, std::int64_t a, std::int64_t b,
                         const DigitOf& digitOf, std::uint64_t K, int shift) {
  std::int64_t changed = 0;
  std::int64_t* SIEVE_RESTRICT cur = w.cur.data();
  const std::int64_t* SIEVE_RESTRICT end = w.end.data();
  if (w.B == 0) {
    Rec* SIEVE_RESTRICT out = w.out;
    for (std::int64_t i = a; i < b; ++i) {
      const Rec r = recOf(i);
      const std::uint64_t d = digitOf(r);
      const std::int64_t v = static_cast<std::int64_t>(d >> shift);
      if (SIEVE_UNLIKELY(d >= K) || SIEVE_UNLIKELY(cur[v] >= end[v])) {
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
    const std::uint64_t d = digitOf(r);
    if (SIEVE_UNLIKELY(d >= K)) {
      ++changed;
      continue;
    }
    const std::int64_t v = static_cast<std::int64_t>(d >> shift);
    const std::int64_t c = cur[v]++;
    const std::int64_t s = c & last;
    buf[v * B + s] = r;
    if (SIEVE_UNLIKELY(s == last)) w.template flush<Stream>(v, c);
  }
  changed += w.tails();
  if constexpr (Stream) storeFence();
  return changed;
}

/// A low digit no record has: a record of the run whose digit changed since
/// the scatter (written back at the run's end).
inline constexpr std::uint16_t kNoLow = 0xFFFF;
static_assert(Impl::denseScatterPlan(std::int64_t(1) << 23).lowBits < 16,
              "low digits must fit 16 bits below kNoLow");

/// The run [s, s + m) of out (high bucket h) sorted in place by the low
/// digit: copied to the scratch `tmp` (m records) while its low digits are
/// computed into `low` (m) and counted, then the run written back in order;
/// the offsets of its keys written. In cache: a run is ~n / 2^highBits
/// records. Returns the records whose digit is no longer in bucket h (a key
/// functor that answers differently: they end the run, in record order,
/// after digitOf is called once more on the run's records).
template <class Rec, class DigitOf>
std::int64_t sortRun(Rec* out, std::int64_t s, std::int64_t m, std::uint64_t h,
                     const DigitOf& digitOf, std::uint64_t K, int shift, Rec* tmp,
                     std::uint16_t* low, std::int64_t* cnt, std::int64_t* offsets) {
  const std::int64_t L = std::int64_t(1) << shift;
  const std::uint64_t lowMask = static_cast<std::uint64_t>(L - 1);
  for (std::int64_t l = 0; l < L; ++l) cnt[l] = 0;
  std::uint64_t moved = 0; // nonzero once a digit left bucket h
  const Rec* SIEVE_RESTRICT run = out + s;
  for (std::int64_t j = 0; j < m; ++j) {
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

} // namespace DenseHost
} // namespace Impl

/// The stable counting scatter of `n` records, recOf(0) .. recOf(n - 1)
/// (each called twice: the count and the scatter), by a dense digit: out holds
/// the records of digit 0, then those of digit 1, ..., each digit's records
/// in input order (so the result is unique: the same bytes on every team
/// size), and offsets[d] = the first position of digit d (offsets[buckets] =
/// n; buckets + 1 words). `digitOf(rec)` returns the record's digit as a
/// std::uint64_t (called on every record in the count and the scatter, and
/// for more than 2^11 buckets once more on the records of each run, twice on
/// a run where a digit moved: cheap where the record carries its key, as on
/// the native faces); one >= buckets is outside (returned, nothing written).
/// Rec: trivially copyable. `buckets` in [1, 2^23]
/// (denseScatterPlan(buckets).ok).
///
/// One read of the records (the high-digit histograms per thread), the
/// scatter by the high digit into `out` (line buffers; non-temporal stores
/// from 8 MiB), and for more than 2^11 buckets every high bucket's run sorted
/// by the low digit in place (in cache). O(n + buckets), blocking, on `team`
/// (its own parallel region; fewer threads below 2^14 records per thread).
/// Allocates, per call, per thread its buffers (up to 512 KiB) and, with a
/// low digit, a copy of the longest run it sorts (records and 2 bytes each:
/// ~n / 2^highBits for even keys, up to n when a few keys hold them all).
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
DenseScatterHostResult denseScatterHost(const HostTeam& team, const RecOf& recOf, std::int64_t n,
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
  DenseScatterHostResult res;
  const std::uint64_t K = static_cast<std::uint64_t>(buckets);
  const int shift = plan.lowBits;
  const std::int64_t V = static_cast<std::int64_t>(((K - 1) >> shift) + 1);
  const bool stream = n * static_cast<std::int64_t>(sizeof(Rec)) >= kStreamBytes;
  const int threads = Impl::teamSizeFor(team, n, kMinPerThread);
  std::vector<std::int64_t> hist(static_cast<std::size_t>(threads * V));
  std::vector<std::int64_t> starts(static_cast<std::size_t>(V + 1));
  std::vector<std::int64_t> outside(static_cast<std::size_t>(threads), 0);
  std::vector<std::int64_t> changed(static_cast<std::size_t>(threads), 0);
  std::vector<std::int64_t> sortChanged(static_cast<std::size_t>(threads), 0);
  Impl::runTeam(threads, [&](const Impl::TeamCtx& t) {
    std::int64_t a, b;
    Impl::teamShare(t, n, a, b);
    // Counted in the thread's own array (the team's shared one would put
    // the threads' counters on common cache lines), then published.
    std::vector<std::int64_t> own(static_cast<std::size_t>(V), 0);
    std::int64_t* SIEVE_RESTRICT h = own.data();
    std::int64_t outs = 0;
    for (std::int64_t i = a; i < b; ++i) {
      const std::uint64_t d = digitOf(recOf(i));
      if (d >= K) ++outs;
      else ++h[d >> shift];
    }
    std::copy(h, h + V, hist.begin() + t.id * V);
    outside[t.id] = outs;
    Impl::teamBarrier(t);
    std::int64_t allOut = 0;
    for (int u = 0; u < t.size; ++u) allOut += outside[u];
    if (allOut > 0) return; // every thread sees it: nothing is written
    // Thread t's bases: the buckets below, and this bucket in the chunks before.
    LineScatter<Rec> w(out, V);
    std::int64_t below = 0;
    for (std::int64_t v = 0; v < V; ++v) {
      std::int64_t before = 0, all = 0;
      for (int u = 0; u < t.size; ++u) {
        const std::int64_t c = hist[u * V + v];
        if (u < t.id) before += c;
        all += c;
      }
      w.range(v, below + before, h[v]);
      if (t.id == 0) starts[v] = below;
      below += all;
    }
    if (t.id == 0) starts[V] = below;
    changed[t.id] = stream ? scatterHigh<true>(w, recOf, a, b, digitOf, K, shift)
                           : scatterHigh<false>(w, recOf, a, b, digitOf, K, shift);
    Impl::teamBarrier(t);
    std::int64_t allChanged = 0;
    for (int u = 0; u < t.size; ++u) allChanged += changed[u];
    // A key that changed left slots unwritten: the output is incomplete,
    // reported; the runs are not sorted.
    if (allChanged > 0) return;
    if (shift == 0) {
      if (t.id == 0) {
        for (std::int64_t v = 0; v < V; ++v) offsets[v] = starts[v];
        offsets[V] = n;
      }
      return;
    }
    // Thread t sorts the runs that start in its share of the output.
    const std::int64_t lo = n * t.id / t.size;
    const std::int64_t hi = t.id + 1 == t.size ? n + 1 : n * (t.id + 1) / t.size;
    std::int64_t longest = 0;
    for (std::int64_t v = 0; v < V; ++v)
      if (starts[v] >= lo && starts[v] < hi && starts[v + 1] - starts[v] > longest)
        longest = starts[v + 1] - starts[v];
    Impl::Aligned tmp(static_cast<std::size_t>(longest) * sizeof(Rec));
    std::unique_ptr<std::uint16_t[]> low(new std::uint16_t[static_cast<std::size_t>(longest)]);
    std::vector<std::int64_t> cnt(std::size_t(1) << shift);
    std::int64_t moved = 0;
    for (std::int64_t v = 0; v < V; ++v)
      if (starts[v] >= lo && starts[v] < hi)
        moved += sortRun(out, starts[v], starts[v + 1] - starts[v], static_cast<std::uint64_t>(v),
                         digitOf, K, shift, reinterpret_cast<Rec*>(tmp.p), low.get(), cnt.data(),
                         offsets);
    sortChanged[t.id] = moved;
    if (t.id == 0) offsets[buckets] = n;
  });
  for (int u = 0; u < threads; ++u) {
    res.outside += outside[u];
    res.changed += changed[u] + sortChanged[u];
  }
  return res;
}

} // namespace sieve
