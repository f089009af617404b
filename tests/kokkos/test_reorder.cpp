// SPDX-License-Identifier: Apache-2.0
// Sieve Kokkos tests — sieve::reorder / sieve::restore on the backend of this
// binary: the shared reorder suite through the public API (typed planes of
// every element size, the 16-byte user type included), then what only the
// Kokkos face has (the Trigger overload in a device-resident flow, strided
// planes, a permutation longer than the planes, the argument checks).
#include "../common/expect.hpp"
#include "../common/suite_reorder.hpp"
#include "face.hpp"

#include <cstring>
#include <numeric>
#include <stdexcept>

using namespace sieve_test;

SIEVE_REORDER_SUITE(KokkosReorder, KokkosFace);

namespace {

using Pop = KokkosPopulation<std::uint8_t, std::int16_t, float, double, F4>;

std::vector<std::int32_t> iota(std::int64_t n) {
  std::vector<std::int32_t> v(static_cast<std::size_t>(n));
  std::iota(v.begin(), v.end(), 0);
  return v;
}

/// Plane contents.
template <class T>
std::vector<T> planeValues(std::int64_t n, double a, double b) {
  std::vector<T> v(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i)
    v[static_cast<std::size_t>(i)] = static_cast<T>(a * double(i) + b);
  return v;
}

} // namespace

TEST(KokkosReorderApi, TriggerDrivenStepsThenRestore) {
  // The flow of a transport code, device-resident: compact with the trigger
  // each step, reorder through the Trigger overload (a no-op unless it
  // fired), and at the end restore: every plane back bit for bit.
  const std::int64_t n = (std::int64_t(1) << 20) + 4099;
  const auto original =
      makePopulation(std::vector<std::uint8_t>(static_cast<std::size_t>(n), 1), allElems());
  Pop pop(original);
  RefState ref = original;
  sieve::Trigger<TestMem> trig(word(0, "live32"), pop.span, pop.fire, 0.5f);
  Bytes cscratch("cscratch", sieve::compact_scratch_bytes(n));
  TestExec exec;
  int fired = 0;
  for (std::uint32_t step = 0; step < 4; ++step) {
    SCOPED_TRACE("step " + std::to_string(step));
    const auto next = thin(maskOf(ref), 0.5, 200 + step);
    ref.planes[0].bytes.assign(next.begin(), next.end());
    std::get<0>(pop.planes).upload(next.data());
    sieve::compact(exec, pop.mask(), pop.map.view(), pop.count, cscratch, trig);
    exec.fence();
    const auto rc = refCompact(next.data(), n, false);
    ASSERT_EQ(read(pop.count), rc.count);
    ASSERT_EQ(read(trig.live32), rc.live32);
    const std::uint32_t fire = refFire(rc.count, rc.live32, ref.span, 0.5f);
    ASSERT_EQ(read(trig.fire), fire);
    fired += static_cast<int>(fire);
    for (std::uint32_t k = 0; k < rc.count; ++k) ref.map[k] = rc.map[k];
    ref.count = rc.count;
    ref.fire = fire;
    refReorder(ref, n, false, true);
    sieve::reorder(exec, pop.mask(), pop.perm.view(), pop.inv.view(), pop.map.view(), pop.count,
                   trig, pop.scratch.view(), pop.mask(), pop.plane<1>(), pop.plane<2>(),
                   pop.plane<3>(), pop.plane<4>());
    exec.fence();
    RefState got = original;
    pop.download(got);
    expectSameState(got, ref);
  }
  EXPECT_GE(fired, 1) << "a thinning random population must fire the trigger";
  sieve::restore(exec, pop.perm.view(), pop.inv.view(), pop.scratch.view(), pop.plane<4>(),
                 pop.plane<3>(), pop.mask(), pop.plane<2>(), pop.plane<1>());
  exec.fence();
  refRestore(ref);
  RefState got = original;
  pop.download(got);
  expectSameState(got, ref);
  for (std::size_t p = 1; p < got.planes.size(); ++p)
    EXPECT_TRUE(got.planes[p].bytes == original.planes[p].bytes) << "plane " << p;
}

