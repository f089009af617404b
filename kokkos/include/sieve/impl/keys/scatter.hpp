// SPDX-License-Identifier: Apache-2.0
// Sieve (internal) — scatter_dense and scatter_sparse, after their
// compile-time checks.
//
// Dense: [the key range by a per-chunk min/max pass] -> per-chunk histograms
// that also count the keys outside the range (read back: a bad key throws
// before anything is written) -> bucket bases, sieve's exclusive scan -> the
// scatter, every chunk in record order (counting.hpp).
// Sparse, integer keys: min/max -> [a span of at most 2^23 keys where the
// native face's dense scatter pays: that scatter, then the keys present] ->
// LSD radix passes of at most 16 bits over
// the bits of the largest distance key - min, sorting (distance, index) pairs
// (each pass a stable counting sort; the first reads the input) -> gather.
// Other keys (operator< only): (key, index) pairs by a stable merge sort
// (merge.hpp) -> gather. The key starts, counted per chunk, give the offsets
// and the distinct keys.
#pragma once

#include <sieve/core/keys.hpp>
#include <sieve/core/radix.hpp>
#include <sieve/impl/faces.hpp>
#include <sieve/impl/keys/counting.hpp>
#include <sieve/impl/keys/merge.hpp>
#include <sieve/impl/keys/source.hpp>
#include <sieve/keys_results.hpp>

#include <cstdint>
#include <limits>
#include <new>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace sieve {
namespace Impl {
namespace Keys {

/// A key's digit in a dense scatter over [min, max]: its distance from min,
/// -1 outside (DenseSrc::digit; the native faces use the distance alone,
/// DenseDigitOf).
template <class Key>
KOKKOS_INLINE_FUNCTION i64 keyDigit(const Key k, const Key min, const Key max) {
  if (k < min || max < k) return -1;
  return static_cast<i64>(keyDistance(k, min));
}

/// The counting-sort view of a dense scatter: bucket = key - min. Exact:
/// every chunk's slots are checked to be filled exactly (the blocking form of
/// a source whose count or key is a caller's function, called again by the
/// scatter; the asynchronous form has no room for the slot ends).
template <class S, class Out, bool Exact = S::kUserKey>
struct DenseSrc {
  using Key = typename S::key_type;
  using Item = typename S::element_type;
  static constexpr bool kExactSlots = Exact;
  S src;
  Out out;
  Key min, max;
  i64 records() const { return src.records(); }
  KOKKOS_INLINE_FUNCTION int count(i64 i) const { return src.count(i); }
  KOKKOS_INLINE_FUNCTION Item item(i64 i, int j) const { return src.element(i, j); }
  KOKKOS_INLINE_FUNCTION i64 digit(const Item& e) const { return keyDigit(src.key(e), min, max); }
  KOKKOS_INLINE_FUNCTION void put(const Item& e, i64 pos) const { out(pos) = e; }
};

/// A radix word (key - min) with the index of its element.
struct RadixItem {
  std::uint64_t u;
  i64 idx;
};
template <class Exec>
using RadixItems = Kokkos::View<RadixItem*, typename Exec::memory_space>;
/// int64 indices in memory a View owns elsewhere (the radix order's, in scratch).
template <class Exec>
using UnmanagedI64 =
    Kokkos::View<i64*, typename Exec::memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

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

/// The smallest and largest key of a source's elements, from per-chunk passes.
template <class Key>
struct KeyExtent {
  bool any = false;
  Key min{}, max{};
};
template <class Exec, class S>
KeyExtent<typename S::key_type> keyExtent(const Exec& exec, const sieve::Impl::Names& names,
                                          const S& src) {
  using Key = typename S::key_type;
  using Mem = typename Exec::memory_space;
  const i64 R = src.records();
  const i64 C = countingChunks(R, 1, exec.concurrency());
  Kokkos::View<Key*, Mem> mins(
      Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, names("chunk_min")),
      static_cast<std::size_t>(C));
  Kokkos::View<Key*, Mem> maxs(
      Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, names("chunk_max")),
      static_cast<std::size_t>(C));
  I64View<Exec> counts(Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, names("chunk_count")),
                       static_cast<std::size_t>(C));
  Kokkos::parallel_for(
      names("key_extent"), Range<Exec>(exec, 0, C), KOKKOS_LAMBDA(const i64 c) {
        Key lo{}, hi{};
        i64 seen = 0;
        const i64 r1 = chunkBegin(c + 1, C, R);
        for (i64 i = chunkBegin(c, C, R); i < r1; ++i) {
          const int m = src.count(i);
          for (int j = 0; j < m; ++j) {
            const Key k = src.key(src.element(i, j));
            if (seen == 0 || k < lo) lo = k;
            if (seen == 0 || hi < k) hi = k;
            ++seen;
          }
        }
        mins(c) = lo;
        maxs(c) = hi;
        counts(c) = seen;
      });
  const auto hmin = toHost(mins);
  const auto hmax = toHost(maxs);
  const auto hcount = toHost(counts);
  KeyExtent<Key> e;
  for (i64 c = 0; c < C; ++c) {
    if (hcount(c) == 0) continue;
    if (!e.any || hmin(c) < e.min) e.min = hmin(c);
    if (!e.any || e.max < hmax(c)) e.max = hmax(c);
    e.any = true;
  }
  return e;
}

/// How the native faces read a dense or sparse scatter's records, where they take it:
/// a View of trivially copyable records keyed by their key() member (the
/// key is cheap and in the record), into a View of the same records, moved
/// as bytes. A key functor (keyed(), sort_permutation's indices) may gather
/// and compute (an MD cell from positions): the portable counting sort reads
/// it fewer times per record and ran 1.1-2.7x faster there (bench_dropin).
template <class Src, class Out>
struct NativeRecords : std::false_type {};
template <class V, class Out>
struct NativeRecords<ArraySource<V, MemberKey>, Out>
    : std::bool_constant<
          std::is_trivially_copyable_v<typename V::non_const_value_type> &&
          std::is_same_v<typename V::non_const_value_type, typename Out::non_const_value_type>> {
  using Rec = typename Out::non_const_value_type;
  static bool contiguous(const ArraySource<V, MemberKey>& s, const Out& o) {
    return s.view.span_is_contiguous() && o.span_is_contiguous();
  }
  /// Record i of the source (host and device).
  struct Reader {
    const Rec* p;
    KOKKOS_INLINE_FUNCTION Rec operator()(const i64 i) const { return p[i]; }
  };
  static Reader reader(const ArraySource<V, MemberKey>& s) { return Reader{s.view.data()}; }
};

