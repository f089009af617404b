// SPDX-License-Identifier: Apache-2.0
// Sieve — the host hot loops in AVX2 and AVX-512 (x86-64, chosen at run time;
// only these functions carry the target attributes, the rest of the library is
// built for the baseline).
#include "kernels.hpp"

#if SIEVE_HOST_X86_DISPATCH

#include "maskbits.hpp"

#include <sieve/core/elem.hpp>

#if defined(__GNUC__) && !defined(__clang__)
// GCC 12 reports its own _mm512_undefined_* intrinsics as maybe-uninitialized.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include <immintrin.h>

#include <cstdint>

namespace sieve {
namespace Impl {
namespace {

// ---------------------------------------------------------------- AVX2 -----

/// Keep bits of 32 samples.
SIEVE_TARGET_AVX2 inline std::uint32_t keep32Avx2(const std::uint8_t* p, std::uint32_t flip32) {
  const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  const auto zero = static_cast<std::uint32_t>(
      _mm256_movemask_epi8(_mm256_cmpeq_epi8(v, _mm256_setzero_si256())));
  return zero ^ flip32; // flip32 = keepXorMaskForZeroBits (zero-byte bits to keep bits)
}

SIEVE_TARGET_AVX2 void countAvx2(const std::uint8_t* mask, std::uint32_t flags, std::int64_t a,
                                 std::int64_t b, std::uint32_t* kept, std::uint32_t* live) {
  const std::uint32_t flip32 = keepXorMaskForZeroBits<std::uint32_t>(flags);
  std::uint64_t c = 0, l = 0;
  std::int64_t i = a;
  for (; i + 32 <= b; i += 32) {
    const std::uint32_t bits = keep32Avx2(mask + i, flip32);
    c += static_cast<std::uint64_t>(_mm_popcnt_u32(bits));
    l += bits != 0u;
  }
  if (i < b) {
    const std::uint32_t bits = keepBitsTail(mask + i, b - i, flags);
    c += static_cast<std::uint64_t>(_mm_popcnt_u32(bits));
    l += bits != 0u;
  }
  *kept = static_cast<std::uint32_t>(c);
  *live = static_cast<std::uint32_t>(l);
}

SIEVE_TARGET_AVX2 void writeAvx2(const std::uint8_t* mask, std::uint32_t flags, std::int64_t a,
                                 std::int64_t b, std::int32_t* map, std::int64_t pos,
                                 std::int64_t end) {
  const std::uint32_t flip32 = keepXorMaskForZeroBits<std::uint32_t>(flags);
  std::int64_t i = a;
  for (; i + 32 <= b; i += 32) {
    std::uint32_t bits = keep32Avx2(mask + i, flip32);
    if (pos + 32 <= end) {
      // One table row (8 slots) per byte of bits, stored unconditionally inside
      // [pos, end); the slack is overwritten in order by what follows.
      __m256i base = _mm256_set1_epi32(static_cast<int>(i));
      const __m256i eight = _mm256_set1_epi32(8);
      for (int q = 0; q < 4; ++q) {
        const std::uint32_t m = (bits >> (8 * q)) & 0xFFu;
        const __m256i row = _mm256_load_si256(reinterpret_cast<const __m256i*>(kBitLut.pos[m]));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(map + pos), _mm256_add_epi32(row, base));
        pos += kBitLut.pop[m];
        base = _mm256_add_epi32(base, eight);
      }
    } else {
      for (; bits != 0u; bits &= bits - 1u)
        map[pos++] = static_cast<std::int32_t>(i + _tzcnt_u32(bits));
    }
  }
  for (; i < b; ++i)
    if (keeps(mask[i], flags)) map[pos++] = static_cast<std::int32_t>(i);
}

/// Inclusive prefix of the 8 lanes of x.
SIEVE_TARGET_AVX2 inline __m256i prefix8Avx2(__m256i x) {
  x = _mm256_add_epi32(x, _mm256_slli_si256(x, 4));
  x = _mm256_add_epi32(x, _mm256_slli_si256(x, 8));
  const __m256i low3 = _mm256_shuffle_epi32(x, 0xFF);                      // lane 3 of each half
  return _mm256_add_epi32(x, _mm256_permute2x128_si256(low3, low3, 0x08)); // into the high half
}

SIEVE_TARGET_AVX2 std::uint32_t scanSum32Avx2(const std::uint32_t* in, std::uint32_t* out,
                                              std::int64_t len, std::uint32_t pre, bool inclusive) {
  const __m256i last = _mm256_set1_epi32(7);
  __m256i carry = _mm256_set1_epi32(static_cast<int>(pre));
  std::int64_t i = 0;
  for (; i + 32 <= len; i += 32) {
    __m256i x[4], p[4], t[4];
    for (int k = 0; k < 4; ++k) {
      x[k] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i + 8 * k));
      p[k] = prefix8Avx2(x[k]);
      t[k] = _mm256_permutevar8x32_epi32(p[k], last);
    }
    __m256i off = carry;
    for (int k = 0; k < 4; ++k) {
      const __m256i incl = _mm256_add_epi32(p[k], off);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i + 8 * k),
                          inclusive ? incl : _mm256_sub_epi32(incl, x[k]));
      off = _mm256_add_epi32(off, t[k]);
    }
    carry = off;
  }
  std::uint32_t acc = static_cast<std::uint32_t>(_mm256_cvtsi256_si32(carry));
  return scanSum32Tail(in, out, i, len, acc, inclusive);
}

