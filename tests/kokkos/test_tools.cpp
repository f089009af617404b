// SPDX-License-Identifier: Apache-2.0
// Sieve Kokkos tests — what Kokkos Tools sees of a call: its profiling region,
// its kernels (the native faces show one kernel event per call) and its
// allocations, named by the caller's label, so that two calls can be told
// apart.
#include "backend.hpp"
#include "tools_log.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

using namespace sieve_test;

namespace {

bool portableFace() { return std::string(kTestBackend) == "portable"; }

} // namespace

TEST(Tools, LabelNamesTheRegionAndPrefixesTheKernels) {
  const std::int64_t n = 50000;
  std::vector<std::uint8_t> host(n);
  for (std::int64_t i = 0; i < n; ++i) host[i] = static_cast<std::uint8_t>(i % 3 == 0);
  const auto mask = toDevice(host, "mask");
  auto map = filled<std::int32_t>(n, -1);
  Word count = word(0);
  Bytes scratch("scratch", sieve::compact_scratch_bytes(n));
  TestExec exec;
  ToolsLog log;
  sieve::compact("photons", exec, mask, map, count, scratch);
  sieve::compact("electrons", exec, mask, sieve::MaskPolarity::drop, map, count, scratch);
  sieve::compact(exec, mask, map, count, scratch);
  exec.fence();
  const std::string face = kTestBackend;
  EXPECT_TRUE(ToolsLog::has("region photons: sieve::compact[" + face + "]")) << ToolsLog::dump();
  EXPECT_TRUE(ToolsLog::has("region electrons: sieve::compact[" + face + "]")) << ToolsLog::dump();
  EXPECT_TRUE(ToolsLog::has("region sieve::compact[" + face + "]")) << ToolsLog::dump();
  if (portableFace()) {
    // Every kernel of the call carries the label.
    EXPECT_TRUE(ToolsLog::has("kernel photons: sieve::compact::count")) << ToolsLog::dump();
    EXPECT_TRUE(ToolsLog::has("kernel photons: sieve::compact::write")) << ToolsLog::dump();
    EXPECT_TRUE(ToolsLog::has("kernel electrons: sieve::compact::count")) << ToolsLog::dump();
    EXPECT_TRUE(ToolsLog::has("kernel sieve::compact::count")) << ToolsLog::dump();
  } else {
    // The native face runs no Kokkos kernel: one kernel event per call.
    EXPECT_TRUE(ToolsLog::has("kernel photons: sieve::compact[" + face + "]")) << ToolsLog::dump();
    EXPECT_TRUE(ToolsLog::has("kernel electrons: sieve::compact[" + face + "]"))
        << ToolsLog::dump();
    EXPECT_TRUE(ToolsLog::has("kernel sieve::compact[" + face + "]")) << ToolsLog::dump();
    EXPECT_FALSE(ToolsLog::hasPrefix("kernel photons: sieve::compact::")) << ToolsLog::dump();
  }
  // No unlabelled sieve kernel ran in a labelled call: every sieve kernel or
  // region names one of the three calls.
  for (const auto& e : ToolsLog::events()) {
    if (e.find("sieve::") == std::string::npos) continue;
    const bool named = e.find("photons: ") != std::string::npos ||
                       e.find("electrons: ") != std::string::npos ||
                       e.rfind("region sieve::", 0) == 0 || e.rfind("kernel sieve::", 0) == 0;
    EXPECT_TRUE(named) << e;
  }
}

TEST(Tools, ScanAllocationsAndTotalsAreLabelled) {
  const std::int64_t n = 300000;
  auto in = filled<std::int32_t>(n, 1);
  auto out = filled<std::int32_t>(n, 0);
  Kokkos::View<std::int32_t, TestMem> total("total");
  TestExec exec;
  ToolsLog log;
  sieve::inclusive_scan("ages", exec, in, out, sieve::Sum{}, 0, total);
  exec.fence();
  EXPECT_TRUE(
      ToolsLog::has("region ages: sieve::inclusive_scan[" + std::string(kTestBackend) + "]"))
      << ToolsLog::dump();
  EXPECT_TRUE(ToolsLog::has("alloc ages: sieve::inclusive_scan::block_sums")) << ToolsLog::dump();
  // With caller scratch nothing is allocated.
  Kokkos::View<std::int32_t*, TestMem> sums("sums", sieve::scan_scratch_size<std::int32_t>(n));
  ToolsLog::events().clear();
  sieve::exclusive_scan("ages2", exec, in, out, 0, sieve::Sum{}, sums, total);
  exec.fence();
  EXPECT_FALSE(ToolsLog::hasPrefix("alloc ")) << ToolsLog::dump();
  std::int32_t t = 0;
  Kokkos::deep_copy(t, total);
  EXPECT_EQ(t, n);
}

