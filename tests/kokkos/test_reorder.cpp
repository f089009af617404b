// Sieve Kokkos tests — sieve::reorder / sieve::restore on the backend of this
// binary, with planes of every element size (user types included).
#include "../common/cases.hpp"
#include "../common/expect.hpp"
#include "../common/reference.hpp"
#include "backend.hpp"

#include <cstring>
#include <numeric>
#include <stdexcept>

using namespace sieve_test;

namespace {

using F4 = Kokkos::Array<float, 4>; // a 16-byte user element
static_assert(sizeof(F4) == 16);

template <class T>
std::vector<T> fromBytes(const std::vector<unsigned char>& b) {
  std::vector<T> v(b.size() / sizeof(T));
  copyBytes(static_cast<void*>(v.data()), b.data(), b.size());
  return v;
}
template <class T>
std::vector<unsigned char> bytesOf(const std::vector<T>& v) {
  std::vector<unsigned char> b(v.size() * sizeof(T));
  copyBytes(b.data(), static_cast<const void*>(v.data()), b.size());
  return b;
}

/// Views of Kokkos::Array cannot be deep-copied in Kokkos 3.x (a View
/// specialisation until 4.4): move them through a View of floats.
DView<F4> f4ToDevice(const std::vector<float>& flat) {
  const auto src = toDevice(flat, "flat");
  const auto n = static_cast<std::int64_t>(flat.size() / 4);
  DView<F4> d("p16", n);
  Kokkos::parallel_for(
      "fill", Kokkos::RangePolicy<TestExec>(0, n), KOKKOS_LAMBDA(const std::int64_t i) {
        for (int k = 0; k < 4; ++k) d(i)[k] = src(4 * i + k);
      });
  Kokkos::fence();
  return d;
}
std::vector<unsigned char> f4Bytes(const DView<F4>& d) {
  const auto n = static_cast<std::int64_t>(d.extent(0));
  DView<float> flat("flat", 4 * n);
  Kokkos::parallel_for(
      "read", Kokkos::RangePolicy<TestExec>(0, n), KOKKOS_LAMBDA(const std::int64_t i) {
        for (int k = 0; k < 4; ++k) flat(4 * i + k) = d(i)[k];
      });
  return bytesOf(toHost(flat));
}

/// Plane contents (no NaN bit patterns: they move through float registers in
/// the test helpers).
template <class T>
std::vector<T> planeValues(std::int64_t n, double a, double b) {
  std::vector<T> v(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = static_cast<T>(a * double(i) + b);
  return v;
}

/// A population on the device: the mask, then planes of 2, 4, 8 and 16 bytes.
struct Population {
  std::int64_t n;
  DView<std::uint8_t> mask;
  DView<std::int16_t> p2;
  DView<float> p4;
  DView<double> p8;
  DView<F4> p16;
  DView<std::int32_t> perm, inv, map;
  Word count, span, fire;
  Bytes scratch;

  explicit Population(const std::vector<std::uint8_t>& m)
      : n(static_cast<std::int64_t>(m.size())), mask(toDevice(m, "mask")),
        p2(toDevice(fromBytes<std::int16_t>(planeBytes(n, 2, 1)), "p2")),
        p4(toDevice(planeValues<float>(n, 0.5, 1.0), "p4")),
        p8(toDevice(planeValues<double>(n, 1.25, -7.0), "p8")),
        p16(f4ToDevice(planeValues<float>(4 * n, -0.75, 3.0))),
        perm(toDevice(iota(n), "perm")), inv(toDevice(iota(n), "inv")),
        map(filled<std::int32_t>(static_cast<std::size_t>(n), -1, "map")),
        count(word(0, "count")), span(word(static_cast<std::uint32_t>(n), "span")),
        fire(word(1, "fire")), scratch("scratch", sieve::reorder_scratch_bytes(n, 16)) {}

  static std::vector<std::int32_t> iota(std::int64_t n) {
    std::vector<std::int32_t> v(static_cast<std::size_t>(n));
    std::iota(v.begin(), v.end(), 0);
    return v;
  }

  RefState reference() const {
    RefState s;
    s.planes.push_back({bytesOf(toHost(mask)), 1});
    s.planes.push_back({bytesOf(toHost(p2)), 2});
    s.planes.push_back({bytesOf(toHost(p4)), 4});
    s.planes.push_back({bytesOf(toHost(p8)), 8});
    s.planes.push_back({f4Bytes(p16), 16});
    s.perm = toHost(perm);
    s.inv = toHost(inv);
    s.map = toHost(map);
    s.count = read(count);
    s.span = read(span);
    s.fire = read(fire);
    return s;
  }

  void reorder(bool drop, bool useFire) {
    const std::uint32_t flags = drop ? sieve::kCompactMaskIsDrop : 0u;
    TestExec exec;
    if (useFire)
      sieve::reorder(exec, mask, flags, perm, inv, map, count, span, fire, scratch, p8, mask, p2,
                     p16, p4);
    else
      sieve::reorder(exec, mask, flags, perm, inv, map, count, span, Word(), scratch, p8, mask,
                     p2, p16, p4);
  }
  void restore() { sieve::restore(TestExec(), perm, inv, scratch, p4, p16, mask, p2, p8); }

  void expectEquals(const RefState& r) const {
    ASSERT_EQ(bytesOf(toHost(mask)), r.planes[0].bytes) << "mask";
    ASSERT_EQ(bytesOf(toHost(p2)), r.planes[1].bytes) << "2-byte plane";
    ASSERT_EQ(bytesOf(toHost(p4)), r.planes[2].bytes) << "4-byte plane";
    ASSERT_EQ(bytesOf(toHost(p8)), r.planes[3].bytes) << "8-byte plane";
    ASSERT_EQ(f4Bytes(p16), r.planes[4].bytes) << "16-byte plane";
    ASSERT_EQ(toHost(perm), r.perm);
    ASSERT_EQ(toHost(inv), r.inv);
    ASSERT_EQ(toHost(map), r.map);
    ASSERT_EQ(read(count), r.count);
    ASSERT_EQ(read(span), r.span);
    ASSERT_EQ(read(fire), r.fire);
  }
};

} // namespace

TEST(Reorder, MatchesReferenceForEveryElementSizeAndCase) {
  for (const auto n : sizes())
    for (const auto kind : {MaskKind::Random20, MaskKind::All, MaskKind::None,
                            MaskKind::Alternating, MaskKind::OneRun})
      for (const bool drop : {false, true}) {
        SCOPED_TRACE("n=" + std::to_string(n) + " mask=" + name(kind) + (drop ? " drop" : " keep"));
        Population pop(makeMask(kind, n));
        auto ref = pop.reference();
        refReorder(ref, n, drop, true);
        pop.reorder(drop, true);
        pop.expectEquals(ref);
      }
}

TEST(Reorder, UnconditionalAndSpanClamped) {
  const std::int64_t n = 40000;
  for (std::uint32_t span : {0u, 31u, 30000u, 40000u, 1000000u}) {
    SCOPED_TRACE("span " + std::to_string(span));
    Population pop(makeMask(MaskKind::Random50, n));
    Kokkos::deep_copy(pop.span, span);
    Kokkos::deep_copy(pop.fire, 0u); // ignored: no fire View passed
    auto ref = pop.reference();
    refReorder(ref, n, false, false);
    pop.reorder(false, false);
    pop.expectEquals(ref);
  }
}

TEST(Reorder, FireZeroLeavesEverythingUntouched) {
  Population pop(makeMask(MaskKind::Random20, 30011));
  Kokkos::deep_copy(pop.fire, 0u);
  Kokkos::deep_copy(pop.count, 1234u);
  const auto before = pop.reference();
  pop.reorder(false, true);
  pop.expectEquals(before);
}

TEST(Reorder, TriggerDrivenStepsThenRestore) {
  // The flow of a transport code: compact with the trigger each step, reorder
  // when it fires, and at the end restore: every plane back bit for bit.
  const std::int64_t n = (std::int64_t(1) << 20) + 4099;
  const std::vector<std::uint8_t> all(static_cast<std::size_t>(n), 1);
  Population pop(all);
  const auto original = pop.reference();
  sieve::Trigger<TestMem> trig("trig", 0.5f);
  Kokkos::deep_copy(trig.span, static_cast<std::uint32_t>(n));
  Bytes cscratch("cscratch", sieve::compact_scratch_bytes(n));
  TestExec exec;
  int fired = 0;
  for (std::uint32_t step = 0; step < 4; ++step) {
    const auto cur = toHost(pop.mask);
    const auto next = thin(cur, 0.5, 200 + step);
    Kokkos::deep_copy(pop.mask, toDevice(next));
    sieve::compact(exec, pop.mask, 0u, pop.map, pop.count, cscratch, trig);
    const auto ref = refCompact(next.data(), n, false);
    ASSERT_EQ(read(pop.count), ref.count);
    const std::uint32_t fire = read(trig.fire);
    ASSERT_EQ(fire, refFire(ref.count, ref.live32, read(trig.span), 0.5f));
    fired += static_cast<int>(fire);
    auto expect = pop.reference();
    expect.span = read(trig.span);
    expect.fire = fire;
    refReorder(expect, n, false, true);
    sieve::reorder(exec, pop.mask, 0u, pop.perm, pop.inv, pop.map, pop.count, trig, pop.scratch,
                   pop.mask, pop.p2, pop.p4, pop.p8, pop.p16);
    ASSERT_EQ(read(trig.span), expect.span);
    ASSERT_EQ(read(trig.fire), expect.fire);
    ASSERT_EQ(bytesOf(toHost(pop.p8)), expect.planes[3].bytes);
    ASSERT_EQ(toHost(pop.perm), expect.perm);
  }
  EXPECT_GE(fired, 1) << "a thinning random population must fire the trigger";
  pop.restore();
  EXPECT_EQ(bytesOf(toHost(pop.p2)), original.planes[1].bytes);
  EXPECT_EQ(bytesOf(toHost(pop.p4)), original.planes[2].bytes);
  EXPECT_EQ(bytesOf(toHost(pop.p8)), original.planes[3].bytes);
  EXPECT_EQ(f4Bytes(pop.p16), original.planes[4].bytes);
  EXPECT_EQ(toHost(pop.perm), Population::iota(n));
  EXPECT_EQ(toHost(pop.inv), Population::iota(n));
}

TEST(Reorder, StridedPlaneAndMask) {
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
  DView<std::int32_t> perm = toDevice(Population::iota(n)), inv = toDevice(Population::iota(n));
  auto map = filled<std::int32_t>(n, -1);
  Word count = word(0), span = word(static_cast<std::uint32_t>(n));
  Bytes scratch("scratch", sieve::reorder_scratch_bytes(n, 8));
  TestExec exec;
  sieve::reorder(exec, mask, 0u, perm, inv, map, count, span, Word(), scratch, y, mask);
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

TEST(Reorder, PermutationLongerThanThePlanes) {
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
  sieve::reorder(exec, mask, 0u, perm, inv, map, count, span, Word(), scratch, mask, x);
  EXPECT_EQ(read(count), refCompact(host.data(), n, false).count);
  sieve::restore(exec, perm, inv, scratch, mask, x);
  EXPECT_EQ(toHost(mask), host);
  EXPECT_EQ(toHost(x), planeValues<double>(n, 2.0, 1.0));
  EXPECT_EQ(toHost(perm), ids);
}

TEST(Reorder, RejectsBadArguments) {
  const std::int64_t n = 5000;
  Population pop(makeMask(MaskKind::Random50, n));
  TestExec exec;
  auto shortPlane = Kokkos::subview(pop.p8, std::make_pair(0, 4999));
  expectInvalid([&] {
    sieve::reorder(exec, pop.mask, 0u, pop.perm, pop.inv, pop.map, pop.count, pop.span, pop.fire,
                   pop.scratch, pop.mask, shortPlane);
  }, "plane 1 has extent 4999");
  Bytes small("small", sieve::reorder_scratch_bytes(n, 8));
  expectInvalid([&] {
    sieve::reorder(exec, pop.mask, 0u, pop.perm, pop.inv, pop.map, pop.count, pop.span, pop.fire,
                   small, pop.mask, pop.p16);
  }, "scratch holds");
  expectInvalid([&] {
    sieve::reorder(exec, pop.mask, 0u, pop.perm, pop.inv, pop.map, pop.count, pop.span, pop.fire,
                   pop.scratch, pop.p8);
  }, "mask is not among the planes");
  expectInvalid([&] {
    sieve::reorder(exec, pop.mask, 0u, pop.perm, pop.inv, pop.map, pop.count, pop.span, pop.fire,
                   pop.scratch, pop.mask, pop.p8, pop.p8);
  }, "overlaps");
  auto shortPerm = Kokkos::subview(pop.perm, std::make_pair(0, 10));
  expectInvalid([&] {
    sieve::reorder(exec, pop.mask, 0u, shortPerm, pop.inv, pop.map, pop.count, pop.span, pop.fire,
                   pop.scratch, pop.mask);
  }, "perm.extent(0)");
  expectInvalid([&] {
    sieve::reorder(exec, pop.mask, 0u, pop.perm, pop.inv, pop.map, pop.count, Word(), pop.fire,
                   pop.scratch, pop.mask);
  }, "span is an empty View");
  expectInvalid([&] { sieve::restore(exec, pop.perm, pop.inv, small, pop.p16); }, "scratch holds");
  sieve::Trigger<TestMem> noFire;
  noFire.span = pop.span;
  expectInvalid([&] {
    sieve::reorder(exec, pop.mask, 0u, pop.perm, pop.inv, pop.map, pop.count, noFire, pop.scratch,
                   pop.mask);
  }, "trigger.fire is an empty View");
  expectInvalid([&] { sieve::reorder_scratch_bytes(10, 12); }, "max_elem_bytes = 12");
  EXPECT_EQ(read(pop.count), 0u) << "a rejected call wrote the count";
}
