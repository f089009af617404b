// SPDX-License-Identifier: Apache-2.0
// Sieve — host memory hints: huge pages for fresh results (the Kokkos face's
// adviseHugePages; the system header stays in the library).
#pragma once

#include <sieve/core/tuning.hpp>

#include <cstddef>
#include <cstdint>

namespace sieve {
namespace Impl {

/// Bytes of a huge page (x86-64 and AArch64 with 4 KiB base pages).
inline constexpr std::uintptr_t kHugePageBytes = std::uintptr_t(2) << 20;
/// The smallest block worth advising: below it an allocator reuses pages.
inline constexpr std::size_t kHugePageMinBytes = Tuning::Host::kHugePageMinBytes;

/// The whole huge pages inside [address, address + bytes): [first, end),
/// empty (end <= first) when none fits.
struct HugePageRange {
  std::uintptr_t first, end;
};
constexpr HugePageRange hugePagesInside(std::uintptr_t address, std::size_t bytes) {
  const std::uintptr_t first = (address + kHugePageBytes - 1) & ~(kHugePageBytes - 1);
  const std::uintptr_t end = (address + bytes) & ~(kHugePageBytes - 1);
  return {first, end > first ? end : first};
}

/// Hint that host memory just allocated and not yet touched, [p, p +
/// bytes), be backed by huge pages (Linux transparent huge pages, which the
/// default "madvise" mode grants only where asked): its first touch then
/// faults 2 MiB at a time, not 4 KiB. Only blocks of kHugePageMinBytes or
/// more, only the whole huge pages inside them (hugePagesInside). A hint:
/// no byte changes; returns whether the kernel took it (false elsewhere, for
/// a small block, or on failure). O(1), one system call; never throws.
bool adviseHugePagesHost(void* p, std::size_t bytes) noexcept;

} // namespace Impl
} // namespace sieve
