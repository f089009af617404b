// SPDX-License-Identifier: Apache-2.0
// Sieve — the allocation point: every allocation Sieve makes itself (a View
// of its own on any face, a host buffer of the native twins) passes through
// allocationPoint() first. Sieve's fault tests (tests/faults) arm it so that
// the k-th allocation of a call throws std::bad_alloc, as a full memory would;
// disarmed (always, outside those tests) it costs one relaxed atomic load.
#pragma once

#include <atomic>
#include <cstdint>
#include <new>

namespace sieve {
namespace Impl {

/// The fault-injection state. Only the thread that armed it fails: the
/// allocations a call makes on that thread come in a fixed order, so the
/// k-th is the same one every run.
struct FaultInjection {
  std::atomic<bool> armed{false};
  std::atomic<std::int64_t> countdown{-1}; // the allocations left before the failing one
  std::atomic<std::int64_t> seen{0};       // allocation points passed while armed
  std::atomic<const void*> thread{nullptr};
};

inline FaultInjection& faultInjection() {
  static FaultInjection f;
  return f;
}

/// An identity of the calling thread (the address of a thread_local).
inline const void* faultThreadId() {
  static thread_local char id;
  return &id;
}

/// How many OneAllocationPoint scopes the calling thread is in.
inline int& faultQuietDepth() {
  static thread_local int depth = 0;
  return depth;
}

/// Within it, the allocations the calling thread makes are no allocation
/// points: a View's construction is one point (its buffer), not the
/// allocations Kokkos makes inside it (its record, its label).
struct OneAllocationPoint {
  OneAllocationPoint() { ++faultQuietDepth(); }
  ~OneAllocationPoint() { --faultQuietDepth(); }
  OneAllocationPoint(const OneAllocationPoint&) = delete;
  OneAllocationPoint& operator=(const OneAllocationPoint&) = delete;
};

/// Called right before an allocation: throws std::bad_alloc when the armed
/// countdown reaches this allocation on the armed thread.
inline void allocationPoint() {
  FaultInjection& f = faultInjection();
  if (!f.armed.load(std::memory_order_relaxed)) return;
  if (f.thread.load(std::memory_order_relaxed) != faultThreadId()) return;
  if (faultQuietDepth() > 0) return;
  f.seen.fetch_add(1, std::memory_order_relaxed);
  if (f.countdown.fetch_sub(1, std::memory_order_relaxed) == 0) throw std::bad_alloc();
}

} // namespace Impl
} // namespace sieve