/// The indices of the non-zero mask bytes of [i, i + len) into dst, as int64
/// or int32 (Index): per 8 samples, the table row of their bits (the positions
/// of the set bits, as int32) offset by their base and stored whole (32 or 64
/// bytes; the slack is overwritten by what follows or lies in the caller's room).
template <class Index>
SIEVE_TARGET_AVX2 inline std::int64_t selectIndicesAvx2T(const std::uint8_t* mask, std::int64_t i,
                                                         std::int64_t len, Index* dst) {
  const std::uint32_t nonzero = keepXorMaskForZeroBits<std::uint32_t>(0u);
  std::int64_t f = 0, j = 0;
  for (; j + 32 <= len; j += 32) {
    const std::uint32_t bits = keep32Avx2(mask + i + j, nonzero);
    if (bits == 0u) continue;
    for (int q = 0; q < 4; ++q) {
      const std::uint32_t m = (bits >> (8 * q)) & 0xFFu;
      const auto* row = reinterpret_cast<const __m128i*>(kBitLut.pos[m]);
      const std::int64_t base = i + j + 8 * q;
      if constexpr (sizeof(Index) == 8) {
        const __m256i b = _mm256_set1_epi64x(base);
        auto* d = reinterpret_cast<__m256i*>(dst + f);
        _mm256_storeu_si256(d, _mm256_add_epi64(b, _mm256_cvtepi32_epi64(_mm_load_si128(row))));
        _mm256_storeu_si256(d + 1,
                            _mm256_add_epi64(b, _mm256_cvtepi32_epi64(_mm_load_si128(row + 1))));
      } else {
        const __m256i b = _mm256_set1_epi32(static_cast<int>(base));
        _mm256_storeu_si256(
            reinterpret_cast<__m256i*>(dst + f),
            _mm256_add_epi32(b, _mm256_load_si256(reinterpret_cast<const __m256i*>(row))));
      }
      f += kBitLut.pop[m];
    }
  }
  return f + selectExact<Index>(mask, i + j, len - j, reinterpret_cast<unsigned char*>(dst + f),
                                [](std::int64_t k) { return static_cast<Index>(k); });
}

SIEVE_TARGET_AVX2 std::int64_t selectIndicesAvx2(const std::uint8_t* mask, std::int64_t i,
                                                 std::int64_t len, std::int64_t* dst) {
  return selectIndicesAvx2T(mask, i, len, dst);
}

SIEVE_TARGET_AVX2 std::int64_t selectIndices32Avx2(const std::uint8_t* mask, std::int64_t i,
                                                   std::int64_t len, std::int32_t* dst) {
  return selectIndicesAvx2T(mask, i, len, dst);
}

