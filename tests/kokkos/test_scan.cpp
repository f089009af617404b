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