TEST(Tools, ReorderAndRestoreRegionsCarryTheLabel) {
  const std::int64_t n = 10000;
  std::vector<std::uint8_t> host(n);
  for (std::int64_t i = 0; i < n; ++i) host[i] = static_cast<std::uint8_t>(i % 2);
  auto mask = toDevice(host, "mask");
  std::vector<std::int32_t> id(n);
  for (std::int64_t i = 0; i < n; ++i) id[i] = static_cast<std::int32_t>(i);
  auto perm = toDevice(id, "perm"), inv = toDevice(id, "inv");
  auto x = filled<double>(n, 1.0);
  auto map = filled<std::int32_t>(n, -1);
  Word count = word(0), span = word(static_cast<std::uint32_t>(n));
  Kokkos::View<std::uint32_t, TestMem> fire; // empty: unconditional
  Bytes scratch("scratch", sieve::reorder_scratch_bytes(n, 8));
  TestExec exec;
  ToolsLog log;
  sieve::reorder("step", exec, mask, perm, inv, map, count, span, fire, scratch, mask, x);
  sieve::restore("final", exec, perm, inv, scratch, mask, x);
  exec.fence();
  const std::string face = kTestBackend;
  EXPECT_TRUE(ToolsLog::has("region step: sieve::reorder[" + face + "]")) << ToolsLog::dump();
  EXPECT_TRUE(ToolsLog::has("region final: sieve::restore[" + face + "]")) << ToolsLog::dump();
  if (portableFace()) {
    EXPECT_TRUE(ToolsLog::has("kernel step: sieve::reorder::bits")) << ToolsLog::dump();
    EXPECT_TRUE(ToolsLog::has("kernel final: sieve::restore::identity")) << ToolsLog::dump();
  } else {
    EXPECT_TRUE(ToolsLog::has("kernel step: sieve::reorder[" + face + "]")) << ToolsLog::dump();
    EXPECT_TRUE(ToolsLog::has("kernel final: sieve::restore[" + face + "]")) << ToolsLog::dump();
  }
}

// After sieve::reserve nothing is allocated by any call given its scratch,
// from the very first Sieve call of the process on (its own ctest entry,
// kokkos.<backend>.first_call, runs this case alone): contiguous Views (the
// native face) and strided ones (the portable face on every space), compact
// with the trigger, reorder, restore, and both scans with scratch. Without
// sieve::reserve, Kokkos::Serial allocates its scratch_mem in the first call.
// sieve::reserve launches Kokkos kernels, which Kokkos::OpenMP cannot do inside
// a parallel region: it throws Sieve's error naming the rule, not Kokkos'.
TEST(Reserve, InsideAParallelRegionThrows) {
#if defined(SIEVE_TEST_OPENMP) && defined(_OPENMP)
  int caught = 0, calls = 0;
#pragma omp parallel num_threads(2) reduction(+ : caught, calls)
  {
#pragma omp single
    {
      ++calls;
      try {
        sieve::reserve(TestExec());
      } catch (const std::invalid_argument& e) {
        const std::string what = e.what();
        caught +=
            what.find("sieve::reserve") == 0 && what.find("parallel region") != std::string::npos;
      }
    }
  }
  EXPECT_EQ(caught, calls);
  EXPECT_EQ(calls, 1);
#else
  GTEST_SKIP() << "OpenMP only";
#endif
}

TEST(FirstCall, AllocatesNothingGivenScratch) {
  const std::int64_t n = 70000;
  std::vector<std::uint8_t> host(n);
  for (std::int64_t i = 0; i < n; ++i) host[i] = static_cast<std::uint8_t>(i % 5 != 0);
  auto mask = toDevice(host, "mask");
  Kokkos::View<std::uint8_t**, Kokkos::LayoutRight, TestDevice> wide("wide", n, 2);
  auto strided = Kokkos::subview(wide, Kokkos::ALL, 1);
  Kokkos::deep_copy(strided, mask);
  std::vector<std::int32_t> id(n);
  for (std::int64_t i = 0; i < n; ++i) id[i] = static_cast<std::int32_t>(i);
  auto perm = toDevice(id, "perm"), inv = toDevice(id, "inv");
  auto x = filled<double>(n, 1.0);
  auto map = filled<std::int32_t>(n, -1);
  Kokkos::View<std::int32_t**, Kokkos::LayoutRight, TestDevice> mapWide("map wide", n, 2);
  auto mapStrided = Kokkos::subview(mapWide, Kokkos::ALL, 0);
  Word count = word(0);
  sieve::Trigger<TestMem> trig("trig", 0.5f);
  Kokkos::deep_copy(trig.span, static_cast<std::uint32_t>(n));
  Bytes scratch("scratch", sieve::reorder_scratch_bytes(n, 8));
  auto a32 = filled<std::int32_t>(n, 3), b32 = filled<std::int32_t>(n, 0);
  auto a64 = filled<std::int64_t>(n, 3), b64 = filled<std::int64_t>(n, 0);
  Kokkos::View<std::int32_t*, TestMem> s32("s32", sieve::scan_scratch_size<std::int32_t>(n));
  Kokkos::View<std::int64_t*, TestMem> s64("s64", sieve::scan_scratch_size<std::int64_t>(n));
  Kokkos::View<std::int64_t, TestMem> total("total");
  TestExec exec;
  sieve::reserve(exec);
  ToolsLog log;
  sieve::compact(exec, strided, mapStrided, count, scratch, trig);
  sieve::compact(exec, mask, map, count, scratch, trig);
  sieve::reorder(exec, mask, perm, inv, map, count, trig, scratch, mask, x);
  sieve::restore(exec, perm, inv, scratch, mask, x);
  sieve::inclusive_scan(exec, a32, b32, s32);
  sieve::exclusive_scan(exec, a64, b64, std::int64_t(0), s64, total);
  auto a32s = Kokkos::subview(mapWide, Kokkos::ALL, 1);
  sieve::inclusive_scan(exec, a32s, mapStrided, s32);
  exec.fence();
  EXPECT_EQ(ToolsLog::allocations(), 0) << ToolsLog::dump();
}