/// The items of offsetIndices before dst's first whole line, exactly;
/// returns how many. A dst not aligned to its items is not streamed
/// (`stream` cleared; nothing written here: the plain stores take it all).
inline std::int64_t offsetHead(const std::int32_t* rel, std::int64_t len, std::int64_t base,
                               unsigned char* dst, int W, bool& stream) {
  const auto addr = reinterpret_cast<std::uintptr_t>(dst);
  if (addr % static_cast<std::uintptr_t>(W) != 0) {
    stream = false;
    return 0;
  }
  const auto head = static_cast<std::int64_t>((64 - addr % 64) % 64) / W;
  const std::int64_t k = head < len ? head : len;
  offsetIndicesExact(rel, 0, k, base, dst, static_cast<std::uint32_t>(W));
  return k;
}

/// 32 bytes of items base + rel[0, 32 / W): int64 (W = 8) or int32 (W = 4).
template <int W>
SIEVE_TARGET_AVX2 inline __m256i offsetItemsAvx2(const std::int32_t* rel, __m256i base) {
  if constexpr (W == 8)
    return _mm256_add_epi64(
        base, _mm256_cvtepi32_epi64(_mm_loadu_si128(reinterpret_cast<const __m128i*>(rel))));
  else return _mm256_add_epi32(base, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(rel)));
}

/// base + rel[k] as int64 or int32 (Item): the items before dst's first
/// whole line and after its last exactly, each line between as two 32-byte
/// stores (non-temporal with `stream`, which needs dst item-aligned: an
/// unaligned dst is written with plain stores throughout).
template <class Item>
SIEVE_TARGET_AVX2 void offsetIndicesAvx2T(const std::int32_t* rel, std::int64_t len,
                                          std::int64_t base, unsigned char* dst, bool stream) {
  constexpr int W = sizeof(Item);
  constexpr std::int64_t perLine = 64 / W, perStore = 32 / W;
  std::int64_t k = offsetHead(rel, len, base, dst, W, stream);
  const __m256i b =
      W == 8 ? _mm256_set1_epi64x(base) : _mm256_set1_epi32(static_cast<std::int32_t>(base));
  if (stream) {
    for (; k + perLine <= len; k += perLine) {
      auto* d = reinterpret_cast<__m256i*>(dst + k * W);
      _mm256_stream_si256(d, offsetItemsAvx2<W>(rel + k, b));
      _mm256_stream_si256(d + 1, offsetItemsAvx2<W>(rel + k + perStore, b));
    }
  } else {
    for (; k + perLine <= len; k += perLine) {
      auto* d = reinterpret_cast<__m256i*>(dst + k * W);
      _mm256_storeu_si256(d, offsetItemsAvx2<W>(rel + k, b));
      _mm256_storeu_si256(d + 1, offsetItemsAvx2<W>(rel + k + perStore, b));
    }
  }
  offsetIndicesExact(rel, k, len, base, dst, W);
}

SIEVE_TARGET_AVX2 void offsetIndicesAvx2(const std::int32_t* rel, std::int64_t len,
                                         std::int64_t base, void* dst, std::uint32_t itemBytes,
                                         bool stream) {
  auto* d = static_cast<unsigned char*>(dst);
  if (itemBytes == 8u) offsetIndicesAvx2T<std::int64_t>(rel, len, base, d, stream);
  else offsetIndicesAvx2T<std::int32_t>(rel, len, base, d, stream);
}

/// The lane permutation that packs the selected 8-byte lanes of 4 (bits of a
/// nibble) to the front, as the int32 indices of _mm256_permutevar8x32_epi32.
struct Pack64Lut {
  alignas(32) std::int32_t idx[16][8];
};

constexpr Pack64Lut makePack64Lut() {
  Pack64Lut t{};
  for (int m = 0; m < 16; ++m)
    for (int k = 0; k < 4; ++k) {
      const int p = kBitLut.pos[m][k]; // 0 past the selected lanes: any lane will do
      t.idx[m][2 * k] = 2 * p;
      t.idx[m][2 * k + 1] = 2 * p + 1;
    }
  return t;
}

constexpr Pack64Lut kPack64Lut = makePack64Lut();

