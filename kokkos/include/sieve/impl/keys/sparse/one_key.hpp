// SPDX-License-Identifier: Apache-2.0
// Sieve (internal) — scatter_sparse, SparsePath::Empty and SparsePath::OneKey.
#pragma once

#include <sieve/impl/keys/sparse/common.hpp>

namespace sieve {
namespace Impl {
namespace Keys {

/// SparsePath::Empty: no element: no key, offsets {0}. Fences.
template <class Result, class Exec>
Result sparseEmpty(const sieve::Impl::Names& names, const Exec& exec,
                   const SparseDest<Result, Exec>& dest) {
  I64View<Exec> offsets;
  typename Result::keys_view keys;
  dest.views(exec, names, 0, offsets, keys);
  Kokkos::deep_copy(exec, offsets, i64(0));
  sieve::Impl::fence(exec, "keys::scatter_sparse: empty offsets written");
  return Result(offsets, keys, 0, 0);
}

/// SparsePath::OneKey: every key equal: the records in input order (the
/// gather of finishSparse in record order). Blocks, then fences.
template <class Result, class Exec, class S, class Out>
Result sparseOneKey(const sieve::Impl::Names& names, const Exec& exec, const S& src,
                    const Out& output, const SparseDest<Result, Exec>& dest) {
  return finishSparse<Result>(names, exec, src, output, src.records(), RecordOrder{}, dest);
}

} // namespace Keys
} // namespace Impl
} // namespace sieve
