// SPDX-License-Identifier: Apache-2.0
// Sieve (internal) — scatter_dense and sort_permutation after their
// compile-time checks: [the key range by a per-chunk min/max pass] -> the plan
// (core/keys_plan.hpp, densePath) -> the native dense scatter, or the counting
// sort (per-chunk histograms that also count the keys outside the range, read
// back: a bad key throws before anything is written; bucket bases by sieve's
// exclusive scan; the scatter, every chunk in record order: counting.hpp).
#pragma once

#include <sieve/core/keys_plan.hpp>
#include <sieve/impl/keys/records.hpp>
#include <sieve/keys_results.hpp>

#include <new>
#include <stdexcept>
#include <string>

namespace sieve {
namespace Impl {
namespace Keys {

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
    if (!e.any)
      return Result(sieve::Impl::allocate<I64View<Exec>>(names("offsets"), 1), 0, 0, Key{}, Key{});
    minKey = e.min;
    maxKey = e.max;
  }
  const i64 K = checkKeyRange(fn, minKey, maxKey);
  const DensePath path = densePath(denseTakes<Exec>(src, output, K));
  const bool native = path == DensePath::NativeScatter;
  const sieve::Impl::CallRegion region(
      names, sieve::Impl::pathFace<Exec, sieve::Impl::Primitive::DenseScatter>(native),
      pathName(path));
  const std::string range = "[" + std::to_string(minKey) + ", " + std::to_string(maxKey) + "]";
  using D = DenseSrc<Src, Out>;
  const D dense{src, output, minKey, maxKey};
  // A range the histograms (about keys * chunks words) or the offsets do
  // not fit in memory: an argument error, not a bare allocation failure.
  const auto allocOffsets = [&] {
    try {
      return sieve::Impl::allocate<I64View<Exec>>(
          Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, names("offsets")),
          static_cast<std::size_t>(K + 1));
    } catch (const std::bad_alloc& e) {
      failRangeTooLarge(fn, minKey, maxKey, K, src.records(), e.what());
    } catch (const std::runtime_error& e) {
      failRangeTooLarge(fn, minKey, maxKey, K, src.records(), e.what());
    }
  };
  if (native) {
    const I64View<Exec> offsets = allocOffsets();
    DenseScatterResult r;
    nativeDense(names, exec, dense, src.records(), K, offsets.data(), r);
    checkKeysInRange(fn, r.outside, range);
    if (r.changed > 0) failKeyChanged(fn, r.changed);
    return Result(offsets, K, src.records(), minKey, maxKey);
  }
  CountingSort<Exec, D> sort(exec, names, dense, K);
  try {
    sort.allocate();
  } catch (const std::bad_alloc& e) {
    failRangeTooLarge(fn, minKey, maxKey, K, src.records(), e.what());
  } catch (const std::runtime_error& e) {
    failRangeTooLarge(fn, minKey, maxKey, K, src.records(), e.what());
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
    const DensePath path = densePath(kHost && denseTakes<Exec>(src, output, ws.num_keys()));
    const bool native = path == DensePath::NativeScatter;
    const sieve::Impl::CallRegion region(
        names, sieve::Impl::pathFace<Exec, sieve::Impl::Primitive::DenseScatter>(native),
        pathName(path));
    using D = DenseSrc<Src, Out, false>;
    const D dense{src, output, ws.min_key(), ws.max_key()};
    if constexpr (kHost) {
      if (native) {
        // The native faces run on the host's threads, synchronously: the
        // rejection word is set here (keys outside the range: their number),
        // every key empty then. (Views only: no device count.)
        const i64 n = src.records();
        DenseScatterResult r;
        nativeDense(names, exec, dense, n, ws.num_keys(), ws.offsets().data(), r);
        if (r.changed > 0) failKeyChanged(fn, r.changed);
        const i64 status = r.outside;
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

} // namespace Keys
} // namespace Impl
} // namespace sieve
