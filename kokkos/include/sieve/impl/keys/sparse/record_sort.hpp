// SPDX-License-Identifier: Apache-2.0
// Sieve (internal) — scatter_sparse, SparsePath::RecordSort.
#pragma once

#include <sieve/impl/keys/records.hpp>
#include <sieve/impl/keys/sparse/common.hpp>

#include <string>

namespace sieve {
namespace Impl {
namespace Keys {

/// The word of a record of a sparse scatter on a native face: its key's
/// distance from the smallest key (host and device).
template <class Key, class Rec>
struct SparseWordOf {
  Key min;
  KOKKOS_INLINE_FUNCTION std::uint64_t operator()(const Rec& e) const {
    return keyDistance(static_cast<Key>(elementKey(e)), min);
  }
};

/// Whether the native sparse scatter takes these records (the plan's
/// SparseNative::recordSort): its face has it, takes the records
/// (NativeRecords, contiguous) and pays (sparseScatterPays).
template <class Exec, class S, class Out>
bool recordSortTakes(const S& src, const Out& output) {
  using N = NativeRecords<S, Out>;
  if constexpr (N::value) {
    return sieve::Impl::nativeTakes<Exec, sieve::Impl::Primitive::SparseScatter>(
        N::contiguous(src, output), [&](auto tag) {
          return sieve::Impl::Faces<decltype(tag)::value>::sparseScatterPays(
              src.records(), sizeof(typename N::Rec));
        });
  } else {
    (void)src, (void)output;
    return false;
  }
}

/// SparsePath::RecordSort: integer keys spanning `span` above `min` sorted
/// by the native sparse scatter (records moved twice, sorted in cache: no
/// gather), where recordSortTakes; then the offsets and keys of the runs,
/// each run's first id from the face's counts. False, with nothing
/// written, when the face declines skewed keys (a run over
/// sparseScatterMaxRun: sparseFallback follows). Blocks.
template <class Result, class Exec, class S, class Out, class Key>
bool sparseByRecordSort(const sieve::Impl::Names& names, const Exec& exec, const S& src,
                        const Out& output, const Key min, const std::uint64_t span,
                        const SparseDest<Result, Exec>& dest, Result& result) {
  using sieve::Impl::Primitive;
  constexpr const char* fn = "sieve::keys::scatter_sparse";
  using N = NativeRecords<S, Out>;
  const i64 n = src.records();
  SparseScatterResult r;
  // N::value is tested outside the generic lambda (see nativeDense).
  if constexpr (N::value) {
    using Rec = typename N::Rec;
    sieve::Impl::onNative<Exec, Primitive::SparseScatter>(fn, [&](auto tag) {
      sieve::Impl::fence(exec, "keys::scatter_sparse: inputs ready");
      r = sieve::Impl::Faces<decltype(tag)::value>::sparseScatter(
          exec, names, N::reader(src), n, SparseWordOf<Key, Rec>{min}, span, output.data());
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
  I64View<Exec> starts =
      sieve::Impl::allocate<I64View<Exec>>(alloc("run_starts"), static_cast<std::size_t>(V + 1));
  I64View<Exec> ids =
      sieve::Impl::allocate<I64View<Exec>>(alloc("run_keys"), static_cast<std::size_t>(V + 1));
  {
    const auto hs = sieve::Impl::hostMirror(starts);
    const auto hi = sieve::Impl::hostMirror(ids);
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

} // namespace Keys
} // namespace Impl
} // namespace sieve
