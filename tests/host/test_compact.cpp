// Sieve host tests — compactHost against the sequential reference.
#include <sieve/native/host/compact.hpp>

#include "../common/cases.hpp"
#include "../common/expect.hpp"
#include "../common/guarded.hpp"
#include "../common/reference.hpp"
#include "host_common.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <stdexcept>

using namespace sieve_test;

namespace {

constexpr std::int32_t kSentinel = 0x5A5A5A5A; // Guarded's fill, as int32

struct Outcome {
  std::vector<std::int32_t> map;
  std::uint32_t count, live32, fire;
};

/// Runs compactHost (with a trigger when `span != nullptr`) on guarded buffers
/// and checks the contract that does not depend on the reference: slots past
/// the count untouched, no byte past the scratch size written.
Outcome runCompact(const HostConfig& c, const std::vector<std::uint8_t>& mask, bool drop,
                   const std::uint32_t* span, float theta = 0.5f) {
  const auto n = static_cast<std::int64_t>(mask.size());
  Guarded map(static_cast<std::size_t>(n) * 4);
  Guarded scratch(sieve::compactScratchBytes(n));
  Outcome o{{}, 0xDEADBEEFu, 0xDEADBEEFu, 0xDEADBEEFu};
  sieve::ReorderTrigger trig{&o.live32, span, &o.fire, theta};
  sieve::compactHost(sieve::HostTeam{c.threads}, mask.data(), drop ? sieve::kCompactMaskIsDrop : 0u,
                     map.as<std::int32_t>(), &o.count, scratch.data(), n,
                     span ? &trig : nullptr);
  EXPECT_TRUE(map.guardIntact()) << "index map written past n";
  EXPECT_TRUE(scratch.guardIntact()) << "scratch written past compactScratchBytes(n)";
  EXPECT_LE(o.count, static_cast<std::uint64_t>(n));
  const std::uint32_t cnt = o.count <= n ? o.count : 0;
  o.map.assign(map.as<std::int32_t>(), map.as<std::int32_t>() + cnt);
  for (std::int64_t i = cnt; i < n; ++i)
    if (map.as<std::int32_t>()[i] != kSentinel) {
      ADD_FAILURE() << "slot " << i << " at or past count " << cnt << " was written";
      break;
    }
  return o;
}

} // namespace

TEST(HostCompact, MatchesReferenceOnEveryCase) {
  for (const auto n : sizes())
    for (const auto kind : maskKinds())
      for (const bool drop : {false, true}) {
        SCOPED_TRACE("n=" + std::to_string(n) + " mask=" + name(kind) + (drop ? " drop" : " keep"));
        const auto mask = makeMask(kind, n);
        const auto ref = refCompact(mask.data(), n, drop);
        std::vector<std::int32_t> first;
        forEachHostConfig([&](const HostConfig& c) {
          const auto o = runCompact(c, mask, drop, nullptr);
          ASSERT_EQ(o.count, ref.count);
          ASSERT_EQ(o.map, ref.map);
          if (first.empty()) first = o.map;
          ASSERT_EQ(0, compareBytes(first.data(), o.map.data(), o.map.size() * 4));
        });
      }
}

TEST(HostCompact, TriggerWordsMatchReferenceOnEveryCase) {
  for (const auto n : sizes())
    for (const auto kind : maskKinds())
      for (const bool drop : {false, true}) {
        SCOPED_TRACE("n=" + std::to_string(n) + " mask=" + name(kind) + (drop ? " drop" : " keep"));
        const auto mask = makeMask(kind, n);
        const auto ref = refCompact(mask.data(), n, drop);
        const std::uint32_t span = static_cast<std::uint32_t>(n);
        forEachHostConfig([&](const HostConfig& c) {
          const auto o = runCompact(c, mask, drop, &span, 0.5f);
          ASSERT_EQ(o.count, ref.count);
          ASSERT_EQ(o.map, ref.map);
          ASSERT_EQ(o.live32, ref.live32);
          ASSERT_EQ(o.fire, refFire(ref.count, ref.live32, span, 0.5f));
        });
      }
}

