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

#include <sieve/core/macros.hpp>

#include <cstdint>

#if defined(_OPENMP)
#include <omp.h>
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

/// Thread `t`'s share `[begin, end)` of `[0, units)`, contiguous and in order.
inline void teamShare(const TeamCtx& t, std::int64_t units, std::int64_t& begin,
                      std::int64_t& end) {
  begin = units * t.id / t.size;
  end = units * (t.id + 1) / t.size;
}

} // namespace Impl
} // namespace sieve
