// SPDX-License-Identifier: Apache-2.0
// Sieve host tests — radixOrderHost (the stable radix order of 64-bit keys:
// a top-digit pass and in-cache runs, or LSD passes for skewed keys) against
// std::stable_sort of the indices by key: random keys, few distinct values,
// all-equal keys, widths that are not a multiple of 8 and around the top
// digit, runs that skip their constant digits, keys whose shared bytes skip
// passes (every pass count 0 .. 8, plain and skewed), sizes on the
// digit and line edges, teams of 1 .. 4 threads giving the same bytes, every
// placement of `order` within a cache line and of the scratch, guard bytes
// on both sides of order and scratch, the 8-byte index planes of 2^32 keys
// and more run at small n, and every argument check (nothing written when
// one throws).
#include <sieve/core/radix.hpp>
#include <sieve/native/host/radix.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using i64 = std::int64_t;
using u64 = std::uint64_t;

constexpr unsigned char kGuard = 0xA5;
constexpr std::size_t kGuardBytes = 256;

/// The independent reference: the indices stably sorted by key.
std::vector<i64> referenceOrder(const std::vector<u64>& keys) {
  std::vector<i64> idx(keys.size());
  std::iota(idx.begin(), idx.end(), i64(0));
  std::stable_sort(idx.begin(), idx.end(), [&](i64 x, i64 y) {
    return keys[static_cast<std::size_t>(x)] < keys[static_cast<std::size_t>(y)];
  });
  return idx;
}

/// `bytes` bytes starting `shift` bytes past a 64-byte boundary, with
/// kGuardBytes of guard on both sides.
class Fenced {
 public:
  Fenced(std::size_t bytes, std::size_t shift, unsigned char fill = 0x5A)
      : bytes_(bytes), raw_(bytes + 2 * kGuardBytes + 128) {
    std::memset(raw_.data(), kGuard, raw_.size());
    auto addr = reinterpret_cast<std::uintptr_t>(raw_.data());
    begin_ = static_cast<std::size_t>((64 - addr % 64) % 64) + kGuardBytes + shift;
    std::memset(raw_.data() + begin_, fill, bytes_);
  }
  unsigned char* data() { return raw_.data() + begin_; }
  bool guardsIntact() const {
    for (std::size_t i = 0; i < raw_.size(); ++i)
      if ((i < begin_ || i >= begin_ + bytes_) && raw_[i] != kGuard) return false;
    return true;
  }

 private:
  std::size_t bytes_, begin_ = 0;
  std::vector<unsigned char> raw_;
};

/// Run radixOrderHost on `threads` threads with order placed `orderShift`
/// int64 slots and the scratch `scratchShift` bytes past a line boundary;
/// check the guards and return the order.
/// indexBytes 4 or 8: the internal entry with index planes of that width
/// (8: the planes of 2^32 keys and more) and its scratch rule; 0: the public
/// call.
std::vector<i64> runRadix(const std::vector<u64>& keys, int bits, int threads,
                          std::size_t orderShift = 0, std::size_t scratchShift = 0,
                          std::size_t indexBytes = 0) {
  const i64 n = static_cast<i64>(keys.size());
  const std::size_t sb = indexBytes == 0 ? sieve::radix_order_scratch_bytes(n)
                                         : sieve::Impl::radixOrderScratchBytes(n, indexBytes);
  Fenced order(keys.size() * 8, orderShift * 8), scratch(sb, scratchShift);
  if (indexBytes == 0)
    sieve::radixOrderHost(sieve::HostTeam{threads}, keys.data(), n, bits,
                          reinterpret_cast<i64*>(order.data()), scratch.data(), sb);
  else
    sieve::Impl::radixOrderHostIndexBytes(sieve::HostTeam{threads}, keys.data(), n, bits,
                                          reinterpret_cast<i64*>(order.data()), scratch.data(), sb,
                                          indexBytes, "sieve::radixOrderHost");
  EXPECT_TRUE(order.guardsIntact()) << "bytes around order written (n = " << n << ")";
  EXPECT_TRUE(scratch.guardsIntact()) << "bytes around the scratch written (n = " << n << ")";
  std::vector<i64> out(keys.size());
  if (!keys.empty()) std::memcpy(out.data(), order.data(), keys.size() * 8);
  return out;
}

