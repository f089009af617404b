// SPDX-License-Identifier: Apache-2.0
// Sieve — sieve::Trigger, the locality trigger a compaction computes on the way.
#pragma once

#include <sieve/impl/common.hpp>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace sieve {

namespace Impl {
/// What the reorders through one trigger moved since its last restore: the
/// sample count, perm, inv and the planes (address, element size), in the
/// order given. Host-side; shared by the copies of the trigger.
struct PlaneRecord {
  struct Plane {
    const void* data;
    std::size_t elem;
    bool operator==(const Plane& o) const { return data == o.data && elem == o.elem; }
  };
  std::mutex m;
  bool set = false;
  std::int64_t n = 0;
  const void* perm = nullptr;
  const void* inv = nullptr;
  std::vector<Plane> planes;
};
} // namespace Impl

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
struct Trigger {
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
      : live32("sieve::" + label + "::live32"), span("sieve::" + label + "::span"),
        fire("sieve::" + label + "::fire"), theta(theta_) {
    if (!(theta > 0.0f && theta < 1.0f))
      Impl::fail("sieve::Trigger", "theta = " + std::to_string(theta) + " is outside (0, 1)");
  }
};

namespace Impl {
template <class T>
struct IsTrigger : std::false_type {};
template <class M>
struct IsTrigger<Trigger<M>> : std::true_type {};

/// A trigger whose words Exec can access.
template <class Exec, class T, bool = IsTrigger<T>::value>
inline constexpr bool kTriggerFor = false;
template <class Exec, class T>
inline constexpr bool kTriggerFor<Exec, T, true> =
    Safe<typename T::word_view>::template accessible<Exec>();

/// The trigger's words as the native faces take them (after validation).
template <class M>
ReorderTrigger nativeTrigger(const char* fn, const Trigger<M>& t) {
  checkWord(fn, t.live32, "trigger.live32");
  checkWord(fn, t.span, "trigger.span");
  checkWord(fn, t.fire, "trigger.fire");
  ReorderTrigger r{t.live32.data(), t.span.data(), t.fire.data(), t.theta};
  checkTrigger(fn, r);
  return r;
}
} // namespace Impl
} // namespace sieve
