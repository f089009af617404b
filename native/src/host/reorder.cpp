// SPDX-License-Identifier: Apache-2.0
// Sieve — reorderHost / restoreHost on an OpenMP team.
//
// Reorder: every thread takes a contiguous, 32-aligned part of the span, turns
// its mask bytes into keep bits (one word per 32 samples, in the scratch's
// predicate plane) and counts them; after a barrier each thread knows where
// its kept samples start (after the kept samples of the parts before it) and
// where its dropped ones start (after all kept samples and the dropped ones of
// the parts before it). Each plane is then copied, part by part, into the
// staging plane and, after a barrier, scattered back through two cursors: a
// stable partition, the same moves as reorderDst() prescribes. The keep bits
// are taken before any plane moves, so the mask moves like any other plane.
//
// Restore: each plane is copied into the staging plane and gathered back
// through inv (sample i is at slot inv[i]); then perm = inv = identity.
#include <sieve/core/elem.hpp>
#include <sieve/core/layout.hpp>
#include <sieve/core/rules.hpp>
#include <sieve/core/state.hpp>
#include <sieve/core/tuning.hpp>
#include <sieve/core/validate.hpp>
#include <sieve/native/host/reorder.hpp>
#include <sieve/native/host/team.hpp>

#include "kernels.hpp"
#include "maskbits.hpp"

#include <cstdint>
#include <cstring>