int bitWidth(const std::vector<u64>& keys) {
  u64 all = 0;
  for (u64 k : keys) all |= k;
  int w = 0;
  while (w < 64 && (all >> w) != 0) ++w;
  return w;
}

/// Every team of 1 .. 4 threads (and the default team), or those of
/// `teams`, against the reference.
void expectSorted(const std::vector<u64>& keys, const std::string& what, int bits = -1,
                  const std::vector<int>& teams = {1, 2, 3, 4, 0}, std::size_t indexBytes = 0) {
  if (bits < 0) bits = bitWidth(keys);
  const std::vector<i64> expect = referenceOrder(keys);
  for (int threads : teams) {
    const std::vector<i64> got = runRadix(keys, bits, threads, 0, 0, indexBytes);
    ASSERT_EQ(got.size(), expect.size());
    for (std::size_t p = 0; p < expect.size(); ++p)
      ASSERT_EQ(got[p], expect[p])
          << what << ", n = " << keys.size() << ", bits = " << bits << ", threads = " << threads
          << ", index bytes " << indexBytes << ": slot " << p;
  }
}

std::vector<u64> randomKeys(i64 n, u64 mask, unsigned seed) {
  std::mt19937_64 g(seed);
  std::vector<u64> k(static_cast<std::size_t>(n));
  for (auto& x : k) x = g() & mask;
  return k;
}

/// The keys with every third key replaced by the first: one top digit holds
/// a third of them, so the order takes the LSD passes over the whole keys
/// (radixHostTopDigitPays) instead of the top-digit pass and its runs.
std::vector<u64> skewed(std::vector<u64> keys) {
  for (std::size_t i = 0; i < keys.size(); i += 3) keys[i] = keys[0];
  return keys;
}

const i64 kSizes[] = {1, 2, 3, 7, 8, 9, 15, 16, 17, 63, 64, 65, 255, 256, 257, 1000, 4097, 65537};

} // namespace

TEST(HostRadix, RandomKeysMatchStableSort) {
  for (i64 n : kSizes)
    expectSorted(randomKeys(n, ~u64(0), 1u + static_cast<unsigned>(n)), "random");
  expectSorted(randomKeys(100003, ~u64(0), 7u), "random");
  expectSorted(randomKeys(i64(1) << 20, ~u64(0), 9u), "random");
}

TEST(HostRadix, FewDistinctValues) {
  std::mt19937_64 g(3);
  for (i64 n : {i64(257), i64(65537), i64(1) << 20}) {
    for (int distinct : {2, 5, 300}) {
      std::vector<u64> values(static_cast<std::size_t>(distinct));
      for (auto& v : values) v = g();
      std::vector<u64> keys(static_cast<std::size_t>(n));
      for (auto& k : keys) k = values[g() % values.size()];
      expectSorted(keys, "few distinct (" + std::to_string(distinct) + ")");
    }
  }
}

TEST(HostRadix, AllEqualKeysGiveTheIdentity) {
  for (i64 n : {i64(1), i64(255), i64(257), i64(100003)}) {
    for (u64 v : {u64(0), u64(1), u64(0xDEADBEEFCAFEF00Dull), ~u64(0)}) {
      const std::vector<u64> keys(static_cast<std::size_t>(n), v);
      expectSorted(keys, "all equal", 64);
      expectSorted(keys, "all equal (tight bits)");
    }
  }
}

TEST(HostRadix, BitsNotAMultipleOfEight) {
  for (int bits : {1, 5, 13, 20, 33, 63}) {
    const u64 mask = (u64(1) << bits) - 1;
    for (i64 n : {i64(257), i64(4097), i64(100003)})
      expectSorted(randomKeys(n, mask, 11u + static_cast<unsigned>(bits)),
                   "keys < 2^" + std::to_string(bits), bits);
  }
  // The caller's bits may exceed the keys' width.
  expectSorted(randomKeys(65537, (u64(1) << 13) - 1, 5u), "keys < 2^13, bits 64", 64);
}

