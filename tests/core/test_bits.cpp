// SPDX-License-Identifier: Apache-2.0
// Sieve core tests — the bit rules the CUDA kernels use, checked on the host:
// the SWAR keep bits of 32 mask bytes against the byte-by-byte group rule
// (every byte value in every position, both polarities, random groups), the
// realignment of an unaligned group from aligned loads, and
// the staging swizzle (a bijection on every row of 32 slots; 32 threads
// writing their k-th item at rows of their own hit 32 banks, and so do 32
// consecutive items).
#include <sieve/core/bits.hpp>
#include <sieve/core/rules.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <set>

namespace {

std::uint32_t swarBits(const std::uint8_t (&bytes)[32], std::uint32_t flags) {
  std::uint32_t words[8];
  std::memcpy(words, bytes, sizeof words); // little-endian, as the device loads them
  return sieve::Impl::keepBitsOfWords(words, flags);
}

std::uint32_t ruleBits(const std::uint8_t (&bytes)[32], std::uint32_t flags) {
  return sieve::Impl::groupKeepBits([&](std::int64_t i) { return bytes[i]; }, 0, 32, flags);
}

} // namespace

TEST(CoreBits, SwarKeepBitsMatchTheGroupRule) {
  for (const std::uint32_t flags : {0u, sieve::kCompactMaskIsDrop}) {
    // Every byte value at every position, the other bytes all zero or all set.
    for (int pos = 0; pos < 32; ++pos) {
      for (int v = 0; v < 256; ++v) {
        for (const std::uint8_t fill : {std::uint8_t(0), std::uint8_t(1), std::uint8_t(0x80)}) {
          std::uint8_t bytes[32];
          std::memset(bytes, fill, sizeof bytes);
          bytes[pos] = static_cast<std::uint8_t>(v);
          ASSERT_EQ(swarBits(bytes, flags), ruleBits(bytes, flags))
              << "flags " << flags << " byte " << pos << " = " << v << " fill " << int(fill);
        }
      }
    }
    std::mt19937 rng(12345u + flags);
    for (int r = 0; r < 20000; ++r) {
      std::uint8_t bytes[32];
      for (auto& b : bytes) b = (rng() & 3u) == 0u ? 0 : static_cast<std::uint8_t>(rng());
      ASSERT_EQ(swarBits(bytes, flags), ruleBits(bytes, flags)) << "random group " << r;
    }
  }
}

TEST(CoreBits, RealignWordsPicksTheBytesAtEveryOffset) {
  // Three aligned 16-byte loads covering an unaligned group: the 8 words of
  // the group at every byte offset, against a byte copy.
  std::mt19937 rng(777u);
  for (int r = 0; r < 2000; ++r) {
    std::uint8_t bytes[48];
    for (auto& b : bytes) b = static_cast<std::uint8_t>(rng());
    std::uint32_t w[12];
    std::memcpy(w, bytes, sizeof w);
    for (unsigned m = 0; m < 16; ++m) {
      std::uint32_t got[8], want[8];
      sieve::Impl::realignWords(w, m, got);
      std::memcpy(want, bytes + m, sizeof want);
      for (int k = 0; k < 8; ++k) ASSERT_EQ(got[k], want[k]) << "offset " << m << " word " << k;
    }
  }
}

TEST(CoreBits, StagedSlotIsABijectionWithoutBankConflicts) {
  constexpr std::uint32_t kTile = 8192;
  std::set<std::uint32_t> seen;
  for (std::uint32_t j = 0; j < kTile; ++j) {
    const std::uint32_t s = sieve::Impl::stagedSlot(j);
    ASSERT_EQ(s / 32, j / 32) << "slot of item " << j << " leaves its row";
    ASSERT_TRUE(seen.insert(s).second) << "slot " << s << " used twice";
  }
  // A fully kept group per thread: thread t writes item 32 t + k at step k.
  for (std::uint32_t warp = 0; warp < kTile / 1024; ++warp)
    for (std::uint32_t k = 0; k < 32; ++k) {
      std::set<std::uint32_t> banks;
      for (std::uint32_t lane = 0; lane < 32; ++lane)
        banks.insert(sieve::Impl::stagedSlot(32 * (32 * warp + lane) + k) % 32);
      ASSERT_EQ(banks.size(), 32u) << "warp " << warp << " step " << k;
    }
  // The coalesced read: 32 consecutive items.
  for (std::uint32_t j0 = 0; j0 < kTile; j0 += 32) {
    std::set<std::uint32_t> banks;
    for (std::uint32_t l = 0; l < 32; ++l) banks.insert(sieve::Impl::stagedSlot(j0 + l) % 32);
    ASSERT_EQ(banks.size(), 32u) << "items " << j0;
  }
}
