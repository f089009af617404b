// SPDX-License-Identifier: Apache-2.0
// Sieve — bit helpers and the 32-sample group rule, host and device callable.
#pragma once

#include <sieve/core/rules.hpp>

#include <cstdint>

namespace sieve {
namespace Impl {

/// Number of set bits of x.
SIEVE_INLINE int popcount32(std::uint32_t x) {
#if defined(__CUDA_ARCH__) || (defined(__HIP_DEVICE_COMPILE__) && __HIP_DEVICE_COMPILE__)
  return __popc(x);
#elif (defined(__GNUC__) || defined(__clang__)) && (defined(__POPCNT__) || !defined(__x86_64__))
  return __builtin_popcount(x);
#else // x86-64 baseline has no popcnt instruction: no library call, a few ALU ops
  x = x - ((x >> 1) & 0x55555555u);
  x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
  return static_cast<int>((((x + (x >> 4)) & 0x0F0F0F0Fu) * 0x01010101u) >> 24);
#endif
}

/// Index of the lowest set bit of x (x != 0).
SIEVE_INLINE int ctz32(std::uint32_t x) {
#if defined(__CUDA_ARCH__) || (defined(__HIP_DEVICE_COMPILE__) && __HIP_DEVICE_COMPILE__)
  return __ffs(static_cast<int>(x)) - 1;
#elif defined(__GNUC__) || defined(__clang__)
  return __builtin_ctz(x);
#else
  int k = 0;
  while (!(x & 1u)) {
    x >>= 1;
    ++k;
  }
  return k;
#endif
}

/// Bits of x at positions <= j (j in [0, 32)).
SIEVE_INLINE constexpr std::uint32_t bitsThrough(std::uint32_t x, int j) {
  return x & (0xFFFFFFFFu >> (31 - j));
}

/// Bit b set when byte b of the little-endian word w is non-zero, b < 4
/// (SIMD within a register: a few integer ops for four mask bytes).
SIEVE_INLINE constexpr std::uint32_t nonzeroNibble(std::uint32_t w) {
  // The high bit of every byte: set when its low 7 bits or its own high bit are.
  const std::uint32_t high = (((w & 0x7F7F7F7Fu) + 0x7F7F7F7Fu) | w) & 0x80808080u;
  // Bits 7, 15, 23, 31 moved to 28..31 by one multiply (no two partial
  // products meet, so nothing carries).
  return (high * 0x00204081u) >> 28;
}

/// Keep bits of 32 mask bytes given as 8 little-endian words (word w holds
/// bytes 4w .. 4w + 3): the group rule of groupKeepBits for a whole group.
SIEVE_INLINE constexpr std::uint32_t keepBitsOfWords(const std::uint32_t (&words)[8],
                                                     std::uint32_t flags) {
  std::uint32_t bits = 0;
  for (int w = 0; w < 8; ++w) bits |= nonzeroNibble(words[w]) << (4 * w);
  return bits ^ keepXorMask<std::uint32_t>(flags);
}

/// The 8 little-endian words of the 32 bytes at byte offset `m` (0..15) of
/// the 48 bytes held in `w` (12 little-endian words: three aligned 16-byte
/// loads covering an unaligned 32-byte group): out[k] = bytes m + 4k ..
/// m + 4k + 3. Selects with fixed indices (registers, not local memory, on a
/// GPU) and 64-bit shifts (funnel shifts there).
SIEVE_INLINE constexpr void realignWords(const std::uint32_t (&w)[12], unsigned m,
                                         std::uint32_t (&out)[8]) {
  const unsigned q = m >> 2, r = (m & 3u) * 8u;
  std::uint32_t s[9] = {};
  for (int k = 0; k < 9; ++k)
    s[k] = q == 0u ? w[k] : q == 1u ? w[k + 1] : q == 2u ? w[k + 2] : w[k + 3];
  for (int k = 0; k < 8; ++k)
    out[k] = static_cast<std::uint32_t>(
        ((static_cast<std::uint64_t>(s[k + 1]) << 32) | static_cast<std::uint64_t>(s[k])) >> r);
}

/// The shared-memory slot of staged item j of a tile (rows of 32): its column
/// XORed with its row, so that 32 threads each writing their k-th item at
/// rows of their own hit 32 different banks, and 32 consecutive items read by
/// a warp do too. A bijection on every row.
SIEVE_INLINE constexpr std::uint32_t stagedSlot(std::uint32_t j) { return j ^ ((j >> 5) & 31u); }

/// Keep bits of the aligned 32-sample group starting at `base` (a multiple of
/// 32): bit j is set when sample base + j < end is kept. `byteAt(i)` returns
/// mask byte i. The group rule of live32 and of the reorder bitmap.
template <class ByteAt>
SIEVE_INLINE std::uint32_t groupKeepBits(const ByteAt& byteAt, std::int64_t base, std::int64_t end,
                                         std::uint32_t flags) {
  std::uint32_t bits = 0;
  const std::int64_t len = end - base < 32 ? end - base : 32;
  for (std::int64_t j = 0; j < len; ++j)
    bits |= static_cast<std::uint32_t>(keeps(byteAt(base + j), flags)) << j;
  return bits;
}

/// Where slot i goes in a reorder, from the keep bits of the span (one word
/// per 32 samples, bit j of word w for sample 32w + j) and the exclusive count
/// of kept samples before each word; `cnt` is the kept count of the span. The
/// data-parallel form of reorderDst(), used by the CUDA and portable faces.
SIEVE_INLINE std::int64_t reorderDstFromBits(const std::uint32_t* bits,
                                             const std::uint32_t* wordOff, std::int64_t i,
                                             std::int64_t cnt) {
  const std::uint32_t w = bits[i >> 5];
  const int j = static_cast<int>(i & 31);
  const bool kept = (w >> j) & 1u;
  const std::int64_t incl =
      static_cast<std::int64_t>(wordOff[i >> 5]) + popcount32(bitsThrough(w, j));
  return reorderDst(kept, i, incl, cnt);
}

} // namespace Impl
} // namespace sieve