TEST(HostRadix, BitsZeroAndEmpty) {
  expectSorted(std::vector<u64>(1000, 0), "all zero, bits 0", 0);
  expectSorted(std::vector<u64>(), "empty", 0);
  expectSorted(std::vector<u64>(), "empty", 64);
  // n == 0 addresses no key and no order slot.
  std::vector<unsigned char> scratch(sieve::radix_order_scratch_bytes(0));
  EXPECT_NO_THROW(sieve::radixOrderHost(sieve::HostTeam{}, nullptr, 0, 64, nullptr, scratch.data(),
                                        scratch.size()));
}

TEST(HostRadix, SharedBytesSkipPasses) {
  // The low `passes` of the 8 digits vary, shuffled among the 8 digit
  // positions; the others are shared (non-zero) bytes: every pass count and
  // both plane parities.
  std::mt19937_64 g(21);
  for (int passes = 0; passes <= 8; ++passes) {
    for (int rep = 0; rep < 2; ++rep) {
      int pos[8] = {0, 1, 2, 3, 4, 5, 6, 7};
      std::shuffle(pos, pos + 8, g);
      u64 varying = 0;
      for (int d = 0; d < passes; ++d) varying |= u64(0xFF) << (8 * pos[d]);
      const u64 shared = g() & ~varying;
      for (i64 n : {i64(300), i64(70001)}) {
        std::vector<u64> keys(static_cast<std::size_t>(n));
        for (auto& k : keys) k = shared | (g() & varying);
        expectSorted(keys, std::to_string(passes) + " varying digits", 64);
        expectSorted(skewed(keys), std::to_string(passes) + " varying digits, skewed", 64);
      }
    }
  }
}

TEST(HostRadix, EveryPlacementOfOrderAndScratch) {
  // Large enough for the non-temporal line stores; small ones for plain stores.
  // Random keys (the top-digit pass and its runs), skewed ones (the LSD
  // passes), and keys varying in their top digit only (bits 2 .. 9: one
  // top-digit pass writing `order` itself).
  for (i64 n : {i64(1000), i64(1) << 19}) {
    const std::vector<u64> random = randomKeys(n, ~u64(0), 17u);
    std::vector<u64> topOnly = randomKeys(n, 255u, 19u);
    for (auto& k : topOnly) k <<= 2;
    for (const auto& [what, keys] :
         {std::pair{"random", random}, std::pair{"skewed", skewed(random)},
          std::pair{"top digit only", topOnly}}) {
      const std::vector<i64> expect = referenceOrder(keys);
      for (std::size_t shift = 0; shift < 8; ++shift) {
        const std::size_t scratchShift = shift * 9; // 0, 9, ..., 63 bytes: any alignment
        for (int threads : {1, 3}) {
          const std::vector<i64> got = runRadix(keys, 64, threads, shift, scratchShift);
          ASSERT_TRUE(got == expect)
              << what << " keys, n = " << n << ", order shifted " << shift << " slots, scratch "
              << scratchShift << " bytes, threads " << threads;
        }
      }
    }
  }
}

TEST(HostRadix, TopDigitWidthsAndRuns) {
  // Widths around the top digit (radixHostTopBits: 8 bits up to 2^20 keys,
  // 9 up to 2^21, 10 beyond): all of it (one pass into `order`), one bit
  // below it, partial low digits, whole 8-bit ones; one varying byte that is
  // not the lowest (a top-digit pass into `order`).
  for (int width : {9, 10, 11, 12, 17, 33, 64}) {
    const u64 mask = width == 64 ? ~u64(0) : (u64(1) << width) - 1;
    expectSorted(randomKeys(5000, mask, 31u + static_cast<unsigned>(width)),
                 "keys < 2^" + std::to_string(width));
  }
  expectSorted(randomKeys(5000, u64(255) << 24, 33u), "byte 3 only");
  // 34-bit keys (an 8-bit top digit at these sizes: bits 26 .. 33) whose
  // runs vary in 0 .. 4 of the 4 low digits (each run skips its constant
  // ones: 0 .. 4 passes), and `bits` wider than the keys (the top digit
  // counted a second time).
  std::mt19937_64 g(37);
  for (i64 n : {i64(3000), i64(300001)}) {
    std::vector<u64> keys(static_cast<std::size_t>(n));
    const u64 kinds[] = {0, 0xFF00, 0xFF00FF, 0xFFFFFF, 0x3FFFFFF};
    for (auto& k : keys) {
      const u64 top = g() & 255u;
      k = (top << 26) | (g() & kinds[top % 5]);
    }
    expectSorted(keys, "runs varying in 0 .. 4 low digits");
    expectSorted(keys, "runs varying in 0 .. 4 low digits, bits 50", 50);
  }
  // Nine runs of n / 9 keys: the top-digit order on 1 and 2 threads (runs
  // within n / (4 x threads)), the LSD passes on 3 and 4.
  std::vector<u64> nine = randomKeys(300001, (u64(1) << 40) - 1, 53u);
  for (std::size_t i = 0; i < nine.size(); ++i) nine[i] |= u64(i % 9) << 55;
  expectSorted(nine, "nine large runs");
}

