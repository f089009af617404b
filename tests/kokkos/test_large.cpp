// SPDX-License-Identifier: Apache-2.0
// Sieve Kokkos tests — sizes: the sample-count limit is enforced at the API
// (2^31 rejected before anything is touched); and the long cases (*Long.*: a
// ctest entry of their own, labelled `long`): a compaction + reorder + restore
// at 2^28 samples (~8.5 GB of memory) keeps every sample, checked on the
// instance with closed-form expectations rather than a host copy, and findall
// past INT32_MAX elements (~4.3 GB).
#include "../common/expect.hpp"
#include "backend.hpp"

#include <climits>
#include <cstdint>
#include <vector>

using namespace sieve_test;

namespace {
using i64 = std::int64_t;
}

// 2^31 samples are one past what an int32 index map addresses: rejected by
// every entry point before a byte is read (the Views here are unmanaged over
// one element, so a read would crash).
TEST(NoSilentLoss, TwoToThe31SamplesAreRejected) {
  const i64 n = i64(1) << 31;
  std::uint8_t oneMask = 1;
  std::int32_t one32 = 0;
  unsigned char oneByte = 0;
  Kokkos::View<std::uint8_t*, TestDevice, Kokkos::MemoryTraits<Kokkos::Unmanaged>> mask(&oneMask,
                                                                                        n);
  Kokkos::View<std::int32_t*, TestDevice, Kokkos::MemoryTraits<Kokkos::Unmanaged>> map(&one32, n),
      perm(&one32, n), inv(&one32, n);
  Kokkos::View<unsigned char*, TestDevice, Kokkos::MemoryTraits<Kokkos::Unmanaged>> scratch(
      &oneByte, 1);
  Word count = word(5), span = word(0);
  Kokkos::View<std::uint32_t, TestMem> always;
  TestExec exec;
  if (std::string(kTestBackend) == "cuda") GTEST_SKIP() << "host memory wrapped";
  expectInvalid([&] { sieve::compact(exec, mask, map, count, scratch); },
                "exceeds kCompactMaxSamples");
  expectInvalid(
      [&] { sieve::reorder(exec, mask, perm, inv, map, count, span, always, scratch, mask); },
      "exceeds kCompactMaxSamples");
  expectInvalid([&] { sieve::restore(exec, perm, inv, scratch, mask); },
                "exceeds kCompactMaxSamples");
  expectInvalid([&] { (void)sieve::compact_scratch_bytes(n); }, "exceeds kCompactMaxSamples");
  EXPECT_NO_THROW((void)sieve::compact_scratch_bytes(n - 1));
  EXPECT_EQ(sieve::compact_scratch_bytes(n - 1), std::size_t(12) * std::size_t(n - 1))
      << "64-bit arithmetic at INT32_MAX";
  EXPECT_EQ(read(count), 5u);
}

namespace {
// (a free function: nvcc's device lambdas cannot live in a gtest body)
void compactReorderRestore(const i64 n);
} // namespace

// 2^28 samples, every third dead: compact (trigger fires), reorder, restore.
// Kept sample k is id (k / 2) * 3 + k % 2 + 1; dropped sample j is id 3 j.
TEST(NoSilentLossLong, CompactReorderRestoreAtTwoToThe28) { compactReorderRestore(i64(1) << 28); }