/// The selected values of 8 (W = 4) or 4 (W = 8) samples packed to the front
/// of a 32-byte store at dst: one permutation per 32 bytes of values.
template <int W>
SIEVE_TARGET_AVX2 std::int64_t selectValuesAvx2W(const std::uint8_t* mask, std::int64_t i,
                                                 std::int64_t len, const unsigned char* v,
                                                 unsigned char* dst) {
  constexpr int lanes = 32 / W;
  const std::uint32_t nonzero = keepXorMaskForZeroBits<std::uint32_t>(0u);
  std::int64_t f = 0, j = 0;
  for (; j + 32 <= len; j += 32) {
    const std::uint32_t bits = keep32Avx2(mask + i + j, nonzero);
    if (bits == 0u) continue;
    for (int q = 0; q < 32; q += lanes) {
      const std::uint32_t k = (bits >> q) & ((1u << lanes) - 1u);
      if (k == 0u) continue; // 32 bytes of values with nothing selected are not read
      const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(v + (i + j + q) * W));
      const auto* idx =
          reinterpret_cast<const __m256i*>(W == 4 ? kBitLut.pos[k] : kPack64Lut.idx[k]);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + f * W),
                          _mm256_permutevar8x32_epi32(x, _mm256_load_si256(idx)));
      f += _mm_popcnt_u32(k);
    }
  }
  using T = ElemOf<W>;
  const auto at = [v](std::int64_t k) {
    T x;
    std::memcpy(&x, v + k * W, sizeof(T));
    return x;
  };
  return f + selectExact<T>(mask, i + j, len - j, dst + f * W, at);
}

SIEVE_TARGET_AVX2 std::int64_t selectValuesAvx2(const std::uint8_t* mask, std::int64_t i,
                                                std::int64_t len, const void* values,
                                                std::uint32_t elemBytes, void* dst) {
  const auto* v = static_cast<const unsigned char*>(values);
  auto* d = static_cast<unsigned char*>(dst);
  switch (elemBytes) {
  case 4: return selectValuesAvx2W<4>(mask, i, len, v, d);
  case 8: return selectValuesAvx2W<8>(mask, i, len, v, d);
  default: return hostKernelsPortable().selectValues(mask, i, len, values, elemBytes, dst);
  }
}

// -------------------------------------------------------------- AVX-512 -----

/// Non-zero bits of the `len` (<= 64) mask bytes at p; no byte past them is read.
SIEVE_TARGET_AVX512 inline std::uint64_t nonzero64Avx512(const std::uint8_t* p, std::int64_t len) {
  if (len >= 64) {
    const __m512i v = _mm512_loadu_si512(p);
    return static_cast<std::uint64_t>(_mm512_test_epi8_mask(v, v));
  }
  const auto lanes = static_cast<__mmask64>((std::uint64_t(1) << len) - 1u);
  const __m512i v = _mm512_maskz_loadu_epi8(lanes, p);
  return static_cast<std::uint64_t>(_mm512_test_epi8_mask(v, v));
}

/// Keep bits of 64 samples.
SIEVE_TARGET_AVX512 inline std::uint64_t keep64Avx512(const std::uint8_t* p, std::uint64_t flip64) {
  return nonzero64Avx512(p, 64) ^ flip64;
}

/// The byte offsets 0 .. 63, compressed by keep bits into the kept offsets.
alignas(64) constexpr std::uint8_t kIota[64] = {
    0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21,
    22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43,
    44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63};

/// Step G of a block's select: base + offset bytes [G * S, (G + 1) * S) of
/// `offs` widened to Index (S = 8 int64 or 16 int32, one 64-byte store at
/// d + G * S), then the next step while items remain (G a constant: the
/// bytes come out of the register with immediates, no chain between steps).
template <class Index, int G>
SIEVE_TARGET_AVX512 inline void selectStepsAvx512(Index* d, __m512i offs, std::int64_t base,
                                                  int cnt) {
  constexpr int S = 64 / static_cast<int>(sizeof(Index));
  const __m128i q = _mm512_extracti32x4_epi32(offs, (G * S) / 16);
  if constexpr (sizeof(Index) == 8)
    _mm512_storeu_si512(
        d + G * S, _mm512_add_epi64(_mm512_set1_epi64(base),
                                    _mm512_cvtepu8_epi64(G % 2 != 0 ? _mm_srli_si128(q, 8) : q)));
  else
    _mm512_storeu_si512(d + G * S, _mm512_add_epi32(_mm512_set1_epi32(static_cast<int>(base)),
                                                    _mm512_cvtepu8_epi32(q)));
  if constexpr ((G + 1) * S < 64)
    if ((G + 1) * S < cnt) selectStepsAvx512<Index, G + 1>(d, offs, base, cnt);
}