// HostRadixLarge: millions of keys on teams the cases choose themselves, so
// they run in one ctest entry (host.radix_large), not at every thread count.

/// The 9- and 10-bit top digits (on a team of 3: uneven shares of the
/// positions): the whole width in the top digit, one bit and 30 bits below
/// it, `bits` wider than the keys (the top digit counted again), skewed keys.
TEST(HostRadixLarge, TopDigitsOfNineAndTenBits) {
  for (i64 n : {(i64(1) << 20) + 1, (i64(1) << 21) + 3}) {
    for (int width : {9, 10, 11, 40})
      expectSorted(randomKeys(n, (u64(1) << width) - 1, 41u + static_cast<unsigned>(width)),
                   "keys < 2^" + std::to_string(width), width, {3});
    expectSorted(randomKeys(n, (u64(1) << 40) - 1, 43u), "keys < 2^40, bits 64", 64, {3});
    expectSorted(skewed(randomKeys(n, (u64(1) << 40) - 1, 47u)), "skewed", 40, {3});
  }
}

/// Keys varying in their top digit only, at the 9- and 10-bit top digits
/// (the top-digit pass writes `order` itself through 32- and 16-key
/// blocks), `order` at slots 0, 3 and 7 of its cache line.
TEST(HostRadixLarge, TopDigitOnlyAtEveryPlacement) {
  for (const auto& [n, width] :
       {std::pair{(i64(1) << 20) + 1, 9}, std::pair{(i64(1) << 21) + 1, 10}}) {
    const std::vector<u64> keys = randomKeys(n, (u64(1) << width) - 1, 59u);
    const std::vector<i64> expect = referenceOrder(keys);
    for (std::size_t shift : {0u, 3u, 7u})
      for (int threads : {1, 3})
        ASSERT_TRUE(runRadix(keys, width, threads, shift, shift * 9) == expect)
            << width << "-bit keys, n = " << n << ", order shifted " << shift << ", threads "
            << threads;
  }
}

TEST(HostRadix, SameBytesOnEveryTeam) {
  const std::vector<u64> keys = randomKeys((i64(1) << 20) + 13, (u64(1) << 40) - 1, 23u);
  const std::vector<i64> one = runRadix(keys, 40, 1);
  for (int threads : {2, 3, 4, 7}) EXPECT_TRUE(runRadix(keys, 40, threads) == one) << threads;
  EXPECT_TRUE(one == referenceOrder(keys));
}

TEST(HostRadix, EightByteIndicesAtAnySize) {
  // The index planes 2^32 keys and more take (uint64), run below 2^32 keys:
  // the top-digit pass and its runs, the LSD passes of skewed keys, skipped
  // digits, equal keys, every placement of order in a line.
  const std::vector<int> teams{1, 2, 3};
  for (i64 n : kSizes)
    expectSorted(randomKeys(n, ~u64(0), 5u + static_cast<unsigned>(n)), "random", -1, teams, 8);
  expectSorted(randomKeys(i64(1) << 20, ~u64(0), 19u), "random", -1, teams, 8);
  expectSorted(randomKeys(100003, (u64(1) << 20) - 1, 23u), "random 20 bits", -1, teams, 8);
  expectSorted(skewed(randomKeys(70001, ~u64(0), 29u)), "skewed", 64, teams, 8);
  expectSorted(skewed(randomKeys(70001, u64(0xFF00FF00), 37u)), "skewed, skipped digits", 64, teams,
               8);
  expectSorted(std::vector<u64>(4097, 0xABCDull), "all equal", 64, teams, 8);
  // Random keys take the top-digit pass; skewed ones the LSD passes, whose
  // idxA plane follows order's slot in its line.
  for (const bool skew : {false, true}) {
    const std::vector<u64> random = randomKeys(300001, ~u64(0), 41u);
    const std::vector<u64> keys = skew ? skewed(random) : random;
    const std::vector<i64> expect = referenceOrder(keys);
    for (std::size_t orderShift = 0; orderShift < 8; ++orderShift)
      for (std::size_t scratchShift : {std::size_t(0), std::size_t(13)})
        ASSERT_EQ(runRadix(keys, 64, 2, orderShift, scratchShift, 8), expect)
            << (skew ? "skewed" : "random") << ", order shifted " << orderShift
            << " slots, scratch " << scratchShift << " bytes";
  }
}

