// SPDX-License-Identifier: Apache-2.0
// Sieve — the OpenMP team the host twins run on.
//
// Every host twin is written once as a "team body": a function every thread of
// a team calls with its id and the team size, synchronising with team
// barriers. It runs either in a parallel region the twin opens itself (the
// default, or `HostTeam{threads}` to pin the thread count, which is how the
// Kokkos face runs on a Kokkos::OpenMP instance's threads) or, for the
// context-aware scan, orphaned inside the caller's active parallel region.
// Without OpenMP every team has one thread.
#pragma once

#include <sieve/core/fault.hpp>
#include <sieve/core/macros.hpp>

#include <atomic>
#include <cstdint>
#include <memory>
#include <thread>

#if defined(_OPENMP)
#include <omp.h>
#endif
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace sieve {

/// The threads a host twin runs on. `threads <= 0` means the OpenMP default
/// (`omp_get_max_threads()`); a twin may use fewer threads for small inputs.
/// A twin called with a HostTeam always opens its own parallel region, nested
/// when the caller is itself inside one.
struct HostTeam {
  int threads = 0;
};

namespace Impl {

/// One thread's view of a running team.
struct TeamCtx {
  int id = 0;
  int size = 1;
};

inline int hostMaxThreads(const HostTeam& team) {
#if defined(_OPENMP)
  return team.threads > 0 ? team.threads : omp_get_max_threads();
#else
  (void)team;
  return 1;
#endif
}

inline bool hostInParallel() {
#if defined(_OPENMP)
  return omp_in_parallel() != 0;
#else
  return false;
#endif
}

/// Threads worth using for `work` units when each thread should get at least
/// `minPerThread` of them.
inline int teamSizeFor(const HostTeam& team, std::int64_t work, std::int64_t minPerThread) {
  const std::int64_t byWork = work / (minPerThread > 0 ? minPerThread : 1);
  const int maxT = hostMaxThreads(team);
  return byWork < 1 ? 1 : (byWork < maxT ? static_cast<int>(byWork) : maxT);
}

/// Run `body(TeamCtx)` on a team of (up to) `threads` threads in a new parallel
/// region; inline on the calling thread when `threads <= 1`.
template <class Body>
void runTeam(int threads, Body&& body) {
#if defined(_OPENMP)
  if (threads > 1) {
#pragma omp parallel num_threads(threads)
    { body(TeamCtx{omp_get_thread_num(), omp_get_num_threads()}); }
    return;
  }
#endif
  (void)threads;
  body(TeamCtx{0, 1});
}

/// The team of the caller's active parallel region (context-aware twins).
inline TeamCtx enclosingTeam() {
#if defined(_OPENMP)
  return TeamCtx{omp_get_thread_num(), omp_get_num_threads()};
#else
  return TeamCtx{0, 1};
#endif
}

/// A barrier over the team (a no-op for a team of one).
inline void teamBarrier(const TeamCtx& t) {
#if defined(_OPENMP)
  if (t.size > 1) {
#pragma omp barrier
  }
#else
  (void)t;
#endif
}

/// The offsets of a team's blocks without a barrier between rounds (the host
/// form of a decoupled look-back): block b publishes its count as soon as it
/// has one, then sums the published counts of the blocks before it, back to
/// the first whose inclusive prefix is known, and publishes its own. A thread
/// waits only until the blocks just before its own are counted (their owners
/// may still be writing them). Counts are >= 0 and every prefix < 2^62.
/// Every block 0 .. blocks-1 calls exclusive() exactly once, on
/// any thread, each thread taking its blocks in increasing order (a block
/// waits only for lower blocks, so no such order can deadlock; waiting yields
/// the core, so teams larger than the machine still progress).
class BlockPrefix {
 public:
  explicit BlockPrefix(std::int64_t blocks)
      : blocks_(blocks),
        st_((allocationPoint(), new std::atomic<std::uint64_t>[blocks > 0 ? blocks : 1])) {
    for (std::int64_t b = 0; b < blocks; ++b) st_[b].store(0, std::memory_order_relaxed);
  }

  /// The sum of the counts of the blocks before b; publishes count (>= 0) as b's.
  std::int64_t exclusive(std::int64_t b, std::int64_t count) {
    const auto c = static_cast<std::uint64_t>(count);
    if (b == 0) {
      st_[0].store(c << 2 | kInclusive, std::memory_order_release);
      return 0;
    }
    st_[b].store(c << 2 | kAggregate, std::memory_order_release);
    std::uint64_t before = 0;
    for (std::int64_t j = b - 1;; --j) {
      std::uint64_t w = st_[j].load(std::memory_order_acquire);
      for (int spins = 0; w == 0; w = st_[j].load(std::memory_order_acquire)) pause(spins);
      before += w >> 2;
      if ((w & 3u) == kInclusive) break;
    }
    st_[b].store((before + c) << 2 | kInclusive, std::memory_order_release);
    return static_cast<std::int64_t>(before);
  }

  /// The sum of every block's count, once every block has called exclusive()
  /// (after the team's region).
  std::int64_t total() const {
    return blocks_ > 0
               ? static_cast<std::int64_t>(st_[blocks_ - 1].load(std::memory_order_acquire) >> 2)
               : 0;
  }

 private:
  static constexpr std::uint64_t kAggregate = 1, kInclusive = 2;

  static void pause(int& spins) {
    if (spins < 256) {
      ++spins;
#if defined(__SSE2__)
      _mm_pause();
#endif
    } else {
      std::this_thread::yield();
    }
  }

  std::int64_t blocks_;
  std::unique_ptr<std::atomic<std::uint64_t>[]> st_;
};

/// Thread `t`'s share `[begin, end)` of `[0, units)`, contiguous and in order.
inline void teamShare(const TeamCtx& t, std::int64_t units, std::int64_t& begin,
                      std::int64_t& end) {
  begin = units * t.id / t.size;
  end = units * (t.id + 1) / t.size;
}

} // namespace Impl
} // namespace sieve
