// SPDX-License-Identifier: Apache-2.0
// Sieve tests — the distribution rules (core/distribute.hpp), with no MPI: the
// exchange of every rank simulated in one process (pack by the send blocks,
// MPI_Alltoallv's copy by units and displacements, unpack by the receive
// blocks) must give every rank its balanced share of the global survivors in
// global order, for random counts, empty ranks and one rank holding all.
#include <sieve/core/distribute.hpp>

#include <gtest/gtest.h>

#include <climits>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

namespace {

using namespace sieve::Impl;

TEST(Distribute, SharesAreBalancedAndOwnersAgree) {
  for (int p = 1; p <= 9; ++p)
    for (std::int64_t total : {0, 1, 2, 7, 8, 9, 100, 1001}) {
      std::int64_t sum = 0;
      for (int q = 0; q < p; ++q) {
        const std::int64_t s = shareSize(total, p, q);
        EXPECT_TRUE(s == total / p || s == total / p + 1);
        if (q > 0) EXPECT_LE(s, shareSize(total, p, q - 1)); // the lower ranks the larger
        for (std::int64_t g = shareBegin(total, p, q); g < shareBegin(total, p, q + 1); ++g)
          EXPECT_EQ(shareOwner(total, p, g), q) << total << " over " << p << ", g " << g;
        sum += s;
      }
      EXPECT_EQ(sum, total);
    }
}

TEST(Distribute, RecordLayoutAlignsEverySegment) {
  const RecordLayout r = recordLayout({1, 8, 2, 16, 4, 8, 1});
  EXPECT_EQ(r.bytes, 40u);
  for (std::size_t j = 0; j < r.elem.size(); ++j) {
    EXPECT_EQ(r.before[j] % r.elem[j], 0u) << "plane " << j;
    for (std::size_t i = 0; i < j; ++i) EXPECT_NE(r.before[i], r.before[j]);
  }
  EXPECT_EQ(r.before[3], 0u);  // the 16-byte plane first
  EXPECT_EQ(r.before[1], 16u); // then the 8-byte ones in call order
  EXPECT_EQ(r.before[5], 24u);
  EXPECT_NE(planeSignature({4, 8}), planeSignature({8, 4}));
  EXPECT_NE(planeSignature({4}), planeSignature({4, 4}));
  EXPECT_EQ(planeSignature({1, 2}), planeSignature({1, 2}));
}

TEST(Distribute, RecordLayoutOfRowsAlignsEverySegment) {
  // Planes of rows (rank-2: cols elements a sample): a 1-byte mask, a
  // double[3] row, an int[5] row, a 16-byte element, a 2-byte element.
  const RecordLayout r = recordLayout({1, 8, 4, 16, 2}, {1, 3, 5, 1, 1});
  EXPECT_EQ(r.bytes, 1u + 24u + 20u + 16u + 2u);
  EXPECT_EQ(r.before[3], 0u);  // 16-byte elements first
  EXPECT_EQ(r.before[1], 16u); // then the double rows (24 bytes a sample)
  EXPECT_EQ(r.before[2], 40u); // the int rows (20 bytes)
  EXPECT_EQ(r.before[4], 60u);
  EXPECT_EQ(r.before[0], 62u);
  for (std::size_t j = 0; j < r.elem.size(); ++j)
    EXPECT_EQ(r.before[j] % r.elem[j], 0u) << "plane " << j;
  // One column each: the rank-1 layout.
  const RecordLayout one = recordLayout({1, 8, 4}, {1, 1, 1}), plain = recordLayout({1, 8, 4});
  EXPECT_EQ(one.before, plain.before);
  EXPECT_EQ(one.bytes, plain.bytes);
}

TEST(Distribute, UnitsKeepMpiCountsInAnInt) {
  EXPECT_EQ(exchangeUnit(1000, 40, 4), 16u);
  // INT32_MAX samples of 128 bytes each: 16-byte units would overflow an int.
  const std::uint64_t u = exchangeUnit(INT32_MAX, 128, 100000);
  EXPECT_GT(u, 16u);
  EXPECT_LE((static_cast<std::uint64_t>(INT32_MAX) * 128 + u - 1) / u + 100000,
            static_cast<std::uint64_t>(INT_MAX));
  EXPECT_EQ(u % 16, 0u);
}

/// Simulate one rebalance over `counts` and check every rank's result.
void simulate(const std::vector<std::int64_t>& counts, const std::vector<std::uint32_t>& elem) {
  const int p = static_cast<int>(counts.size());
  const RecordLayout layout = recordLayout(elem);
  std::vector<ExchangePlan> plans;
  for (int r = 0; r < p; ++r) plans.push_back(exchangePlan(counts, r, layout));
  std::int64_t offset = 0;
  // Sample k of rank r carries, in plane j, bytes derived from its global
  // survivor number: (g * 31 + j * 7 + byte) mod 251.
  auto byteOf = [](std::int64_t g, std::size_t j, std::uint32_t b) {
    return static_cast<unsigned char>((g * 31 + static_cast<std::int64_t>(j) * 7 + b) % 251);
  };
  std::vector<std::vector<unsigned char>> send(p), recv(p);
  for (int r = 0; r < p; ++r) {
    const ExchangePlan& pl = plans[r];
    EXPECT_EQ(pl.offset, offset);
    EXPECT_EQ(pl.kept, counts[r]);
    send[r].assign(pl.sendBytes, 0);
    for (const ExchangeBlock& b : pl.sends) {
      EXPECT_EQ(b.byteBegin % 16, 0);
      for (std::size_t j = 0; j < elem.size(); ++j)
        for (std::int64_t i = 0; i < b.samples; ++i)
          for (std::uint32_t k = 0; k < elem[j]; ++k) {
            const std::uint64_t at = b.byteBegin + b.samples * layout.before[j] + i * elem[j] + k;
            ASSERT_LT(at, pl.sendBytes);
            send[r][at] = byteOf(offset + b.first + i, j, k);
          }
    }
    std::int64_t sent = 0;
    for (const ExchangeBlock& b : pl.sends) sent += b.samples;
    EXPECT_EQ(sent, counts[r]);
    recv[r].assign(pl.recvBytes, 0);
    offset += counts[r];
  }
  // MPI_Alltoallv: rank s's sendUnits[r] units from sendDispl[r] land at
  // rank r's recvDispl[s]; the counts must match pairwise.
  for (int s = 0; s < p; ++s)
    for (int r = 0; r < p; ++r) {
      ASSERT_EQ(plans[s].sendUnits[r], plans[r].recvUnits[s]) << s << " -> " << r;
      if (s == r) ASSERT_EQ(plans[s].sendUnits[r], 0) << "a rank's own block goes through MPI";
      const std::uint64_t unit = plans[s].unit;
      ASSERT_EQ(unit, plans[r].unit);
      if (plans[s].sendUnits[r] == 0) continue; // (an empty vector's data() may be null)
      std::memcpy(recv[r].data() + plans[r].recvDispl[s] * unit,
                  send[s].data() + plans[s].sendDispl[r] * unit,
                  static_cast<std::size_t>(plans[s].sendUnits[r]) * unit);
    }
  for (int r = 0; r < p; ++r) {
    const ExchangePlan& pl = plans[r];
    EXPECT_EQ(pl.received, shareSize(offset, p, r));
    std::int64_t got = 0;
    for (const ExchangeBlock& b : pl.recvs) {
      EXPECT_EQ(b.first, got); // blocks in ascending order, none empty
      EXPECT_GT(b.samples, 0);
      got += b.samples;
      for (std::size_t j = 0; j < elem.size(); ++j)
        for (std::int64_t i = 0; i < b.samples; ++i)
          for (std::uint32_t k = 0; k < elem[j]; ++k) {
            const std::uint64_t at = b.byteBegin + b.samples * layout.before[j] + i * elem[j] + k;
            const std::int64_t g = shareBegin(offset, p, r) + b.first + i;
            // The block a rank keeps is read from its own send buffer.
            const std::vector<unsigned char>& from = b.rank == r ? send[r] : recv[r];
            ASSERT_LT(at, from.size());
            ASSERT_EQ(from[at], byteOf(g, j, k)) << "rank " << r << " sample " << b.first + i;
          }
    }
    EXPECT_EQ(got, pl.received);
  }
}

TEST(Distribute, SimulatedExchangesDeliverTheBalancedShares) {
  std::mt19937_64 rng(17);
  const std::vector<std::vector<std::uint32_t>> planeSets = {{1}, {4, 1}, {16, 2, 8, 1}, {8}};
  for (int p = 1; p <= 7; ++p)
    for (int trial = 0; trial < 12; ++trial) {
      std::vector<std::int64_t> counts(p);
      for (auto& c : counts) c = trial % 3 == 0 ? 0 : static_cast<std::int64_t>(rng() % 40);
      if (trial == 4) counts.assign(p, 0), counts[p - 1] = 103; // one rank holds all
      if (trial == 5) counts.assign(p, 0), counts[0] = 5;       // fewer survivors than ranks
      if (trial == 6)
        for (int q = 1; q < p; q += 2) counts[q] = 0; // dead ranks
      simulate(counts, planeSets[trial % planeSets.size()]);
    }
}

} // namespace
