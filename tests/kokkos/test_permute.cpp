// SPDX-License-Identifier: Apache-2.0
// Sieve Kokkos tests — sieve::keys::permute / unpermute on the backend of this
// binary: rank-1 planes of 1 to 24-byte elements (Kokkos::Array included),
// rank-2 planes (LayoutRight rows, LayoutLeft columns, LayoutStride
// subviews), int32 and int64 permutations, against a plain sequential
// reference on the bytes of the whole allocation (so a byte written outside
// a plane is caught), each case through a caller's scratch and through a
// PermuteWorkspace (nothing allocated, read back or fenced); then the misuse
// cases (nothing written when they throw or when the workspace rejects).
#include "../common/expect.hpp"
#include "backend.hpp"
#include "tools_log.hpp"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <random>
#include <stdexcept>
#include <vector>

using namespace sieve_test;

namespace {

using Unmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
using HostBytes = Kokkos::View<unsigned char*, Kokkos::HostSpace, Unmanaged>;

/// A random permutation of [0, n) (Fisher-Yates), as P.
template <class P>
std::vector<P> randomPerm(std::int64_t n, std::uint64_t seed) {
  std::vector<P> p(static_cast<std::size_t>(n));
  std::iota(p.begin(), p.end(), P(0));
  std::mt19937_64 rng(seed);
  for (std::int64_t i = n - 1; i > 0; --i) {
    std::uniform_int_distribution<std::int64_t> d(0, i);
    std::swap(p[static_cast<std::size_t>(i)], p[static_cast<std::size_t>(d(rng))]);
  }
  return p;
}

std::vector<unsigned char> randomBytes(std::size_t n, std::uint64_t seed) {
  std::vector<unsigned char> b(n);
  std::mt19937_64 rng(seed);
  for (auto& x : b) x = static_cast<unsigned char>(rng());
  return b;
}

template <class B>
void upload(const B& d, const std::vector<unsigned char>& h) {
  Kokkos::deep_copy(d, HostBytes(const_cast<unsigned char*>(h.data()), h.size()));
}

template <class B>
std::vector<unsigned char> download(const B& d) {
  Kokkos::fence();
  std::vector<unsigned char> h(d.extent(0));
  Kokkos::deep_copy(HostBytes(h.data(), h.size()), d);
  return h;
}

/// Where element (j, c) of plane `v` starts, in bytes from `base`.
template <class V>
std::size_t offsetOf(const V& v, const unsigned char* base, std::int64_t j, std::int64_t c) {
  using T = typename V::non_const_value_type;
  const auto* d = reinterpret_cast<const unsigned char*>(v.data());
  std::size_t off =
      static_cast<std::size_t>(d - base) + static_cast<std::size_t>(j) * v.stride(0) * sizeof(T);
  if constexpr (V::rank == 2) off += static_cast<std::size_t>(c) * v.stride(1) * sizeof(T);
  return off;
}

/// The sequential reference: every element (j, c) of the plane moved as
/// permute (gather) or unpermute (scatter) prescribes, every other byte of
/// the allocation kept.
template <class V, class P>
std::vector<unsigned char> reference(const std::vector<unsigned char>& before, const V& v,
                                     const unsigned char* base, const std::vector<P>& perm,
                                     bool gather) {
  using T = typename V::non_const_value_type;
  std::vector<unsigned char> after = before;
  const std::int64_t n = static_cast<std::int64_t>(perm.size());
  const std::int64_t cols = V::rank == 2 ? static_cast<std::int64_t>(v.extent(1)) : 1;
  for (std::int64_t j = 0; j < n; ++j) {
    const std::int64_t p = static_cast<std::int64_t>(perm[static_cast<std::size_t>(j)]);
    for (std::int64_t c = 0; c < cols; ++c) {
      const std::size_t dst = offsetOf(v, base, gather ? j : p, c);
      const std::size_t src = offsetOf(v, base, gather ? p : j, c);
      std::memcpy(after.data() + dst, before.data() + src, sizeof(T));
    }
  }
  return after;
}

/// One plane over the bytes of `parent`: fill it with random bytes, permute
/// (or unpermute) by a random permutation of P, compare the whole allocation.
template <class P, class B, class V>
void checkPlane(const B& parent, const V& v, std::uint64_t seed, bool gather) {
  const std::int64_t n = static_cast<std::int64_t>(v.extent(0));
  const auto before = randomBytes(parent.extent(0), seed);
  upload(parent, before);
  const auto perm = randomPerm<P>(n, seed + 1);
  const auto want = reference(before, v, parent.data(), perm, gather);
  Bytes scratch("scratch", sieve::permute_scratch_bytes(v));
  const auto d = toDevice(perm, "perm");
  TestExec exec;
  if (gather) sieve::keys::permute(exec, d, scratch, v);
  else sieve::keys::unpermute(exec, d, scratch, v);
  const auto got = download(parent);
  ASSERT_EQ(got.size(), want.size());
  std::size_t bad = 0;
  while (bad < got.size() && got[bad] == want[bad]) ++bad;
  EXPECT_EQ(bad, got.size()) << "first wrong byte " << bad << " (n = " << n << ")";
  // The same call through a workspace: the same bytes, and nothing
  // allocated, reduced, copied or fenced.
  sieve::keys::PermuteWorkspace<TestExec> ws(exec, v);
  upload(parent, before);
  Kokkos::fence();
  {
    const ToolsLog tools;
    if (gather) sieve::keys::permute(exec, d, ws, v);
    else sieve::keys::unpermute(exec, d, ws, v);
    EXPECT_EQ(ToolsLog::allocations(), 0) << ToolsLog::dump();
    EXPECT_EQ(ToolsLog::reductions(), 0) << ToolsLog::dump();
    EXPECT_EQ(ToolsLog::deepCopies(), 0);
    EXPECT_EQ(ToolsLog::fences(), 0);
  }
  ws.check(exec);
  EXPECT_TRUE(download(parent) == want) << "the workspace form (n = " << n << ")";
}

template <class T>
struct IsArray : std::false_type {};
template <class T, std::size_t N>
struct IsArray<Kokkos::Array<T, N>> : std::true_type {};

template <class T>
using Row1 = Kokkos::View<T*, Kokkos::LayoutRight, TestDevice, Unmanaged>;
template <class T, class L>
using Rank2 = Kokkos::View<T* [3], L, TestDevice, Unmanaged>;

const std::int64_t kSizes[] = {0, 1, 2, 7, 1000, 100003};

template <class T, class P>
void rank1Cases() {
  for (const std::int64_t n : kSizes) {
    for (const bool gather : {true, false}) {
      SCOPED_TRACE("n = " + std::to_string(n) + (gather ? " permute" : " unpermute"));
      if constexpr (IsArray<T>::value) {
        // (Kokkos < 4.4 makes no unmanaged View of Kokkos::Array: a managed one)
        DView<T> v("v", n);
        const Kokkos::View<unsigned char*, TestDevice, Unmanaged> parent(
            reinterpret_cast<unsigned char*>(v.data()), static_cast<std::size_t>(n) * sizeof(T));
        checkPlane<P>(parent, v, 100 + static_cast<std::uint64_t>(n), gather);
      } else {
        Bytes parent("parent", static_cast<std::size_t>(n) * sizeof(T) + 64);
        Row1<T> v(reinterpret_cast<T*>(parent.data() + 16), n); // the bytes around it must stay
        checkPlane<P>(parent, v, 100 + static_cast<std::uint64_t>(n), gather);
      }
    }
  }
}

template <class L, class P>
void rank2Cases() {
  for (const std::int64_t n : kSizes) {
    for (const bool gather : {true, false}) {
      SCOPED_TRACE("n = " + std::to_string(n) + (gather ? " permute" : " unpermute"));
      Bytes parent("parent", static_cast<std::size_t>(n) * 3 * sizeof(double) + 64);
      Rank2<double, L> v(reinterpret_cast<double*>(parent.data() + 32), n);
      checkPlane<P>(parent, v, 200 + static_cast<std::uint64_t>(n), gather);
    }
  }
}

} // namespace

