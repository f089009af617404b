// SPDX-License-Identifier: Apache-2.0
// Sieve (internal) — what the dense and the sparse scatters share: a dense
// scatter's counting-sort view, the keys' extent, how the native faces read a
// source's records, and the native dense scatter's entry.
#pragma once

#include <sieve/core/keys.hpp>
#include <sieve/core/scatter_result.hpp>
#include <sieve/impl/faces.hpp>
#include <sieve/impl/keys/counting.hpp>
#include <sieve/impl/keys/source.hpp>

#include <cstdint>
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
  auto mins = sieve::Impl::allocate<Kokkos::View<Key*, Mem>>(
      Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, names("chunk_min")),
      static_cast<std::size_t>(C));
  auto maxs = sieve::Impl::allocate<Kokkos::View<Key*, Mem>>(
      Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, names("chunk_max")),
      static_cast<std::size_t>(C));
  I64View<Exec> counts = sieve::Impl::allocate<I64View<Exec>>(
      Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, names("chunk_count")),
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
/// it fewer times per record and is faster there (docs/tuning.md).
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
/// buckets is outside) is the range check, one unsigned compare a record
/// (keyDigit's two compares and its -1 cost more in the first read).
/// Trivially copyable: the host scatters read it through a copy in their
/// loops' frames.
template <class Key, class Rec>
struct DenseDigitOf {
  Key min;
  KOKKOS_INLINE_FUNCTION std::uint64_t operator()(const Rec& e) const {
    return keyDistance(static_cast<Key>(elementKey(e)), min);
  }
};

/// Whether the native dense scatter takes a dense scatter of `src` into
/// `output` over `buckets` keys on Exec: its face has the primitive, takes
/// the records (NativeRecords, contiguous) and pays (its own rule,
/// denseScatterPays). The plan's question (core/keys_plan.hpp, densePath).
template <class Exec, class Src, class Out>
bool denseTakes(const Src& src, const Out& output, i64 buckets) {
  using N = NativeRecords<Src, Out>;
  if constexpr (N::value) {
    return sieve::Impl::nativeTakes<Exec, sieve::Impl::Primitive::DenseScatter>(
        N::contiguous(src, output), [&](auto tag) {
          return sieve::Impl::Faces<decltype(tag)::value>::denseScatterPays(
              buckets, src.records(), sizeof(typename N::Rec));
        });
  } else {
    (void)src, (void)output, (void)buckets;
    return false;
  }
}

/// The native dense scatter of `d` (where denseTakes): the output and
/// offsets[0 .. K], or, with keys outside the range, nothing (counted in
/// `r`), and the records whose key changed between the reads counted.
/// Blocking (the face reads its status back).
template <class Exec, class D>
void nativeDense(const sieve::Impl::Names& names, const Exec& exec, const D& d, i64 n, i64 K,
                 i64* offsets, DenseScatterResult& r) {
  using sieve::Impl::Primitive;
  using N = NativeRecords<std::decay_t<decltype(d.src)>, std::decay_t<decltype(d.out)>>;
  // N::value is tested outside the generic lambda: inside it the condition
  // depends on F, and nvcc (EDG) then instantiates N::Rec and N::reader,
  // which a source the native faces do not take lacks.
  if constexpr (N::value) {
    sieve::Impl::onNative<Exec, Primitive::DenseScatter>("sieve::keys", [&](auto tag) {
      using Rec = typename N::Rec;
      sieve::Impl::fence(exec, "keys::scatter_dense: inputs ready");
      r = sieve::Impl::Faces<decltype(tag)::value>::denseScatter(
          exec, names, N::reader(d.src), n, DenseDigitOf<typename D::Key, Rec>{d.min}, K,
          d.out.data(), offsets);
    });
  } else {
    (void)names, (void)exec, (void)d, (void)n, (void)K, (void)offsets, (void)r;
  }
}

/// A key functor that answered differently between the reads of a scatter.
inline void failKeyChanged(const char* fn, i64 changed) {
  sieve::Impl::fail(fn, "the input changed between the counting and the scatter passes (" +
                            std::to_string(changed) +
                            " element(s) moved to another key): a key functor must return the "
                            "same key on every call; the output is incomplete or out of key "
                            "order (nothing was written outside it)");
}

} // namespace Keys
} // namespace Impl
} // namespace sieve