/// The digit of a record of a dense scatter's source on the native faces
/// (records keyed by their key() member), host and device: its key's
/// distance from min, keyDistance = (key - min) mod 2^(the key type's
/// width), one-to-one, so exactly the keys in [min, max] land in [0, max -
/// min] and every other key above it: the scatters' own bound (a digit >=
/// buckets is outside) is the range check, one unsigned compare a record,
/// where keyDigit's two compares and its -1 made the first read 1.2x slower
/// (2 threads, 2^24 records). Trivially copyable: the host scatters read it
/// through a copy in their loops' frames.
template <class Key, class Rec>
struct DenseDigitOf {
  Key min;
  KOKKOS_INLINE_FUNCTION std::uint64_t operator()(const Rec& e) const {
    return keyDistance(static_cast<Key>(elementKey(e)), min);
  }
};

/// The face a dense scatter of `src` into `output` over `buckets` keys runs
/// on: Exec's native face where it has one, takes the source, and pays
/// (core/radix.hpp, denseScatterNativePays), else the portable one (the
/// table's choice, faceFor).
template <class Exec, class Src, class Out>
sieve::Impl::Face denseFace(const Src& src, const Out& output, i64 buckets) {
  if constexpr (NativeRecords<Src, Out>::value) {
    using Rec = typename NativeRecords<Src, Out>::Rec;
    const i64 records = src.records();
    const auto pays = [&](auto tag) {
      return sieve::Impl::Faces<decltype(tag)::value>::denseScatterPays(buckets, records,
                                                                        sizeof(Rec));
    };
    return sieve::Impl::faceFor<Exec, sieve::Impl::Primitive::DenseScatter>(
        NativeRecords<Src, Out>::contiguous(src, output), pays);
  } else {
    (void)src, (void)output, (void)buckets;
    return sieve::Impl::Face::Portable;
  }
}
/// Whether that face is a native one.
template <class Exec, class Src, class Out>
bool denseOnNative(const Src& src, const Out& output, i64 buckets) {
  return denseFace<Exec>(src, output, buckets) != sieve::Impl::Face::Portable;
}

/// face of Exec (where denseOnNative): the output and offsets[0 .. K], or,
/// with keys outside the range, nothing (counted in `r`), and the records
/// whose key changed between the reads counted. False, with nothing done,
/// on the portable face.
template <class Exec, class D>
bool nativeDense(const sieve::Impl::Names& names, const Exec& exec, const char* fn, const D& d,
                 i64 n, i64 K, i64* offsets, DenseScatterHostResult& r) {
  using sieve::Impl::Face;
  using sieve::Impl::Primitive;
  using N = NativeRecords<std::decay_t<decltype(d.src)>, std::decay_t<decltype(d.out)>>;
  bool done = false;
  // N::value is tested outside the generic lambda: inside it the condition
  // depends on F, and nvcc (EDG) then instantiates N::Rec and N::reader,
  // which a source the native faces do not take lacks.
  if constexpr (N::value) {
    sieve::Impl::dispatch<Exec, Primitive::DenseScatter>(fn, true, [&](auto tag) {
      constexpr Face F = decltype(tag)::value;
      if constexpr (F != Face::Portable) {
        using Rec = typename N::Rec;
        sieve::Impl::fence(exec, "keys::scatter_dense: inputs ready");
        r = sieve::Impl::Faces<F>::denseScatter(exec, names, N::reader(d.src), n,
                                                DenseDigitOf<typename D::Key, Rec>{d.min}, K,
                                                d.out.data(), offsets);
        done = true;
      }
    });
  } else {
    (void)names, (void)exec, (void)fn, (void)d, (void)n, (void)K, (void)offsets, (void)r;
  }
  return done;
}

/// A key functor that answered differently between the reads of a scatter.
inline void failKeyChanged(const char* fn, i64 changed) {
  sieve::Impl::fail(fn, "the input changed between the counting and the scatter passes (" +
                            std::to_string(changed) +
                            " element(s) moved to another key): a key functor must return the "
                            "same key on every call; the output is incomplete or out of key "
                            "order (nothing was written outside it)");
}