TEST(KokkosPermute, Rank1Int8) {
  rank1Cases<std::int8_t, std::int32_t>();
  rank1Cases<std::int8_t, std::int64_t>();
}
TEST(KokkosPermute, Rank1Int32) {
  rank1Cases<std::int32_t, std::int32_t>();
  rank1Cases<std::int32_t, std::int64_t>();
}
TEST(KokkosPermute, Rank1Double) {
  rank1Cases<double, std::int32_t>();
  rank1Cases<double, std::int64_t>();
}
TEST(KokkosPermute, Rank1KokkosArray) {
  rank1Cases<Kokkos::Array<double, 3>, std::int32_t>();
  rank1Cases<Kokkos::Array<double, 3>, std::int64_t>();
  rank1Cases<Kokkos::Array<std::uint8_t, 5>, std::int32_t>(); // 5-byte rows, 1-byte words
}
TEST(KokkosPermute, Rank2LayoutRight) {
  rank2Cases<Kokkos::LayoutRight, std::int32_t>();
  rank2Cases<Kokkos::LayoutRight, std::int64_t>();
}
TEST(KokkosPermute, Rank2LayoutLeft) {
  rank2Cases<Kokkos::LayoutLeft, std::int32_t>();
  rank2Cases<Kokkos::LayoutLeft, std::int64_t>();
}

