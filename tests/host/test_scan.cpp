// SPDX-License-Identifier: Apache-2.0
// Sieve host tests — cpu::Scan: the shared scan suite on the host twins, then
// what only this face has: the default init, other block sizes, the argument
// checks, and (HostScanOpenMP, run by the host.omp4 ctest entry, fixed teams
// of up to 4 threads) the behaviour inside and around OpenMP parallel regions.
#include "../common/suite_scan.hpp"
#include "face.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <stdexcept>

#if defined(_OPENMP)
#include <omp.h>
#endif

using namespace sieve_test;

SIEVE_SCAN_SUITE(HostScan, HostFace, ::sieve_test::sizes());

TEST(HostScanNative, DefaultInitIsTheIdentity) {
  const auto in = smallInts<std::int32_t>(5000, 9);
  std::vector<std::int32_t> out(in.size()), bs(in.size());
  sieve::cpu::Scan::inclusive<std::int32_t, sieve::Min>(in.data(), out.data(), bs.data(), 5000);
  EXPECT_EQ(out, refScan(in, sieve::Min{}, std::numeric_limits<std::int32_t>::max(), true));
  sieve::cpu::Scan::exclusive<std::int32_t, sieve::Sum>(in.data(), out.data(), bs.data(), 5000);
  EXPECT_EQ(out, refScan(in, sieve::Sum{}, 0, false));
}

TEST(HostScanNative, OtherBlockSizes) {
  const auto in = smallInts<std::int64_t>(100003, 5);
  std::vector<std::int64_t> out(in.size()), bs(in.size());
  sieve::cpu::Scan::inclusive<std::int64_t, sieve::Sum, 64>(in.data(), out.data(), bs.data(),
                                                            100003);
  EXPECT_EQ(out, refScan(in, sieve::Sum{}, std::int64_t(0), true));
  sieve::cpu::Scan::exclusive<std::int64_t, sieve::Max, 7>(in.data(), out.data(), bs.data(), 100003,
                                                           std::int64_t(-100));
  EXPECT_EQ(out, refScan(in, sieve::Max{}, std::int64_t(-100), false));
}

// Seeded = false: the fold starts from in[0] (std::inclusive_scan without
// init), across many blocks and several rounds (small blocks), on teams of 1
// to 4 threads, and called from inside a parallel region (work sharing).
TEST(HostScanNative, FromFirstSmallBlocksAndTeams) {
  using S = sieve::cpu::Scan;
  const std::int64_t n = 300007;
  const auto maps = affineMaps(n, 31);
  const auto ref = refScanFromFirst(maps, Affine{});
  for (int t : {1, 2, 3, 4}) {
    SCOPED_TRACE(std::to_string(t) + " threads");
    std::vector<std::uint64_t> out(maps.size(), 7u), bs(maps.size(), 7u);
    S::scan<std::uint64_t, Affine, true, 7, false>(sieve::HostTeam{t}, maps.data(), out.data(),
                                                   bs.data(), n, 0u, Affine{});
    EXPECT_EQ(out, ref);
    out = maps; // in place
    S::scan<std::uint64_t, Affine, true, 64, false>(sieve::HostTeam{t}, out.data(), out.data(),
                                                    bs.data(), n, 0u, Affine{});
    EXPECT_EQ(out, ref);
  }
  std::vector<std::uint64_t> out(maps.size()), bs(maps.size());
#pragma omp parallel num_threads(2)
  S::scan<std::uint64_t, Affine, true, 7, false>(maps.data(), out.data(), bs.data(), n, 0u,
                                                 Affine{});
  EXPECT_EQ(out, ref);
  // a 32-bit integer sum (the vectorised loop) from in[0]
  const auto ints = smallInts<std::int32_t>(n, 4);
  std::vector<std::int32_t> sum(ints.size()), bs32(ints.size());
  S::scan<std::int32_t, sieve::Sum, true, sieve::Tuning::Host::kScanBlock, false>(
      sieve::HostTeam{3}, ints.data(), sum.data(), bs32.data(), n, 1000, sieve::Sum{});
  EXPECT_EQ(sum, refScanFromFirst(ints, sieve::Sum{})) << "init must be ignored";
}

TEST(HostScanNative, RejectsBadArguments) {
  std::vector<std::int32_t> a(100), b(100), s(100);
  using S = sieve::cpu::Scan;
  EXPECT_THROW((S::inclusive<std::int32_t, sieve::Sum>(a.data(), b.data(), s.data(), -1)),
               std::invalid_argument);
  EXPECT_THROW(
      (S::inclusive<std::int32_t, sieve::Sum>(a.data(), b.data(), s.data(), std::int64_t(1) << 31)),
      std::invalid_argument);
  EXPECT_THROW((S::inclusive<std::int32_t, sieve::Sum>(nullptr, b.data(), s.data(), 10)),
               std::invalid_argument);
  EXPECT_THROW((S::inclusive<std::int32_t, sieve::Sum>(a.data(), a.data() + 1, s.data(), 10)),
               std::invalid_argument);
  EXPECT_THROW((S::exclusive<std::int32_t, sieve::Sum>(a.data(), b.data(), a.data() + 5, 10)),
               std::invalid_argument);
  EXPECT_NO_THROW((S::inclusive<std::int32_t, sieve::Sum>(nullptr, nullptr, nullptr, 0)));
}

