// SPDX-License-Identifier: Apache-2.0
// Sieve (internal) — the one way into a sieve::Population's state (the
// class's only friend), for sieve::Graph's nodes and the distributed calls.
#pragma once

#include <sieve/impl/population/state.hpp>

#include <memory>

namespace sieve {

template <class ExecSpace>
class Population; // population.hpp

namespace Impl {

struct PopulationAccess {
  /// The state of `pop`. Throws std::invalid_argument on an empty handle
  /// (naming `what`).
  template <class Exec>
  static PopulationState<Exec>& state(const Population<Exec>& pop, const char* what) {
    return pop.state(what);
  }
  /// The state of `pop`, shared (a graph node keeps it). Throws as state().
  template <class Exec>
  static std::shared_ptr<PopulationState<Exec>> shared(const Population<Exec>& pop,
                                                       const char* what) {
    (void)pop.state(what);
    return pop.s_;
  }
};

} // namespace Impl
} // namespace sieve
