// SPDX-License-Identifier: Apache-2.0
// Sieve (internal) — the stable counting sort of sieve::keys: per-chunk
// histograms over a fixed chunk split of the records (no atomics), the bucket
// starts by sieve's exclusive scan (each space's scan face), then every chunk
// scatters its records in order from its own base in every bucket. The
// elements of a bucket keep record order whatever the chunks, so the output
// is the same on every backend and thread count. Portable Kokkos patterns
// only (it would run on Cuda as is: one chunk per thread).
#pragma once

#include <sieve/core/keys.hpp>
#include <sieve/impl/common.hpp>
#include <sieve/impl/scan.hpp>

#include <cstdint>
#include <string>
#include <type_traits>

namespace sieve {
namespace Impl {
namespace Keys {

using i64 = std::int64_t;

template <class Exec>
using Range = Kokkos::RangePolicy<Exec, Kokkos::IndexType<i64>>;

template <class Exec>
using I64View = Kokkos::View<i64*, typename Exec::memory_space>;

/// The records [first, last) of chunk c of C over R records.
KOKKOS_INLINE_FUNCTION i64 chunkBegin(i64 c, i64 C, i64 R) { return R / C * c + R % C * c / C; }

/// The records of a sort whose count is on the device (`live`, clamped to
/// [0, cap]), or `cap` (live == nullptr).
KOKKOS_INLINE_FUNCTION i64 liveCount(const i64* live, i64 cap) {
  if (live == nullptr) return cap;
  const i64 c = *live;
  return c < 0 ? 0 : (c > cap ? cap : c);
}

/// Copy a small device View to the host.
template <class V>
auto toHost(const V& v) {
  auto h = sieve::Impl::hostMirror(v);
  Kokkos::deep_copy(h, v);
  return h;
}

/// sieve's exclusive scan of `v` in place (v's last word becomes the total).
template <class Exec>
void scanInPlace(const Exec& exec, const sieve::Impl::Names& names, const I64View<Exec>& v) {
  if (v.extent(0) == 0) return;
  sieve::Impl::scanEntry<false>(sieve::Impl::Names(names.prefix, "sieve::exclusive_scan"), exec, v,
                                v, i64(0));
}

/// Whether a counting-sort source may call back into user code that could
/// answer differently between the passes (a mapper): then the end of every
/// chunk's slot in every bucket is kept (one more word per histogram entry)
/// and every slot is checked to be filled exactly, once per slot after the
/// scatter, so a changed count or key is detected (never written outside
/// the output).
template <class Src, class = void>
struct ExactSlots : std::false_type {};
template <class Src>
struct ExactSlots<Src, std::enable_if_t<Src::kExactSlots>> : std::true_type {};

/// A stable counting sort of the elements of Src into `buckets` buckets.
/// Src: records(); KOKKOS count(i), item(i, j) (element j of record i),
/// digit(item) (its bucket, or -1 for a key outside the range), put(item,
/// pos) (write it at output position pos); optional `kExactSlots`.
template <class Exec, class Src>
class CountingSort {
 public:
  static constexpr bool kExact = ExactSlots<Src>::value;

  CountingSort(const Exec& exec, const sieve::Impl::Names& names, const Src& src, i64 buckets)
      : exec_(exec), names_(names), src_(src), R_(src.records()), K_(buckets),
        C_(countingChunks(R_, K_, exec.concurrency())) {}

  /// On the caller's scratch (a DenseWorkspace): `chunks` chunks, `hist`
  /// chunks * buckets words, `stats` 3 * chunks words (no kExactSlots).
  /// `live`: the record count on the device (at most src.records(), read by
  /// the kernels; one outside [0, src.records()] rejects the input), or null.
  CountingSort(const Exec& exec, const sieve::Impl::Names& names, const Src& src, i64 buckets,
               i64 chunks, const I64View<Exec>& hist, const I64View<Exec>& stats,
               const i64* live = nullptr)
      : exec_(exec), names_(names), src_(src), R_(src.records()), K_(buckets), C_(chunks),
        hist_(hist), stats_(stats), live_(live), allocated_(true) {
    static_assert(!kExact, "sieve::keys: the caller's scratch serves View inputs only");
  }

  struct Stats {
    i64 outside = 0;
    i64 elements = 0;
    i64 negative = 0; ///< records with a negative count
  };