namespace sieve {
namespace Impl {
namespace {

struct ReorderArgs {
  const ReorderPlane* planes;
  std::uint32_t nPlanes;
  const std::uint8_t* mask;
  std::uint32_t flags;
  std::int32_t* perm;
  std::int32_t* inv;
  std::int32_t* indexMap;
  std::uint32_t* count;
  std::uint32_t* span;
  std::uint32_t* fire;
  void* scratch;
  std::int64_t n;
  std::int64_t sp; // effective span
};

void reorderTeamBody(const TeamCtx& t, const ReorderArgs& r) {
  std::uint32_t* bits = carve<std::uint32_t>(r.scratch, ReorderLayout::bits(r.n));
  std::uint32_t* shared = carve<std::uint32_t>(r.scratch, ReorderLayout::hostShared(r.n, t.size));
  std::int64_t w0, w1;
  teamShare(t, groups32(r.sp), w0, w1);
  const std::int64_t a = w0 * 32, b = w1 * 32 < r.sp ? w1 * 32 : r.sp;

  std::uint32_t kept = 0;
  for (std::int64_t w = w0; w < w1; ++w) {
    const std::int64_t base = w * 32, len = r.sp - base < 32 ? r.sp - base : 32;
    const std::uint32_t word = keepBits32(r.mask + base, len, r.flags);
    bits[w] = word;
    kept += popcount32(word);
  }
  std::int64_t keptBefore = 0, cnt = kept;
  if (t.size > 1) {
    shared[t.id] = kept;
    teamBarrier(t);
    cnt = 0;
    for (int j = 0; j < t.size; ++j) {
      if (j < t.id) keptBefore += shared[j];
      cnt += shared[j];
    }
  }
  const std::int64_t kp = keptBefore, dp = cnt + (a - keptBefore);
  const std::int64_t kEnd = kp + kept, dEnd = dp + (b - a - kept);
  const HostKernels& kern = hostKernels();

  auto move = [&](void* data, std::uint32_t elemBytes) {
    withElem(elemBytes, [&](auto tag) {
      using T = typename decltype(tag)::type;
      T* plane = static_cast<T*>(data);
      T* st = carve<T>(r.scratch, ReorderLayout::stage(r.n, sizeof(T)));
      if (a < b) std::memcpy(st + a, plane + a, static_cast<std::size_t>(b - a) * sizeof(T));
      teamBarrier(t); // every part staged before any slot is overwritten
      if (a < b) kern.scatter(st, plane, sizeof(T), bits, a, b, kp, kEnd, dp, dEnd);
      // The next plane's parts cover other bytes of the stage (another element
      // size), and perm must be complete before inv reads it.
      teamBarrier(t);
    });
  };
  for (std::uint32_t p = 0; p < r.nPlanes; ++p) move(r.planes[p].data, r.planes[p].elemBytes);
  move(r.perm, 4u);
  for (std::int64_t s = a; s < b; ++s) {
    const std::int32_t p = r.perm[s];
    if (slotInRange(p, r.n)) r.inv[p] = static_cast<std::int32_t>(s);
  }
  std::int64_t m0, m1;
  teamShare(t, cnt, m0, m1);
  for (std::int64_t s = m0; s < m1; ++s) r.indexMap[s] = static_cast<std::int32_t>(s);
  if (t.id == 0) reorderEpilogue(r.count, r.span, r.fire, static_cast<std::uint32_t>(cnt));
}

} // namespace
} // namespace Impl

void reorderHost(HostTeam team, const ReorderPlane* planes, std::uint32_t nPlanes,
                 const std::uint8_t* mask, std::uint32_t flags, std::int32_t* perm,
                 std::int32_t* inv, std::int32_t* indexMap, std::uint32_t* count,
                 std::uint32_t* span, std::uint32_t* fire, void* scratch, std::int64_t n) {
  Impl::checkReorder("sieve::reorderHost", planes, nPlanes, mask, flags, perm, inv, indexMap, count,
                     span, fire, scratch, n);
  Impl::reorderHostChecked(team, planes, nPlanes, mask, flags, perm, inv, indexMap, count, span,
                           fire, scratch, n);
}

void Impl::reorderHostChecked(HostTeam team, const ReorderPlane* planes, std::uint32_t nPlanes,
                              const std::uint8_t* mask, std::uint32_t flags, std::int32_t* perm,
                              std::int32_t* inv, std::int32_t* indexMap, std::uint32_t* count,
                              std::uint32_t* span, std::uint32_t* fire, void* scratch,
                              std::int64_t n) {
  if (n == 0) {
    Impl::reorderEpilogue(count, span, fire, 0u);
    return;
  }
  // The shared gate and span (the host twin keeps cursors, not wordOff / cnt).
  const Impl::ReorderState state{nullptr, nullptr, nullptr, span, fire, n};
  if (!state.active()) return;
  const Impl::ReorderArgs args{planes, nPlanes, mask, flags,   perm, inv,       indexMap,
                               count,  span,    fire, scratch, n,    state.sp()};
  const int threads = Impl::teamSizeFor(team, args.sp, Tuning::Host::kReorderMinPerThread);
  Impl::runTeam(threads, [&](const Impl::TeamCtx& t) { Impl::reorderTeamBody(t, args); });
}

void reorderHost(const ReorderPlane* planes, std::uint32_t nPlanes, const std::uint8_t* mask,
                 std::uint32_t flags, std::int32_t* perm, std::int32_t* inv, std::int32_t* indexMap,
                 std::uint32_t* count, std::uint32_t* span, std::uint32_t* fire, void* scratch,
                 std::int64_t n) {
  reorderHost(HostTeam{}, planes, nPlanes, mask, flags, perm, inv, indexMap, count, span, fire,
              scratch, n);
}

void restoreHost(HostTeam team, const ReorderPlane* planes, std::uint32_t nPlanes,
                 std::int32_t* perm, std::int32_t* inv, void* scratch, std::int64_t n) {
  Impl::checkRestore("sieve::restoreHost", planes, nPlanes, perm, inv, scratch, n);
  Impl::restoreHostChecked(team, planes, nPlanes, perm, inv, scratch, n);
}

void Impl::restoreHostChecked(HostTeam team, const ReorderPlane* planes, std::uint32_t nPlanes,
                              std::int32_t* perm, std::int32_t* inv, void* scratch,
                              std::int64_t n) {
  if (n == 0) return;
  const int threads = Impl::teamSizeFor(team, n, Tuning::Host::kReorderMinPerThread);
  Impl::runTeam(threads, [&](const Impl::TeamCtx& t) {
    std::int64_t a, b;
    Impl::teamShare(t, n, a, b);
    for (std::uint32_t p = 0; p < nPlanes; ++p) {
      Impl::withElem(planes[p].elemBytes, [&](auto tag) {
        using T = typename decltype(tag)::type;
        T* plane = static_cast<T*>(planes[p].data);
        T* st = Impl::carve<T>(scratch, Impl::ReorderLayout::stage(n, sizeof(T)));
        if (a < b) std::memcpy(st + a, plane + a, static_cast<std::size_t>(b - a) * sizeof(T));
        Impl::teamBarrier(t); // the whole plane staged before the gather
        for (std::int64_t i = a; i < b; ++i) {
          const std::int32_t from = inv[i];
          if (Impl::slotInRange(from, n)) plane[i] = st[from];
        }
        Impl::teamBarrier(t); // the gather done before the stage is reused
      });
    }
    for (std::int64_t i = a; i < b; ++i) perm[i] = inv[i] = static_cast<std::int32_t>(i);
  });
}

void restoreHost(const ReorderPlane* planes, std::uint32_t nPlanes, std::int32_t* perm,
                 std::int32_t* inv, void* scratch, std::int64_t n) {
  restoreHost(HostTeam{}, planes, nPlanes, perm, inv, scratch, n);
}

} // namespace sieve
