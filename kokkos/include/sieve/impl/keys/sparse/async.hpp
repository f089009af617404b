// SPDX-License-Identifier: Apache-2.0
// Sieve (internal) — scatter_sparse, SparsePath::AsyncRadix: the form of a
// fixed SparseWorkspace. The stable order over the key type's full width (no
// key range to read back): the native radix order where the space has one,
// else LSD radix passes, each the asynchronous counting sort on the
// workspace's histograms; then the gather, counting the key starts per
// chunk, their scan on the device, the number of keys and the rejection
// word, the keys' offsets gated on it, and the empty keys past the count.
// Nothing allocated, fenced or read back.
#pragma once

#include <sieve/impl/keys/sparse/common.hpp>
#include <sieve/impl/keys/sparse/portable_radix.hpp>
#include <sieve/impl/keys/sparse/radix_order.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>

namespace sieve {
namespace Impl {
namespace Keys {

/// SparsePath::AsyncRadix of a one-to-one source `src` (n records, at most
/// the workspace's elements) with a fixed SparseWorkspace `ws`. Result: the
/// SparseKeys of ws's capacity, the key count on the device.
template <class Result, class Exec, class S, class Out>
Result sparseAsync(const sieve::Impl::Names& names, const Exec& exec, const S& src,
                   const Out& output, const SparseDest<Result, Exec>& dest,
                   const std::shared_ptr<std::int64_t>& generation, std::int64_t call) {
  constexpr const char* fn = "sieve::keys::scatter_sparse";
  using Key = typename S::key_type;
  using Mem = typename Exec::memory_space;
  using Word = Kokkos::View<i64, Mem>;
  const i64 n = src.records();
  const auto& kept = *dest.kept;
  if (n > kept.elements)
    sieve::Impl::fail(fn, "the input has " + std::to_string(n) +
                              " elements; the fixed workspace was made for at most " +
                              std::to_string(kept.elements));
  checkOutputHolds(fn, sieve::Impl::extent64(output), n);
  if (dest.shares(kept.offsets) || dest.shares(kept.keys) || dest.shares(kept.scratch) ||
      dest.shares(kept.count) || dest.shares(kept.status))
    sieve::Impl::fail(fn,
                      "the input or the output lies in the fixed workspace's buffers, which "
                      "the call overwrites (it takes no fresh ones)");
  using sieve::Impl::Primitive;
  const bool native = sieve::Impl::nativeTakes<Exec, Primitive::RadixOrder>(true);
  const sieve::Impl::CallRegion region(names,
                                       sieve::Impl::pathFace<Exec, Primitive::RadixOrder>(native),
                                       pathName(SparsePath::AsyncRadix));
  const SparseAsyncLayout<Key> layout(kept.elements, kept.concurrency,
                                      nativeRadixOrderBytes<Exec>(kept.elements));
  // The layout's pieces in the workspace's scratch (64-byte aligned).
  const auto at = reinterpret_cast<std::uintptr_t>(kept.scratch.data());
  unsigned char* base = kept.scratch.data() + (64u - at % 64u) % 64u;
  const auto words = [&](std::size_t off, i64 count) {
    return I64View<Exec>(reinterpret_cast<i64*>(base + off), static_cast<std::size_t>(count));
  };
  const Word status = kept.status, count = kept.count;
  const Key lowest = std::numeric_limits<Key>::lowest();
  // The scratch of the scans (the passes' and the gather's); the order by key.
  const I64View<Exec> scan = words(layout.scan, layout.scanWords);
  I64View<Exec> idx;
  if (native) {
    // The native radix order of the keys' distances from the type's lowest.
    sieve::Impl::onNative<Exec, Primitive::RadixOrder>(fn, [&](auto tag) {
      constexpr auto F = decltype(tag)::value;
      Kokkos::View<std::uint64_t*, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>> keyWords(
          reinterpret_cast<std::uint64_t*>(base + layout.words), static_cast<std::size_t>(n));
      idx = words(layout.order, n);
      Kokkos::parallel_for(names("radix_keys"), Range<Exec>(exec, 0, n),
                           RadixKeyWords<decltype(keyWords), S, Key>{keyWords, src, lowest});
      sieve::Impl::Faces<F>::radixOrderAsync(
          exec, names, keyWords.data(), n, SparseAsyncLayout<Key>::kBits, idx.data(),
          reinterpret_cast<i64*>(base + layout.radixStatus), base + layout.sort, layout.sortBytes);
    });
  } else {
    // LSD radix passes, each the asynchronous counting sort.
    const auto items = [&](std::size_t off) {
      return RadixItems<Exec>(reinterpret_cast<RadixItem*>(base + off),
                              static_cast<std::size_t>(n));
    };
    idx = words(layout.idx, n);
    const i64 K = layout.buckets;
    // (at most the layout's chunks: this instance may have more threads)
    const i64 C = std::min(countingChunks(n, K, exec.concurrency()), layout.chunks);
    const I64View<Exec> hist = words(layout.hist, C * K), stats = words(layout.stats, 3 * C),
                        bucketOffsets = words(layout.bucketOffsets, K + 1);
    lsdPasses<Exec>(src, lowest, items(layout.itemsA), items(layout.itemsB), idx, layout.passes,
                    layout.bits, [&](const auto& digits) {
                      CountingSort<Exec, std::decay_t<decltype(digits)>> sort(exec, names, digits,
                                                                              K, C, hist, stats);
                      sort.histogramAsync(status);
                      sort.scatterAsync(bucketOffsets, status, scan);
                    });
  }

  // The gather in key order, counting the key starts of every chunk (the
  // keys ascend: a key starts where it exceeds the one before), then their
  // scan: the first key id of every chunk, and the number of keys.
  const i64 G = std::min(countingChunks(n, 1, exec.concurrency()), layout.gatherChunks);
  const I64View<Exec> chunk = words(layout.chunkKeys, G + 1);
  gatherKeyStarts(names, exec, src, output, n, G, IndexOrder<I64View<Exec>>{idx}, chunk);
  sieve::Impl::scanEntry<false>(sieve::Impl::Names(names.prefix, "sieve::exclusive_scan"), exec,
                                chunk, chunk, i64(0), scan);
  const i64 cap = static_cast<i64>(kept.keys.extent(0));
  Kokkos::parallel_for(
      names("key_count"), Range<Exec>(exec, 0, 1), KOKKOS_LAMBDA(const i64) {
        const i64 keys = chunk(G);
        count() = keys;
        status() = keys > cap ? keys : 0;
      });
  // Every key's offset and key, from the output (gated: more keys than the
  // capacity write none).
  const I64View<Exec> offsets = kept.offsets;
  const typename Result::keys_view keys = kept.keys;
  keyOffsets(names, exec, src, output, n, G, chunk, offsets, keys, cap, false, status.data());
  // The key ids past the count: empty, the last key repeated (rejected:
  // every key empty).
  Kokkos::parallel_for(
      names("empty_keys"), Range<Exec>(exec, 0, cap + 1), KOKKOS_LAMBDA(const i64 k) {
        if (status() != 0) {
          offsets(k) = 0;
          if (k < cap) keys(k) = Key{};
          return;
        }
        const i64 used = count();
        if (k < used) return;
        offsets(k) = n;
        if (k < cap) keys(k) = used > 0 ? keys(used - 1) : Key{};
      });
  Result result(kept.offsets, kept.keys, cap, n, count);
  result.attachCall(status, generation, call, cap);
  return result;
}

} // namespace Keys
} // namespace Impl
} // namespace sieve