  /// The scratch of the sort (chunks * buckets words, twice with
  /// kExactSlots); histogram() calls it when not called before. Lets the
  /// caller turn an allocation failure (Kokkos throws a std::bad_alloc or a
  /// std::runtime_error, by version) into its own error.
  void allocate() {
    if (allocated_) return;
    const std::size_t words = static_cast<std::size_t>(C_ * K_);
    hist_ = sieve::Impl::allocate<I64View<Exec>>(
        Kokkos::view_alloc(exec_, Kokkos::WithoutInitializing, names_("chunk_histograms")), words);
    if constexpr (kExact)
      ends_ = sieve::Impl::allocate<I64View<Exec>>(
          Kokkos::view_alloc(exec_, Kokkos::WithoutInitializing, names_("chunk_slot_ends")), words);
    stats_ = sieve::Impl::allocate<I64View<Exec>>(
        Kokkos::view_alloc(exec_, Kokkos::WithoutInitializing, names_("chunk_stats")),
        static_cast<std::size_t>(3 * C_));
    allocated_ = true;
  }

  /// Pass 1: the per-chunk histograms; returns the keys outside the range,
  /// the elements and the records with a negative count (blocks: reads back
  /// 3 words per chunk).
  Stats histogram() {
    allocate();
    enqueueHistogram();
    const auto h = toHost(stats_);
    Stats s;
    for (i64 c = 0; c < C_; ++c) {
      s.outside += h(3 * c);
      s.elements += h(3 * c + 1);
      s.negative += h(3 * c + 2);
    }
    return s;
  }

  /// Pass 1, asynchronous: the histograms, and `status()` = the keys outside
  /// the range, or -1 for a device count outside [0, records] (a one-thread
  /// kernel after it). Allocates and reads nothing.
  void histogramAsync(const Kokkos::View<i64, typename Exec::memory_space>& status) {
    enqueueHistogram();
    const I64View<Exec> stats = stats_;
    const i64 C = C_, cap = R_;
    const i64* live = live_;
    Kokkos::parallel_for(
        names_("rejected"), Range<Exec>(exec_, 0, 1), KOKKOS_LAMBDA(const i64) {
          i64 outside = 0;
          for (i64 c = 0; c < C; ++c) outside += stats(3 * c) + stats(3 * c + 2);
          if (live != nullptr && (*live < 0 || *live > cap)) outside = -1;
          status() = outside;
        });
  }

  /// Pass 2, asynchronous (View sources): as scatter(), gated on `status()`:
  /// when it is non-zero, every offset is 0 and nothing is written. The scan
  /// runs on `scanScratch` (scan_scratch_size<int64>(buckets + 1) words).
  void scatterAsync(const I64View<Exec>& offsets,
                    const Kokkos::View<i64, typename Exec::memory_space>& status,
                    const I64View<Exec>& scanScratch) {
    const i64 K = K_, C = C_, cap = R_;
    const i64* live = live_;
    const I64View<Exec> hist = hist_;
    enqueueBucketBases(offsets, status);
    sieve::Impl::scanEntry<false>(sieve::Impl::Names(names_.prefix, "sieve::exclusive_scan"), exec_,
                                  offsets, offsets, i64(0), scanScratch);
    const Src src = src_;
    Kokkos::parallel_for(
        names_("scatter"), Range<Exec>(exec_, 0, C), KOKKOS_LAMBDA(const i64 c) {
          if (status() != 0) return;
          const i64 R = liveCount(live, cap);
          i64* h = hist.data() + c * K;
          for (i64 k = 0; k < K; ++k) h[k] += offsets(k);
          const i64 n = offsets(K);
          const i64 r1 = chunkBegin(c + 1, C, R);
          for (i64 i = chunkBegin(c, C, R); i < r1; ++i) {
            const auto x = src.item(i, 0);
            const i64 d = src.digit(x);
            if (d < 0 || d >= K) continue; // (counted by the histogram: never here)
            const i64 pos = h[d]++;
            if (pos < n) src.put(x, pos);
          }
        });
  }