TEST(KokkosPermute, Rank2WideAndStrided) {
  // A View<double**> of 7 columns (56-byte rows: the run-time row length),
  // LayoutStride subviews of a wider table (contiguous rows with a padded
  // stride; a single strided column), and a rank-1 strided column.
  const std::int64_t n = 5003;
  Bytes parent("parent", static_cast<std::size_t>(n) * 8 * sizeof(double) + 64);
  auto* d = reinterpret_cast<double*>(parent.data());
  Kokkos::View<double**, Kokkos::LayoutRight, TestDevice, Unmanaged> wide(d, n, 7);
  Kokkos::View<double**, Kokkos::LayoutLeft, TestDevice, Unmanaged> left(d, n, 7);
  Kokkos::View<double**, Kokkos::LayoutRight, TestDevice, Unmanaged> table(d, n, 8);
  auto rows = Kokkos::subview(table, Kokkos::ALL, std::make_pair(1, 4)); // stride(0) = 8
  auto cols = Kokkos::subview(left, std::make_pair(std::int64_t(0), n), std::make_pair(2, 5));
  auto column = Kokkos::subview(table, Kokkos::ALL, 5);
  int seed = 0;
  for (const bool gather : {true, false}) {
    checkPlane<std::int32_t>(parent, wide, 300 + seed++, gather);
    checkPlane<std::int32_t>(parent, left, 300 + seed++, gather);
    checkPlane<std::int64_t>(parent, rows, 300 + seed++, gather);
    checkPlane<std::int32_t>(parent, cols, 300 + seed++, gather);
    checkPlane<std::int64_t>(parent, column, 300 + seed++, gather);
  }
}

/// Fills x(i, c) = 10 i + c, v(i, c) = -i - c / 4, type(i) = 7 i (a free
/// function: nvcc rejects an extended lambda in a gtest TEST body).
void fillManagedPlanes(const Kokkos::View<double* [3], Kokkos::LayoutRight, TestDevice>& x,
                       const Kokkos::View<double* [3], Kokkos::LayoutLeft, TestDevice>& v,
                       const Kokkos::View<std::int32_t*, TestDevice>& type, const std::int64_t n) {
  Kokkos::parallel_for(
      Kokkos::RangePolicy<TestExec>(0, n), KOKKOS_LAMBDA(const std::int64_t i) {
        for (int c = 0; c < 3; ++c) {
          x(i, c) = 10.0 * double(i) + c;
          v(i, c) = -double(i) - 0.25 * c;
        }
        type(i) = static_cast<std::int32_t>(i * 7);
      });
}

