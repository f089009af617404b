// SPDX-License-Identifier: Apache-2.0
// Sieve — the scratch rule of sieve::keys::permute / unpermute, written once:
// a byte per sample (the "seen" marks that prove perm a permutation), then
// one staging plane of rows of the widest plane. Host and device callable,
// O(1).
#pragma once

#include <sieve/core/layout.hpp>
#include <sieve/core/macros.hpp>

#include <cstddef>
#include <cstdint>

namespace sieve {
namespace Impl {

/// The permute scratch (permuteScratchBytes(n, maxRowBytes) bytes, 16-byte
/// aligned) as the call carves it.
struct PermuteLayout {
  /// One byte per sample: set when some perm entry names it.
  SIEVE_HOST_DEVICE static constexpr ScratchRegion seen(std::int64_t n) {
    return {0, static_cast<std::size_t>(n > 1 ? n : 1)};
  }
  /// The staging plane: max(n, 1) rows of `rowBytes`, from a 16-byte boundary.
  SIEVE_HOST_DEVICE static constexpr ScratchRegion stage(std::int64_t n, std::size_t rowBytes) {
    return {(seen(n).end() + 15u) & ~std::size_t(15u),
            static_cast<std::size_t>(n > 1 ? n : 1) * rowBytes};
  }
};

} // namespace Impl

/// Bytes of scratch a permute (or unpermute) of `n` samples needs whose widest
/// plane row holds `maxRowBytes` bytes (a rank-1 plane: its element; a rank-2
/// plane with contiguous rows: extent(1) elements; a rank-2 plane of strided
/// columns: one element): max(n, 1) bytes rounded up to 16, then max(n, 1)
/// rows of maxRowBytes. O(1), host and device. n < 0 is the caller's to
/// reject (the public rule is sieve::permute_scratch_bytes).
namespace Impl {
SIEVE_INLINE constexpr std::size_t permuteScratchBytes(std::int64_t n, std::size_t maxRowBytes) {
  return PermuteLayout::stage(n, maxRowBytes).end();
}
} // namespace Impl

} // namespace sieve