  // (Public, like every function here that launches a kernel: nvcc's extended
  // lambdas cannot live in private member functions.)
  /// Every chunk's base within each bucket (and, exact, its end), and the
  /// bucket sizes in offsets(0 .. buckets - 1); offsets(buckets) = 0. With a
  /// `gate` word that is non-zero, every offset is 0 instead.
  void enqueueBucketBases(const I64View<Exec>& offsets,
                          const Kokkos::View<i64, typename Exec::memory_space>& gate) {
    const i64 K = K_, C = C_;
    const I64View<Exec> hist = hist_, ends = ends_;
    Kokkos::parallel_for(
        names_("bucket_bases"), Range<Exec>(exec_, 0, K + 1), KOKKOS_LAMBDA(const i64 k) {
          if (k == K || (gate.data() != nullptr && gate() != 0)) {
            offsets(k) = 0;
            return;
          }
          i64 run = 0;
          for (i64 c = 0; c < C; ++c) {
            const i64 t = hist(c * K + k);
            hist(c * K + k) = run;
            run += t;
            if (kExact)
              ends(c * K + k) =
                  run; // (plain if: nvcc lambdas cannot first-capture in if constexpr)
          }
          offsets(k) = run;
        });
  }

  void enqueueHistogram() {
    const I64View<Exec> stats = stats_;
    const Src src = src_;
    const i64 K = K_, C = C_, cap = R_;
    const i64* live = live_;
    const I64View<Exec> hist = hist_;
    Kokkos::parallel_for(
        names_("histogram"), Range<Exec>(exec_, 0, C), KOKKOS_LAMBDA(const i64 c) {
          const i64 R = liveCount(live, cap);
          i64* h = hist.data() + c * K;
          for (i64 k = 0; k < K; ++k) h[k] = 0;
          i64 outside = 0, total = 0, negative = 0;
          const i64 r1 = chunkBegin(c + 1, C, R);
          for (i64 i = chunkBegin(c, C, R); i < r1; ++i) {
            const int m = src.count(i);
            if (m < 0) {
              ++negative;
              continue;
            }
            for (int j = 0; j < m; ++j) {
              const i64 d = src.digit(src.item(i, j));
              if (d < 0 || d >= K) ++outside;
              else ++h[d];
            }
            total += m;
          }
          stats(3 * c) = outside;
          stats(3 * c + 1) = total;
          stats(3 * c + 2) = negative;
        });
  }

  /// Pass 2 (after histogram(), all keys in range, no negative count):
  /// offsets(0 .. buckets) = the first element of every bucket
  /// (offsets(buckets) = the elements), then the scatter. Every element is
  /// written inside [0, elements); returns the elements that were not, plus
  /// the chunks whose element count changed and (kExactSlots) the slots not
  /// filled exactly (their count, their key or their record's count changed
  /// since histogram(); 0 for a pure source). Blocks (reads back that number).
  i64 scatter(const I64View<Exec>& offsets) {
    const i64 K = K_, C = C_, R = R_;
    const I64View<Exec> hist = hist_, ends = ends_, stats = stats_;
    enqueueBucketBases(offsets, Kokkos::View<i64, typename Exec::memory_space>());
    scanInPlace(exec_, names_, offsets);
    const Src src = src_;
    i64 bad = 0;
    Kokkos::parallel_reduce(
        names_("scatter"), Range<Exec>(exec_, 0, C),
        KOKKOS_LAMBDA(const i64 c, i64& errors) {
          i64* h = hist.data() + c * K;
          // The chunk's next position in every bucket.
          for (i64 k = 0; k < K; ++k) h[k] += offsets(k);
          const i64 n = offsets(K);
          i64 seen = 0;
          const i64 r1 = chunkBegin(c + 1, C, R);
          for (i64 i = chunkBegin(c, C, R); i < r1; ++i) {
            const int m = src.count(i);
            if (m < 0) {
              ++errors;
              continue;
            }
            seen += m;
            for (int j = 0; j < m; ++j) {
              const auto x = src.item(i, j);
              const i64 d = src.digit(x);
              if (d < 0 || d >= K) {
                ++errors;
                continue;
              }
              const i64 pos = h[d]++;
              if (pos >= n) {
                ++errors;
                continue;
              }
              src.put(x, pos);
            }
          }
          // Fewer (or more) elements than counted: slots left unwritten.
          if (seen != stats(3 * c + 1)) ++errors;
          // Exact: every slot filled to its end, no further (a key that
          // changed between the passes overran one slot and left another
          // short; checked once per slot, not per element).
          if (kExact)
            for (i64 k = 0; k < K; ++k)
              if (h[k] != offsets(k) + ends(c * K + k)) ++errors;
        },
        bad);
    return bad;
  }

 private:
  Exec exec_;
  sieve::Impl::Names names_;
  Src src_;
  i64 R_, K_, C_;
  I64View<Exec> hist_, ends_, stats_;
  const i64* live_ = nullptr;
  bool allocated_ = false;
};

} // namespace Keys
} // namespace Impl
} // namespace sieve