/// scatter_dense, checked types. `hasRange`: [minKey, maxKey] given.
/// Result: the DenseKeys of the key type (made from the offsets, the number
/// of keys and elements, and the range).
template <class Result, class Exec, class In, class Out, class Key>
Result scatterDense(const sieve::Impl::Names& names, const Exec& exec, const In& input,
                    bool hasRange, Key minKey, Key maxKey, const Out& output,
                    const char* fn = "sieve::keys::scatter_dense") {
  using Src = typename InputOf<In>::source;
  const Src src = InputOf<In>::make(input);
  checkApartFromInput(fn, input, output);
  if constexpr (Src::kOneToOne) checkOutputHolds(fn, sieve::Impl::extent64(output), src.records());
  if (!hasRange) {
    // The range first (its own region: the face of the scatter depends on it).
    const sieve::Impl::CallRegion rangeRegion(names.prefix + ":key_range[portable]");
    const KeyExtent<Key> e = keyExtent(exec, names, src);
    if (!e.any) return Result(I64View<Exec>(names("offsets"), 1), 0, 0, Key{}, Key{});
    minKey = e.min;
    maxKey = e.max;
  }
  const i64 K = checkKeyRange(fn, minKey, maxKey);
  const sieve::Impl::CallRegion region(names, denseFace<Exec>(src, output, K));
  const std::string range = "[" + std::to_string(minKey) + ", " + std::to_string(maxKey) + "]";
  using D = DenseSrc<Src, Out>;
  const D dense{src, output, minKey, maxKey};
  // A range the histograms (about keys * chunks words) or the offsets do
  // not fit in memory: an argument error, not a bare allocation failure.
  const auto allocOffsets = [&] {
    try {
      return I64View<Exec>(Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, names("offsets")),
                           static_cast<std::size_t>(K + 1));
    } catch (const std::bad_alloc& e) {
      failRangeTooLarge(fn, minKey, maxKey, K, e.what());
    } catch (const std::runtime_error& e) {
      failRangeTooLarge(fn, minKey, maxKey, K, e.what());
    }
  };
  if (denseOnNative<Exec>(src, output, K)) {
    const I64View<Exec> offsets = allocOffsets();
    DenseScatterHostResult r;
    if (nativeDense(names, exec, fn, dense, src.records(), K, offsets.data(), r)) {
      checkKeysInRange(fn, r.outside, range);
      if (r.changed > 0) failKeyChanged(fn, r.changed);
      return Result(offsets, K, src.records(), minKey, maxKey);
    }
  }
  CountingSort<Exec, D> sort(exec, names, dense, K);
  try {
    sort.allocate();
  } catch (const std::bad_alloc& e) {
    failRangeTooLarge(fn, minKey, maxKey, K, e.what());
  } catch (const std::runtime_error& e) {
    failRangeTooLarge(fn, minKey, maxKey, K, e.what());
  }
  const I64View<Exec> offsets = allocOffsets();
  const auto stats = sort.histogram();
  if (stats.negative > 0)
    sieve::Impl::fail(fn, "the mapper's count(i) is negative for " +
                              std::to_string(stats.negative) +
                              " record(s); a record has 0 or more elements; nothing was written");
  checkKeysInRange(fn, stats.outside, range);
  checkOutputHolds(fn, sieve::Impl::extent64(output), stats.elements);
  const i64 bad = sort.scatter(offsets);
  // The histograms are freed on return: wait for the scatter.
  sieve::Impl::fence(exec, "keys::scatter_dense: histograms freed");
  if (bad > 0)
    sieve::Impl::fail(fn, "the input changed between the counting and the scatter passes (" +
                              std::to_string(bad) +
                              " element(s) or chunk(s) differ): a mapper's count(i), element(i, j) "
                              "and key must return the same values on every call; output is "
                              "incomplete (nothing was written outside it)");
  return Result(offsets, K, stats.elements, minKey, maxKey);
}

/// The asynchronous scatter_dense of a View input on a DenseWorkspace:
/// checked on the host from sizes alone, then enqueued (histograms, the
/// rejection word, bucket bases, sieve's scan on the workspace's scratch, the
/// scatter gated on the word); nothing allocated, fenced or read back.
/// Result: the DenseKeys of the workspace's key type; Ws: the DenseWorkspace.
template <class Result, class Exec, class In, class Out, class Ws>
Result scatterDenseAsync(const sieve::Impl::Names& names, const Exec& exec, const In& input,
                         const Out& output, const Ws& ws,
                         const char* fn = "sieve::keys::scatter_dense") {
  using Src = typename InputOf<In>::source;
  static_assert(Src::kOneToOne,
                "sieve::keys::scatter_dense with a DenseWorkspace takes a View input (a mapper's "
                "element count is not known without reading it back)");
  if constexpr (Src::kOneToOne) {
    const Src src = InputOf<In>::make(input);
    if (ws.elements() < 0) sieve::Impl::fail(fn, "the workspace is empty (default-constructed)");
    const i64* live = nullptr;
    if constexpr (IsIndices<In>::value) {
      // sort_permutation: any n up to the workspace's capacity.
      live = input.live;
      if (src.records() > ws.elements())
        sieve::Impl::fail(fn, "n = " + std::to_string(src.records()) +
                                  " exceeds the workspace's capacity, " +
                                  std::to_string(ws.elements()));
    } else if (src.records() != ws.elements())
      sieve::Impl::fail(fn, "the input has " + std::to_string(src.records()) +
                                " elements; the workspace was made for " +
                                std::to_string(ws.elements()) + " (a workspace serves one size)");
    checkApartFromInput(fn, input, output);
    checkOutputHolds(fn, sieve::Impl::extent64(output), src.records());
    // The native host face runs this form synchronously; on a device the
    // native scatter serves the blocking form only (it reads its status
    // back), so this form stays on the portable kernels there.
    constexpr bool kHost =
        Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Exec::memory_space>::accessible;
    const sieve::Impl::Face face =
        kHost ? denseFace<Exec>(src, output, ws.num_keys()) : sieve::Impl::Face::Portable;
    const bool native = face != sieve::Impl::Face::Portable;
    const sieve::Impl::CallRegion region(names, face);
    using D = DenseSrc<Src, Out, false>;
    const D dense{src, output, ws.min_key(), ws.max_key()};
    if constexpr (kHost) {
      if (native) {
        // The native faces run on the host's threads, synchronously: the
        // rejection word is set here (keys outside the range: their number),
        // every key empty then. (Views only: no device count.)
        const i64 n = src.records();
        i64 status = 0;
        DenseScatterHostResult r;
        if (nativeDense(names, exec, fn, dense, n, ws.num_keys(), ws.offsets().data(), r)) {
          if (r.changed > 0) failKeyChanged(fn, r.changed);
          status = r.outside;
        }
        if (status != 0)
          for (i64 k = 0; k <= ws.num_keys(); ++k) ws.offsets()(k) = 0;
        ws.rejected()() = status;
        Result keys(ws.offsets(), ws.num_keys(), src.records(), ws.min_key(), ws.max_key());
        keys.attachCall(ws.rejected(), ws.generation(), ++*ws.generation());
        return keys;
      }
    }
    CountingSort<Exec, D> sort(exec, names, dense, ws.num_keys(), ws.chunks(), ws.histograms(),
                               ws.stats(), live);
    sort.histogramAsync(ws.rejected());
    sort.scatterAsync(ws.offsets(), ws.rejected(), ws.scanScratch());
    Result keys(ws.offsets(), ws.num_keys(), src.records(), ws.min_key(), ws.max_key());
    keys.attachCall(ws.rejected(), ws.generation(), ++*ws.generation());
    return keys;
  } else {
    return {};
  }
}

