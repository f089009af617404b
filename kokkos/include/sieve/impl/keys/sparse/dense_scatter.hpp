// SPDX-License-Identifier: Apache-2.0
// Sieve (internal) — scatter_sparse, SparsePath::DenseScatter.
#pragma once

#include <sieve/core/keys_plan.hpp>
#include <sieve/impl/keys/records.hpp>
#include <sieve/impl/keys/sparse/common.hpp>

namespace sieve {
namespace Impl {
namespace Keys {

/// Whether the native dense scatter takes a sparse scatter's keys spanning
/// `span` (the plan's SparseNative::dense): a span that fits
/// (sparseByDenseFits), records the face takes, and its pays rule.
template <class Exec, class S, class Out>
bool sparseDenseTakes(const S& src, const Out& output, std::uint64_t span) {
  return sparseByDenseFits(span) && denseTakes<Exec>(src, output, static_cast<i64>(span) + 1);
}

/// SparsePath::DenseScatter: the native dense scatter over the keys' span
/// [min, max] into the output (two passes, no gather), then the keys present
/// and their offsets from its dense offsets. Blocks, then fences.
template <class Result, class Exec, class S, class Out, class Key>
Result sparseByDense(const sieve::Impl::Names& names, const Exec& exec, const S& src,
                     const Out& output, const Key min, const Key max,
                     const SparseDest<Result, Exec>& dest) {
  constexpr const char* fn = "sieve::keys::scatter_sparse";
  const std::uint64_t span = keyDistance(max, min);
  const i64 K = static_cast<i64>(span) + 1, n = src.records();
  const auto alloc = [&](const char* what) {
    return Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, names(what));
  };
  I64View<Exec> dense = sieve::Impl::allocate<I64View<Exec>>(alloc("dense_offsets"),
                                                             static_cast<std::size_t>(K + 1));
  DenseScatterResult r;
  nativeDense(names, exec, DenseSrc<S, Out, false>{src, output, min, max}, n, K, dense.data(), r);
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
  return Result(offsets, keys, numKeys, n);
}

} // namespace Keys
} // namespace Impl
} // namespace sieve
