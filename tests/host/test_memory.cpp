// SPDX-License-Identifier: Apache-2.0
// Sieve host tests — the huge-page hint (native/host/memory.hpp): the pages it
// advises are the whole huge pages inside the block, and the hint changes no
// byte of memory written before or after it.
#include <sieve/native/host/memory.hpp>

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <memory>

namespace {

using sieve::Impl::hugePagesInside;
using sieve::Impl::kHugePageBytes;
constexpr std::uintptr_t H = kHugePageBytes;

} // namespace

TEST(HostMemory, HugePagesInsideABlock) {
  // Aligned both ends: all of it.
  EXPECT_EQ(hugePagesInside(4 * H, 3 * H).first, 4 * H);
  EXPECT_EQ(hugePagesInside(4 * H, 3 * H).end, 7 * H);
  // Starting one byte in, ending one byte short: the pages wholly inside.
  EXPECT_EQ(hugePagesInside(4 * H + 1, 3 * H).first, 5 * H);
  EXPECT_EQ(hugePagesInside(4 * H + 1, 3 * H).end, 7 * H);
  EXPECT_EQ(hugePagesInside(4 * H, 3 * H - 1).end, 6 * H);
  // Less than a whole page inside: empty (end <= first), also past the top.
  const auto none = hugePagesInside(4 * H + 1, H);
  EXPECT_LE(none.end, none.first);
  EXPECT_LE(hugePagesInside(4 * H + 5, 10).end, hugePagesInside(4 * H + 5, 10).first);
  EXPECT_EQ(hugePagesInside(0, 0).end, hugePagesInside(0, 0).first);
}

TEST(HostMemory, HugePageHintChangesNoByte) {
  // 40 MiB and a bit, from an unaligned start: the pattern written before
  // the hint reads back after it, and so does one written after it.
  const std::size_t words = (std::size_t(40) << 20) / 8 + 3;
  std::unique_ptr<std::uint64_t[]> block(new std::uint64_t[words + 1]);
  std::uint64_t* p = block.get() + 1;
  for (std::size_t i = 0; i < words; ++i) p[i] = i * 0x9E3779B97F4A7C15ULL;
  const bool took = sieve::Impl::adviseHugePagesHost(p, words * 8);
  std::size_t bad = 0;
  for (std::size_t i = 0; i < words; ++i) bad += p[i] != i * 0x9E3779B97F4A7C15ULL ? 1 : 0;
  EXPECT_EQ(bad, 0u) << "hint taken: " << took;
  for (std::size_t i = 0; i < words; ++i) p[i] = ~i;
  for (std::size_t i = 0; i < words; ++i) bad += p[i] != ~i ? 1 : 0;
  EXPECT_EQ(bad, 0u);
  // Small blocks and null are not advised.
  EXPECT_FALSE(sieve::Impl::adviseHugePagesHost(p, 1 << 20));
  EXPECT_FALSE(sieve::Impl::adviseHugePagesHost(nullptr, std::size_t(64) << 20));
}
