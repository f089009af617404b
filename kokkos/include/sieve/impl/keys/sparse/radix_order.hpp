// SPDX-License-Identifier: Apache-2.0
// Sieve (internal) — scatter_sparse, SparsePath::RadixOrder.
#pragma once

#include <sieve/core/keys.hpp>
#include <sieve/core/radix.hpp>
#include <sieve/impl/keys/sparse/common.hpp>

#include <cstdint>

namespace sieve {
namespace Impl {
namespace Keys {

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

/// SparsePath::RadixOrder: the stable order of a sparse scatter's integer
/// keys by the native face's radix order (where Exec's native face has it):
/// the keys' distances from `min` (read once), sorted in 8-bit passes over
/// the bits of `span`, in the scratch of `dest` (the words, the order and
/// the sort's); then the gather (finishSparse). Blocks, then fences.
template <class Result, class Exec, class S, class Out, class Key>
Result sparseByRadixOrder(const sieve::Impl::Names& names, const Exec& exec, const S& src,
                          const Out& output, const Key min, const std::uint64_t span,
                          const SparseDest<Result, Exec>& dest) {
  using sieve::Impl::Primitive;
  using Mem = typename Exec::memory_space;
  const i64 n = src.records();
  typename SparseDest<Result, Exec>::bytes_view held; // the words, the order, the sort's
  UnmanagedI64<Exec> order;
  sieve::Impl::onNative<Exec, Primitive::RadixOrder>("sieve::keys::scatter_sparse", [&](auto tag) {
    constexpr auto F = decltype(tag)::value;
    // [words: n][order: n][the sort's scratch], 64-byte aligned.
    const std::size_t plane = sieve::Impl::radixRound64(8u * static_cast<std::size_t>(n));
    const std::size_t sortBytes = sieve::Impl::Faces<F>::radixOrderScratchBytes(n);
    held = dest.scratch(exec, names, 64u + 2u * plane + sortBytes);
    const auto at = reinterpret_cast<std::uintptr_t>(held.data());
    unsigned char* base = held.data() + (64u - at % 64u) % 64u;
    Kokkos::View<std::uint64_t*, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>> words(
        reinterpret_cast<std::uint64_t*>(base), static_cast<std::size_t>(n));
    order = UnmanagedI64<Exec>(reinterpret_cast<i64*>(base + plane), static_cast<std::size_t>(n));
    Kokkos::parallel_for(names("radix_keys"), Range<Exec>(exec, 0, n),
                         RadixKeyWords<decltype(words), S, Key>{words, src, min});
    sieve::Impl::Faces<F>::radixOrder(exec, names, words.data(), n, radixTotalBits(span),
                                      order.data(), base + 2u * plane, sortBytes);
  });
  return finishSparse<Result>(names, exec, src, output, n, IndexOrder<UnmanagedI64<Exec>>{order},
                              dest);
}

} // namespace Keys
} // namespace Impl
} // namespace sieve
