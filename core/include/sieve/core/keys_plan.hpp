// SPDX-License-Identifier: Apache-2.0
// Sieve — the plan of a keys call: which path a scatter_dense or a
// scatter_sparse takes, chosen once per call from what the call knows (the
// key type, the span of the keys, what the native face takes) and named in
// its profiling region. No Kokkos, no CUDA runtime.
#pragma once

#include <sieve/core/macros.hpp>
#include <sieve/core/tuning.hpp>

#include <cstdint>

namespace sieve {
namespace Impl {

/// The paths of scatter_dense (and sort_permutation).
/// - NativeScatter: the native face's dense scatter (records moved by their
///   digit in passes over the records, no histogram per chunk).
/// - CountingSort: the generic counting sort (per-chunk histograms, their
///   scan, the scatter): any source, any space.
enum class DensePath { NativeScatter, CountingSort };

/// The paths of scatter_sparse.
/// - Empty: no element.
/// - OneKey: every key equal: the records in input order.
/// - DenseScatter: a span small enough for the native dense scatter over it,
///   then the keys present.
/// - RecordSort: the native sparse scatter (records sorted by their word,
///   moved twice, no gather); it declines skewed keys (sparseFallback).
/// - RadixOrder: the native face's radix order of the key words, then a
///   gather.
/// - PortableRadix: the generic LSD radix passes over (word, index), then a
///   gather.
/// - MergeSort: keys ordered by operator< only: a stable merge sort of
///   (key, index), then a gather.
enum class SparsePath {
  Empty,
  OneKey,
  DenseScatter,
  RecordSort,
  RadixOrder,
  PortableRadix,
  MergeSort,
  AsyncRadix ///< a fixed SparseWorkspace's: full-width radix, nothing read back
};

SIEVE_INLINE constexpr const char* pathName(DensePath p) {
  return p == DensePath::NativeScatter ? "dense_scatter" : "counting_sort";
}

SIEVE_INLINE constexpr const char* pathName(SparsePath p) {
  switch (p) {
  case SparsePath::Empty: return "empty";
  case SparsePath::OneKey: return "one_key";
  case SparsePath::DenseScatter: return "dense_scatter";
  case SparsePath::RecordSort: return "record_sort";
  case SparsePath::RadixOrder: return "radix_order";
  case SparsePath::PortableRadix: return "portable_radix";
  case SparsePath::MergeSort: return "merge_sort";
  case SparsePath::AsyncRadix: return "async_radix";
  }
  return "";
}

/// scatter_dense: the native scatter where the native face takes the call's
/// records and pays (its own rule, asked by the caller), else the counting sort.
SIEVE_INLINE constexpr DensePath densePath(bool nativeTakes) {
  return nativeTakes ? DensePath::NativeScatter : DensePath::CountingSort;
}

/// Whether a sparse scatter's keys spanning `span` above the smallest may
/// run as a dense scatter over span + 1 keys (Tuning::Keys).
SIEVE_INLINE constexpr bool sparseByDenseFits(std::uint64_t span) {
  return span < (std::uint64_t(1) << Tuning::Keys::kSparseByDenseSpanBits);
}

/// What the native face of the call's space takes of a sparse scatter (each
/// flag false on the portable face): `dense`, the dense scatter over span + 1
/// keys (asked only where sparseByDenseFits); `recordSort`, the sparse
/// scatter of the records; `radixOrder`, the radix order of 64-bit words.
struct SparseNative {
  bool dense = false;
  bool recordSort = false;
  bool radixOrder = false;
};

/// The path of a scatter_sparse of n elements whose keys are integers
/// (`integral`) spanning `span` (largest - smallest; integral keys only).
SIEVE_INLINE constexpr SparsePath sparsePath(std::int64_t n, bool integral, std::uint64_t span,
                                             SparseNative native) {
  if (n == 0) return SparsePath::Empty;
  if (!integral) return SparsePath::MergeSort;
  if (span == 0) return SparsePath::OneKey;
  if (native.dense && sparseByDenseFits(span)) return SparsePath::DenseScatter;
  if (native.recordSort) return SparsePath::RecordSort;
  return native.radixOrder ? SparsePath::RadixOrder : SparsePath::PortableRadix;
}

/// The path that follows a record sort that declined (a run longer than it
/// sorts in cache: skewed keys, nothing written).
SIEVE_INLINE constexpr SparsePath sparseFallback(SparseNative native) {
  return native.radixOrder ? SparsePath::RadixOrder : SparsePath::PortableRadix;
}

} // namespace Impl
} // namespace sieve