SIEVE_TARGET_AVX512 void countAvx512(const std::uint8_t* mask, std::uint32_t flags, std::int64_t a,
                                     std::int64_t b, std::uint32_t* kept, std::uint32_t* live) {
  const std::uint64_t flip64 = keepXorMask<std::uint64_t>(flags);
  std::uint64_t c = 0, l = 0;
  std::int64_t i = a;
  for (; i + 64 <= b; i += 64) {
    const std::uint64_t bits = keep64Avx512(mask + i, flip64);
    c += static_cast<std::uint64_t>(_mm_popcnt_u64(bits));
    l += (static_cast<std::uint32_t>(bits) != 0u) + ((bits >> 32) != 0u);
  }
  for (; i < b; i += 32) {
    const std::int64_t len = b - i < 32 ? b - i : 32;
    const std::uint32_t bits = keepBits32(mask + i, len, flags);
    c += static_cast<std::uint64_t>(_mm_popcnt_u32(bits));
    l += bits != 0u;
  }
  *kept = static_cast<std::uint32_t>(c);
  *live = static_cast<std::uint32_t>(l);
}

SIEVE_TARGET_AVX512 void writeAvx512(const std::uint8_t* mask, std::uint32_t flags, std::int64_t a,
                                     std::int64_t b, std::int32_t* map, std::int64_t pos,
                                     std::int64_t end) {
  const std::uint64_t flip64 = keepXorMask<std::uint64_t>(flags);
  const __m512i iota = _mm512_load_si512(kIota);
  std::int64_t i = a;
  for (; i + 64 <= b; i += 64) {
    std::uint64_t bits = keep64Avx512(mask + i, flip64);
    const auto cnt = static_cast<std::int64_t>(_mm_popcnt_u64(bits));
    if (pos + 64 <= end) {
      // The kept offsets of 64 samples compressed into bytes at once, widened
      // 16 at a time; one 64-byte store per 16 kept (the first whatever the
      // count). The stores stay inside [pos, end) and their slack is
      // overwritten in order by what follows.
      selectStepsAvx512<std::int32_t, 0>(
          map + pos, _mm512_maskz_compress_epi8(static_cast<__mmask64>(bits), iota), i,
          static_cast<int>(cnt));
      pos += cnt;
    } else {
      for (; bits != 0u; bits &= bits - 1u)
        map[pos++] = static_cast<std::int32_t>(i + static_cast<std::int64_t>(_tzcnt_u64(bits)));
    }
  }
  for (; i < b; ++i)
    if (keeps(mask[i], flags)) map[pos++] = static_cast<std::int32_t>(i);
}

/// Inclusive prefix of the 16 lanes of x.
SIEVE_TARGET_AVX512 inline __m512i prefix16Avx512(__m512i x) {
  const __m512i z = _mm512_setzero_si512();
  x = _mm512_add_epi32(x, _mm512_alignr_epi32(x, z, 15));
  x = _mm512_add_epi32(x, _mm512_alignr_epi32(x, z, 14));
  x = _mm512_add_epi32(x, _mm512_alignr_epi32(x, z, 12));
  x = _mm512_add_epi32(x, _mm512_alignr_epi32(x, z, 8));
  return x;
}

SIEVE_TARGET_AVX512 std::uint32_t scanSum32Avx512(const std::uint32_t* in, std::uint32_t* out,
                                                  std::int64_t len, std::uint32_t pre,
                                                  bool inclusive) {
  const __m512i last = _mm512_set1_epi32(15);
  __m512i carry = _mm512_set1_epi32(static_cast<int>(pre));
  std::int64_t i = 0;
  for (; i + 64 <= len; i += 64) {
    __m512i x[4], p[4], t[4];
    for (int k = 0; k < 4; ++k) {
      x[k] = _mm512_loadu_si512(in + i + 16 * k);
      p[k] = prefix16Avx512(x[k]);
      t[k] = _mm512_permutexvar_epi32(last, p[k]);
    }
    __m512i off = carry;
    for (int k = 0; k < 4; ++k) {
      const __m512i incl = _mm512_add_epi32(p[k], off);
      _mm512_storeu_si512(out + i + 16 * k, inclusive ? incl : _mm512_sub_epi32(incl, x[k]));
      off = _mm512_add_epi32(off, t[k]);
    }
    carry = off;
  }
  std::uint32_t acc = static_cast<std::uint32_t>(_mm512_cvtsi512_si32(carry));
  return scanSum32Tail(in, out, i, len, acc, inclusive);
}

