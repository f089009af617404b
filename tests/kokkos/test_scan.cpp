// Sieve Kokkos tests — sieve::inclusive_scan / exclusive_scan on the backend
// of this binary.
#include "../common/cases.hpp"
#include "../common/expect.hpp"
#include "../common/ops.hpp"
#include "../common/reference.hpp"
#include "backend.hpp"

#include <cstring>
#include <random>
#include <stdexcept>

using namespace sieve_test;

namespace {

/// A user operator, callable on the device: bitwise xor for integers, the
/// value of larger magnitude for floating point (both associative).
struct UserOp {
  template <class T>
  KOKKOS_INLINE_FUNCTION T operator()(const T& a, const T& b) const {
    if constexpr (std::is_integral_v<T>) return a ^ b;
    else return (b < 0 ? -b : b) > (a < 0 ? -a : a) ? b : a;
  }
};

template <class T>
bool sameBytes(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && compareBytes(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

template <class T, class Op>
void check(Op op, T init, const char* what) {
  for (const auto n : sizes()) {
    if (std::is_same_v<T, float> && n > (1 << 20)) continue; // float sums stay exact
    const auto host = smallInts<T>(n, 11);
    const auto in = toDevice(host, "in");
    for (const bool inclusive : {true, false}) {
      SCOPED_TRACE(std::string(what) + " n=" + std::to_string(n) + (inclusive ? " incl" : " excl"));
      const auto ref = refScan(host, op, init, inclusive);
      TestExec exec;
      // Library-allocated block sums.
      auto out = filled<T>(static_cast<std::size_t>(n), T(99), "out");
      if (inclusive) sieve::inclusive_scan(exec, in, out, op, init);
      else sieve::exclusive_scan(exec, in, out, op, init);
      ASSERT_TRUE(sameBytes(toHost(out), ref));
      // Caller scratch: allocation-free.
      auto out2 = filled<T>(static_cast<std::size_t>(n), T(99), "out2");
      DView<T> scratch("scratch", static_cast<std::size_t>(n));
      if (inclusive) sieve::inclusive_scan(exec, in, out2, op, init, scratch);
      else sieve::exclusive_scan(exec, in, out2, op, init, scratch);
      ASSERT_TRUE(sameBytes(toHost(out2), ref));
    }
  }
}

} // namespace

TEST(Scan, Int32) {
  check<std::int32_t>(sieve::Sum{}, 0, "sum");
  check<std::int32_t>(sieve::Sum{}, -40, "sum+init");
  check<std::int32_t>(sieve::Min{}, sieve::Min::identity<std::int32_t>(), "min");
  check<std::int32_t>(sieve::Max{}, 3, "max+init");
  check<std::int32_t>(UserOp{}, 0x5A, "user");
}

TEST(Scan, Int64AndUnsigned) {
  check<std::int64_t>(sieve::Sum{}, std::int64_t(1) << 40, "sum+init");
  check<std::uint32_t>(sieve::Max{}, 0u, "umax");
}

TEST(Scan, FloatingPoint) {
  check<float>(sieve::Sum{}, 0.5f, "float sum+init");
  check<float>(UserOp{}, 0.0f, "float user");
  check<double>(sieve::Sum{}, 0.0, "double sum");
  check<double>(sieve::Min{}, 1.0, "double min+init");
}

TEST(Scan, OrderSensitiveOperator) {
  for (const auto n : sizes()) {
    const auto host = affineMaps(n, 31);
    const std::uint64_t init = affineMaps(1, 32)[0];
    const auto in = toDevice(host);
    DView<std::uint64_t> out("out", host.size()), sums("sums", host.size());
    sieve::inclusive_scan(TestExec(), in, out, Affine{}, init);
    ASSERT_EQ(toHost(out), refScan(host, Affine{}, init, true)) << "n=" << n;
    sieve::exclusive_scan(TestExec(), in, out, Affine{}, init, sums);
    ASSERT_EQ(toHost(out), refScan(host, Affine{}, init, false)) << "n=" << n;
  }
}

TEST(Scan, DefaultOpAndInit) {
  const auto host = smallInts<std::int32_t>(70001, 3);
  const auto in = toDevice(host);
  DView<std::int32_t> out("out", host.size());
  sieve::inclusive_scan(TestExec(), in, out);
  EXPECT_EQ(toHost(out), refScan(host, sieve::Sum{}, 0, true));
  sieve::exclusive_scan(TestExec(), in, out, sieve::Max{});
  EXPECT_EQ(toHost(out), refScan(host, sieve::Max{}, sieve::Max::identity<std::int32_t>(), false));
}

TEST(Scan, InPlace) {
  const auto host = smallInts<std::int64_t>(300007, 5);
  auto data = toDevice(host);
  sieve::inclusive_scan(TestExec(), data, data, sieve::Sum{}, std::int64_t(7));
  EXPECT_EQ(toHost(data), refScan(host, sieve::Sum{}, std::int64_t(7), true));
}

TEST(Scan, DeterministicFloatingPoint) {
  std::mt19937 g(1);
  std::uniform_real_distribution<double> d(-1, 1);
  std::vector<double> host(1 << 20);
  for (auto& x : host) x = d(g);
  const auto in = toDevice(host);
  DView<double> a("a", host.size()), b("b", host.size());
  sieve::inclusive_scan(TestExec(), in, a);
  sieve::inclusive_scan(TestExec(), in, b);
  EXPECT_TRUE(sameBytes(toHost(a), toHost(b)));
}

TEST(Scan, StridedViews) {
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
  sieve::exclusive_scan(TestExec(), col0, col1, sieve::Sum{}, 2);
  EXPECT_EQ(toHost(col1), refScan(host, sieve::Sum{}, 2, false));
  EXPECT_EQ(toHost(col0), host);
}

TEST(Scan, RejectsBadArguments) {
  auto in = toDevice(smallInts<std::int32_t>(100, 1));
  DView<std::int32_t> out("out", 99), scratch("scratch", 50), good("good", 100);
  expectInvalid([&] { sieve::inclusive_scan(TestExec(), in, out); }, "out.extent(0) = 99");
  expectInvalid([&] { sieve::exclusive_scan(TestExec(), in, good, sieve::Sum{}, 0, scratch); },
              "scratch.extent(0) = 50");
  auto overlap = Kokkos::subview(in, std::make_pair(1, 100));
  auto overlapIn = Kokkos::subview(in, std::make_pair(0, 99));
  expectInvalid([&] { sieve::inclusive_scan(TestExec(), overlapIn, overlap); }, "partially overlaps");
}
