// SPDX-License-Identifier: Apache-2.0
// Sieve host tests — HostFace, the shared suites' adapter for the native host
// twins (compactHost / reorderHost / restoreHost / cpu::Scan), raw pointers,
// no Kokkos.
//
// Every case runs on a team of OMP_NUM_THREADS threads (the ctest entries
// host.omp1 / omp2 / omp4 give 1, 2 and 4) under every instruction set this
// CPU supports (the face's configurations).
#pragma once

#include <sieve/native/host/compact.hpp>
#include <sieve/native/host/isa.hpp>
#include <sieve/native/host/reorder.hpp>
#include <sieve/native/host/scan.hpp>
#include <sieve/native/host/team.hpp>

#include "../common/faces.hpp"
#include "../common/guarded.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#if defined(_OPENMP)
#include <omp.h>
#endif

namespace sieve_test {

struct HostFace {
  /// The native layer keeps the seed's rule: the span is the caller's.
  static constexpr bool kCoversKept = false;
  /// The team size of every case: OMP_NUM_THREADS (the OpenMP default).
  static int threads() {
#if defined(_OPENMP)
    static const int t = omp_get_max_threads();
#else
    static const int t = 1;
#endif
    return t;
  }
  static sieve::HostTeam team() { return sieve::HostTeam{threads()}; }

  static std::string skipReason() { return {}; }

  static const std::vector<sieve::HostIsa>& isas() {
    static const std::vector<sieve::HostIsa> v = [] {
      std::vector<sieve::HostIsa> out;
      for (auto isa : {sieve::HostIsa::Portable, sieve::HostIsa::Avx2, sieve::HostIsa::Avx512})
        if (sieve::hostIsaSupported(isa)) out.push_back(isa);
      return out;
    }();
    return v;
  }
  static sieve::HostIsa defaultIsa() {
    static const sieve::HostIsa d = sieve::hostIsa();
    return d;
  }
  static std::vector<std::string> configs() {
    std::vector<std::string> out;
    for (auto isa : isas())
      out.push_back(std::string(sieve::hostIsaName(isa)) + "/t" + std::to_string(threads()));
    return out;
  }
  static void select(std::size_t c) {
    defaultIsa();
    ASSERT_TRUE(sieve::setHostIsa(isas()[c]));
  }
  static void deselect() { sieve::setHostIsa(defaultIsa()); }

  static CompactOut compact(const CompactIn& in) {
    const auto n = static_cast<std::int64_t>(in.mask.size());
    Guarded mask(in.mask.size() + in.maskOffset), map(in.mask.size() * 4),
        scratch(sieve::compact_scratch_bytes(n));
    copyBytes(mask.data() + in.maskOffset, in.mask.data(), in.mask.size()); // 0x5A before it
    CompactOut o;
    o.count = o.live32 = o.fire = kWordSentinel;
    const std::uint32_t span = in.span;
    sieve::ReorderTrigger trig{&o.live32, &span, &o.fire, in.theta};
    sieve::compactHost(team(), mask.data() + in.maskOffset,
                       in.drop ? sieve::kCompactMaskIsDrop : 0u, map.as<std::int32_t>(), &o.count,
                       scratch.data(), n, in.trigger ? &trig : nullptr);
    EXPECT_TRUE(map.guardIntact()) << "index map written past n";
    EXPECT_TRUE(scratch.guardIntact()) << "scratch written past compact_scratch_bytes(n)";
    EXPECT_TRUE(mask.guardIntact()) << "mask written";
    o.map.assign(map.as<std::int32_t>(), map.as<std::int32_t>() + n);
    return o;
  }