TEST(HostRadix, IndexBytesRule) {
  const std::vector<u64> keys = randomKeys(100, ~u64(0), 43u);
  std::vector<i64> order(100);
  const std::size_t sb = sieve::Impl::radixOrderScratchBytes(100, 8);
  std::vector<unsigned char> scratch(sb);
  const auto call = [&](i64 n, std::size_t ib) {
    sieve::Impl::radixOrderHostIndexBytes(sieve::HostTeam{2}, keys.data(), n, 64, order.data(),
                                          scratch.data(), sb, ib, "sieve::radixOrderHost");
  };
  for (std::size_t ib : {std::size_t(0), std::size_t(2), std::size_t(16)}) {
    try {
      call(100, ib);
      ADD_FAILURE() << "indexBytes = " << ib << ": no exception";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("indexBytes = " + std::to_string(ib)), std::string::npos)
          << e.what();
    }
  }
  // 4-byte indices cannot number 2^32 keys (rejected before anything is read).
  try {
    call(i64(0x100000000), 4);
    ADD_FAILURE() << "4-byte indices of 2^32 keys: no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("radixIndexBytes(n = 4294967296) = 8"), std::string::npos)
        << e.what();
  }
  // The 8-byte planes need their own, larger scratch.
  try {
    sieve::Impl::radixOrderHostIndexBytes(sieve::HostTeam{2}, keys.data(), 100, 64, order.data(),
                                          scratch.data(), sieve::radix_order_scratch_bytes(100), 8,
                                          "sieve::radixOrderHost");
    ADD_FAILURE() << "the 4-byte scratch rule for 8-byte indices: no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("Impl::radixOrderScratchBytes(n, 8)"), std::string::npos)
        << e.what();
  }
  call(100, 8);
  EXPECT_EQ(order, referenceOrder(keys));
}

TEST(HostRadix, ScratchRule) {
  std::size_t prev = 0;
  for (i64 n :
       {i64(0), i64(1), i64(2), i64(1000), i64(1) << 20, i64(0xFFFFFFFF), i64(0x100000000)}) {
    const std::size_t b = sieve::radix_order_scratch_bytes(n);
    EXPECT_GE(b, prev);
    const std::size_t m = static_cast<std::size_t>(n > 1 ? n : 1);
    const std::size_t w = n > i64(0xFFFFFFFF) ? 8 : 4;
    EXPECT_GE(b, 63 + 8 * m + 2 * w * m) << n;
    EXPECT_LE(b, 2 * 64 + 8 * m + 2 * w * m + 3 * 63) << n;
    prev = b;
  }
  EXPECT_EQ(sieve::radix_order_scratch_bytes(-5), sieve::radix_order_scratch_bytes(0));
  // The rule is the 8-byte one past 2^32 - 1 keys, and the 8-byte planes at
  // any n hold two more n-element index planes of 4 bytes.
  for (i64 n : {i64(1), i64(1000), i64(1) << 20, i64(0xFFFFFFFF), i64(0x100000000)}) {
    const std::size_t m = static_cast<std::size_t>(n);
    EXPECT_EQ(sieve::radix_order_scratch_bytes(n),
              sieve::Impl::radixOrderScratchBytes(n, n > i64(0xFFFFFFFF) ? 8 : 4));
    EXPECT_GE(sieve::Impl::radixOrderScratchBytes(n, 8) + 128,
              sieve::Impl::radixOrderScratchBytes(n, 4) + 8 * m)
        << n;
  }
  static_assert(sieve::kRadixDigitBits == 8, "8-bit digits");
  static_assert(sieve::radix_order_scratch_bytes(100) > 0, "a constant expression");
}