TEST(KokkosPermute, ManagedPlanesTogetherThenUnpermute) {
  // The everyday call: managed Views (positions as LayoutRight rows,
  // velocities as LayoutLeft columns, a type id), one permute of all of them,
  // checked value by value; then unpermute by the same perm gives every plane
  // back. (The layouts are spelled out: a View's default layout is
  // LayoutLeft on GPU spaces, whose rows are strided, one element wide.)
  const std::int64_t n = 40000;
  Kokkos::View<double* [3], Kokkos::LayoutRight, TestDevice> x("x", n);
  Kokkos::View<double* [3], Kokkos::LayoutLeft, TestDevice> v("v", n);
  Kokkos::View<std::int32_t*, TestDevice> type("type", n);
  fillManagedPlanes(x, v, type, n);
  const auto perm = randomPerm<std::int64_t>(n, 7);
  const auto d = toDevice(perm, "perm");
  Bytes scratch("scratch", sieve::permute_scratch_bytes(x, v, type));
  EXPECT_EQ(sieve::permute_scratch_bytes(x, v, type),
            sieve::permute_scratch_bytes(n, 3 * sizeof(double)));
  sieve::keys::permute("md", TestExec(), d, scratch, x, v, type);
  auto hx = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
  auto hv = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  auto ht = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), type);
  for (std::int64_t j = 0; j < n; ++j) {
    const auto p = static_cast<double>(perm[static_cast<std::size_t>(j)]);
    for (int c = 0; c < 3; ++c) {
      ASSERT_EQ(hx(j, c), 10.0 * p + c) << j;
      ASSERT_EQ(hv(j, c), -p - 0.25 * c) << j;
    }
    ASSERT_EQ(ht(j), static_cast<std::int32_t>(p) * 7) << j;
  }
  sieve::keys::unpermute(d, scratch, x, v, type); // the fenced form
  Kokkos::deep_copy(hx, x);
  Kokkos::deep_copy(ht, type);
  for (std::int64_t j = 0; j < n; ++j) {
    ASSERT_EQ(hx(j, 1), 10.0 * double(j) + 1) << j;
    ASSERT_EQ(ht(j), static_cast<std::int32_t>(j) * 7) << j;
  }
}

