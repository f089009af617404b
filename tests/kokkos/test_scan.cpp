// SPDX-License-Identifier: Apache-2.0
// Sieve Kokkos tests — sieve::inclusive_scan / exclusive_scan on the backend
// of this binary: the shared scan suite through the public API (each case on
// the allocating form, the caller-scratch form with a total View, and the
// fencing form that returns the total), then what only the Kokkos face has
// (default operator and init, strided Views, the argument checks).
#include "../common/expect.hpp"
#include "../common/suite_scan.hpp"
#include "face.hpp"

#include <stdexcept>
#include <string>
#include <vector>

using namespace sieve_test;

SIEVE_SCAN_SUITE(KokkosScan, KokkosFace, ::sieve_test::sizes());

TEST(KokkosScanApi, DefaultOpAndInit) {
  const auto host = smallInts<std::int32_t>(70001, 3);
  const auto in = toDevice(host);
  DView<std::int32_t> out("out", host.size());
  sieve::inclusive_scan(TestExec(), in, out); // Sum, its identity
  EXPECT_EQ(toHost(out), refScan(host, sieve::Sum{}, 0, true));
  sieve::inclusive_scan(TestExec(), in, out, sieve::Max{}); // Max, its identity
  EXPECT_EQ(toHost(out), refScan(host, sieve::Max{}, sieve::Max::identity<std::int32_t>(), true));
  sieve::exclusive_scan(TestExec(), in, out, -3); // init required, Sum
  EXPECT_EQ(toHost(out), refScan(host, sieve::Sum{}, -3, false));
}

TEST(KokkosScanApi, StridedViews) {
  const std::int64_t n = 100003;
  const auto host = smallInts<std::int32_t>(n, 8);
  Kokkos::View<std::int32_t**, Kokkos::LayoutRight, TestMem> table("table", n, 2);
  auto h = Kokkos::create_mirror_view(table);
  for (std::int64_t i = 0; i < n; ++i) {
    h(i, 0) = host[static_cast<std::size_t>(i)];
    h(i, 1) = -1;
  }
  Kokkos::deep_copy(table, h);
  auto col0 = Kokkos::subview(table, Kokkos::ALL, 0);
  auto col1 = Kokkos::subview(table, Kokkos::ALL, 1);
  sieve::exclusive_scan(TestExec(), col0, col1, 2, sieve::Sum{});
  EXPECT_EQ(toHost(col1), refScan(host, sieve::Sum{}, 2, false));
  EXPECT_EQ(toHost(col0), host);
  sieve::inclusive_scan(TestExec(), col0, col1, sieve::Max{}, -5);
  EXPECT_EQ(toHost(col1), refScan(host, sieve::Max{}, -5, true));
}

// A strided scan takes the portable face (Kokkos kernels), which
// Kokkos::OpenMP cannot launch inside a parallel region: it throws, naming
// the call the user made, and writes nothing.
TEST(KokkosScanApi, StridedInsideAParallelRegionThrows) {
#if defined(SIEVE_TEST_OPENMP) && defined(_OPENMP)
  const std::int64_t n = 1000;
  Kokkos::View<std::int32_t**, Kokkos::LayoutRight, TestMem> table("table", n, 2);
  Kokkos::deep_copy(table, 1);
  auto col0 = Kokkos::subview(table, Kokkos::ALL, 0);
  auto col1 = Kokkos::subview(table, Kokkos::ALL, 1);
  int caught = 0, calls = 0;
#pragma omp parallel num_threads(2) reduction(+ : caught, calls)
  {
#pragma omp single
    {
      ++calls;
      try {
        sieve::inclusive_scan(TestExec(), col0, col1, sieve::Sum{}, 0);
      } catch (const std::invalid_argument& e) {
        const std::string what = e.what();
        caught += what.find("sieve::inclusive_scan") == 0 &&
                  what.find("parallel region") != std::string::npos;
      }
    }
  }
  EXPECT_EQ(caught, calls);
  EXPECT_EQ(toHost(col1), std::vector<std::int32_t>(n, 1)) << "nothing written";
#else
  GTEST_SKIP() << "OpenMP only";
#endif
}

