// SPDX-License-Identifier: Apache-2.0
// Sieve (internal) — what every path of scatter_sparse shares: a mapper's
// elements, the radix items, the sorted orders, where the result is written
// (SparseDest: fresh Views or a SparseWorkspace's buffers) and the gather that
// ends the paths that order indices (finishSparse).
#pragma once

#include <sieve/core/keys.hpp>
#include <sieve/impl/faces.hpp>
#include <sieve/core/tuning.hpp>
#include <sieve/impl/keys/counting.hpp>
#include <sieve/impl/keys/source.hpp>
#include <sieve/keys_results.hpp>

#include <cstdint>
#include <limits>
#include <string>
#include <utility>

namespace sieve {
namespace Impl {
namespace Keys {

template <class Exec>
using RadixItems = Kokkos::View<RadixItem*, typename Exec::memory_space>;
/// int64 indices in memory a View owns elsewhere (the radix order's, in scratch).
template <class Exec>
using UnmanagedI64 =
    Kokkos::View<i64*, typename Exec::memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

/// The elements of a mapper, in record order, in a View of the space.
template <class Exec, class S>
Kokkos::View<typename S::element_type*, typename Exec::memory_space> materialize(
    const Exec& exec, const sieve::Impl::Names& names, const S& src) {
  constexpr const char* fn = "sieve::keys::scatter_sparse";
  const i64 R = src.records();
  if (R + 1 > kMaxSparseElements)
    sieve::Impl::fail(fn, "the mapper has " + std::to_string(R) + " records; at most " +
                              std::to_string(kMaxSparseElements - 1) + " are taken");
  I64View<Exec> starts = sieve::Impl::allocate<I64View<Exec>>(
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
  auto elems =
      sieve::Impl::allocate<Kokkos::View<typename S::element_type*, typename Exec::memory_space>>(
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
      offsets = sieve::Impl::allocate<I64View<Exec>>(alloc(exec, names, "offsets"),
                                                     static_cast<std::size_t>(numKeys + 1));
      keys = sieve::Impl::allocate<keys_view>(alloc(exec, names, "keys"),
                                              static_cast<std::size_t>(numKeys));
      sieve::Impl::adviseHugePages(offsets);
      sieve::Impl::adviseHugePages(keys);
      return;
    }
    const i64 capacity = static_cast<i64>(kept->keys.extent(0));
    const bool shortOf = kept->offsets.extent(0) == 0 || capacity < numKeys;
    if (shortOf || shares(kept->offsets) || shares(kept->keys)) {
      const i64 grown = shortOf ? grownCapacity(capacity, numKeys, kMaxSparseElements) : capacity;
      I64View<Exec> o = sieve::Impl::allocate<I64View<Exec>>(
          alloc(exec, names, "workspace_offsets"), static_cast<std::size_t>(grown + 1));
      keys_view k = sieve::Impl::allocate<keys_view>(alloc(exec, names, "workspace_keys"),
                                                     static_cast<std::size_t>(grown));
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
    if (kept == nullptr)
      return sieve::Impl::allocate<bytes_view>(alloc(exec, names, "radix_scratch"), bytes);
    const std::size_t have = kept->scratch.extent(0);
    const bool shortOf = have < bytes;
    if (shortOf || shares(kept->scratch)) {
      const std::size_t grown = shortOf ? static_cast<std::size_t>(grownCapacity(
                                              static_cast<i64>(have), static_cast<i64>(bytes),
                                              std::numeric_limits<i64>::max()))
                                        : have;
      bytes_view fresh =
          sieve::Impl::allocate<bytes_view>(alloc(exec, names, "workspace_scratch"), grown);
      replaced.scratch = kept->scratch;
      kept->scratch = fresh;
    }
    return kept->scratch;
  }
};

/// The gather that ends a sparse scatter: output(p) = the element at sorted
/// position p (`order`), for the C chunks of n positions, and chunk(c) = the
/// key starts among chunk c's positions (a key starts where it exceeds the
/// one before: the keys ascend); chunk(C) = 0, so that an exclusive scan of
/// chunk gives every chunk's first key id and, last, the number of keys.
template <class Exec, class S, class Out, class Order>
void gatherKeyStarts(const sieve::Impl::Names& names, const Exec& exec, const S& src,
                     const Out& output, i64 n, i64 C, const Order& order,
                     const I64View<Exec>& chunk) {
  Kokkos::parallel_for(
      names("gather"), Range<Exec>(exec, 0, C + 1), KOKKOS_LAMBDA(const i64 c) {
        const i64 p0 = chunkBegin(c, C, n), p1 = c < C ? chunkBegin(c + 1, C, n) : p0;
        i64 starts = 0;
        if (p0 < p1) {
          auto prev = src.key(src.element(order.index(p0 > 0 ? p0 - 1 : 0), 0));
          constexpr i64 kAhead = Tuning::Portable::kGatherAhead; // prefetched (host)
          for (i64 p = p0; p < p1; ++p) {
            if (p + kAhead < p1) src.prefetch(order.index(p + kAhead));
            const auto e = src.element(order.index(p), 0);
            const auto k = src.key(e);
            output(p) = e;
            if (p == 0 || prev < k) ++starts;
            prev = k;
          }
        }
        chunk(c) = starts;
      });
}

/// Then every key's offset and key, from the output (read in order): chunk(c)
/// is chunk c's first key id. Ids at or past `cap` are not written (a key
/// functor that changed its answer between the passes); with `end`,
/// offsets(cap) = n; a non-zero `gate` word (device memory, or null) writes
/// nothing.
template <class Exec, class S, class Out, class Keys>
void keyOffsets(const sieve::Impl::Names& names, const Exec& exec, const S& src,
                const Out& output, i64 n, i64 C, const I64View<Exec>& chunk,
                const I64View<Exec>& offsets, const Keys& keys, i64 cap, bool end,
                const i64* gate) {
  Kokkos::parallel_for(
      names("key_offsets"), Range<Exec>(exec, 0, C), KOKKOS_LAMBDA(const i64 c) {
        if (gate != nullptr && *gate != 0) return;
        const i64 p0 = chunkBegin(c, C, n), p1 = chunkBegin(c + 1, C, n);
        i64 id = chunk(c);
        if (p0 < p1) {
          auto prev = src.key(output(p0 > 0 ? p0 - 1 : 0));
          for (i64 p = p0; p < p1; ++p) {
            const auto k = src.key(output(p));
            if (p == 0 || prev < k) {
              if (id < cap) {
                offsets(id) = p;
                keys(id) = k;
              }
              ++id;
            }
            prev = k;
          }
        }
        if (end && c == C - 1) offsets(cap) = n;
      });
}

/// The end of a sparse scatter: the gather and its key starts
/// (gatherKeyStarts), the chunks' first key ids by a host scan of one word
/// per chunk, the result's Views, then every key's offset and key
/// (keyOffsets). Blocks (reads back the chunk counts), then fences.
template <class Result, class Exec, class S, class Out, class Order>
Result finishSparse(const sieve::Impl::Names& names, const Exec& exec, const S& src,
                    const Out& output, i64 n, const Order& order,
                    const SparseDest<Result, Exec>& dest) {
  const i64 C = countingChunks(n, 1, exec.concurrency());
  I64View<Exec> chunk = sieve::Impl::allocate<I64View<Exec>>(
      Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, names("chunk_keys")),
      static_cast<std::size_t>(C + 1));
  gatherKeyStarts(names, exec, src, output, n, C, order, chunk);
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
  keyOffsets(names, exec, src, output, n, C, chunk, offsets, keys, numKeys, true, nullptr);
  // The temporaries are freed on return: wait for the kernels that use them.
  sieve::Impl::fence(exec, "keys::scatter_sparse: temporaries freed");
  return Result(offsets, keys, numKeys, n);
}

} // namespace Keys
} // namespace Impl
} // namespace sieve