TEST(KokkosPermute, MisuseThrowsAndWritesNothing) {
  const std::int64_t n = 1000;
  Bytes parent("parent", static_cast<std::size_t>(n) * 3 * sizeof(double));
  const auto before = randomBytes(parent.extent(0), 9);
  upload(parent, before);
  Rank2<double, Kokkos::LayoutRight> x(reinterpret_cast<double*>(parent.data()), n);
  DView<std::int32_t> id("id", n);
  Bytes scratch("scratch", sieve::permute_scratch_bytes(x, id));
  TestExec exec;
  auto unchanged = [&] {
    EXPECT_EQ(download(parent), before);
    auto h = toHost(id);
    for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(h[static_cast<std::size_t>(i)], 0);
  };
  auto perm32 = randomPerm<std::int32_t>(n, 3);
  for (const std::int32_t badValue : {static_cast<std::int32_t>(n), -1}) {
    auto p = perm32;
    p[617] = badValue;
    const auto d = toDevice(p, "perm");
    expectInvalid([&] { sieve::keys::permute(exec, d, scratch, x, id); },
                  "perm(617) = " + std::to_string(badValue) + " is outside [0, 1000)");
    expectInvalid([&] { sieve::keys::unpermute(exec, d, scratch, x, id); }, "perm(617)");
    unchanged();
  }
  {
    auto p = randomPerm<std::int64_t>(n, 4);
    const std::int64_t lost = p[5];
    p[5] = p[900]; // a repeated entry: sample `lost` would be lost
    const auto d = toDevice(p, "perm");
    // The repeat check is a debug check (it costs 10 - 30 % of a permute).
    const bool was = sieve::debug_checks();
    sieve::set_debug_checks(true);
    expectInvalid([&] { sieve::keys::permute(exec, d, scratch, x, id); },
                  "no entry names sample " + std::to_string(lost));
    expectInvalid([&] { sieve::keys::unpermute(exec, d, scratch, x, id); },
                  "no entry names sample " + std::to_string(lost));
    // ... and with it on, the range is still checked first.
    auto q = perm32;
    q[3] = -5;
    expectInvalid([&] { sieve::keys::permute(exec, toDevice(q, "perm"), scratch, x, id); },
                  "perm(3) = -5");
    sieve::set_debug_checks(was);
    unchanged();
  }
  const auto good = toDevice(perm32, "perm");
  Bytes small("small", scratch.extent(0) - 1);
  expectInvalid([&] { sieve::keys::permute(exec, good, small, x, id); }, "permute_scratch_bytes");
  auto shifted =
      Kokkos::subview(scratch, std::make_pair<std::size_t, std::size_t>(8, scratch.extent(0)));
  Bytes big("big", scratch.extent(0) + 16);
  auto misaligned =
      Kokkos::subview(big, std::make_pair<std::size_t, std::size_t>(8, big.extent(0)));
  expectInvalid([&] { sieve::keys::permute(exec, good, shifted, x, id); }, "scratch holds");
  expectInvalid([&] { sieve::keys::permute(exec, good, misaligned, x, id); }, "misaligned");
  DView<std::int32_t> shortId("short", n - 1);
  expectInvalid([&] { sieve::keys::permute(exec, good, scratch, x, shortId); },
                "plane 1 has extent(0) = 999");
  const auto shortPerm = toDevice(std::vector<std::int32_t>(n - 1, 0), "perm");
  expectInvalid([&] { sieve::keys::permute(exec, shortPerm, scratch, x, id); },
                "perm.extent(0) = 999");
  expectInvalid([&] { sieve::keys::permute(exec, good, scratch, x, id, x); },
                "plane 0 overlaps plane 2");
  Row1<unsigned char> inScratch(scratch.data() + 16, n);
  expectInvalid([&] { sieve::keys::permute(exec, good, scratch, inScratch); }, "overlaps scratch");
  expectInvalid([&] { sieve::keys::permute(exec, id, scratch, id); }, "plane 0 overlaps perm");
  unchanged();
  // n == 0: nothing to do, any scratch (an empty one too).
  DView<double> none("none", 0);
  sieve::keys::permute(exec, DView<std::int32_t>("p", 0), Bytes("s", 0), none);
}