/// The elements of a mapper, in record order, in a View of the space.
template <class Exec, class S>
Kokkos::View<typename S::element_type*, typename Exec::memory_space> materialize(
    const Exec& exec, const sieve::Impl::Names& names, const S& src) {
  constexpr const char* fn = "sieve::keys::scatter_sparse";
  const i64 R = src.records();
  if (R + 1 > kMaxSparseElements)
    sieve::Impl::fail(fn, "the mapper has " + std::to_string(R) + " records; at most " +
                              std::to_string(kMaxSparseElements - 1) + " are taken");
  I64View<Exec> starts(
      Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, names("record_starts")),
      static_cast<std::size_t>(R + 1));
  i64 negative = 0;
  Kokkos::parallel_reduce(
      names("record_counts"), Range<Exec>(exec, 0, R + 1),
      KOKKOS_LAMBDA(const i64 i, i64& neg) {
        const i64 m = i < R ? static_cast<i64>(src.count(i)) : 0;
        if (m < 0) ++neg;
        starts(i) = m < 0 ? 0 : m;
      },
      negative);
  if (negative > 0)
    sieve::Impl::fail(fn, "the mapper's count(i) is negative for " + std::to_string(negative) +
                              " record(s); a record has 0 or more elements; nothing was written");
  scanInPlace(exec, names, starts);
  i64 n = 0;
  Kokkos::deep_copy(n, Kokkos::subview(starts, R));
  if (n > kMaxSparseElements)
    sieve::Impl::fail(fn, "the mapper has " + std::to_string(n) + " elements; at most " +
                              std::to_string(kMaxSparseElements) +
                              " are taken; nothing was written");
  Kokkos::View<typename S::element_type*, typename Exec::memory_space> elems(
      Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, names("elements")),
      static_cast<std::size_t>(n));
  // The mapper is called again: write no more than counted, and see a change.
  i64 changed = 0;
  Kokkos::parallel_reduce(
      names("elements"), Range<Exec>(exec, 0, R),
      KOKKOS_LAMBDA(const i64 i, i64& bad) {
        const i64 s0 = starts(i), counted = starts(i + 1) - s0;
        const i64 m = static_cast<i64>(src.count(i));
        if (m != counted) ++bad;
        const int w = static_cast<int>(m < counted ? (m < 0 ? 0 : m) : counted);
        for (int j = 0; j < w; ++j) elems(s0 + j) = src.element(i, j);
      },
      changed);
  sieve::Impl::fence(exec, "keys::scatter_sparse: record starts freed");
  if (changed > 0)
    sieve::Impl::fail(fn, "the mapper's count(i) changed between its two calls for " +
                              std::to_string(changed) +
                              " record(s); count(i) must return the same value on every call; "
                              "nothing was written");
  return elems;
}

/// A key with the index of its element, for the merge sort.
template <class Key>
struct Tagged {
  Key key;
  i64 idx;
};
struct TaggedLess {
  template <class T>
  KOKKOS_INLINE_FUNCTION bool operator()(const T& a, const T& b) const {
    return a.key < b.key;
  }
};

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

/// The radix words of a sparse scatter's keys: their distances from `min`.
/// (A functor: nvcc rejects an extended lambda defined inside the generic
/// lambda that dispatch calls.)
template <class Words, class S, class Key>
struct RadixKeyWords {
  Words words;
  S src;
  Key min;
  KOKKOS_INLINE_FUNCTION void operator()(const i64 i) const {
    words(i) = keyDistance(src.key(src.element(i, 0)), min);
  }
};

/// The sorted order of a sparse scatter: the element at position p, by
/// radix-sorted indices, by merge-sorted pairs, or (one key) record order.
template <class V>
struct IndexOrder {
  V idx;
  KOKKOS_INLINE_FUNCTION i64 index(i64 p) const { return idx(p); }
};
template <class V>
struct TaggedOrder {
  V r;
  KOKKOS_INLINE_FUNCTION i64 index(i64 p) const { return r(p).idx; }
};
struct RecordOrder {
  KOKKOS_INLINE_FUNCTION i64 index(i64 p) const { return p; }
};

/// Where a sparse scatter writes its offsets and keys: fresh Views (no
/// workspace), or the first numKeys (+ 1) entries of a SparseWorkspace's
/// buffers: grown when short (grownCapacity: to max(numKeys, 1.5 x their
/// capacity), at most 2^31 - 2, not the elements of the call, so a loop whose
/// key count creeps up does not regrow every call), replaced by buffers as
/// large when they share a byte with the call's input or output View (the
/// call would write what it reads). The radix order's scratch likewise (a
/// fresh View without a workspace; the workspace's grown in bytes). A failed
/// allocation leaves that buffer of the workspace as it was; replaced ones
/// live until the call returns.
template <class Result, class Exec>
struct SparseDest {
  using keys_view = typename Result::keys_view;
  using bytes_view = Kokkos::View<unsigned char*, typename Exec::memory_space>;
  using kept_type = SparseKept<typename Result::key_type, typename Exec::memory_space>;
  kept_type* kept = nullptr;       // the workspace's buffers (null: none)
  sieve::Impl::ArrayBytes in, out; // the input View's bytes (none for a mapper); the output's
  // The buffers this call replaced, alive until it returns: its input or
  // output may lie in them (a View that does not own them).
  mutable kept_type replaced;

  template <class V>
  bool shares(const V& v) const {
    const sieve::Impl::ArrayBytes b = sieve::Impl::viewBytes("workspace", v);
    return sieve::Impl::shareBytes(b, in) || sieve::Impl::shareBytes(b, out);
  }

