// SPDX-License-Identifier: Apache-2.0
// Sieve host tests — compactHost: the shared compaction suite on the host
// twins, then what only the raw-pointer face has (null pointers for an empty
// batch, the argument checks and their messages).
#include "../common/expect.hpp"
#include "../common/suite_compact.hpp"
#include "face.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <stdexcept>

using namespace sieve_test;

SIEVE_COMPACT_SUITE(HostCompact, HostFace);

TEST(HostCompactNative, EmptyBatchWithNullPointers) {
  std::uint32_t count = 77, live = 77, fire = 77;
  const std::uint32_t span = 5000;
  sieve::ReorderTrigger trig{&live, &span, &fire, 0.5f};
  sieve::compactHost(nullptr, 0, nullptr, &count, nullptr, 0, &trig);
  EXPECT_EQ(count, 0u);
  EXPECT_EQ(live, 0u);
  EXPECT_EQ(fire, 0u);
}

TEST(HostCompactNative, RejectsBadArguments) {
  std::vector<std::uint8_t> mask(64, 1);
  std::vector<std::int32_t> map(64);
  std::vector<unsigned char> scratch(sieve::compact_scratch_bytes(64));
  std::uint32_t count = 0, live = 0, fire = 0, span = 64;
  auto call = [&](const std::uint8_t* m, std::uint32_t flags, std::int32_t* mp, std::uint32_t* cnt,
                  void* s, std::int64_t n, const sieve::ReorderTrigger* t = nullptr) {
    sieve::compactHost(m, flags, mp, cnt, s, n, t);
  };
  EXPECT_THROW(call(mask.data(), 0, map.data(), &count, scratch.data(), -1), std::invalid_argument);
  EXPECT_THROW(call(mask.data(), 0, map.data(), &count, scratch.data(),
                    std::int64_t(std::numeric_limits<std::int32_t>::max()) + 1),
               std::invalid_argument);
  EXPECT_THROW(call(nullptr, 0, map.data(), &count, scratch.data(), 64), std::invalid_argument);
  EXPECT_THROW(call(mask.data(), 0, nullptr, &count, scratch.data(), 64), std::invalid_argument);
  EXPECT_THROW(call(mask.data(), 0, map.data(), nullptr, scratch.data(), 64),
               std::invalid_argument);
  EXPECT_THROW(call(mask.data(), 0, map.data(), &count, nullptr, 64), std::invalid_argument);
  EXPECT_THROW(call(mask.data(), 2u, map.data(), &count, scratch.data(), 64),
               std::invalid_argument);
  for (float theta : {0.0f, 1.0f, -0.5f, 1.5f, std::numeric_limits<float>::quiet_NaN()}) {
    sieve::ReorderTrigger t{&live, &span, &fire, theta};
    EXPECT_THROW(call(mask.data(), 0, map.data(), &count, scratch.data(), 64, &t),
                 std::invalid_argument)
        << "theta " << theta;
  }
  sieve::ReorderTrigger noLive{nullptr, &span, &fire, 0.5f}, noSpan{&live, nullptr, &fire, 0.5f},
      noFire{&live, &span, nullptr, 0.5f};
  for (auto* t : {&noLive, &noSpan, &noFire})
    EXPECT_THROW(call(mask.data(), 0, map.data(), &count, scratch.data(), 64, t),
                 std::invalid_argument);
  // Mask, index map, scratch and count must not share a byte.
  std::vector<unsigned char> arena(sieve::compact_scratch_bytes(64) + 64 * 5 + 64);
  auto* aMask = arena.data();
  auto* aMap = reinterpret_cast<std::int32_t*>(arena.data() + 64);
  void* aScratch = arena.data() + 64 + 256;
  ASSERT_EQ(reinterpret_cast<std::uintptr_t>(aScratch) % 8, 0u);
  EXPECT_NO_THROW(call(aMask, 0, aMap, &count, aScratch, 64)); // adjacent, not overlapping
  expectInvalid([&] { call(aMask + 4, 0, aMap, &count, aScratch, 64); }, "mask overlaps indexMap");
  expectInvalid([&] { call(aMask, 0, aMap, &count, aMap + 60, 64); }, "indexMap overlaps scratch");
  expectInvalid(
      [&] { call(static_cast<std::uint8_t*>(aScratch) + 100, 0, aMap, &count, aScratch, 64); },
      "mask overlaps scratch");
  expectInvalid(
      [&] { call(aMask, 0, aMap, reinterpret_cast<std::uint32_t*>(aMap) + 9, aScratch, 64); },
      "indexMap overlaps count");
  count = 0;
  // The message names the argument and the rule.
  try {
    call(mask.data(), 0, map.data(), &count, scratch.data(), -5);
    FAIL() << "no throw";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("n = -5"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("sieve::compactHost"), std::string::npos) << e.what();
  }
  // Nothing was written by the rejected calls.
  EXPECT_EQ(count, 0u);
}