TEST(KokkosReorderApi, StridedPlaneAndMask) {
  // A double plane and the mask as columns of 2-D LayoutRight Views.
  const std::int64_t n = 50021;
  const auto host = makeMask(MaskKind::Random50, n);
  Kokkos::View<double**, Kokkos::LayoutRight, TestMem> xyz("xyz", n, 3);
  Kokkos::View<std::uint8_t**, Kokkos::LayoutRight, TestMem> flags2("flags2", n, 2);
  auto hx = Kokkos::create_mirror_view(xyz);
  auto hf = Kokkos::create_mirror_view(flags2);
  for (std::int64_t i = 0; i < n; ++i) {
    for (int c = 0; c < 3; ++c) hx(i, c) = double(i) * 10 + c;
    hf(i, 0) = host[static_cast<std::size_t>(i)];
    hf(i, 1) = 9;
  }
  Kokkos::deep_copy(xyz, hx);
  Kokkos::deep_copy(flags2, hf);
  auto y = Kokkos::subview(xyz, Kokkos::ALL, 1);
  auto mask = Kokkos::subview(flags2, Kokkos::ALL, 0);
  DView<std::int32_t> perm = toDevice(iota(n)), inv = toDevice(iota(n));
  auto map = filled<std::int32_t>(n, -1);
  Word count = word(0), span = word(static_cast<std::uint32_t>(n));
  Bytes scratch("scratch", sieve::reorder_scratch_bytes(n, 8));
  TestExec exec;
  sieve::reorder(exec, mask, perm, inv, map, count, span, Word(), scratch, y, mask);
  std::vector<double> expectY;
  std::vector<std::uint8_t> expectM;
  for (int pass = 0; pass < 2; ++pass)
    for (std::int64_t i = 0; i < n; ++i)
      if ((host[static_cast<std::size_t>(i)] != 0) == (pass == 0)) {
        expectY.push_back(double(i) * 10 + 1);
        expectM.push_back(host[static_cast<std::size_t>(i)]);
      }
  EXPECT_EQ(toHost(y), expectY);
  EXPECT_EQ(toHost(mask), expectM);
  // Columns 0 and 2 of xyz and column 1 of flags2 did not move.
  Kokkos::deep_copy(hx, xyz);
  Kokkos::deep_copy(hf, flags2);
  for (std::int64_t i = 0; i < n; ++i) {
    ASSERT_EQ(hx(i, 0), double(i) * 10);
    ASSERT_EQ(hx(i, 2), double(i) * 10 + 2);
    ASSERT_EQ(hf(i, 1), 9);
  }
  sieve::restore(exec, perm, inv, scratch, y, mask);
  std::vector<double> y0(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) y0[static_cast<std::size_t>(i)] = double(i) * 10 + 1;
  EXPECT_EQ(toHost(y), y0);
  EXPECT_EQ(toHost(mask), host);
}

TEST(KokkosReorderApi, InterleavedColumnsOfOneTableAreTwoPlanes) {
  // Columns 0 and 2 of one LayoutRight table share no byte (the overlap rule
  // compares the bytes elements touch): two planes of one call, moved as the
  // reference moves them, column 1 between them untouched; and the same
  // column twice is still refused.
  const std::int64_t n = 40009;
  const auto host = makeMask(MaskKind::Random50, n);
  const auto mask = toDevice(host);
  Kokkos::View<std::int32_t**, Kokkos::LayoutRight, TestMem> t("t", n, 3);
  auto ht = Kokkos::create_mirror_view(t);
  for (std::int64_t i = 0; i < n; ++i)
    for (int c = 0; c < 3; ++c) ht(i, c) = static_cast<std::int32_t>(i * 3 + c);
  Kokkos::deep_copy(t, ht);
  auto a = Kokkos::subview(t, Kokkos::ALL, 0);
  auto b = Kokkos::subview(t, Kokkos::ALL, 2);
  DView<std::int32_t> perm = toDevice(iota(n)), inv = toDevice(iota(n));
  auto map = filled<std::int32_t>(n, -1);
  Word count = word(0), span = word(static_cast<std::uint32_t>(n));
  Bytes scratch("scratch", sieve::reorder_scratch_bytes(n, 4));
  TestExec exec;
  EXPECT_THROW(sieve::reorder(exec, mask, perm, inv, map, count, span, Word(), scratch, mask, a, a),
               std::invalid_argument);
  sieve::reorder(exec, mask, perm, inv, map, count, span, Word(), scratch, mask, a, b);
  std::vector<std::int32_t> expectA, expectB;
  for (int pass = 0; pass < 2; ++pass)
    for (std::int64_t i = 0; i < n; ++i)
      if ((host[static_cast<std::size_t>(i)] != 0) == (pass == 0)) {
        expectA.push_back(static_cast<std::int32_t>(i * 3));
        expectB.push_back(static_cast<std::int32_t>(i * 3 + 2));
      }
  EXPECT_EQ(toHost(a), expectA);
  EXPECT_EQ(toHost(b), expectB);
  Kokkos::deep_copy(ht, t);
  for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(ht(i, 1), static_cast<std::int32_t>(i * 3 + 1));
  sieve::restore(exec, perm, inv, scratch, mask, a, b);
  Kokkos::deep_copy(ht, t);
  for (std::int64_t i = 0; i < n; ++i)
    for (int c = 0; c < 3; ++c) ASSERT_EQ(ht(i, c), static_cast<std::int32_t>(i * 3 + c));
  EXPECT_EQ(toHost(mask), host);
}