  static auto alloc(const Exec& exec, const sieve::Impl::Names& names, const char* what) {
    return Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, names(what));
  }

  void views(const Exec& exec, const sieve::Impl::Names& names, i64 numKeys, I64View<Exec>& offsets,
             keys_view& keys) const {
    if (kept == nullptr) {
      offsets = I64View<Exec>(alloc(exec, names, "offsets"), static_cast<std::size_t>(numKeys + 1));
      keys = keys_view(alloc(exec, names, "keys"), static_cast<std::size_t>(numKeys));
      sieve::Impl::adviseHugePages(offsets);
      sieve::Impl::adviseHugePages(keys);
      return;
    }
    const i64 capacity = static_cast<i64>(kept->keys.extent(0));
    const bool shortOf = kept->offsets.extent(0) == 0 || capacity < numKeys;
    if (shortOf || shares(kept->offsets) || shares(kept->keys)) {
      const i64 grown = shortOf ? grownCapacity(capacity, numKeys, kMaxSparseElements) : capacity;
      I64View<Exec> o(alloc(exec, names, "workspace_offsets"), static_cast<std::size_t>(grown + 1));
      keys_view k(alloc(exec, names, "workspace_keys"), static_cast<std::size_t>(grown));
      sieve::Impl::adviseHugePages(o);
      sieve::Impl::adviseHugePages(k);
      replaced.offsets = kept->offsets;
      replaced.keys = kept->keys;
      kept->offsets = o;
      kept->keys = k;
    }
    offsets = Kokkos::subview(
        kept->offsets, std::make_pair(std::size_t(0), static_cast<std::size_t>(numKeys + 1)));
    keys = Kokkos::subview(kept->keys,
                           std::make_pair(std::size_t(0), static_cast<std::size_t>(numKeys)));
  }

  /// At least `bytes` bytes of scratch, uninitialized.
  bytes_view scratch(const Exec& exec, const sieve::Impl::Names& names, std::size_t bytes) const {
    if (kept == nullptr) return bytes_view(alloc(exec, names, "radix_scratch"), bytes);
    const std::size_t have = kept->scratch.extent(0);
    const bool shortOf = have < bytes;
    if (shortOf || shares(kept->scratch)) {
      const std::size_t grown = shortOf ? static_cast<std::size_t>(grownCapacity(
                                              static_cast<i64>(have), static_cast<i64>(bytes),
                                              std::numeric_limits<i64>::max()))
                                        : have;
      bytes_view fresh(alloc(exec, names, "workspace_scratch"), grown);
      replaced.scratch = kept->scratch;
      kept->scratch = fresh;
    }
    return kept->scratch;
  }
};

/// The stable order of a sparse scatter's integer keys on the native face of
/// Exec, where it has a radix order: the keys' distances from `min` (read
/// once), sorted in 8-bit passes over the bits of `span`, into `order`, which
/// lies in `held` (the scratch of `dest`, with the words and the sort's).
/// Returns false, with nothing done, on the portable face.
template <class Result, class Exec, class S, class Key>
bool nativeOrder(const Exec& exec, const sieve::Impl::Names& names, const S& src, const Key min,
                 const std::uint64_t span, const SparseDest<Result, Exec>& dest,
                 typename SparseDest<Result, Exec>::bytes_view& held, UnmanagedI64<Exec>& order) {
  using sieve::Impl::Face;
  using sieve::Impl::Primitive;
  using Mem = typename Exec::memory_space;
  bool done = false;
  sieve::Impl::dispatch<Exec, Primitive::RadixOrder>(
      "sieve::keys::scatter_sparse", true, [&](auto tag) {
        constexpr Face F = decltype(tag)::value;
        if constexpr (F != Face::Portable) {
          const i64 n = src.records();
          // [words: n][order: n][the sort's scratch], 64-byte aligned.
          const std::size_t plane = sieve::Impl::radixRound64(8u * static_cast<std::size_t>(n));
          const std::size_t sortBytes = sieve::Impl::Faces<F>::radixOrderScratchBytes(n);
          held = dest.scratch(exec, names, 64u + 2u * plane + sortBytes);
          const auto at = reinterpret_cast<std::uintptr_t>(held.data());
          unsigned char* base = held.data() + (64u - at % 64u) % 64u;
          Kokkos::View<std::uint64_t*, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>> words(
              reinterpret_cast<std::uint64_t*>(base), static_cast<std::size_t>(n));
          order =
              UnmanagedI64<Exec>(reinterpret_cast<i64*>(base + plane), static_cast<std::size_t>(n));
          Kokkos::parallel_for(names("radix_keys"), Range<Exec>(exec, 0, n),
                               RadixKeyWords<decltype(words), S, Key>{words, src, min});
          sieve::Impl::Faces<F>::radixOrder(exec, names, words.data(), n, radixTotalBits(span),
                                            order.data(), base + 2u * plane, sortBytes);
          done = true;
        }
      });
  return done;
}

