// SPDX-License-Identifier: Apache-2.0
// Sieve (internal) — what the calls need of a sieve::Trigger (trigger.hpp):
// how to tell one, its record of the planes its reorders moved, its words as
// the native faces take them.
#pragma once

#include <sieve/impl/common.hpp>

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <type_traits>
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

/// What every sieve::Trigger derives from (how the calls tell one).
struct TriggerTag {};
template <class T>
struct IsTrigger : std::is_base_of<TriggerTag, T> {};

/// A trigger whose words Exec can access.
template <class Exec, class T, bool = IsTrigger<T>::value>
inline constexpr bool kTriggerFor = false;
template <class Exec, class T>
inline constexpr bool kTriggerFor<Exec, T, true> =
    Safe<typename T::word_view>::template accessible<Exec>();

/// The trigger's words as the native faces take them (after validation).
template <class T>
ReorderTrigger nativeTrigger(const char* fn, const T& t) {
  checkWord(fn, t.live32, "trigger.live32");
  checkWord(fn, t.span, "trigger.span");
  checkWord(fn, t.fire, "trigger.fire");
  ReorderTrigger r{t.live32.data(), t.span.data(), t.fire.data(), t.theta};
  checkTrigger(fn, r);
  return r;
}
} // namespace Impl
} // namespace sieve
