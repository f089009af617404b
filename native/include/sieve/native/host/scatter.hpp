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
// stores for large outputs): stable. With a low digit, the scatter also
// leaves every record's low digit beside it (a 2-byte plane: the key is not
// computed again, and a key read through an index does not become a random
// read); each high bucket's run of the output (~n / 2^highBits records: it
// stays in cache) is then copied to the thread's buffer, counted by its low
// digit (which gives the offsets of its keys) and written back in order:
// stable again. Every record is read three times and written twice.
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
/// digit changed between its reads (a key functor that answers differently:
/// they were written nowhere, the output is incomplete; 0 for a pure one).
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
  std::uint16_t* low;    // the low digit of every record, beside out (null: one pass)
  std::int64_t V, B, ph; // buckets; records a block (0: no buffers); phase
  std::vector<std::int64_t> cur, first, end;
  Aligned buf, lowBuf;

  LineScatter(Rec* o, std::uint16_t* lowPlane, std::int64_t buckets)
      : out(o), low(lowPlane), V(buckets), B(blockOf(o, buckets)), ph(B > 0 ? phaseOf(o, B) : 0),
        cur(static_cast<std::size_t>(buckets)), first(static_cast<std::size_t>(buckets)),
        end(static_cast<std::size_t>(buckets)),
        buf(static_cast<std::size_t>(B > 0 ? buckets * B : 0) * sizeof(Rec)),
        lowBuf(static_cast<std::size_t>(B > 0 && lowPlane != nullptr ? buckets * B : 0) * 2u) {}

  static std::int64_t blockOf(const Rec* o, std::int64_t buckets) {
    if (kPerLine == 0 || reinterpret_cast<std::uintptr_t>(o) % sizeof(Rec) != 0) return 0;
    return kPerLine * (buckets <= 256 ? 4 : buckets <= 1024 ? 2 : 1); // lines a bucket
  }
  static std::int64_t phaseOf(const Rec* o, std::int64_t B) {
    const auto bytes = static_cast<std::uintptr_t>(B) * sizeof(Rec);
    return static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(o) % bytes / sizeof(Rec));
  }
  Rec* lines(std::int64_t v) { return reinterpret_cast<Rec*>(buf.p) + v * B; }
  std::uint16_t* lowLines(std::int64_t v) {
    return reinterpret_cast<std::uint16_t*>(lowBuf.p) + v * B;
  }

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
      if (low != nullptr)
        std::memcpy(low + (ls - ph), lowLines(v), static_cast<std::size_t>(B) * 2u);
    } else {
      writeOut(v, ls, c + 1);
    }
  }

  /// Slots [q0, q1) of bucket v from its buffer, clipped to the thread's.
  void writeOut(std::int64_t v, std::int64_t q0, std::int64_t q1) {
    const Rec* l = lines(v);
    const std::int64_t a = q0 > first[v] ? q0 : first[v], b = q1 < end[v] ? q1 : end[v];
    for (std::int64_t q = a; q < b; ++q) {
      std::memcpy(static_cast<void*>(out + (q - ph)), l + (q & (B - 1)), sizeof(Rec));
      if (low != nullptr) low[q - ph] = lowLines(v)[q & (B - 1)];
    }
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
template <bool Stream, bool Low, class Rec, class RecOf, class DigitOf>
std::int64_t scatterHigh(LineScatter<Rec>& w, const RecOf& recOf, std::int64_t a, std::int64_t b,
                         const DigitOf& digitOf, std::uint64_t K, int shift) {
  const std::uint64_t lowMask = (std::uint64_t(1) << shift) - 1;
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
      if constexpr (Low) w.low[cur[v]] = static_cast<std::uint16_t>(d & lowMask);
      out[cur[v]++] = r;
    }
    return changed;
  }
  Rec* SIEVE_RESTRICT buf = reinterpret_cast<Rec*>(w.buf.p);
  std::uint16_t* SIEVE_RESTRICT lbuf = reinterpret_cast<std::uint16_t*>(w.lowBuf.p);
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
    if constexpr (Low) lbuf[v * B + s] = static_cast<std::uint16_t>(d & lowMask);
    if (SIEVE_UNLIKELY(s == last)) w.template flush<Stream>(v, c);
  }
  changed += w.tails();
  if constexpr (Stream) storeFence();
  return changed;
}

