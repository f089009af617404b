// SPDX-License-Identifier: Apache-2.0
// Sieve (internal) — sieve::mpi::compact's entry: the local compaction inside the
// rank's attempt, then one counting round that also agrees on failures.
// Included by <sieve/mpi.hpp> after its public types (Global, FindallResult,
// RebalanceWorkspace) and the single-rank API it builds on.
#pragma once

#include <sieve/impl/args.hpp>
#include <sieve/impl/call.hpp>
#include <sieve/impl/common.hpp>
#include <sieve/impl/mpi/exchange.hpp>

#include <mpi.h>
#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>

namespace sieve {
namespace mpi {
namespace Impl {

using sieve::Impl::CallRegion;
using sieve::Impl::Names;

/// A compaction on every rank, placed in the global order: the handshake,
/// then `local()` (the rank's compaction, returning its count) inside the
/// rank's Attempt, then one counting round that also agrees on failures.
template <class Local>
Global countedCompact(const char* fn, Call call, const std::string& label, MPI_Comm comm,
                      Local&& local) {
  checkComm(fn, comm);
  handshake(fn, comm, call);
  const CallRegion region(Names(label, fn).prefix);
  Attempt mine;
  std::int64_t count = 0;
  mine.run([&] { count = local(); });
  const Tally t = tally(comm, mine, {count});
  if (t.failedRank < commSize(comm))
    throwAgreed(fn, mine, t.failedRank, commSize(comm), "in its local compaction");
  return Global{count, t.before[0], t.sums[0]};
}

template <class Exec, class Mask, class... Args>
Global compactEntry(const std::string& label, const Exec& exec, MPI_Comm comm, const Mask& mask,
                    const Args&... args) {
  constexpr const char* fn = "sieve::mpi::compact";
  constexpr std::size_t p = sieve::Impl::kLeadingPolarity<Args...> ? 1 : 0;
  static_assert(sizeof...(Args) >= p + 3,
                "sieve::mpi::compact: the arguments are compact([label,] exec, comm, mask[, "
                "polarity], index_map, count, scratch[, trigger])");
  return countedCompact(fn, Call::compact, label, comm, [&] {
    sieve::compact(label, exec, mask, args...);
    std::uint32_t c = 0;
    if constexpr (sizeof...(Args) >= p + 3)                   // else only the assertion above
      Kokkos::deep_copy(c, sieve::Impl::nth<p + 1>(args...)); // fences
    return static_cast<std::int64_t>(c);
  });
}

} // namespace Impl
} // namespace mpi
} // namespace sieve