// The workspace form: a bad perm is counted on the device, no plane is
// written by it nor by any later call given the workspace, and check()
// throws (then the word is clear and the calls move again).
TEST(KokkosPermute, AWorkspaceDefersTheRangeCheckAndWritesNothing) {
  const std::int64_t n = 1000;
  Bytes parent("parent", static_cast<std::size_t>(n) * 3 * sizeof(double));
  const auto before = randomBytes(parent.extent(0), 19);
  upload(parent, before);
  Rank2<double, Kokkos::LayoutRight> x(reinterpret_cast<double*>(parent.data()), n);
  DView<std::int32_t> id("id", n);
  Kokkos::parallel_for(
      "iota", Kokkos::RangePolicy<TestExec>(0, n), KOKKOS_LAMBDA(const std::int64_t i) {
        id(i) = static_cast<std::int32_t>(i);
      });
  TestExec exec;
  sieve::keys::PermuteWorkspace<TestExec> ws(exec, x, id);
  EXPECT_EQ(ws.elements(), n);
  EXPECT_EQ(ws.max_row_bytes(), 3 * sizeof(double));
  auto unchanged = [&] {
    EXPECT_EQ(download(parent), before);
    auto h = toHost(id);
    for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(h[static_cast<std::size_t>(i)], i);
  };
  const auto perm = randomPerm<std::int32_t>(n, 5);
  const auto good = toDevice(perm, "perm");
  for (const std::int32_t badValue : {static_cast<std::int32_t>(n), -1}) {
    auto p = perm;
    p[617] = badValue;
    p[3] = badValue;
    const auto d = toDevice(p, "perm");
    sieve::keys::permute(exec, d, ws, x, id);      // no throw: counted on the device
    sieve::keys::unpermute(exec, good, ws, x, id); // a good perm after it: nothing moves
    sieve::keys::permute(exec, good, ws, x, id);
    unchanged();
    expectInvalid([&] { ws.check(exec); }, "2 entries of perm lay outside [0, n)");
    ws.check(exec); // cleared
    sieve::keys::unpermute(exec, d, ws, x, id);
    unchanged();
    // The fencing overload checks: it throws at the call.
    expectInvalid([&] { sieve::keys::permute(good, ws, x, id); }, "2 entries");
    unchanged();
  }
  // A good perm moves again, and unpermute gives the planes back.
  sieve::keys::permute(exec, good, ws, x, id);
  {
    auto h = toHost(id);
    for (std::int64_t j = 0; j < n; ++j)
      ASSERT_EQ(h[static_cast<std::size_t>(j)], perm[static_cast<std::size_t>(j)]) << j;
  }
  sieve::keys::unpermute(good, ws, x, id);
  unchanged();
  // A workspace made for more samples and wider rows serves too.
  const sieve::keys::PermuteWorkspace<TestExec> big(exec, n + 100, 64);
  sieve::keys::permute(exec, good, big, x, id);
  sieve::keys::unpermute(good, big, x, id);
  unchanged();
  // Planes with no byte to move: the range is still counted.
  Kokkos::View<double**, TestDevice> empty("empty", n, 0);
  auto p = perm;
  p[999] = -7;
  sieve::keys::permute(exec, toDevice(p, "perm"), ws, empty);
  expectInvalid([&] { ws.check(exec); }, "1 entry of perm lay outside");
  // With the debug checks on, the call checks on the host and throws at once.
  {
    auto q = toHost(good);
    q[5] = q[900];
    const bool was = sieve::debug_checks();
    sieve::set_debug_checks(true);
    expectInvalid([&] { sieve::keys::permute(exec, toDevice(q, "perm"), ws, x, id); },
                  "no entry names sample");
    sieve::set_debug_checks(was);
  }
  ws.check(exec);
  unchanged();
  // Misuse: thrown at the call, nothing written.
  const sieve::keys::PermuteWorkspace<TestExec> none;
  EXPECT_EQ(none.elements(), -1);
  expectInvalid([&] { sieve::keys::permute(exec, good, none, x, id); }, "the workspace is empty");
  const sieve::keys::PermuteWorkspace<TestExec> fewer(exec, n - 1, 3 * sizeof(double));
  expectInvalid([&] { sieve::keys::permute(exec, good, fewer, x, id); },
                "made for 999 samples of rows up to 24 bytes; these planes have 1000 samples");
  const sieve::keys::PermuteWorkspace<TestExec> narrow(exec, n, sizeof(double));
  expectInvalid([&] { sieve::keys::unpermute(exec, good, narrow, x, id); },
                "rows up to 8 bytes; these planes have 1000 samples of rows up to 24 bytes");
  Row1<unsigned char> inScratch(ws.scratch().data() + 16, n);
  expectInvalid([&] { sieve::keys::permute(exec, good, ws, inScratch); }, "overlaps scratch");
  expectInvalid([&] { sieve::keys::PermuteWorkspace<TestExec>(exec, -1, 8); }, "negative");
  ws.check(exec);
  unchanged();
}
