// SPDX-License-Identifier: Apache-2.0
// Sieve (internal) — the kernels of a sieve::Population's own steps (its
// birth, its spawn), at namespace scope: nvcc launches no functor that is a
// private member.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>

namespace sieve {
namespace Impl {
/// perm = inv = map = identity (a Population's birth).
template <class V>
struct IdentityMaps {
  V perm, inv, map;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const {
    perm(i) = inv(i) = map(i) = static_cast<std::int32_t>(i);
  }
};

/// A spawn's first step: the mask's bytes in sample-id order (sample s sits
/// in slot inv(s)).
template <class Inv>
struct GatherBySample {
  Inv inv;
  const std::uint8_t* mask;
  std::uint8_t* order;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t s) const { order[s] = mask[inv(s)]; }
};

/// A spawn's last step: when k (a device word) free samples exist and the
/// slots View holds k, free sample i (ascending sample id) becomes slot i's
/// spawn: slots(i) = its slot, its mask byte reads kept, the span covers it;
/// `spawned` = k. Otherwise nothing is written but spawned = 0.
template <class Inv, class Slots, class Word>
struct PlaceSpawn {
  Inv inv;
  Slots slots;
  Word k, spawned, span;
  const std::int32_t* freeMap;
  const std::uint32_t* freeCount;
  std::uint8_t* mask;
  std::uint8_t keep;
  bool identity;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const {
    const std::uint32_t want = k();
    const bool ok = want <= *freeCount && static_cast<std::size_t>(want) <= slots.extent(0);
    if (i == 0) spawned() = ok ? want : 0u;
    if (!ok || i >= static_cast<std::int64_t>(want)) return;
    const std::int32_t sample = freeMap[i];
    const std::int32_t slot = identity ? sample : inv(sample);
    slots(i) = slot;
    mask[slot] = keep;
    Kokkos::atomic_fetch_max(&span(), static_cast<std::uint32_t>(slot) + 1u);
  }
};

/// One byte written in every 4 KiB of [data, data + bytes): the pages are
/// faulted in (first-touch placed) by the threads that run it. 4 KiB is the
/// smallest page of the hosts Kokkos runs on; a larger page is merely
/// written more than once.
struct TouchPages {
  static constexpr std::int64_t kPage = 4096;
  unsigned char* data;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t page) const { data[page * kPage] = 0; }
};
} // namespace Impl
} // namespace sieve