/// The end of a sparse scatter: every chunk gathers its elements in sorted
/// order and counts its key starts; the chunk bases (a host scan of one word
/// per chunk) give every key its id; then every chunk writes the offsets and
/// keys of its starts. Blocks (reads back the chunk counts), then fences.
template <class Result, class Exec, class S, class Out, class Order>
Result finishSparse(const sieve::Impl::Names& names, const Exec& exec, const S& src,
                    const Out& output, i64 n, const Order& order,
                    const SparseDest<Result, Exec>& dest) {
  const i64 C = countingChunks(n, 1, exec.concurrency());
  I64View<Exec> chunk(Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, names("chunk_keys")),
                      static_cast<std::size_t>(C));
  Kokkos::parallel_for(
      names("gather"), Range<Exec>(exec, 0, C), KOKKOS_LAMBDA(const i64 c) {
        const i64 p0 = chunkBegin(c, C, n), p1 = chunkBegin(c + 1, C, n);
        if (p0 == p1) {
          chunk(c) = 0;
          return;
        }
        // A key starts where it exceeds the previous one (the keys ascend).
        auto prev = src.key(src.element(order.index(p0 > 0 ? p0 - 1 : 0), 0));
        i64 starts = p0 == 0 ? 1 : 0;
        constexpr i64 kAhead = 16; // records prefetched ahead of the gather (host)
        for (i64 p = p0; p < p1; ++p) {
          if (p + kAhead < p1) src.prefetch(order.index(p + kAhead));
          const auto e = src.element(order.index(p), 0);
          const auto k = src.key(e);
          output(p) = e;
          if (prev < k) ++starts;
          prev = k;
        }
        chunk(c) = starts;
      });
  auto h = toHost(chunk);
  i64 numKeys = 0;
  for (i64 c = 0; c < C; ++c) {
    const i64 t = h(c);
    h(c) = numKeys;
    numKeys += t;
  }
  Kokkos::deep_copy(chunk, h);
  I64View<Exec> offsets;
  typename Result::keys_view keys;
  dest.views(exec, names, numKeys, offsets, keys);
  Kokkos::parallel_for(
      names("key_offsets"), Range<Exec>(exec, 0, C), KOKKOS_LAMBDA(const i64 c) {
        const i64 p0 = chunkBegin(c, C, n), p1 = chunkBegin(c + 1, C, n);
        i64 id = chunk(c);
        if (p0 < p1) {
          auto prev = src.key(output(p0 > 0 ? p0 - 1 : 0));
          for (i64 p = p0; p < p1; ++p) {
            const auto k = src.key(output(p));
            if (p == 0 || prev < k) {
              offsets(id) = p;
              keys(id) = k;
              ++id;
            }
            prev = k;
          }
        }
        if (c == C - 1) offsets(numKeys) = n;
      });
  // The temporaries are freed on return: wait for the kernels that use them.
  sieve::Impl::fence(exec, "keys::scatter_sparse: temporaries freed");
  return Result(offsets, keys, numKeys, n);
}

/// scatter_sparse of keys whose span holds at most 2^23 keys, where the
/// native dense scatter takes and pays for it (denseOnNative): that scatter
/// into the output (two passes, no gather), then the keys present and their
/// offsets from its dense offsets. False, with nothing done, elsewhere.
template <class Result, class Exec, class S, class Out, class Key>
bool sparseByDense(const sieve::Impl::Names& names, const Exec& exec, const S& src,
                   const Out& output, const Key min, const Key max,
                   const SparseDest<Result, Exec>& dest, Result& result) {
  constexpr const char* fn = "sieve::keys::scatter_sparse";
  const std::uint64_t span = keyDistance(max, min);
  if (span >= (std::uint64_t(1) << 23)) return false;
  const i64 K = static_cast<i64>(span) + 1, n = src.records();
  if (!denseOnNative<Exec>(src, output, K)) return false;
  const auto alloc = [&](const char* what) {
    return Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, names(what));
  };
  I64View<Exec> dense(alloc("dense_offsets"), static_cast<std::size_t>(K + 1));
  DenseScatterHostResult r;
  if (!nativeDense(names, exec, fn, DenseSrc<S, Out, false>{src, output, min, max}, n, K,
                   dense.data(), r))
    return false;
  // (The range is the keys' own: a key outside it, or moved, changed between the reads.)
  if (r.outside > 0 || r.changed > 0) failKeyChanged(fn, r.outside + r.changed);
  i64 numKeys = 0;
  Kokkos::parallel_reduce(
      names("keys_present"), Range<Exec>(exec, 0, K),
      KOKKOS_LAMBDA(const i64 k, i64& sum) { sum += dense(k + 1) > dense(k) ? 1 : 0; }, numKeys);
  I64View<Exec> offsets;
  typename Result::keys_view keys;
  dest.views(exec, names, numKeys, offsets, keys);
  using U = std::make_unsigned_t<Key>;
  Kokkos::parallel_scan(
      names("key_offsets"), Range<Exec>(exec, 0, K),
      KOKKOS_LAMBDA(const i64 k, i64& id, const bool final) {
        const bool present = dense(k + 1) > dense(k);
        if (final && present) {
          offsets(id) = dense(k);
          keys(id) = static_cast<Key>(static_cast<U>(static_cast<U>(min) + static_cast<U>(k)));
        }
        if (final && k == K - 1) offsets(id + (present ? 1 : 0)) = n;
        id += present ? 1 : 0;
      });
  // The dense offsets are freed on return: wait for the kernels that read them.
  sieve::Impl::fence(exec, "keys::scatter_sparse: dense offsets freed");
  result = Result(offsets, keys, numKeys, n);
  return true;
}

/// The word of a record of a sparse scatter on a native face: its key's
/// distance from the smallest key (host and device).
template <class Key, class Rec>
struct SparseWordOf {
  Key min;
  KOKKOS_INLINE_FUNCTION std::uint64_t operator()(const Rec& e) const {
    return keyDistance(static_cast<Key>(elementKey(e)), min);
  }
};

