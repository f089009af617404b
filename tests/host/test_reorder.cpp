// SPDX-License-Identifier: Apache-2.0
// Sieve host tests — reorderHost / restoreHost: the shared reorder suite on
// the host twins, then what only the raw-pointer face has (null pointers for
// an empty batch, the argument checks and their messages).
#include "../common/expect.hpp"
#include "../common/suite_reorder.hpp"
#include "face.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <stdexcept>

using namespace sieve_test;

SIEVE_REORDER_SUITE(HostReorder, HostFace);

TEST(HostReorderNative, RestoreKeepsSlotsWithOutOfRangeInv) {
  restoreKeepsSlotsWithOutOfRangeInv<HostFace>();
}

TEST(HostReorderNative, EmptyBatchWithNullPointers) {
  std::uint32_t count = 9, span = 9, fire = 9;
  sieve::reorderHost(nullptr, 0, nullptr, 0, nullptr, nullptr, nullptr, &count, &span, &fire,
                     nullptr, 0);
  EXPECT_EQ(count, 0u);
  EXPECT_EQ(span, 0u);
  EXPECT_EQ(fire, 0u);
}

TEST(HostReorderNative, RejectsBadArguments) {
  const std::int64_t n = 64;
  alignas(16) static unsigned char buf[64 * 16 * 4];
  std::vector<std::int32_t> perm(n), inv(n), map(n);
  std::vector<unsigned char> store(sieve::reorder_scratch_bytes(n, 16) + 16);
  void* scratch = store.data() + (16 - reinterpret_cast<std::uintptr_t>(store.data()) % 16) % 16;
  std::uint32_t count = 0, span = n, fire = 1;
  auto* mask = buf;            // 64 bytes
  auto* vals = buf + 64;       // 64 x 4 bytes, 16-aligned
  auto* wide = buf + 64 + 256; // 64 x 16 bytes
  auto run = [&](std::vector<sieve::ReorderPlane> planes, const std::uint8_t* m, std::int64_t nn,
                 std::uint32_t flags = 0) {
    sieve::reorderHost(planes.data(), static_cast<std::uint32_t>(planes.size()), m, flags,
                       perm.data(), inv.data(), map.data(), &count, &span, &fire, scratch, nn);
  };
  expectInvalid([&] { run({{mask, 1}}, mask, -1); }, "negative");
  expectInvalid([&] { run({{mask, 1}}, mask, std::int64_t(1) << 31); }, "kCompactMaxSamples");
  expectInvalid([&] { run({{mask, 1}, {vals, 3}}, mask, n); }, "elemBytes = 3");
  expectInvalid([&] { run({{mask, 1}, {nullptr, 4}}, mask, n); }, "plane 1 is null");
  expectInvalid([&] { run({{mask, 1}, {vals + 2, 4}}, mask, n); }, "plane 1 is misaligned");
  expectInvalid([&] { run({{mask, 1}, {wide + 8, 16}}, mask, n); }, "misaligned");
  expectInvalid([&] { run({{mask, 1}, {vals, 4}, {vals + 128, 4}}, mask, n); }, "overlaps");
  expectInvalid([&] { run({{vals, 4}}, mask, n); }, "mask is not among the planes");
  expectInvalid([&] { run({{mask, 1}}, mask, n, 8u); }, "flags");
  expectInvalid(
      [&] {
        std::vector<sieve::ReorderPlane> p{{mask, 1}, {perm.data(), 4}};
        sieve::reorderHost(p.data(), 2, mask, 0, perm.data(), inv.data(), map.data(), &count, &span,
                           &fire, scratch, n);
      },
      "overlaps perm");
  expectInvalid(
      [&] {
        std::vector<sieve::ReorderPlane> p{{mask, 1}};
        sieve::reorderHost(p.data(), 1, mask, 0, perm.data(), inv.data(), map.data(), &count,
                           nullptr, &fire, scratch, n);
      },
      "span is null");
  expectInvalid(
      [&] {
        std::vector<sieve::ReorderPlane> p{{mask, 1}, {vals, 4}};
        sieve::reorderHost(p.data(), 2, mask, 0, perm.data(), inv.data(),
                           reinterpret_cast<std::int32_t*>(vals), &count, &span, &fire, scratch, n);
      },
      "plane 1 overlaps indexMap");
  expectInvalid(
      [&] {
        std::vector<sieve::ReorderPlane> p{{vals, 4}, {wide, 5}};
        sieve::restoreHost(p.data(), 2, perm.data(), inv.data(), scratch, n);
      },
      "elemBytes = 5");
  // The scratch and the words must not overlap the arrays.
  expectInvalid(
      [&] {
        std::vector<sieve::ReorderPlane> p{{mask, 1}, {vals, 4}};
        sieve::reorderHost(p.data(), 2, mask, 0, perm.data(), inv.data(), map.data(), &count, &span,
                           &fire, vals, n);
      },
      "plane 1 overlaps scratch");
  expectInvalid(
      [&] {
        std::vector<sieve::ReorderPlane> p{{mask, 1}, {vals, 4}};
        sieve::reorderHost(p.data(), 2, mask, 0, perm.data(), inv.data(), map.data(),
                           reinterpret_cast<std::uint32_t*>(vals) + 3, &span, &fire, scratch, n);
      },
      "plane 1 overlaps count");
  expectInvalid(
      [&] {
        std::vector<sieve::ReorderPlane> p{{mask, 1}};
        sieve::reorderHost(p.data(), 1, mask, 0, perm.data(), inv.data(), map.data(), &count, &span,
                           reinterpret_cast<std::uint32_t*>(inv.data()) + 5, scratch, n);
      },
      "inv overlaps fire");
  expectInvalid(
      [&] {
        std::vector<sieve::ReorderPlane> p{{vals, 4}};
        sieve::restoreHost(p.data(), 1, perm.data(), inv.data(), vals - 16, n);
      },
      "plane 0 overlaps scratch");
  EXPECT_EQ(count, 0u) << "a rejected call wrote a word";
}
