// SPDX-License-Identifier: Apache-2.0
// Sieve (internal) — sieve::mpi::compact and rebalance of a sieve::Population,
// through its one accessor (impl/population/access.hpp).
// Included by <sieve/mpi.hpp> after its public types (Global, FindallResult,
// RebalanceWorkspace) and the single-rank API it builds on.
#pragma once

#include <sieve/impl/call.hpp>
#include <sieve/impl/common.hpp>
#include <sieve/impl/constraints.hpp>
#include <sieve/impl/mpi/compact.hpp>
#include <sieve/impl/mpi/exchange.hpp>
#include <sieve/impl/mpi/rebalance.hpp>
#include <sieve/impl/planes.hpp>
#include <sieve/impl/population/access.hpp>
#include <sieve/impl/population/state.hpp>

#include <mpi.h>
#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

namespace sieve {
namespace mpi {
namespace Impl {

using sieve::Impl::CallRegion;
using sieve::Impl::Names;

/// map(i) = inv(map(i)): sample ids to their slots.
template <class Map, class Inv>
struct ToSlots {
  Map map;
  Inv inv;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const { map(i) = inv(map(i)); }
};

/// What the distributed calls do to a Population (its state through
/// sieve::Impl::PopulationAccess).
struct PopulationCalls {
  /// mpi::compact of a Population: Population::compact, then the tally.
  template <class Exec, class Mask>
  static Global compact(const std::string& label, const Exec& exec, MPI_Comm comm,
                        const Population<Exec>& pop, const Mask& mask, MaskPolarity polarity) {
    return countedCompact("sieve::mpi::compact", Call::population_compact, label, comm, [&] {
      return static_cast<std::int64_t>(pop.compact(exec, mask, polarity));
    });
  }

  /// mpi::rebalance of a Population: its survivors (by the mask of its last
  /// compaction, as it reads now) move in sample-id order; afterwards the
  /// Population is born again on the moved planes.
  template <class Exec, class... Views, std::size_t... J>
  static Global rebalance(const std::string& label, const Exec& exec, MPI_Comm comm,
                          RebalanceWorkspace<Exec>& ws, const Population<Exec>& pop,
                          const Planes<Views...>& given, std::index_sequence<J...>) {
    constexpr const char* fn = "sieve::mpi::rebalance";
    using State = sieve::Impl::PopulationState<Exec>;
    using Policy = Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>;
    static_assert(sieve::Impl::firstBadPlane<Exec, Views...>() < 0,
                  "sieve::mpi::rebalance: every plane of a Population must be a writable rank-1 "
                  "View of trivially-copyable 1, 2, 4, 8 or 16-byte elements, or a rank-2 View "
                  "of them (extent(0) the samples, one row each), accessible from the "
                  "execution space");
    Planes<Views...> planes = given; // handles: the same planes (a Population's never grow)
    const Names wsNames(ws.label, fn);
    const Names names(label, fn);
    // Everything that may throw runs in phase 1, inside the rank's Attempt,
    // after the handshake: an empty handle on one rank makes every rank throw.
    State* state = nullptr;
    auto local = [&](std::int64_t& kept, const void*& mask, MaskPolarity& polarity) {
      state = &sieve::Impl::PopulationAccess::state(pop, fn);
      State& s = *state;
      mask = s.mask.data();
      polarity = s.polarity;
      State::checkNoSpawnPending(s, fn);
      if (s.mask.data() == nullptr && s.n > 0)
        sieve::Impl::fail(fn,
                          "no compaction of the population since it was made (or cloned): "
                          "it knows no mask yet; call compact first");
      bool hasMask = s.n == 0;
      std::string extents;
      (
          [&](const auto& v) {
            if (static_cast<std::int64_t>(v.extent(0)) != s.n)
              extents = "a plane has extent " + std::to_string(v.extent(0));
            using V = std::decay_t<decltype(v)>;
            if (V::rank == 1 && sizeof(sieve::Impl::ValueOf<V>) == 1 &&
                static_cast<const void*>(v.data()) == static_cast<const void*>(s.mask.data()))
              hasMask = true;
          }(std::get<J>(planes.views)),
          ...);
      if (!extents.empty())
        sieve::Impl::fail(fn, extents + "; every plane of the population must have its n = " +
                                  std::to_string(s.n) + " samples");
      if (!hasMask)
        sieve::Impl::fail(fn,
                          "the plane set must hold the population's mask (the View of its "
                          "last compaction): it moves with the samples and its tail is made "
                          "dead");
      std::apply(
          [&](const auto&... v) {
            sieve::Impl::Record::check(fn, s.trigger, s.n, s.perm, s.inv, v...);
          },
          planes.views);
      ensure(ws.map, static_cast<std::size_t>(s.n), wsNames("index_map"));
      ensure(ws.scratch, sieve::compact_scratch_bytes(s.n), wsNames("scratch"));
      if (ws.count.data() == nullptr)
        ws.count = sieve::Impl::allocate<decltype(ws.count)>(wsNames("count"));
      // The survivors in sample-id order, each sample id then mapped back to
      // its slot.
      if (!s.permIdentity)
        ensure(ws.order, static_cast<std::size_t>(s.n), wsNames("sample_order_mask"));
      const bool identity = State::compactBySample(s, exec, s.polarity, ws.order.data(), ws.map,
                                                   ws.count, ws.scratch);
      std::uint32_t c = 0;
      Kokkos::deep_copy(c, ws.count); // fences
      kept = c;
      if (!identity && kept > 0) {
        Kokkos::parallel_for(names("to_slots"), Policy(exec, 0, kept),
                             ToSlots<decltype(ws.map), typename State::index_view>{ws.map, s.inv});
      }
      return s.n;
    };
    const Global g = std::apply(
        [&](auto&... v) {
          return rebalanceRun(fn, Call::population_rebalance, label, exec, comm, ws, true, local,
                              v...);
        },
        planes.views);
    State& s = *state; // phase 1 ran on every rank that gets here
    // Born again on the moved planes: sample id k = slot k = global survivor
    // offset + k; the index map the identity over [0, local), as a compaction
    // of the moved mask gives; span = local, fire = 0; nothing to restore.
    State::identity(s, exec);
    const std::uint32_t held = static_cast<std::uint32_t>(g.local);
    Kokkos::deep_copy(exec, s.count, held);
    Kokkos::deep_copy(exec, s.trigger.span, held);
    Kokkos::deep_copy(exec, s.trigger.fire, std::uint32_t(0));
    Kokkos::deep_copy(exec, s.trigger.live32, (held + 31u) / 32u);
    exec.fence();
    sieve::Impl::Record::forget(s.trigger);
    s.permIdentity = !s.graphReorders;
    s.spawnedSinceCompact = false;
    return g;
  }
};

} // namespace Impl
} // namespace mpi
} // namespace sieve