/// Keep bits of the `lanes` samples at i (lanes <= 64, i % lanes == 0 for
/// lanes <= 32, i % 32 == 0 for 64).
inline std::uint64_t laneBits(const std::uint32_t* bits, std::int64_t i, int lanes) {
  if (lanes == 64) return bits[i >> 5] | (static_cast<std::uint64_t>(bits[(i >> 5) + 1]) << 32);
  return (bits[i >> 5] >> (i & 31)) & ((std::uint64_t(1) << lanes) - 1);
}

/// Compress the kept and the dropped lanes of v (lane width W bytes).
template <int W>
SIEVE_TARGET_AVX512 inline void compressLanes(__m512i v, std::uint64_t k, __m512i& kept,
                                              __m512i& dropped) {
  if constexpr (W == 1) {
    kept = _mm512_maskz_compress_epi8(static_cast<__mmask64>(k), v);
    dropped = _mm512_maskz_compress_epi8(static_cast<__mmask64>(~k), v);
  } else if constexpr (W == 2) {
    kept = _mm512_maskz_compress_epi16(static_cast<__mmask32>(k), v);
    dropped = _mm512_maskz_compress_epi16(static_cast<__mmask32>(~k), v);
  } else if constexpr (W == 4) {
    kept = _mm512_maskz_compress_epi32(static_cast<__mmask16>(k), v);
    dropped = _mm512_maskz_compress_epi32(static_cast<__mmask16>(~k), v);
  } else if constexpr (W == 8) {
    kept = _mm512_maskz_compress_epi64(static_cast<__mmask8>(k), v);
    dropped = _mm512_maskz_compress_epi64(static_cast<__mmask8>(~k), v);
  } else { // 16-byte elements: two 64-bit lanes each
    const auto k2 = static_cast<__mmask8>(_pdep_u32(static_cast<std::uint32_t>(k), 0x55u) * 3u);
    kept = _mm512_maskz_compress_epi64(k2, v);
    dropped = _mm512_maskz_compress_epi64(static_cast<__mmask8>(~k2), v);
  }
}

/// Scatter with register compresses: per 64 bytes of stage, the kept and the
/// dropped elements are each compressed and stored whole (64 bytes) at their
/// cursor while both cursors have 64 bytes of their own slots left; the slack
/// is overwritten in order. Near the end of either range: exact, one by one.
template <int W>
SIEVE_TARGET_AVX512 void scatterAvx512W(const unsigned char* stage, unsigned char* plane,
                                        const std::uint32_t* bits, std::int64_t a, std::int64_t b,
                                        std::int64_t kp, std::int64_t kEnd, std::int64_t dp,
                                        std::int64_t dEnd) {
  constexpr int lanes = 64 / W;
  std::int64_t i = a;
  for (; i + lanes <= b && kp + lanes <= kEnd && dp + lanes <= dEnd; i += lanes) {
    const std::uint64_t k = laneBits(bits, i, lanes);
    __m512i kept, dropped;
    compressLanes<W>(_mm512_loadu_si512(stage + i * W), k, kept, dropped);
    _mm512_storeu_si512(plane + kp * W, kept);
    _mm512_storeu_si512(plane + dp * W, dropped);
    const std::int64_t nk = _mm_popcnt_u64(k);
    kp += nk;
    dp += lanes - nk;
  }
  using T = ElemOf<W>;
  scatterExact(reinterpret_cast<const T*>(stage), reinterpret_cast<T*>(plane), bits, i, b, kp, dp);
}

