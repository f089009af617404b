// SPDX-License-Identifier: Apache-2.0
// Sieve — host memory hints (memory.hpp).
#include <sieve/native/host/memory.hpp>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace sieve {
namespace Impl {

bool adviseHugePagesHost(void* p, std::size_t bytes) noexcept {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (p == nullptr || bytes < kHugePageMinBytes) return false;
  const HugePageRange r = hugePagesInside(reinterpret_cast<std::uintptr_t>(p), bytes);
  if (r.end <= r.first) return false;
  return madvise(reinterpret_cast<void*>(r.first), r.end - r.first, MADV_HUGEPAGE) == 0;
#else
  (void)p, (void)bytes;
  return false;
#endif
}

} // namespace Impl
} // namespace sieve