TEST(HostCompact, Live32CountsPartialLastGroup) {
  // 33 samples: groups [0,32) and [32,33); only sample 32 kept.
  std::vector<std::uint8_t> mask(33, 0);
  mask[32] = 3;
  const std::uint32_t span = 33;
  forEachHostConfig([&](const HostConfig& c) {
    const auto o = runCompact(c, mask, false, &span);
    EXPECT_EQ(o.count, 1u);
    EXPECT_EQ(o.live32, 1u);
  });
  // 70 samples, kept 0, 31, 32, 69: three live groups of three (last partial).
  std::vector<std::uint8_t> m2(70, 0);
  m2[0] = m2[31] = m2[32] = m2[69] = 1;
  const std::uint32_t span2 = 70;
  forEachHostConfig([&](const HostConfig& c) {
    const auto o = runCompact(c, m2, false, &span2);
    EXPECT_EQ(o.count, 4u);
    EXPECT_EQ(o.live32, 3u);
  });
}

TEST(HostCompact, TriggerFiresOnScatteredAndNotOnContiguous) {
  const std::int64_t n = 100000;
  const std::uint32_t span = n;
  forEachHostConfig([&](const HostConfig& c) {
    const auto s = runCompact(c, scattered20(n), false, &span, 0.5f);
    EXPECT_EQ(s.count, 20000u);
    EXPECT_EQ(s.live32, 3125u);
    EXPECT_EQ(s.fire, 1u) << "a scattered 20% mask fills 20% of its warps: reorder";
    const auto k = runCompact(c, contiguous20(n), false, &span, 0.5f);
    EXPECT_EQ(k.count, 20000u);
    EXPECT_EQ(k.live32, 625u);
    EXPECT_EQ(k.fire, 0u) << "a contiguous 20% mask fills its warps: no reorder";
  });
}

TEST(HostCompact, TriggerSpanEdges) {
  const std::int64_t n = 100000;
  const auto mask = scattered20(n); // 20000 kept, scattered
  forEachHostConfig([&](const HostConfig& c) {
    std::uint32_t span = 20000; // span == count: a reorder would not shrink it
    EXPECT_EQ(runCompact(c, mask, false, &span).fire, 0u);
    span = 20001; // count + 1
    EXPECT_EQ(runCompact(c, mask, false, &span).fire, 1u);
  });
  const auto small = scattered20(20000); // 4000 kept < 4095
  forEachHostConfig([&](const HostConfig& c) {
    std::uint32_t span = 4095; // below kReorderMinSpan
    EXPECT_EQ(runCompact(c, small, false, &span).fire, 0u);
    span = 4096;
    EXPECT_EQ(runCompact(c, small, false, &span).fire, 1u);
  });
}

TEST(HostCompact, EmptyBatchWritesZeroCountAndTrigger) {
  std::uint32_t count = 77, live = 77, fire = 77;
  const std::uint32_t span = 5000;
  sieve::ReorderTrigger trig{&live, &span, &fire, 0.5f};
  sieve::compactHost(nullptr, 0, nullptr, &count, nullptr, 0, &trig);
  EXPECT_EQ(count, 0u);
  EXPECT_EQ(live, 0u);
  EXPECT_EQ(fire, 0u);
}

TEST(HostCompact, RejectsBadArguments) {
  std::vector<std::uint8_t> mask(64, 1);
  std::vector<std::int32_t> map(64);
  std::vector<unsigned char> scratch(sieve::compactScratchBytes(64));
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
  EXPECT_THROW(call(mask.data(), 0, map.data(), nullptr, scratch.data(), 64), std::invalid_argument);
  EXPECT_THROW(call(mask.data(), 0, map.data(), &count, nullptr, 64), std::invalid_argument);
  EXPECT_THROW(call(mask.data(), 2u, map.data(), &count, scratch.data(), 64), std::invalid_argument);
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
  std::vector<unsigned char> arena(sieve::compactScratchBytes(64) + 64 * 5 + 64);
  auto* aMask = arena.data();
  auto* aMap = reinterpret_cast<std::int32_t*>(arena.data() + 64);
  void* aScratch = arena.data() + 64 + 256;
  ASSERT_EQ(reinterpret_cast<std::uintptr_t>(aScratch) % 8, 0u);
  EXPECT_NO_THROW(call(aMask, 0, aMap, &count, aScratch, 64)); // adjacent, not overlapping
  expectInvalid([&] { call(aMask + 4, 0, aMap, &count, aScratch, 64); }, "mask overlaps indexMap");
  expectInvalid([&] { call(aMask, 0, aMap, &count, aMap + 60, 64); }, "indexMap overlaps scratch");
  expectInvalid([&] { call(static_cast<std::uint8_t*>(aScratch) + 100, 0, aMap, &count, aScratch, 64); },
                "mask overlaps scratch");
  expectInvalid([&] { call(aMask, 0, aMap, reinterpret_cast<std::uint32_t*>(aMap) + 9, aScratch, 64); },
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
