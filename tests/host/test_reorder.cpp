// Sieve host tests — reorderHost / restoreHost against the sequential
// reference, and the round trip back to the original layout.
#include <sieve/native/host/reorder.hpp>

#include "../common/cases.hpp"
#include "../common/expect.hpp"
#include "../common/guarded.hpp"
#include "../common/reference.hpp"
#include "host_common.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <map>
#include <tuple>
#include <numeric>
#include <stdexcept>

using namespace sieve_test;

namespace {

/// planeBytes(), computed once per (n, elem, plane).
const std::vector<unsigned char>& cachedPlaneBytes(std::int64_t n, std::uint32_t elem,
                                                   std::uint32_t p) {
  static std::map<std::tuple<std::int64_t, std::uint32_t, std::uint32_t>, std::vector<unsigned char>>
      cache;
  auto key = std::make_tuple(n, elem, p);
  auto it = cache.find(key);
  if (it == cache.end()) it = cache.emplace(key, planeBytes(n, elem, p)).first;
  return it->second;
}

/// A population of planes in guarded host buffers: plane 0 is the mask
/// (1 byte), then one plane per element size in `elems`.
struct Population {
  std::int64_t n;
  std::vector<Guarded> planes;
  std::vector<std::uint32_t> elems;
  Guarded perm, inv, map, scratch;
  std::uint32_t count = 0, span = 0, fire = 1;

  Population(const std::vector<std::uint8_t>& mask, const std::vector<std::uint32_t>& extra)
      : n(static_cast<std::int64_t>(mask.size())),
        perm(mask.size() * 4), inv(mask.size() * 4), map(mask.size() * 4),
        scratch(sieve::reorderScratchBytes(static_cast<std::int64_t>(mask.size()), maxElem(extra))) {
    elems.push_back(1);
    for (auto e : extra) elems.push_back(e);
    planes.reserve(elems.size());
    for (std::size_t p = 0; p < elems.size(); ++p) {
      planes.emplace_back(static_cast<std::size_t>(n) * elems[p]);
      if (p == 0) copyBytes(planes[0].data(), mask.data(), mask.size());
      else {
        const auto& b = cachedPlaneBytes(n, elems[p], static_cast<std::uint32_t>(p));
        copyBytes(planes[p].data(), b.data(), b.size());
      }
    }
    std::iota(perm.as<std::int32_t>(), perm.as<std::int32_t>() + n, 0);
    std::iota(inv.as<std::int32_t>(), inv.as<std::int32_t>() + n, 0);
    span = static_cast<std::uint32_t>(n);
  }
  static std::uint32_t maxElem(const std::vector<std::uint32_t>& e) {
    std::uint32_t m = 1;
    for (auto x : e) m = x > m ? x : m;
    return m;
  }
  std::vector<sieve::ReorderPlane> descriptors() {
    std::vector<sieve::ReorderPlane> d;
    for (std::size_t p = 0; p < planes.size(); ++p) d.push_back({planes[p].data(), elems[p]});
    return d;
  }
  RefState reference() {
    RefState s;
    for (std::size_t p = 0; p < planes.size(); ++p)
      s.planes.push_back({std::vector<unsigned char>(planes[p].data(),
                                                     planes[p].data() + n * elems[p]),
                          elems[p]});
    s.maskPlane = 0;
    s.perm.assign(perm.as<std::int32_t>(), perm.as<std::int32_t>() + n);
    s.inv.assign(inv.as<std::int32_t>(), inv.as<std::int32_t>() + n);
    s.map.assign(map.as<std::int32_t>(), map.as<std::int32_t>() + n);
    s.count = count;
    s.span = span;
    s.fire = fire;
    return s;
  }
  void reorder(const HostConfig& c, bool drop, bool useFire) {
    auto d = descriptors();
    sieve::reorderHost(sieve::HostTeam{c.threads}, d.data(), static_cast<std::uint32_t>(d.size()),
                       planes[0].data(), drop ? sieve::kCompactMaskIsDrop : 0u,
                       perm.as<std::int32_t>(), inv.as<std::int32_t>(), map.as<std::int32_t>(),
                       &count, &span, useFire ? &fire : nullptr, scratch.data(), n);
  }
  void restore(const HostConfig& c) {
    auto d = descriptors();
    sieve::restoreHost(sieve::HostTeam{c.threads}, d.data(), static_cast<std::uint32_t>(d.size()),
                       perm.as<std::int32_t>(), inv.as<std::int32_t>(), scratch.data(), n);
  }
  void expectEquals(const RefState& r) {
    for (std::size_t p = 0; p < planes.size(); ++p) {
      ASSERT_EQ(0, compareBytes(planes[p].data(), r.planes[p].bytes.data(), r.planes[p].bytes.size()))
          << "plane " << p << " (elemBytes " << elems[p] << ")";
      ASSERT_TRUE(planes[p].guardIntact()) << "plane " << p;
    }
    ASSERT_EQ(0, compareBytes(perm.data(), r.perm.data(), n * 4)) << "perm";
    ASSERT_EQ(0, compareBytes(inv.data(), r.inv.data(), n * 4)) << "inv";
    ASSERT_EQ(0, compareBytes(map.data(), r.map.data(), n * 4)) << "indexMap";
    ASSERT_EQ(count, r.count);
    ASSERT_EQ(span, r.span);
    ASSERT_EQ(fire, r.fire);
    ASSERT_TRUE(scratch.guardIntact()) << "scratch written past reorderScratchBytes";
    ASSERT_TRUE(perm.guardIntact() && inv.guardIntact() && map.guardIntact());
  }
};

const std::vector<std::uint32_t> kAllElems{2, 4, 8, 16};

} // namespace

