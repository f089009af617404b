// SPDX-License-Identifier: Apache-2.0
// Sieve (internal) — the keep bits of one aligned 32-sample group of a byte
// mask, loaded vectorised: the mask read of the single-pass compaction
// (compact.cu) and of the selection (select.cu).
#pragma once

#include <sieve/core/bits.hpp>
#include <sieve/core/rules.hpp>
#include <sieve/native/cuda/impl/launch.cuh>

#include <cstdint>

namespace sieve {
namespace Impl {

/// Keep bits of the aligned group at `base` (32 samples, fewer at the end).
/// A 16-byte aligned mask: two 16-byte loads. Otherwise (mask % 16 = m != 0)
/// three aligned 16-byte loads covering the group, realigned by m bytes,
/// wherever those 48 bytes lie inside the mask (every group but the first and
/// the last one or two); byte loads there.
template <bool Aligned>
__device__ __forceinline__ std::uint32_t keepBits(const std::uint8_t* mask, std::int64_t base,
                                                  std::int64_t n, std::uint32_t flags) {
  if (Aligned && base + 32 <= n) {
    const auto* p = reinterpret_cast<const uint4*>(mask + base);
    const uint4 lo = __ldg(p), hi = __ldg(p + 1);
    const std::uint32_t words[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
    return keepBitsOfWords(words, flags); // SWAR: a few ops per 4 bytes
  }
  if (!Aligned && base >= 32 && base + 48 <= n) {
    const auto m = static_cast<unsigned>(reinterpret_cast<std::uintptr_t>(mask + base) % 16u);
    const auto* p = reinterpret_cast<const uint4*>(mask + base - m);
    const uint4 a = __ldg(p), b = __ldg(p + 1), c = __ldg(p + 2);
    const std::uint32_t w[12] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w, c.x, c.y, c.z, c.w};
    std::uint32_t words[8];
    realignWords(w, m, words);
    return keepBitsOfWords(words, flags);
  }
  return groupKeepBits([&](std::int64_t i) { return mask[i]; }, base, n, flags);
}

} // namespace Impl
} // namespace sieve