/// scatter_sparse of integer keys spanning `span` above `min` by the native
/// sparse scatter (records moved twice, sorted in cache: no gather), where
/// Exec's native face has it, takes the source and pays
/// (sparseScatterNativePays), and the keys are not skewed (no run over
/// sparseScatterMaxRun); then the offsets and keys of the runs,
/// each run's first id from the face's counts. False, with nothing written,
/// elsewhere.
template <class Result, class Exec, class S, class Out, class Key>
bool sparseOnNative(const sieve::Impl::Names& names, const Exec& exec, const S& src,
                    const Out& output, const Key min, const std::uint64_t span,
                    const SparseDest<Result, Exec>& dest, Result& result) {
  using sieve::Impl::Face;
  using sieve::Impl::Primitive;
  constexpr const char* fn = "sieve::keys::scatter_sparse";
  using N = NativeRecords<S, Out>;
  const i64 n = src.records();
  SparseScatterHostResult r;
  // N::value is tested outside the generic lambdas (see nativeDense).
  if constexpr (N::value) {
    using Rec = typename N::Rec;
    const auto pays = [&](auto tag) {
      return sieve::Impl::Faces<decltype(tag)::value>::sparseScatterPays(n, sizeof(Rec));
    };
    if (sieve::Impl::faceFor<Exec, Primitive::SparseScatter>(N::contiguous(src, output), pays) ==
        Face::Portable)
      return false;
    sieve::Impl::dispatch<Exec, Primitive::SparseScatter>(fn, true, [&](auto tag) {
      constexpr Face F = decltype(tag)::value;
      if constexpr (F != Face::Portable) {
        sieve::Impl::fence(exec, "keys::scatter_sparse: inputs ready");
        r = sieve::Impl::Faces<F>::sparseScatter(exec, names, N::reader(src), n,
                                                 SparseWordOf<Key, Rec>{min}, span, output.data());
      }
    });
  } else {
    (void)names, (void)exec, (void)src, (void)output, (void)min, (void)span, (void)fn;
    return false;
  }
  if (!r.taken) return false;
  // (The extent is the keys' own: a key outside it, or moved, changed between the reads.)
  if (r.outside > 0 || r.changed > 0) failKeyChanged(fn, r.outside + r.changed);
  const auto V = static_cast<i64>(r.runStart.size()) - 1;
  const i64 numKeys = r.runKeys[static_cast<std::size_t>(V)];
  const auto alloc = [&](const char* what) {
    return Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, names(what));
  };
  I64View<Exec> starts(alloc("run_starts"), static_cast<std::size_t>(V + 1));
  I64View<Exec> ids(alloc("run_keys"), static_cast<std::size_t>(V + 1));
  {
    const auto hs = Kokkos::create_mirror_view(starts);
    const auto hi = Kokkos::create_mirror_view(ids);
    for (i64 v = 0; v <= V; ++v) {
      hs(v) = r.runStart[static_cast<std::size_t>(v)];
      hi(v) = r.runKeys[static_cast<std::size_t>(v)];
    }
    Kokkos::deep_copy(exec, starts, hs);
    Kokkos::deep_copy(exec, ids, hi);
    exec.fence();
  }
  I64View<Exec> offsets;
  typename Result::keys_view keys;
  dest.views(exec, names, numKeys, offsets, keys);
  // A run's first record starts a key (runs hold different top digits).
  // A run whose keys do not come out as the sort counted them (a key
  // functor that answered differently on this read) is counted: thrown.
  i64 mismatched = 0;
  Kokkos::parallel_reduce(
      names("key_offsets"), Range<Exec>(exec, 0, V),
      KOKKOS_LAMBDA(const i64 v, i64& bad) {
        const i64 p1 = starts(v + 1);
        i64 id = ids(v);
        const i64 id1 = ids(v + 1);
        for (i64 p = starts(v); p < p1; ++p) {
          const Key k = src.key(output(p));
          if (p == starts(v) || keys(id - 1) < k) {
            if (id == id1) { // more keys than the sort counted: not written past
              ++bad;
              break;
            }
            offsets(id) = p;
            keys(id) = k;
            ++id;
          }
        }
        if (id != id1) ++bad;
        if (v == V - 1) offsets(numKeys) = n;
      },
      mismatched);
  if (mismatched > 0)
    sieve::Impl::fail(fn, "the keys changed while their offsets were written (" +
                              std::to_string(mismatched) +
                              " run(s) of keys differ from the sort's): a key functor must return "
                              "the same key for an element on every call");
  // (The reduction blocks: the run tables outlive its kernel.)
  result = Result(offsets, keys, numKeys, n);
  return true;
}

