// SPDX-License-Identifier: Apache-2.0
// Sieve fault tests — main, and the global operator new of this binary: every
// heap allocation passes Sieve's allocation point first (core/fault.hpp), so
// in the "every allocation" mode an armed test fails the k-th allocation of a
// call wherever it comes from (on the arming thread only). Otherwise these
// are malloc and free.
#include "../common/main.hpp"
#include "fault.hpp"

#include <cstdio>
#include <cstdlib>
#include <new>

namespace {

void* plain(std::size_t n) {
  if (sieve_fault::everyAllocation()) sieve::Impl::allocationPoint();
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}

/// An aligned block, or nullptr (no allocation point: the nothrow forms use it).
void* alignedOrNull(std::size_t n, std::align_val_t a) {
  const auto al = static_cast<std::size_t>(a);
  void* p = nullptr;
  return posix_memalign(&p, al < sizeof(void*) ? sizeof(void*) : al, n ? n : 1) == 0 ? p : nullptr;
}

void* aligned(std::size_t n, std::align_val_t a) {
  if (sieve_fault::everyAllocation()) sieve::Impl::allocationPoint();
  if (void* p = alignedOrNull(n, a)) return p;
  throw std::bad_alloc();
}

} // namespace

void* operator new(std::size_t n) { return plain(n); }
void* operator new[](std::size_t n) { return plain(n); }
void* operator new(std::size_t n, std::align_val_t a) { return aligned(n, a); }
void* operator new[](std::size_t n, std::align_val_t a) { return aligned(n, a); }
// (The nothrow forms are no allocation point: their callers, std::stable_sort's
// buffer for one, go on without the memory, and nothing is thrown to check.)
void* operator new(std::size_t n, const std::nothrow_t&) noexcept { return std::malloc(n ? n : 1); }
void* operator new[](std::size_t n, const std::nothrow_t& t) noexcept { return operator new(n, t); }
void* operator new(std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return alignedOrNull(n, a);
}
void* operator new[](std::size_t n, std::align_val_t a, const std::nothrow_t& t) noexcept {
  return operator new(n, a, t);
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }

int main(int argc, char* argv[]) {
  Kokkos::initialize(argc, argv);
  ::testing::InitGoogleTest(&argc, argv);
  const int result = RUN_ALL_TESTS();
  // The figures of the closing note: how many allocations each call was failed at.
  std::printf("[faults] allocations failed in turn, per call: Sieve's buffers, every heap one\n");
  for (const auto& [name, points] : sieve_fault::tally())
    std::printf("[faults]   %-66s %4lld %5lld\n", name.c_str(), static_cast<long long>(points.first),
                static_cast<long long>(points.second));
  Kokkos::finalize();
  return sieve_test::finishRun(result);
}