TEST(HostReorder, MatchesReferenceForEveryElementSizeAndCase) {
  for (const auto n : sizes())
    for (const auto kind : {MaskKind::Random20, MaskKind::Random90, MaskKind::All, MaskKind::None,
                            MaskKind::Alternating, MaskKind::OneRun})
      for (const bool drop : {false, true}) {
        SCOPED_TRACE("n=" + std::to_string(n) + " mask=" + name(kind) + (drop ? " drop" : " keep"));
        const auto mask = makeMask(kind, n);
        auto ref = Population(mask, kAllElems).reference();
        refReorder(ref, n, drop, true);
        forEachHostConfig([&](const HostConfig& c) {
          Population pop(mask, kAllElems);
          pop.reorder(c, drop, true);
          pop.expectEquals(ref);
        });
      }
}

TEST(HostReorder, EachElementSizeAlone) {
  const auto mask = makeMask(MaskKind::Random50, 50001);
  for (std::uint32_t e : {1u, 2u, 4u, 8u, 16u}) {
    SCOPED_TRACE("elemBytes " + std::to_string(e));
    forEachHostConfig([&](const HostConfig& c) {
      Population pop(mask, e == 1 ? std::vector<std::uint32_t>{1} : std::vector<std::uint32_t>{e});
      auto ref = pop.reference();
      refReorder(ref, pop.n, false, false);
      pop.reorder(c, false, false);
      pop.expectEquals(ref);
    });
  }
}

TEST(HostReorder, SpanLimitsTheMovesAndIsClampedToN) {
  const std::int64_t n = 40000;
  const auto mask = makeMask(MaskKind::Random50, n);
  forEachHostConfig([&](const HostConfig& c) {
    for (std::uint32_t span : {0u, 1u, 31u, 4097u, 30000u, 40000u, 1000000u}) {
      SCOPED_TRACE("span " + std::to_string(span));
      Population pop(mask, {4, 8});
      pop.span = span;
      auto ref = pop.reference();
      refReorder(ref, n, false, true);
      pop.reorder(c, false, true);
      pop.expectEquals(ref);
    }
  });
}

TEST(HostReorder, FireZeroLeavesEveryByteUntouched) {
  const auto mask = makeMask(MaskKind::Random20, 30011);
  forEachHostConfig([&](const HostConfig& c) {
    Population pop(mask, kAllElems);
    pop.fire = 0;
    pop.count = 1234;
    std::vector<std::vector<unsigned char>> before;
    for (auto& p : pop.planes) before.emplace_back(p.data(), p.data() + p.size());
    const std::vector<unsigned char> permB(pop.perm.data(), pop.perm.data() + pop.perm.size());
    const std::vector<unsigned char> mapB(pop.map.data(), pop.map.data() + pop.map.size());
    pop.reorder(c, false, true);
    for (std::size_t p = 0; p < pop.planes.size(); ++p)
      ASSERT_EQ(0, compareBytes(before[p].data(), pop.planes[p].data(), before[p].size()));
    ASSERT_EQ(0, compareBytes(permB.data(), pop.perm.data(), permB.size()));
    ASSERT_EQ(0, compareBytes(mapB.data(), pop.map.data(), mapB.size()));
    EXPECT_EQ(pop.count, 1234u);
    EXPECT_EQ(pop.span, 30011u);
    EXPECT_EQ(pop.fire, 0u);
  });
}