/// scatter_sparse of one-element records (a View, or a mapper's elements).
/// Result: the SparseKeys of the key type (made from the offsets, the keys,
/// and the number of keys and elements).
template <class Result, class Exec, class S, class Out>
Result sparseOfArray(const sieve::Impl::Names& names, const Exec& exec, const S& src,
                     const Out& output, const SparseDest<Result, Exec>& dest) {
  constexpr const char* fn = "sieve::keys::scatter_sparse";
  using Key = typename S::key_type;
  using Mem = typename Exec::memory_space;
  const i64 n = src.records();
  if (n > kMaxSparseElements)
    sieve::Impl::fail(fn, "the input has " + std::to_string(n) + " elements; at most " +
                              std::to_string(kMaxSparseElements) + " are taken");
  checkOutputHolds(fn, sieve::Impl::extent64(output), n);
  if (n == 0) {
    I64View<Exec> offsets;
    typename Result::keys_view keys;
    dest.views(exec, names, 0, offsets, keys);
    Kokkos::deep_copy(exec, offsets, i64(0));
    sieve::Impl::fence(exec, "keys::scatter_sparse: empty offsets written");
    return Result(offsets, keys, 0, 0);
  }
  if constexpr (kIntegralKey<Key>) {
    const KeyExtent<Key> e = keyExtent(exec, names, src);
    const std::uint64_t span = keyDistance(e.max, e.min);
    const int passes = radixPasses(span);
    if (passes == 0) return finishSparse<Result>(names, exec, src, output, n, RecordOrder{}, dest);
    Result byDense;
    if (sparseByDense(names, exec, src, output, e.min, e.max, dest, byDense)) return byDense;
    if (sparseOnNative(names, exec, src, output, e.min, span, dest, byDense)) return byDense;
    typename SparseDest<Result, Exec>::bytes_view held;
    UnmanagedI64<Exec> order;
    if (nativeOrder(exec, names, src, e.min, span, dest, held, order))
      return finishSparse<Result>(names, exec, src, output, n,
                                  IndexOrder<UnmanagedI64<Exec>>{order}, dest);
    const int bits = radixPassBits(span);
    const std::uint64_t mask = (std::uint64_t(1) << bits) - 1;
    const i64 buckets = i64(1) << bits;
    const auto alloc = [&](const char* what) {
      return Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, names(what));
    };
    RadixItems<Exec> a(alloc("radix_items"), passes > 1 ? n : 0), b;
    if (passes > 2) b = RadixItems<Exec>(alloc("radix_items_b"), n);
    I64View<Exec> idx(alloc("radix_indices"), n);
    I64View<Exec> offsets(alloc("radix_buckets"), static_cast<std::size_t>(buckets + 1));
    const auto pass = [&](const auto& digits) {
      CountingSort<Exec, std::decay_t<decltype(digits)>> sort(exec, names, digits, buckets);
      sort.histogram();
      const i64 bad = sort.scatter(offsets);
      sieve::Impl::fence(exec, "keys::scatter_sparse: radix histograms freed");
      if (bad > 0)
        sieve::Impl::fail(fn, "a key changed between the passes of the sort (" +
                                  std::to_string(bad) +
                                  " element(s)): the key functor must return the same key for "
                                  "an element on every call; output is incomplete");
    };
    if (passes == 1) pass(FirstRadixSrc<Exec, S, true>{src, e.min, a, idx, mask});
    else pass(FirstRadixSrc<Exec, S, false>{src, e.min, a, idx, mask});
    for (int p = 1; p < passes; ++p) {
      if (p + 1 == passes) {
        pass(RadixSrc<Exec, true>{a, b, idx, p * bits, mask});
      } else {
        pass(RadixSrc<Exec, false>{a, b, idx, p * bits, mask});
        std::swap(a, b);
      }
    }
    return finishSparse<Result>(names, exec, src, output, n, IndexOrder<I64View<Exec>>{idx}, dest);
  } else {
    using T = Tagged<Key>;
    Kokkos::View<T*, Mem> a(Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, names("sort_a")),
                            n);
    Kokkos::View<T*, Mem> b(Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, names("sort_b")),
                            n);
    // A key that is not ordered by operator< (a floating-point NaN, or
    // k < k) has no place in the sorted order: an error, not a silent group.
    i64 unordered = 0;
    Kokkos::parallel_reduce(
        names("sort_fill"), Range<Exec>(exec, 0, n),
        KOKKOS_LAMBDA(const i64 i, i64& bad) {
          const Key k = src.key(src.element(i, 0));
          if constexpr (std::is_floating_point_v<Key>) {
            if (!(k == k)) ++bad;
          }
          if (k < k) ++bad;
          a(i).key = k;
          a(i).idx = i;
        },
        unordered);
    if (unordered > 0)
      sieve::Impl::fail(fn, std::to_string(unordered) +
                                " element key(s) are not ordered by operator< (NaN, or k < k); "
                                "the keys need a strict weak order; nothing was written");
    i64 disagreed = 0;
    const auto r = mergeSort(exec, names, a, b, n, TaggedLess{}, &disagreed);
    if (disagreed > 0)
      sieve::Impl::fail(fn,
                        "the keys' operator< is not a strict weak order (the sort's merge "
                        "pieces disagreed " +
                            std::to_string(disagreed) + " time(s)); nothing was written");
    return finishSparse<Result>(names, exec, src, output, n,
                                TaggedOrder<std::decay_t<decltype(r)>>{r}, dest);
  }
}

/// scatter_sparse, checked types. With a workspace (its buffers `kept`, its
/// `generation`), the result is written to its buffers (SparseDest) and tied
/// to this call,
/// whose start makes the keys of the calls before it stale (checkCurrent
/// throws), whether or not it completes or its arguments are valid.
template <class Result, class Exec, class In, class Out>
Result scatterSparse(const sieve::Impl::Names& names, const Exec& exec, const In& input,
                     const Out& output,
                     typename SparseDest<Result, Exec>::kept_type* kept = nullptr,
                     const std::shared_ptr<std::int64_t>& generation = nullptr) {
  constexpr const char* fn = "sieve::keys::scatter_sparse";
  const std::int64_t call = generation != nullptr ? ++*generation : 0;
  using Src = typename InputOf<In>::source;
  const Src src = InputOf<In>::make(input);
  checkApartFromInput(fn, input, output);
  const SparseDest<Result, Exec> dest{kept, inputBytesOf(input),
                                      sieve::Impl::viewBytes("output", output)};
  const sieve::Impl::CallRegion region(
      names, sieve::Impl::faceFor<Exec, sieve::Impl::Primitive::RadixOrder>(
                 kIntegralKey<typename Src::key_type>));
  Result result;
  if constexpr (Src::kOneToOne) {
    result = sparseOfArray<Result>(names, exec, src, output, dest);
  } else {
    const auto elems = materialize(exec, names, src);
    using A =
        ArraySource<std::decay_t<decltype(elems)>, MapperKey<std::decay_t<decltype(src.mapper)>>>;
    result = sparseOfArray<Result>(
        names, exec, A{elems, MapperKey<std::decay_t<decltype(src.mapper)>>{src.mapper}}, output,
        dest);
  }
  if (generation != nullptr) result.attachCall(typename Result::status_view(), generation, call);
  return result;
}

/// count_elements: the elements of an input, without storing them.
template <class Exec, class In>
i64 countElements(const sieve::Impl::Names& names, const Exec& exec, const In& input) {
  using Src = typename InputOf<In>::source;
  const Src src = InputOf<In>::make(input);
  if constexpr (Src::kOneToOne) {
    return src.records();
  } else {
    const sieve::Impl::CallRegion region(names, sieve::Impl::Face::Portable);
    i64 n = 0, negative = 0;
    Kokkos::parallel_reduce(
        names("count"), Range<Exec>(exec, 0, src.records()),
        KOKKOS_LAMBDA(const i64 i, i64& sum) {
          const int m = src.count(i);
          sum += m < 0 ? 0 : m;
        },
        n);
    Kokkos::parallel_reduce(
        names("negative_counts"), Range<Exec>(exec, 0, src.records()),
        KOKKOS_LAMBDA(const i64 i, i64& sum) { sum += src.count(i) < 0 ? 1 : 0; }, negative);
    if (negative > 0)
      sieve::Impl::fail("sieve::keys::count_elements",
                        "the mapper's count(i) is negative for " + std::to_string(negative) +
                            " record(s); a record has 0 or more elements");
    return n;
  }
}

} // namespace Keys
} // namespace Impl
} // namespace sieve