void scatterAvx512(const void* stage, void* plane, std::uint32_t elemBytes,
                   const std::uint32_t* bits, std::int64_t a, std::int64_t b, std::int64_t kp,
                   std::int64_t kEnd, std::int64_t dp, std::int64_t dEnd) {
  const auto* s = static_cast<const unsigned char*>(stage);
  auto* p = static_cast<unsigned char*>(plane);
  switch (elemBytes) {
  case 1: scatterAvx512W<1>(s, p, bits, a, b, kp, kEnd, dp, dEnd); break;
  case 2: scatterAvx512W<2>(s, p, bits, a, b, kp, kEnd, dp, dEnd); break;
  case 4: scatterAvx512W<4>(s, p, bits, a, b, kp, kEnd, dp, dEnd); break;
  case 8: scatterAvx512W<8>(s, p, bits, a, b, kp, kEnd, dp, dEnd); break;
  default: scatterAvx512W<16>(s, p, bits, a, b, kp, kEnd, dp, dEnd); break;
  }
}

/// The indices of the non-zero mask bytes of [i, i + len) into dst, as int64
/// or int32 (Index): the selected offsets of each 64-byte block are
/// compressed into the bytes of a register, then widened 8 (int64) or 16
/// (int32) at a time, offset by the block's base and stored whole (64 bytes;
/// the slack lies in the caller's room). The first store of a block is made
/// whatever its count (no branch where most blocks select few or none), the
/// others while items remain; the offsets never go through memory.
template <class Index>
SIEVE_TARGET_AVX512 inline std::int64_t selectIndicesAvx512T(const std::uint8_t* mask,
                                                             std::int64_t i, std::int64_t len,
                                                             Index* dst) {
  const __m512i iota = _mm512_load_si512(kIota);
  std::int64_t f = 0;
  for (std::int64_t j = 0; j < len; j += 64) {
    const std::int64_t m = len - j < 64 ? len - j : 64;
    const std::uint64_t bits = nonzero64Avx512(mask + i + j, m);
    const auto cnt = static_cast<int>(_mm_popcnt_u64(bits));
    selectStepsAvx512<Index, 0>(
        dst + f, _mm512_maskz_compress_epi8(static_cast<__mmask64>(bits), iota), i + j, cnt);
    f += cnt;
  }
  return f;
}

SIEVE_TARGET_AVX512 std::int64_t selectIndicesAvx512(const std::uint8_t* mask, std::int64_t i,
                                                     std::int64_t len, std::int64_t* dst) {
  return selectIndicesAvx512T(mask, i, len, dst);
}

SIEVE_TARGET_AVX512 std::int64_t selectIndices32Avx512(const std::uint8_t* mask, std::int64_t i,
                                                       std::int64_t len, std::int32_t* dst) {
  return selectIndicesAvx512T(mask, i, len, dst);
}

/// 64 bytes of items base + rel[0, 64 / W): int64 (W = 8) or int32 (W = 4).
template <int W>
SIEVE_TARGET_AVX512 inline __m512i offsetLineAvx512(const std::int32_t* rel, __m512i base) {
  if constexpr (W == 8)
    return _mm512_add_epi64(
        base, _mm512_cvtepi32_epi64(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(rel))));
  else return _mm512_add_epi32(base, _mm512_loadu_si512(rel));
}

/// offsetIndices with one 64-byte store a line (8 int64 or 16 int32 items):
/// the items before dst's first whole line and after its last exactly, each
/// line between non-temporal with `stream` (which needs dst item-aligned: an
/// unaligned dst is written with plain stores throughout).
template <class Item>
SIEVE_TARGET_AVX512 void offsetIndicesAvx512T(const std::int32_t* rel, std::int64_t len,
                                              std::int64_t base, unsigned char* dst, bool stream) {
  constexpr int W = sizeof(Item);
  constexpr std::int64_t perLine = 64 / W;
  std::int64_t k = offsetHead(rel, len, base, dst, W, stream);
  const __m512i b =
      W == 8 ? _mm512_set1_epi64(base) : _mm512_set1_epi32(static_cast<std::int32_t>(base));
  if (stream)
    for (; k + perLine <= len; k += perLine)
      _mm512_stream_si512(reinterpret_cast<__m512i*>(dst + k * W), offsetLineAvx512<W>(rel + k, b));
  else
    for (; k + perLine <= len; k += perLine)
      _mm512_storeu_si512(dst + k * W, offsetLineAvx512<W>(rel + k, b));
  offsetIndicesExact(rel, k, len, base, dst, W);
}

