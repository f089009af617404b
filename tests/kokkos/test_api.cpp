// SPDX-License-Identifier: Apache-2.0
// Sieve Kokkos tests — API conventions: which face runs (observed through
// Kokkos Tools callbacks), the overloads without an instance, and independent
// instances used concurrently.
#include "../common/cases.hpp"
#include "../common/reference.hpp"
#include "backend.hpp"

#include <mutex>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

using namespace sieve_test;

namespace {

/// Records the profiling regions and kernels launched while alive.
class Observer {
 public:
  Observer() {
    log().clear();
    Kokkos::Tools::Experimental::set_push_region_callback(&onRegion);
    Kokkos::Tools::Experimental::set_begin_parallel_for_callback(&onKernel);
    Kokkos::Tools::Experimental::set_begin_parallel_scan_callback(&onKernel);
    Kokkos::Tools::Experimental::set_begin_parallel_reduce_callback(&onKernel);
  }
  ~Observer() {
    Kokkos::Tools::Experimental::set_push_region_callback(nullptr);
    Kokkos::Tools::Experimental::set_begin_parallel_for_callback(nullptr);
    Kokkos::Tools::Experimental::set_begin_parallel_scan_callback(nullptr);
    Kokkos::Tools::Experimental::set_begin_parallel_reduce_callback(nullptr);
  }
  static std::vector<std::string>& log() {
    static std::vector<std::string> l;
    return l;
  }
  static bool saw(const std::string& prefix) {
    for (const auto& s : log())
      if (s.rfind(prefix, 0) == 0) return true;
    return false;
  }

 private:
  static void onRegion(const char* name) { log().push_back(std::string("region ") + name); }
  static void onKernel(const char* name, std::uint32_t, std::uint64_t* id) {
    log().push_back(std::string("kernel ") + name);
    *id = 0;
  }
};

} // namespace

TEST(Api, DispatchIsObservable) {
  const std::int64_t n = 100003;
  const auto mask = toDevice(makeMask(MaskKind::Random50, n));
  auto map = filled<std::int32_t>(n, -1);
  Word count = word(0);
  Bytes scratch("scratch", sieve::compact_scratch_bytes(n));
  TestExec exec;
  {
    Observer obs;
    sieve::compact(exec, mask, map, count, scratch);
    exec.fence();
    EXPECT_TRUE(Observer::saw(std::string("region sieve::compact[") + kTestBackend + "]"))
        << "the " << kTestBackend << " face should have run";
    const bool portableKernels = Observer::saw("kernel sieve::compact::");
    EXPECT_EQ(portableKernels, std::string(kTestBackend) == "portable")
        << "the portable kernels run exactly when the portable face does";
  }
  {
    // A strided mask is taken by the portable face on every space.
    Kokkos::View<std::uint8_t**, Kokkos::LayoutRight, TestMem> two("two", n, 2);
    auto column = Kokkos::subview(two, Kokkos::ALL, 0);
    Observer obs;
    sieve::compact(exec, column, map, count, scratch);
    exec.fence();
    EXPECT_TRUE(Observer::saw("region sieve::compact[portable]"));
    EXPECT_TRUE(Observer::saw("kernel sieve::compact::count"));
  }
  {
    DView<std::int32_t> in("in", n), out("out", n);
    Observer obs;
    sieve::inclusive_scan(exec, in, out);
    exec.fence();
    EXPECT_TRUE(Observer::saw(std::string("region sieve::inclusive_scan[") + kTestBackend + "]"));
  }
}