TEST(HostReorder, EmptyBatch) {
  std::uint32_t count = 9, span = 9, fire = 9;
  sieve::reorderHost(nullptr, 0, nullptr, 0, nullptr, nullptr, nullptr, &count, &span, &fire,
                     nullptr, 0);
  EXPECT_EQ(count, 0u);
  EXPECT_EQ(span, 0u);
  EXPECT_EQ(fire, 0u);
}

TEST(HostReorder, TwoReordersThenRestoreGiveEverythingBack) {
  for (const std::int64_t n : {std::int64_t(4097), std::int64_t(100003), (std::int64_t(1) << 20) + 4099}) {
    SCOPED_TRACE("n=" + std::to_string(n));
    const std::vector<std::uint8_t> live(static_cast<std::size_t>(n), 1);
    // The reference chain: thin the live samples in slot order (the mask plane
    // moved with them), then reorder; twice.
    std::vector<std::vector<std::uint8_t>> masks;
    std::vector<RefState> refs;
    {
      Population pop(live, kAllElems);
      RefState s = pop.reference();
      for (std::uint32_t step = 0; step < 2; ++step) {
        masks.push_back(thin(std::vector<std::uint8_t>(s.planes[0].bytes.begin(), s.planes[0].bytes.end()),
                             0.4, 100 + step));
        s.planes[0].bytes.assign(masks.back().begin(), masks.back().end());
        refReorder(s, n, false, false);
        refs.push_back(s);
      }
    }
    forEachHostConfig([&](const HostConfig& c) {
      Population pop(live, kAllElems);
      std::vector<std::vector<unsigned char>> original;
      for (auto& p : pop.planes) original.emplace_back(p.data(), p.data() + p.size());
      for (std::uint32_t step = 0; step < 2; ++step) {
        copyBytes(pop.planes[0].data(), masks[step].data(), masks[step].size());
        pop.reorder(c, false, false);
        pop.expectEquals(refs[step]);
        // plane[inv[i]] is sample i, for every sample and every plane but the mask.
        const auto* inv = pop.inv.as<std::int32_t>();
        for (std::size_t p = 1; p < pop.planes.size(); ++p) {
          const std::uint32_t e = pop.elems[p];
          for (std::int64_t i = 0; i < n; ++i)
            if (compareBytes(pop.planes[p].data() + std::size_t(inv[i]) * e,
                            original[p].data() + std::size_t(i) * e, e) != 0) {
              FAIL() << "step " << step << " plane " << p << ": sample " << i << " not at inv[i]";
            }
        }
      }
      // The mask moved with the samples: restore brings back every other plane
      // as it was, and the (thinned) mask in sample order.
      pop.restore(c);
      for (std::size_t p = 1; p < pop.planes.size(); ++p)
        ASSERT_EQ(0, compareBytes(original[p].data(), pop.planes[p].data(), original[p].size()))
            << "plane " << p << " not restored bit for bit";
      for (std::int64_t i = 0; i < n; ++i) {
        ASSERT_EQ(pop.perm.as<std::int32_t>()[i], i);
        ASSERT_EQ(pop.inv.as<std::int32_t>()[i], i);
      }
      ASSERT_TRUE(pop.scratch.guardIntact());
    });
  }
}

TEST(HostReorder, RestoreBringsTheMaskBackInSampleOrder) {
  const std::int64_t n = 9000;
  const auto mask = makeMask(MaskKind::Random50, n);
  forEachHostConfig([&](const HostConfig& c) {
    Population pop(mask, {8});
    pop.reorder(c, false, false);
    pop.restore(c);
    ASSERT_EQ(0, compareBytes(mask.data(), pop.planes[0].data(), mask.size()));
  });
}

TEST(HostReorder, RejectsBadArguments) {
  const std::int64_t n = 64;
  alignas(16) static unsigned char buf[64 * 16 * 4];
  std::vector<std::int32_t> perm(n), inv(n), map(n);
  std::vector<unsigned char> store(sieve::reorderScratchBytes(n, 16) + 16);
  void* scratch = store.data() + (16 - reinterpret_cast<std::uintptr_t>(store.data()) % 16) % 16;
  std::uint32_t count = 0, span = n, fire = 1;
  auto* mask = buf;                 // 64 bytes
  auto* vals = buf + 64;            // 64 x 4 bytes, 16-aligned
  auto* wide = buf + 64 + 256;      // 64 x 16 bytes
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
        sieve::reorderHost(p.data(), 1, mask, 0, perm.data(), inv.data(), map.data(), &count, nullptr,
                           &fire, scratch, n);
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
        sieve::reorderHost(p.data(), 1, mask, 0, perm.data(), inv.data(), map.data(), &count,
                           &span, reinterpret_cast<std::uint32_t*>(inv.data()) + 5, scratch, n);
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
