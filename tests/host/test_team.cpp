// SPDX-License-Identifier: Apache-2.0
// Sieve host tests — BlockPrefix, the team's barrier-free block offsets
// (the host form of a decoupled look-back), against a sequential prefix sum:
// blocks dealt round-robin or in contiguous runs, teams larger than the
// machine (threads that wait must yield), counts of zero and of 2^40.
#include <sieve/native/host/team.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace {

using i64 = std::int64_t;

void checkPrefix(i64 blocks, int threads, bool roundRobin, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::vector<i64> count(static_cast<std::size_t>(blocks));
  for (auto& c : count) {
    const auto r = rng() % 8;
    c = r == 0 ? 0
               : (r == 1 ? (i64(1) << 40) + static_cast<i64>(rng() % 1000)
                         : static_cast<i64>(rng() % 100000));
  }
  std::vector<i64> got(static_cast<std::size_t>(blocks), -1);
  sieve::Impl::BlockPrefix prefix(blocks);
  sieve::Impl::runTeam(threads, [&](const sieve::Impl::TeamCtx& t) {
    i64 b0 = t.id, b1 = blocks, step = t.size;
    if (!roundRobin) {
      sieve::Impl::teamShare(t, blocks, b0, b1);
      step = 1;
    }
    for (i64 b = b0; b < b1; b += step)
      got[static_cast<std::size_t>(b)] = prefix.exclusive(b, count[static_cast<std::size_t>(b)]);
  });
  i64 sum = 0;
  for (i64 b = 0; b < blocks; ++b) {
    ASSERT_EQ(got[static_cast<std::size_t>(b)], sum) << "block " << b;
    sum += count[static_cast<std::size_t>(b)];
  }
  EXPECT_EQ(prefix.total(), sum);
}

} // namespace

TEST(HostBlockPrefix, MatchesTheSequentialPrefix) {
  for (const i64 blocks : {i64(0), i64(1), i64(2), i64(7), i64(1000)})
    for (const int threads : {1, 2, 3, 8})
      for (const bool roundRobin : {true, false}) {
        SCOPED_TRACE("blocks " + std::to_string(blocks) + " threads " + std::to_string(threads) +
                     (roundRobin ? " round-robin" : " contiguous"));
        checkPrefix(blocks, threads, roundRobin, static_cast<unsigned>(blocks * 31 + threads));
      }
}

// Many rounds of an oversubscribed team (a thread that waits on a block whose
// owner is descheduled must give its core up, or this takes minutes).
TEST(HostBlockPrefix, OversubscribedTeamsProgress) {
  for (int rep = 0; rep < 20; ++rep) checkPrefix(4096, 16, rep % 2 == 0, 1000u + rep);
}