TEST(HostScanOpenMP, InsideAnActiveParallelRegionWorkShares) {
  const std::int64_t n = (1 << 20) + 4099;
  const auto in = smallInts<std::int32_t>(n, 6);
  const auto ref = refScan(in, sieve::Sum{}, 11, true);
  const auto refEx = refScan(in, sieve::Sum{}, 11, false);
  std::vector<std::int32_t> out(in.size()), ex(in.size()), bs(in.size());
  int teamSize = 1;
#pragma omp parallel num_threads(4)
  {
#if defined(_OPENMP)
#pragma omp single
    teamSize = omp_get_num_threads();
#endif
    // Every thread of the team calls the scan: it work-shares over the team.
    sieve::cpu::Scan::inclusive<std::int32_t, sieve::Sum>(in.data(), out.data(), bs.data(), n, 11);
    sieve::cpu::Scan::exclusive<std::int32_t, sieve::Sum>(in.data(), ex.data(), bs.data(), n, 11);
  }
  EXPECT_EQ(out, ref) << "team of " << teamSize;
  EXPECT_EQ(ex, refEx) << "team of " << teamSize;
}

TEST(HostScanOpenMP, InsideARegionResultsAreCompleteOnReturn) {
  // Two scans back to back in one region, sharing blockSums, each result read
  // by one thread right after its call: the call must not return early.
  struct SlowSum { // a sum that takes its time on the last thread of the team
    std::int64_t operator()(std::int64_t a, std::int64_t b) const {
#if defined(_OPENMP)
      if (omp_get_thread_num() == omp_get_num_threads() - 1)
        for (volatile int k = 0; k < 20; ++k) {
        }
#endif
      return a + b;
    }
  };
  const std::int64_t n = 1 << 20;
  std::vector<std::int64_t> a(n, 1), b(n, 1000), outA(n), outB(n), sums(n);
  bool ok = true;
#pragma omp parallel num_threads(4) reduction(&& : ok)
  {
    sieve::cpu::Scan::inclusive<std::int64_t, SlowSum>(a.data(), outA.data(), sums.data(), n, 0);
    ok = ok && outA[n - 1] == n && outA[n / 2] == n / 2 + 1;
    sieve::cpu::Scan::inclusive<std::int64_t, SlowSum>(b.data(), outB.data(), sums.data(), n, 0);
    ok = ok && outB[n - 1] == 1000 * n && outB[16384] == 1000 * 16385;
  }
  EXPECT_TRUE(ok);
  EXPECT_EQ(outA, refScan(a, sieve::Sum{}, std::int64_t(0), true));
  EXPECT_EQ(outB, refScan(b, sieve::Sum{}, std::int64_t(0), true));
}

TEST(HostScanOpenMP, NestedTeamFromInsideAParallelRegion) {
  // Two threads each run their own scan on a HostTeam: no work sharing across them.
  const std::int64_t n = 200003;
  const std::vector<std::vector<std::int32_t>> in{smallInts<std::int32_t>(n, 1),
                                                  smallInts<std::int32_t>(n, 2)};
  std::vector<std::vector<std::int32_t>> out(2, std::vector<std::int32_t>(n)),
      bs(2, std::vector<std::int32_t>(n));
#pragma omp parallel num_threads(2)
  {
#if defined(_OPENMP)
    const int id = omp_get_thread_num(), size = omp_get_num_threads();
#else
    const int id = 0, size = 1;
#endif
    for (int k = id; k < 2; k += size)
      sieve::cpu::Scan::inclusive<std::int32_t, sieve::Sum>(sieve::HostTeam{2}, in[k].data(),
                                                            out[k].data(), bs[k].data(), n);
  }
  EXPECT_EQ(out[0], refScan(in[0], sieve::Sum{}, 0, true));
  EXPECT_EQ(out[1], refScan(in[1], sieve::Sum{}, 0, true));
}

TEST(HostScanOpenMP, FloatBitsIndependentOfThreadCount) {
  std::mt19937 g(12);
  std::uniform_real_distribution<double> d(-1.0, 1.0);
  std::vector<double> in((1 << 20) + 4099);
  for (auto& x : in) x = d(g);
  std::vector<double> first;
  for (int t : {1, 2, 3, 4}) {
    for (int rep = 0; rep < 2; ++rep) {
      std::vector<double> out(in.size()), bs(in.size());
      sieve::cpu::Scan::inclusive<double, sieve::Sum>(sieve::HostTeam{t}, in.data(), out.data(),
                                                      bs.data(),
                                                      static_cast<std::int64_t>(in.size()));
      if (first.empty()) first = out;
      ASSERT_EQ(0, compareBytes(first.data(), out.data(), out.size() * sizeof(double)))
          << t << " threads, repetition " << rep;
    }
  }
}