SIEVE_TARGET_AVX512 void offsetIndicesAvx512(const std::int32_t* rel, std::int64_t len,
                                             std::int64_t base, void* dst, std::uint32_t itemBytes,
                                             bool stream) {
  auto* d = static_cast<unsigned char*>(dst);
  if (itemBytes == 8u) offsetIndicesAvx512T<std::int64_t>(rel, len, base, d, stream);
  else offsetIndicesAvx512T<std::int32_t>(rel, len, base, d, stream);
}

/// The selected lanes of v (lane width W bytes) packed to the front.
template <int W>
SIEVE_TARGET_AVX512 inline __m512i compressKept(__m512i v, std::uint64_t k) {
  if constexpr (W == 1) return _mm512_maskz_compress_epi8(static_cast<__mmask64>(k), v);
  else if constexpr (W == 2) return _mm512_maskz_compress_epi16(static_cast<__mmask32>(k), v);
  else if constexpr (W == 4) return _mm512_maskz_compress_epi32(static_cast<__mmask16>(k), v);
  else return _mm512_maskz_compress_epi64(static_cast<__mmask8>(k), v);
}

/// 64 bytes of values at p, of which only the first `bytes` are read.
SIEVE_TARGET_AVX512 inline __m512i loadBytes(const unsigned char* p, std::int64_t bytes) {
  if (bytes >= 64) return _mm512_loadu_si512(p);
  return _mm512_maskz_loadu_epi8(static_cast<__mmask64>((std::uint64_t(1) << bytes) - 1u), p);
}

template <int W>
SIEVE_TARGET_AVX512 std::int64_t selectValuesAvx512W(const std::uint8_t* mask, std::int64_t i,
                                                     std::int64_t len, const unsigned char* v,
                                                     unsigned char* dst) {
  constexpr int lanes = 64 / W;
  std::int64_t f = 0;
  for (std::int64_t j = 0; j < len; j += 64) {
    const std::int64_t m = len - j < 64 ? len - j : 64;
    const std::uint64_t bits = nonzero64Avx512(mask + i + j, m);
    if (bits == 0u) continue;
    for (std::int64_t q = 0; q < m; q += lanes) {
      const std::uint64_t k = lanes == 64 ? bits : (bits >> q) & ((std::uint64_t(1) << lanes) - 1u);
      if (k == 0u) continue; // a line of values with nothing selected is not read
      const std::int64_t valid = m - q < lanes ? m - q : lanes;
      _mm512_storeu_si512(dst + f * W,
                          compressKept<W>(loadBytes(v + (i + j + q) * W, valid * W), k));
      f += static_cast<std::int64_t>(_mm_popcnt_u64(k));
    }
  }
  return f;
}

std::int64_t selectValuesAvx512(const std::uint8_t* mask, std::int64_t i, std::int64_t len,
                                const void* values, std::uint32_t elemBytes, void* dst) {
  const auto* v = static_cast<const unsigned char*>(values);
  auto* d = static_cast<unsigned char*>(dst);
  switch (elemBytes) {
  case 1: return selectValuesAvx512W<1>(mask, i, len, v, d);
  case 2: return selectValuesAvx512W<2>(mask, i, len, v, d);
  case 4: return selectValuesAvx512W<4>(mask, i, len, v, d);
  default: return selectValuesAvx512W<8>(mask, i, len, v, d);
  }
}

} // namespace

const HostKernels& hostKernelsAvx2() {
  static const HostKernels k{
      countAvx2,         writeAvx2,           scanSum32Avx2,    hostKernelsPortable().scatter,
      selectIndicesAvx2, selectIndices32Avx2, selectValuesAvx2, offsetIndicesAvx2};
  return k;
}

const HostKernels& hostKernelsAvx512() {
  static const HostKernels k{countAvx512,        writeAvx512,         scanSum32Avx512,
                             scatterAvx512,      selectIndicesAvx512, selectIndices32Avx512,
                             selectValuesAvx512, offsetIndicesAvx512};
  return k;
}

} // namespace Impl
} // namespace sieve

#endif // SIEVE_HOST_X86_DISPATCH
