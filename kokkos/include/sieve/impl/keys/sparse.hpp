// SPDX-License-Identifier: Apache-2.0
// Sieve (internal) — scatter_sparse after its compile-time checks: the
// plan (core/keys_plan.hpp, sparsePath), then its path, each in a file of its
// own (impl/keys/sparse/); and count_elements.
#pragma once

#include <sieve/core/keys_plan.hpp>
#include <sieve/impl/keys/records.hpp>
#include <sieve/impl/keys/sparse/async.hpp>
#include <sieve/impl/keys/sparse/common.hpp>
#include <sieve/impl/keys/sparse/dense_scatter.hpp>
#include <sieve/impl/keys/sparse/merge_sort.hpp>
#include <sieve/impl/keys/sparse/one_key.hpp>
#include <sieve/impl/keys/sparse/portable_radix.hpp>
#include <sieve/impl/keys/sparse/radix_order.hpp>
#include <sieve/impl/keys/sparse/record_sort.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>

namespace sieve {
namespace Impl {
namespace Keys {

/// The face each path of scatter_sparse runs on.
template <class Exec>
sieve::Impl::Face sparseFace(SparsePath path) {
  using sieve::Impl::Primitive;
  switch (path) {
  case SparsePath::DenseScatter: return sieve::Impl::pathFace<Exec, Primitive::DenseScatter>(true);
  case SparsePath::RecordSort: return sieve::Impl::pathFace<Exec, Primitive::SparseScatter>(true);
  case SparsePath::RadixOrder: return sieve::Impl::pathFace<Exec, Primitive::RadixOrder>(true);
  default: return sieve::Impl::Face::Portable;
  }
}

/// scatter_sparse of one-element records (a View, or a mapper's elements):
/// its plan (core/keys_plan.hpp, sparsePath) from the key type, the keys'
/// extent (integer keys: a per-chunk min/max pass, its own region) and what
/// the native face takes, then that path, in a region named after it
/// ("<prefix>[<face>:<path>]"). A record sort that declines skewed keys is
/// followed by sparseFallback's path, in a region of its own. Result: the
/// SparseKeys of the key type.
template <class Result, class Exec, class S, class Out>
Result sparseOfArray(const sieve::Impl::Names& names, const Exec& exec, const S& src,
                     const Out& output, const SparseDest<Result, Exec>& dest) {
  constexpr const char* fn = "sieve::keys::scatter_sparse";
  using Key = typename S::key_type;
  using sieve::Impl::CallRegion;
  const i64 n = src.records();
  if (n > kMaxSparseElements)
    sieve::Impl::fail(fn, "the input has " + std::to_string(n) + " elements; at most " +
                              std::to_string(kMaxSparseElements) + " are taken");
  checkOutputHolds(fn, sieve::Impl::extent64(output), n);
  if constexpr (kIntegralKey<Key>) {
    KeyExtent<Key> e;
    if (n > 0) {
      const CallRegion range(names.prefix + ":key_range[portable]");
      e = keyExtent(exec, names, src);
    }
    const std::uint64_t span = keyDistance(e.max, e.min);
    SparseNative native;
    native.dense = sparseDenseTakes<Exec>(src, output, span);
    native.recordSort = recordSortTakes<Exec>(src, output);
    native.radixOrder = sieve::Impl::nativeTakes<Exec, sieve::Impl::Primitive::RadixOrder>(true);
    SparsePath path = sparsePath(n, true, span, native);
    if (path == SparsePath::RecordSort) {
      const CallRegion region(names, sparseFace<Exec>(path), pathName(path));
      Result result;
      if (sparseByRecordSort(names, exec, src, output, e.min, span, dest, result)) return result;
      path = sparseFallback(native);
    }
    const CallRegion region(names, sparseFace<Exec>(path), pathName(path));
    switch (path) {
    case SparsePath::Empty: return sparseEmpty<Result>(names, exec, dest);
    case SparsePath::OneKey: return sparseOneKey<Result>(names, exec, src, output, dest);
    case SparsePath::DenseScatter:
      return sparseByDense(names, exec, src, output, e.min, e.max, dest);
    case SparsePath::RadixOrder:
      return sparseByRadixOrder(names, exec, src, output, e.min, span, dest);
    default: return sparseByPortableRadix(names, exec, src, output, e.min, span, dest);
    }
  } else {
    const SparsePath path = sparsePath(n, false, 0, SparseNative{});
    const CallRegion region(names, sparseFace<Exec>(path), pathName(path));
    if (path == SparsePath::Empty) return sparseEmpty<Result>(names, exec, dest);
    return sparseByMergeSort(names, exec, src, output, dest);
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
  if (kept != nullptr && kept->elements >= 0) {
    if constexpr (Src::kOneToOne && kIntegralKey<typename Src::key_type>)
      return sparseAsync<Result>(names, exec, src, output, dest, generation, call);
    sieve::Impl::fail(fn,
                      "a fixed SparseWorkspace (made with elements) takes a View input, or "
                      "a keyed one: a mapper's element count is not known without reading "
                      "it back");
  }
  Result result;
  if constexpr (Src::kOneToOne) {
    result = sparseOfArray<Result>(names, exec, src, output, dest);
  } else {
    const auto elems = [&] {
      const sieve::Impl::CallRegion elements(names.prefix + ":elements[portable]");
      return materialize(exec, names, src);
    }();
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