namespace {
void compactReorderRestore(const i64 n) {
  TestExec exec;
  DView<std::uint8_t> alive(Kokkos::view_alloc(Kokkos::WithoutInitializing, "alive"), n);
  DView<std::int32_t> id(Kokkos::view_alloc(Kokkos::WithoutInitializing, "id"), n);
  DView<std::int32_t> perm(Kokkos::view_alloc(Kokkos::WithoutInitializing, "perm"), n);
  DView<std::int32_t> inv(Kokkos::view_alloc(Kokkos::WithoutInitializing, "inv"), n);
  DView<std::int32_t> map(Kokkos::view_alloc(Kokkos::WithoutInitializing, "map"), n);
  Bytes scratch(Kokkos::view_alloc(Kokkos::WithoutInitializing, "scratch"),
                sieve::reorder_scratch_bytes(n, 4));
  Word count = word(0);
  sieve::Trigger<TestMem> trig("trig", 0.9f);
  Kokkos::parallel_for(
      "init", Kokkos::RangePolicy<TestExec>(exec, 0, n), KOKKOS_LAMBDA(const i64 i) {
        alive(i) = static_cast<std::uint8_t>(i % 3 != 0);
        id(i) = perm(i) = inv(i) = static_cast<std::int32_t>(i);
      });
  Kokkos::deep_copy(exec, trig.span, static_cast<std::uint32_t>(n));
  const i64 kept = n - (n + 2) / 3;

  sieve::compact(exec, alive, map, count, scratch, trig);
  exec.fence();
  ASSERT_EQ(read(count), static_cast<std::uint32_t>(kept));
  ASSERT_EQ(read(trig.fire), 1u) << "2/3 live in every group of 32, theta 0.9: fires";
  i64 bad = 0;
  Kokkos::parallel_reduce(
      "check map", Kokkos::RangePolicy<TestExec>(exec, 0, kept),
      KOKKOS_LAMBDA(const i64 k, i64& b) { b += map(k) != (k / 2) * 3 + k % 2 + 1; }, bad);
  ASSERT_EQ(bad, 0) << "index map";

  sieve::reorder(exec, alive, perm, inv, map, count, trig, scratch, alive, id);
  exec.fence();
  ASSERT_EQ(read(count), static_cast<std::uint32_t>(kept));
  ASSERT_EQ(read(trig.span), static_cast<std::uint32_t>(kept));
  ASSERT_EQ(read(trig.fire), 0u);
  Kokkos::parallel_reduce(
      "check reorder", Kokkos::RangePolicy<TestExec>(exec, 0, n),
      KOKKOS_LAMBDA(const i64 s, i64& b) {
        const i64 want = s < kept ? (s / 2) * 3 + s % 2 + 1 : 3 * (s - kept);
        b += id(s) != want;
        b += perm(s) != want;
        b += inv(perm(s)) != s;
        b += alive(s) != (s < kept ? 1 : 0);
        if (s < kept) b += map(s) != s;
      },
      bad);
  ASSERT_EQ(bad, 0) << "reordered planes, perm, inv, map";

  sieve::restore(exec, perm, inv, scratch, alive, id);
  exec.fence();
  Kokkos::parallel_reduce(
      "check restore", Kokkos::RangePolicy<TestExec>(exec, 0, n),
      KOKKOS_LAMBDA(const i64 i, i64& b) {
        b += id(i) != i;
        b += perm(i) != i;
        b += inv(i) != i;
        b += alive(i) != (i % 3 != 0 ? 1 : 0);
      },
      bad);
  ASSERT_EQ(bad, 0) << "restored planes, identity perm / inv";
}
} // namespace

// --- findall past INT32_MAX elements ------------------------------------------------

namespace {
struct LongSelect {
  i64 n;
  KOKKOS_INLINE_FUNCTION bool operator()(const i64 k) const {
    return k % 1000003 == 0 || k >= n - 40 || (k >= INT32_MAX - 3 && k <= i64(INT32_MAX) + 3);
  }
};
struct LongFill {
  Kokkos::View<std::uint8_t*, TestMem> m;
  LongSelect s;
  KOKKOS_INLINE_FUNCTION void operator()(const i64 k) const { m(k) = s(k) ? 1 : 0; }
};
struct ByteIsSet {
  KOKKOS_INLINE_FUNCTION bool operator()(const std::uint8_t b) const { return b != 0; }
};
} // namespace

TEST(FindallLong, PastInt32MaxElements) {
  const TestExec exec;
  const i64 n = (i64(1) << 31) + 77;
  Kokkos::View<std::uint8_t*, TestMem> mask(Kokkos::view_alloc(Kokkos::WithoutInitializing, "mask"),
                                            n);
  const LongSelect sel{n};
  Kokkos::parallel_for("fill", Kokkos::RangePolicy<TestExec, Kokkos::IndexType<i64>>(exec, 0, n),
                       LongFill{mask, sel});
  std::vector<i64> ref;
  for (i64 k = 0; k < n; ++k)
    if (sel(k)) ref.push_back(k);
  {
    SCOPED_TRACE("Auto");
    EXPECT_EQ(toHost(sieve::findall(exec, mask, sieve::Auto{})), ref);
  }
  {
    SCOPED_TRACE("ScanScatter{256,8}");
    EXPECT_EQ(toHost(sieve::findall(exec, mask, sieve::ScanScatter{256, 8})), ref);
  }
  // the predicate form over the same bytes
  EXPECT_EQ(toHost(sieve::findall(exec, ByteIsSet{}, mask, sieve::linear_indices)), ref);
  EXPECT_GT(ref.back(), i64(INT32_MAX));
}