/// The run [s, s + m) of out (high bucket h) sorted in place by the low
/// digits pass 1 left beside it (low[s, s + m)), through `tmp` (m records);
/// the offsets of its keys written. In cache: a run is ~n / 2^highBits.
template <class Rec>
void sortRun(Rec* out, const std::uint16_t* low, std::int64_t s, std::int64_t m, std::uint64_t h,
             std::uint64_t K, int shift, Rec* tmp, std::int64_t* cnt, std::int64_t* offsets) {
  const std::int64_t L = std::int64_t(1) << shift;
  std::memcpy(static_cast<void*>(tmp), out + s, static_cast<std::size_t>(m) * sizeof(Rec));
  for (std::int64_t l = 0; l < L; ++l) cnt[l] = 0;
  for (std::int64_t j = 0; j < m; ++j) ++cnt[low[s + j]];
  std::int64_t c = s;
  for (std::int64_t l = 0; l < L; ++l) {
    const std::uint64_t k = (h << shift) + static_cast<std::uint64_t>(l);
    if (k < K) offsets[k] = c;
    const std::int64_t t = cnt[l];
    cnt[l] = c;
    c += t;
  }
  for (std::int64_t j = 0; j < m; ++j) out[cnt[low[s + j]]++] = tmp[j];
}

} // namespace DenseHost
} // namespace Impl

/// The stable counting scatter of `n` records, recOf(0) .. recOf(n - 1)
/// (each called twice: the count and the scatter), by a dense digit: out holds
/// the records of digit 0, then those of digit 1, ..., each digit's records
/// in input order (so the result is unique: the same bytes on every team
/// size), and offsets[d] = the first position of digit d (offsets[buckets] =
/// n; buckets + 1 words). `digitOf(rec)` returns the record's digit as a
/// std::uint64_t; one >= buckets is outside (returned, nothing written).
/// Rec: trivially copyable. `buckets` in [1, 2^23] (denseScatterPlan(buckets).ok).
///
/// One read of the records (the high-digit histograms per thread), the
/// scatter by the high digit into `out` (line buffers; non-temporal stores
/// from 8 MiB), and for more than 2^11 buckets every high bucket's run sorted
/// by the low digit in place (in cache). O(n + buckets), blocking, on `team`
/// (its own parallel region; fewer threads below 2^14 records per thread).
/// Allocates, per call, a 2-byte low digit per record (two passes), and per
/// thread its buffers (~200 KiB) and a copy of the largest run it sorts.
/// What recOf reads must not
/// overlap `out` (not checked here: the caller's rule).
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
  // The low digits pass 1 leaves beside its output (two passes only).
  std::unique_ptr<std::uint16_t[]> lowPlane(shift > 0 && n > 0 ? new std::uint16_t[n] : nullptr);
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
    LineScatter<Rec> w(out, lowPlane.get(), V);
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
    if (shift == 0)
      changed[t.id] = stream ? scatterHigh<true, false>(w, recOf, a, b, digitOf, K, shift)
                             : scatterHigh<false, false>(w, recOf, a, b, digitOf, K, shift);
    else
      changed[t.id] = stream ? scatterHigh<true, true>(w, recOf, a, b, digitOf, K, shift)
                             : scatterHigh<false, true>(w, recOf, a, b, digitOf, K, shift);
    Impl::teamBarrier(t);
    std::int64_t allChanged = 0;
    for (int u = 0; u < t.size; ++u) allChanged += changed[u];
    // A key that changed left slots (and their low digits) unwritten: the
    // output is incomplete, reported; the runs are not sorted.
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
    std::vector<std::int64_t> cnt(std::size_t(1) << shift);
    for (std::int64_t v = 0; v < V; ++v)
      if (starts[v] >= lo && starts[v] < hi)
        sortRun(out, lowPlane.get(), starts[v], starts[v + 1] - starts[v],
                static_cast<std::uint64_t>(v), K, shift, reinterpret_cast<Rec*>(tmp.p), cnt.data(),
                offsets);
    if (t.id == 0) offsets[buckets] = n;
  });
  for (int u = 0; u < threads; ++u) {
    res.outside += outside[u];
    res.changed += changed[u];
  }
  return res;
}

} // namespace sieve