TEST(KokkosScanApi, RejectsBadArguments) {
  auto in = toDevice(smallInts<std::int32_t>(100, 1));
  const std::size_t need = sieve::scan_scratch_size<std::int32_t>(100);
  ASSERT_GE(need, 1u);
  DView<std::int32_t> out("out", 99), scratch("scratch", need - 1), good("good", 100);
  expectInvalid([&] { sieve::inclusive_scan(TestExec(), in, out); }, "out.extent(0) = 99");
  expectInvalid([&] { sieve::exclusive_scan(TestExec(), in, good, 0, sieve::Sum{}, scratch); },
                "scratch.extent(0) = " + std::to_string(need - 1));
  auto overlap = Kokkos::subview(in, std::make_pair(1, 100));
  auto overlapIn = Kokkos::subview(in, std::make_pair(0, 99));
  expectInvalid([&] { sieve::inclusive_scan(TestExec(), overlapIn, overlap); },
                "partially overlaps");
}

// The inclusive scan without init of an operator without identity(): the
// first element starts the fold (std::inclusive_scan(first, last, d, op)).
TEST(KokkosScanApi, NoIdentityStartsFromFirst) {
  const std::int64_t n = 100003;
  const auto host = smallInts<std::int32_t>(n, 9);
  const auto ref = refScanFromFirst(host, MaxNoIdentity{});
  // strided Views (the portable face on every space), with a label; all
  // inputs negative (a fold from T{} = 0 would show)
  Kokkos::View<std::int32_t**, Kokkos::LayoutRight, TestMem> table("table", n, 2);
  auto h = Kokkos::create_mirror_view(table);
  for (std::int64_t i = 0; i < n; ++i) {
    h(i, 0) = host[static_cast<std::size_t>(i)] - 9; // all negative
    h(i, 1) = 0;
  }
  Kokkos::deep_copy(table, h);
  auto col0 = Kokkos::subview(table, Kokkos::ALL, 0);
  auto col1 = Kokkos::subview(table, Kokkos::ALL, 1);
  Kokkos::View<std::int32_t, TestMem> total("total");
  sieve::inclusive_scan("nonid", TestExec(), col0, col1, MaxNoIdentity{}, total);
  std::vector<std::int32_t> neg(host);
  for (auto& x : neg) x -= 9;
  const auto negRef = refScanFromFirst(neg, MaxNoIdentity{});
  EXPECT_EQ(toHost(col1), negRef);
  EXPECT_EQ(toHost(col0), neg);
  std::int32_t t = 0;
  Kokkos::deep_copy(t, total);
  EXPECT_EQ(t, negRef.back());
  EXPECT_LT(t, 0);
  // contiguous, the fencing form with a label: returns the total
  const auto in = toDevice(host);
  DView<std::int32_t> out("out", host.size());
  EXPECT_EQ(sieve::inclusive_scan("nonid", in, out, MaxNoIdentity{}), ref.back());
  EXPECT_EQ(toHost(out), ref);
  // an init after the operator still seeds the fold
  sieve::inclusive_scan(TestExec(), in, out, MaxNoIdentity{}, 100);
  EXPECT_EQ(toHost(out), refScan(host, MaxNoIdentity{}, 100, true));
  // n == 0: nothing written, the total is T{}
  DView<std::int32_t> none("none", 0);
  EXPECT_EQ(sieve::inclusive_scan(none, none, FirstNonZero{}), 0);
  Kokkos::deep_copy(total, 7);
  sieve::inclusive_scan(TestExec(), none, none, FirstNonZero{}, total);
  Kokkos::deep_copy(t, total);
  EXPECT_EQ(t, 0);
}

TEST(KokkosScanApi, NoIdentityRejectsBadArguments) {
  const auto in = toDevice(smallInts<std::int32_t>(5000, 2));
  DView<std::int32_t> out("out", 4999), good("good", 5000);
  Kokkos::deep_copy(out, 3);
  expectInvalid([&] { sieve::inclusive_scan(TestExec(), in, out, LeftOp{}); },
                "out.extent(0) = 4999");
  EXPECT_EQ(toHost(out), std::vector<std::int32_t>(4999, 3)) << "written before the throw";
  DView<std::int32_t> shortSums("sums", 1);
  expectInvalid([&] { sieve::inclusive_scan(TestExec(), in, good, LeftOp{}, shortSums); },
                "scratch.extent(0) = 1");
  Kokkos::View<std::int32_t, TestMem> empty;
  expectInvalid([&] { sieve::inclusive_scan(TestExec(), in, good, LeftOp{}, empty); },
                "total is an empty View");
}