  /// A population in guarded host buffers.
  struct Buffers {
    std::int64_t n;
    std::vector<std::unique_ptr<Guarded>> planes;
    std::vector<sieve::ReorderPlane> desc;
    Guarded perm, inv, map, scratch;
    explicit Buffers(const RefState& s)
        : n(static_cast<std::int64_t>(s.perm.size())), perm(s.perm.size() * 4, s.perm.data()),
          inv(s.inv.size() * 4, s.inv.data()), map(s.map.size() * 4, s.map.data()),
          scratch(sieve::reorder_scratch_bytes(static_cast<std::int64_t>(s.perm.size()),
                                               maxElemOf(s))) {
      for (const auto& p : s.planes) {
        planes.push_back(std::make_unique<Guarded>(p.bytes.size(), p.bytes.data()));
        desc.push_back({planes.back()->data(), p.elem});
      }
    }
    void back(RefState& s) {
      for (std::size_t p = 0; p < planes.size(); ++p) {
        copyBytes(s.planes[p].bytes.data(), planes[p]->data(), s.planes[p].bytes.size());
        EXPECT_TRUE(planes[p]->guardIntact()) << "plane " << p << " written past n";
      }
      copyBytes(s.perm.data(), perm.data(), s.perm.size() * 4);
      copyBytes(s.inv.data(), inv.data(), s.inv.size() * 4);
      copyBytes(s.map.data(), map.data(), s.map.size() * 4);
      EXPECT_TRUE(perm.guardIntact() && inv.guardIntact() && map.guardIntact())
          << "perm / inv / index map written past n";
      EXPECT_TRUE(scratch.guardIntact()) << "scratch written past reorder_scratch_bytes";
    }
  };

  static void reorder(RefState& s, bool drop, bool useFire) {
    Buffers b(s);
    sieve::reorderHost(team(), b.desc.data(), static_cast<std::uint32_t>(b.desc.size()),
                       b.planes[s.maskPlane]->data(), drop ? sieve::kCompactMaskIsDrop : 0u,
                       b.perm.as<std::int32_t>(), b.inv.as<std::int32_t>(),
                       b.map.as<std::int32_t>(), &s.count, &s.span, useFire ? &s.fire : nullptr,
                       b.scratch.data(), b.n);
    b.back(s);
  }

  static void restore(RefState& s) {
    Buffers b(s);
    sieve::restoreHost(team(), b.desc.data(), static_cast<std::uint32_t>(b.desc.size()),
                       b.perm.as<std::int32_t>(), b.inv.as<std::int32_t>(), b.scratch.data(), b.n);
    b.back(s);
  }

  template <class T, class Op>
  static std::vector<T> scan(const std::vector<T>& in, T init, bool inclusive, Op op,
                             bool inPlace) {
    const auto n = static_cast<std::int64_t>(in.size());
    std::vector<T> out = inPlace ? in : std::vector<T>(in.size(), T(77));
    std::vector<T> bs(in.size() + 1, T(55)); // the contract: n elements
    const T* src = inPlace ? out.data() : in.data();
    if (inclusive)
      sieve::cpu::Scan::scan<T, Op, true>(team(), src, out.data(), bs.data(), n, init, op);
    else sieve::cpu::Scan::scan<T, Op, false>(team(), src, out.data(), bs.data(), n, init, op);
    EXPECT_EQ(bs[in.size()], T(55)) << "blockSums written past n elements";
    return out;
  }

  /// The inclusive scan without init (Seeded = false): the fold starts from
  /// in[0], as std::inclusive_scan(first, last, d, op).
  template <class T, class Op>
  static std::vector<T> scanFromFirst(const std::vector<T>& in, Op op, bool inPlace) {
    const auto n = static_cast<std::int64_t>(in.size());
    std::vector<T> out = inPlace ? in : std::vector<T>(in.size(), T(77));
    std::vector<T> bs(in.size() + 1, T(55)); // the contract: n elements
    const T* src = inPlace ? out.data() : in.data();
    sieve::cpu::Scan::scan<T, Op, true, sieve::Tuning::Host::kScanBlock, false>(
        team(), src, out.data(), bs.data(), n, T(), op);
    EXPECT_EQ(bs[in.size()], T(55)) << "blockSums written past n elements";
    return out;
  }
};

} // namespace sieve_test
