// SPDX-License-Identifier: Apache-2.0
// Sieve (internal) — sieve::mpi::findall's entry: the local findall with linear
// indices inside the rank's attempt, one counting round, then the rank's
// element offset added to its indices.
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
#include <utility>

namespace sieve {
namespace mpi {
namespace Impl {

using sieve::Impl::CallRegion;
using sieve::Impl::Names;

/// Adds the rank's element offset to its local linear indices.
template <class V>
struct AddOffset {
  V v;
  std::int64_t offset;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const { v(i) += offset; }
};

template <class First, class... Args>
std::int64_t elementsOf(const First& first, const Args&... args) {
  if constexpr (Kokkos::is_view<First>::value) return static_cast<std::int64_t>(first.size());
  else if constexpr (sieve::Impl::kFindallCount<First>) return static_cast<std::int64_t>(first);
  else return static_cast<std::int64_t>(sieve::Impl::nth<0>(args...).size());
}

template <class Exec, class First, class... Args>
auto findallEntry(const std::string& label, const Exec& exec, MPI_Comm comm, const First& first,
                  const Args&... args) {
  constexpr const char* fn = "sieve::mpi::findall";
  using Result = decltype(sieve::findall(exec, first, args..., sieve::linear_indices));
  static_assert(Kokkos::is_view<Result>::value,
                "sieve::mpi::findall: it returns the global linear indices in a new View; "
                "sieve::into is not one of its options");
  checkComm(fn, comm);
  handshake(fn, comm, Call::findall);
  const CallRegion region(Names(label, fn).prefix);
  Attempt mine;
  Result indices;
  std::int64_t elements = 0;
  mine.run([&] {
    indices = sieve::findall(label, exec, first, args..., sieve::linear_indices);
    elements = elementsOf(first, args...);
  });
  const std::int64_t local = static_cast<std::int64_t>(indices.extent(0));
  const Tally t = tally(comm, mine, {local, elements});
  const int p = commSize(comm);
  if (t.failedRank < p) throwAgreed(fn, mine, t.failedRank, p, "in its local findall");
  if (t.before[1] != 0 && local > 0) {
    Kokkos::parallel_for(Names(label, fn)("offset"),
                         Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(exec, 0, local),
                         AddOffset<Result>{indices, t.before[1]});
    exec.fence();
  }
  return FindallResult<Result>{indices, Global{local, t.before[0], t.sums[0]}, t.before[1],
                               t.sums[1]};
}

/// What sieve::mpi::findall returns for these arguments.
template <class Exec, class First, class... Args>
using FindallReturn =
    FindallResult<decltype(sieve::findall(std::declval<const Exec&>(), std::declval<const First&>(),
                                          std::declval<const Args&>()..., sieve::linear_indices))>;

} // namespace Impl
} // namespace mpi
} // namespace sieve
