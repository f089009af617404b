// SPDX-License-Identifier: Apache-2.0
// Sieve — sieve::Trigger, the locality trigger a compaction computes on the way.
#pragma once

#include <sieve/impl/common.hpp>
#include <sieve/impl/trigger.hpp>

#include <cstdint>
#include <memory>
#include <string>

namespace sieve {

/// The locality trigger (three one-word Views in `MemorySpace` and a
/// threshold). A compaction with a trigger writes `live32` (aligned 32-sample
/// groups holding a kept sample) and `fire` (1 when a reorder pays, by
/// sieve's one trigger rule), reads `span` (samples [0, span) may still be
/// kept) and widens it to just past the last kept sample when one lies at or
/// past it (then `fire` is decided on the widened span). A reorder reads
/// `span` and `fire` and, when it runs, sets span = count and fire = 0.
///
/// A trigger also remembers (on the host, shared by its copies) which perm,
/// inv and planes the reorders through it moved since the last restore
/// through it: a reorder or a `restore(exec, trigger, ...)` given another set
/// throws instead of leaving a plane out of step with the others. That restore
/// also resets span = n and fire = 0.
template <class MemorySpace = Kokkos::DefaultExecutionSpace::memory_space>
struct Trigger : Impl::TriggerTag {
  using memory_space = MemorySpace;
  using word_view = Kokkos::View<std::uint32_t, MemorySpace>;

  word_view live32; ///< OUT: groups of 32 holding a kept sample
  word_view span; ///< IN/OUT: samples [0, span) may still be kept; a compaction widens it to cover
                  ///< every kept sample
  word_view fire; ///< OUT: 1 when a reorder pays, else 0
  float theta = 0.5f; ///< the locality threshold, in (0, 1)
  /// What the reorders through this trigger moved (see above).
  std::shared_ptr<Impl::PlaneRecord> record = std::make_shared<Impl::PlaneRecord>();

  Trigger() = default;
  /// Wrap existing words.
  Trigger(word_view live32_, word_view span_, word_view fire_, float theta_)
      : live32(live32_), span(span_), fire(fire_), theta(theta_) {}
  /// Allocate the three words (zero, labelled "sieve::<label>::live32" ...). Set
  /// `span` before the first compaction (e.g. Kokkos::deep_copy(exec, t.span, n)).
  /// Throws std::invalid_argument for theta outside (0, 1).
  explicit Trigger(const std::string& label, float theta_ = 0.5f)
      : live32(Impl::allocate<word_view>("sieve::" + label + "::live32")),
        span(Impl::allocate<word_view>("sieve::" + label + "::span")),
        fire(Impl::allocate<word_view>("sieve::" + label + "::fire")), theta(theta_) {
    if (!(theta > 0.0f && theta < 1.0f))
      Impl::fail("sieve::Trigger", "theta = " + std::to_string(theta) + " is outside (0, 1)");
  }
};

} // namespace sieve