TEST(Api, OverloadsWithoutAnInstance) {
  const std::int64_t n = 65537;
  const auto host = makeMask(MaskKind::Random20, n);
  const auto ref = refCompact(host.data(), n, false);
  const auto mask = toDevice(host);
  auto map = filled<std::int32_t>(n, -1);
  Word count = word(0);
  Bytes scratch("scratch", sieve::compact_scratch_bytes(n));
  EXPECT_EQ(sieve::compact(mask, map, count, scratch), ref.count)
      << "the fencing form returns the count";
  std::uint32_t c = 0;
  Kokkos::deep_copy(c, count);
  EXPECT_EQ(c, ref.count);
  sieve::Trigger<TestMem> trig("trig");
  Kokkos::deep_copy(trig.span, static_cast<std::uint32_t>(n));
  EXPECT_EQ(sieve::compact(mask, map, count, scratch, trig), ref.count);
  EXPECT_EQ(read(trig.live32), ref.live32);

  std::vector<std::int32_t> vals(static_cast<std::size_t>(n));
  std::iota(vals.begin(), vals.end(), -100);
  const auto in = toDevice(vals);
  DView<std::int32_t> out("out", n), sums("sums", n);
  sieve::inclusive_scan(in, out);
  EXPECT_EQ(toHost(out), refScan(vals, sieve::Sum{}, 0, true));
  sieve::exclusive_scan(in, out, -1000, sieve::Max{}, sums);
  EXPECT_EQ(toHost(out), refScan(vals, sieve::Max{}, -1000, false));

  DView<double> x("x", n);
  DView<std::int32_t> perm("perm", n), inv("inv", n);
  Kokkos::deep_copy(x, 2.5);
  auto hp = Kokkos::create_mirror_view(perm);
  for (std::int64_t i = 0; i < n; ++i) hp(i) = static_cast<std::int32_t>(i);
  Kokkos::deep_copy(perm, hp);
  Kokkos::deep_copy(inv, hp);
  Word span = word(static_cast<std::uint32_t>(n));
  Bytes rscratch("rscratch", sieve::reorder_scratch_bytes(n, 8));
  sieve::reorder(mask, perm, inv, map, count, span, Word(), rscratch, mask, x);
  std::uint32_t s = 0;
  Kokkos::deep_copy(s, span);
  EXPECT_EQ(s, ref.count);
  sieve::restore(perm, inv, rscratch, mask, x);
  EXPECT_EQ(toHost(mask), host);
  EXPECT_EQ(toHost(perm), toHost(inv));
}

TEST(Api, TwoInstancesConcurrently) {
  const std::int64_t n = 300007;
  const auto hostA = makeMask(MaskKind::Random20, n, 1), hostB = makeMask(MaskKind::Random90, n, 2);
  const auto refA = refCompact(hostA.data(), n, false), refB = refCompact(hostB.data(), n, true);
  struct Job {
    DView<std::uint8_t> mask;
    DView<std::int32_t> map;
    Word count;
    Bytes scratch;
    DView<std::int32_t> in, out;
  };
  auto makeJob = [&](const std::vector<std::uint8_t>& h) {
    std::vector<std::int32_t> v(static_cast<std::size_t>(n), 1);
    return Job{toDevice(h), filled<std::int32_t>(n, -1),
               word(0),     Bytes("scratch", sieve::compact_scratch_bytes(n)),
               toDevice(v), DView<std::int32_t>("out", n)};
  };
  Job a = makeJob(hostA), b = makeJob(hostB);
  auto work = [](const TestExec& exec, Job& j, sieve::MaskPolarity polarity) {
    for (int rep = 0; rep < 3; ++rep) {
      sieve::compact(exec, j.mask, polarity, j.map, j.count, j.scratch);
      sieve::inclusive_scan(exec, j.in, j.out);
    }
  };
#if KOKKOS_VERSION >= 40000
  // Independent instances, each driven from its own host thread (an OpenMP
  // pool of one thread cannot be partitioned: then two handles of it, in turn).
  const bool partition =
      !std::is_same_v<TestExec, Kokkos::DefaultHostExecutionSpace> || TestExec().concurrency() >= 2;
  if (partition) {
    auto instances = Kokkos::Experimental::partition_space(TestExec(), 1, 1);
    std::thread ta([&] {
      work(instances[0], a, sieve::MaskPolarity::keep);
      instances[0].fence();
    });
    std::thread tb([&] {
      work(instances[1], b, sieve::MaskPolarity::drop);
      instances[1].fence();
    });
    ta.join();
    tb.join();
  } else {
    TestExec ea, eb;
    work(ea, a, sieve::MaskPolarity::keep);
    work(eb, b, sieve::MaskPolarity::drop);
    ea.fence();
    eb.fence();
  }
#else
  // Kokkos 3.4 has no partitioned instances: two instances, calls interleaved
  // without a fence between them.
  TestExec ea, eb;
  work(ea, a, sieve::MaskPolarity::keep);
  work(eb, b, sieve::MaskPolarity::drop);
  ea.fence();
  eb.fence();
#endif
  EXPECT_EQ(read(a.count), refA.count);
  EXPECT_EQ(read(b.count), refB.count);
  const auto ma = toHost(a.map), mb = toHost(b.map);
  EXPECT_TRUE(std::equal(refA.map.begin(), refA.map.end(), ma.begin()));
  EXPECT_TRUE(std::equal(refB.map.begin(), refB.map.end(), mb.begin()));
  const auto oa = toHost(a.out);
  for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(oa[static_cast<std::size_t>(i)], i + 1);
}