TEST(KokkosReorderApi, PermutationLongerThanThePlanes) {
  // perm / inv sized to a capacity above n: reorder and restore both take n
  // from the planes.
  const std::int64_t n = 5000, capacity = 6000;
  const auto host = makeMask(MaskKind::Random50, n);
  const auto mask = toDevice(host);
  DView<double> x = toDevice(planeValues<double>(n, 2.0, 1.0));
  std::vector<std::int32_t> ids(capacity);
  std::iota(ids.begin(), ids.end(), 0);
  auto perm = toDevice(ids), inv = toDevice(ids);
  auto map = filled<std::int32_t>(n, -1);
  Word count = word(0), span = word(n);
  Bytes scratch("scratch", sieve::reorder_scratch_bytes(n, 8));
  TestExec exec;
  sieve::reorder(exec, mask, sieve::MaskPolarity::keep, perm, inv, map, count, span, Word(),
                 scratch, mask, x);
  EXPECT_EQ(read(count), refCompact(host.data(), n, false).count);
  sieve::restore(exec, perm, inv, scratch, mask, x);
  EXPECT_EQ(toHost(mask), host);
  EXPECT_EQ(toHost(x), planeValues<double>(n, 2.0, 1.0));
  EXPECT_EQ(toHost(perm), ids);
}

TEST(KokkosReorderApi, RejectsBadArguments) {
  const std::int64_t n = 5000;
  Pop pop(makePopulation(makeMask(MaskKind::Random50, n), allElems()));
  TestExec exec;
  auto shortPlane = Kokkos::subview(pop.plane<3>(), std::make_pair(0, 4999));
  expectInvalid(
      [&] {
        sieve::reorder(exec, pop.mask(), pop.perm.view(), pop.inv.view(), pop.map.view(), pop.count,
                       pop.span, pop.fire, pop.scratch.view(), pop.mask(), shortPlane);
      },
      "plane 1 has extent 4999");
  Bytes small("small", sieve::reorder_scratch_bytes(n, 8));
  expectInvalid(
      [&] {
        sieve::reorder(exec, pop.mask(), pop.perm.view(), pop.inv.view(), pop.map.view(), pop.count,
                       pop.span, pop.fire, small, pop.mask(), pop.plane<4>());
      },
      "scratch holds");
  expectInvalid(
      [&] {
        sieve::reorder(exec, pop.mask(), pop.perm.view(), pop.inv.view(), pop.map.view(), pop.count,
                       pop.span, pop.fire, pop.scratch.view(), pop.plane<3>());
      },
      "mask is not among the planes");
  expectInvalid(
      [&] {
        sieve::reorder(exec, pop.mask(), pop.perm.view(), pop.inv.view(), pop.map.view(), pop.count,
                       pop.span, pop.fire, pop.scratch.view(), pop.mask(), pop.plane<3>(),
                       pop.plane<3>());
      },
      "overlaps");
  auto shortPerm = Kokkos::subview(pop.perm.view(), std::make_pair(0, 10));
  expectInvalid(
      [&] {
        sieve::reorder(exec, pop.mask(), shortPerm, pop.inv.view(), pop.map.view(), pop.count,
                       pop.span, pop.fire, pop.scratch.view(), pop.mask());
      },
      "perm.extent(0)");
  expectInvalid(
      [&] {
        sieve::reorder(exec, pop.mask(), pop.perm.view(), pop.inv.view(), pop.map.view(), pop.count,
                       Word(), pop.fire, pop.scratch.view(), pop.mask());
      },
      "span is an empty View");
  expectInvalid(
      [&] { sieve::restore(exec, pop.perm.view(), pop.inv.view(), small, pop.plane<4>()); },
      "scratch holds");
  sieve::Trigger<TestMem> noFire;
  noFire.span = pop.span;
  expectInvalid(
      [&] {
        sieve::reorder(exec, pop.mask(), pop.perm.view(), pop.inv.view(), pop.map.view(), pop.count,
                       noFire, pop.scratch.view(), pop.mask());
      },
      "trigger.fire is an empty View");
  expectInvalid([&] { sieve::reorder_scratch_bytes(10, 12); }, "max_elem_bytes = 12");
  EXPECT_EQ(read(pop.count), 0u) << "a rejected call wrote the count";
}