TEST(HostRadix, RejectsBadArguments) {
  const i64 n = 1000;
  std::vector<u64> keys = randomKeys(n, (u64(1) << 13) - 1, 31u);
  const std::size_t sb = sieve::radix_order_scratch_bytes(n);
  // One buffer holding order, keys and scratch, for the overlap cases.
  std::vector<unsigned char> pool(static_cast<std::size_t>(3 * n * 8) + sb + 64);
  auto* base = pool.data() + (64 - reinterpret_cast<std::uintptr_t>(pool.data()) % 64) % 64;
  auto* order = reinterpret_cast<i64*>(base);
  auto* scratch = base + 2 * n * 8;
  const sieve::HostTeam team{2};

  auto expectThrow = [&](const std::string& what, const std::string& mention, const auto& call) {
    std::memset(order, 0x5A, static_cast<std::size_t>(n * 8));
    try {
      call();
      ADD_FAILURE() << what << ": no exception";
    } catch (const std::invalid_argument& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find("sieve::radixOrderHost"), std::string::npos) << what << ": " << msg;
      EXPECT_NE(msg.find(mention), std::string::npos) << what << ": " << msg;
    }
    for (i64 i = 0; i < n * 8; ++i)
      ASSERT_EQ(reinterpret_cast<unsigned char*>(order)[i], 0x5A) << what << ": order written";
  };
  const u64* k = keys.data();
  expectThrow("n < 0", "n = -1",
              [&] { sieve::radixOrderHost(team, k, -1, 64, order, scratch, sb); });
  expectThrow("bits < 0", "bits = -1",
              [&] { sieve::radixOrderHost(team, k, n, -1, order, scratch, sb); });
  expectThrow("bits > 64", "bits = 65",
              [&] { sieve::radixOrderHost(team, k, n, 65, order, scratch, sb); });
  expectThrow("null keys", "keys is null",
              [&] { sieve::radixOrderHost(team, nullptr, n, 64, order, scratch, sb); });
  expectThrow("null order", "order is null",
              [&] { sieve::radixOrderHost(team, k, n, 64, nullptr, scratch, sb); });
  expectThrow("null scratch", "scratch is null",
              [&] { sieve::radixOrderHost(team, k, n, 64, order, nullptr, sb); });
  expectThrow("null scratch, n = 0", "scratch is null",
              [&] { sieve::radixOrderHost(team, nullptr, 0, 64, nullptr, nullptr, sb); });
  expectThrow("short scratch", "radix_order_scratch_bytes",
              [&] { sieve::radixOrderHost(team, k, n, 64, order, scratch, sb - 1); });
  expectThrow("misaligned order", "order is misaligned", [&] {
    sieve::radixOrderHost(team, k, n, 64, reinterpret_cast<i64*>(base + 4 * n * 8 + 1), scratch,
                          sb);
  });
  expectThrow("order overlaps scratch", "order overlaps scratch",
              [&] { sieve::radixOrderHost(team, k, n, 64, order, base + n * 8 - 8, sb); });
  {
    // keys inside the pool: order overlapping keys, keys overlapping the scratch.
    auto* pk = reinterpret_cast<u64*>(base + n * 8);
    std::memcpy(pk, keys.data(), static_cast<std::size_t>(n * 8));
    expectThrow("order overlaps keys", "keys overlaps order", [&] {
      sieve::radixOrderHost(team, pk, n, 64, reinterpret_cast<i64*>(base + 8), scratch, sb);
    });
    expectThrow("keys overlap scratch", "keys overlaps scratch",
                [&] { sieve::radixOrderHost(team, pk, n, 64, order, base + n * 8 + 64, sb); });
  }
  // A key of 2^bits or more: found by the counting read, nothing written.
  keys[static_cast<std::size_t>(n - 1)] = u64(1) << 13;
  expectThrow("key >= 2^bits", "bits = 13",
              [&] { sieve::radixOrderHost(team, k, n, 13, order, scratch, sb); });
  keys[static_cast<std::size_t>(n - 1)] = 0;
  EXPECT_NO_THROW(sieve::radixOrderHost(team, k, n, 13, order, scratch, sb));
  EXPECT_TRUE(std::vector<i64>(order, order + n) == referenceOrder(keys));
}
