// SPDX-License-Identifier: Apache-2.0
// Sieve — compactHost: fused count-then-write compaction on an OpenMP team.
//
// Every thread takes a contiguous, 64-aligned part of the samples, counts its
// kept samples (and, with a trigger, its live 32-sample groups), and after one
// team barrier writes the indices of its part at its offset: the mask is read
// twice and nothing else is read. (Rounds small enough to re-read the mask from
// L2 cost more in barriers than they save: the index writes dominate.) The hot
// loops (kernels_*.cpp) write many indices at a time with unconditional vector
// stores that stay inside the thread's own slots of the map (the slack is
// overwritten in order), and exactly, bit by bit, near the end of those slots:
// no slot at or past the count, nor another thread's slot, is ever written.
#include <sieve/core/layout.hpp>
#include <sieve/core/rules.hpp>
#include <sieve/core/tuning.hpp>
#include <sieve/core/validate.hpp>
#include <sieve/native/host/compact.hpp>
#include <sieve/native/host/team.hpp>

#include "kernels.hpp"

#include <cstdint>

namespace sieve {
namespace Impl {
namespace {

void compactTeamBody(const TeamCtx& t, const HostKernels& kern, const std::uint8_t* mask,
                     std::uint32_t flags, std::int32_t* map, std::uint32_t* count,
                     const ReorderTrigger* trig, std::int64_t n, void* scratch) {
  std::int64_t u0, u1;
  teamShare(t, (n + 63) / 64, u0, u1);
  const std::int64_t a = u0 * 64, b = u1 * 64 < n ? u1 * 64 : n;
  std::uint32_t kept = 0, live = 0;
  if (a < b) kern.count(mask, flags, a, b, &kept, &live);
  std::int64_t offset = 0, total = kept, liveTotal = live;
  if (t.size > 1) {
    std::uint32_t* sharedKept = carve<std::uint32_t>(scratch, CompactLayout::hostKept(t.size));
    std::uint32_t* sharedLive = carve<std::uint32_t>(scratch, CompactLayout::hostLive(t.size));
    sharedKept[t.id] = kept;
    sharedLive[t.id] = live;
    teamBarrier(t);
    total = liveTotal = 0;
    for (int j = 0; j < t.size; ++j) {
      if (j < t.id) offset += sharedKept[j];
      total += sharedKept[j];
      liveTotal += sharedLive[j];
    }
  }
  if (kept > 0) kern.write(mask, flags, a, b, map, offset, offset + kept);
  if (t.id == 0) {
    *count = static_cast<std::uint32_t>(total);
    if (trig != nullptr) {
      *trig->live32 = static_cast<std::uint32_t>(liveTotal);
      *trig->fire = triggerFires(static_cast<std::uint32_t>(total),
                                 static_cast<std::uint32_t>(liveTotal), *trig->span, trig->theta);
    }
  }
}

} // namespace
} // namespace Impl

void compactHost(HostTeam team, const std::uint8_t* mask, std::uint32_t flags,
                 std::int32_t* indexMap, std::uint32_t* count, void* scratch, std::int64_t n,
                 const ReorderTrigger* trig) {
  Impl::checkCompact("sieve::compactHost", mask, flags, indexMap, count, scratch, n, 1,
                     sizeof(std::int32_t), trig);
  Impl::compactHostChecked(team, mask, flags, indexMap, count, scratch, n, trig);
}

void Impl::compactHostChecked(HostTeam team, const std::uint8_t* mask, std::uint32_t flags,
                              std::int32_t* indexMap, std::uint32_t* count, void* scratch,
                              std::int64_t n, const ReorderTrigger* trig) {
  // Threads share their counts through the scratch (CompactLayout::hostKept,
  // hostLive), sized for at most CompactLayout::hostMaxThreads(n) threads.
  const int threads = Impl::teamSizeFor(team, n, Tuning::Host::kCompactMinPerThread);
  const Impl::HostKernels& kern = Impl::hostKernels();
  Impl::runTeam(threads, [&](const Impl::TeamCtx& t) {
    Impl::compactTeamBody(t, kern, mask, flags, indexMap, count, trig, n, scratch);
  });
}

void compactHost(const std::uint8_t* mask, std::uint32_t flags, std::int32_t* indexMap,
                 std::uint32_t* count, void* scratch, std::int64_t n, const ReorderTrigger* trig) {
  compactHost(HostTeam{}, mask, flags, indexMap, count, scratch, n, trig);
}

void compactHost(const std::uint8_t* mask, std::uint32_t flags, std::int32_t* indexMap,
                 std::uint32_t* count, void* scratch, std::int64_t n) {
  compactHost(HostTeam{}, mask, flags, indexMap, count, scratch, n, nullptr);
}

} // namespace sieve
