// Sieve — argument validation (host only). Every check throws
// std::invalid_argument with a message naming the call, the argument and the
// rule it broke. Called by every face before anything is enqueued or written.
#pragma once

#include <sieve/core/rules.hpp>
#include <sieve/core/types.hpp>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace sieve {
namespace Impl {

[[noreturn]] inline void fail(const char* fn, const std::string& what) {
  throw std::invalid_argument(std::string(fn) + ": " + what);
}

inline bool supportedElem(std::uint32_t b) {
  return b == 1u || b == 2u || b == 4u || b == 8u || b == 16u;
}

/// `n` must be a valid sample count: 0 <= n <= kCompactMaxSamples (INT32_MAX).
inline void checkSamples(const char* fn, std::int64_t n, const char* name = "n") {
  if (n < 0)
    fail(fn, std::string(name) + " = " + std::to_string(n) +
                 " is negative; the sample count must be in [0, 2147483647]");
  if (n > kCompactMaxSamples)
    fail(fn, std::string(name) + " = " + std::to_string(n) +
                 " exceeds kCompactMaxSamples (2147483647), the largest count an int32 index map "
                 "can address");
}

inline void checkFlags(const char* fn, std::uint32_t flags) {
  if (flags & ~kCompactKnownFlags)
    fail(fn, "flags = " + std::to_string(flags) +
                 " has unknown bits; the only flag is kCompactMaskIsDrop (1)");
}

inline void checkPtr(const char* fn, const void* p, const char* name, std::size_t align = 1) {
  if (p == nullptr) fail(fn, std::string(name) + " is null");
  if (align > 1 && reinterpret_cast<std::uintptr_t>(p) % align != 0)
    fail(fn, std::string(name) + " is misaligned; it must be aligned to " + std::to_string(align) +
                 " bytes");
}

/// Validate a compaction request (pointers may be null only where nothing is
/// addressed, i.e. the samples when n == 0; `count` is always written).
inline void checkCompact(const char* fn, const std::uint8_t* mask, std::uint32_t flags,
                         const std::int32_t* indexMap, const std::uint32_t* count,
                         const void* scratch, std::int64_t n) {
  checkSamples(fn, n);
  checkFlags(fn, flags);
  checkPtr(fn, count, "count", alignof(std::uint32_t));
  if (n > 0) {
    checkPtr(fn, mask, "mask");
    checkPtr(fn, indexMap, "indexMap", alignof(std::int32_t));
    checkPtr(fn, scratch, "scratch", alignof(std::int64_t));
  }
}

/// Validate a trigger: every word non-null and aligned, theta in (0, 1).
inline void checkTrigger(const char* fn, const ReorderTrigger& t) {
  checkPtr(fn, t.live32, "trigger.live32", alignof(std::uint32_t));
  checkPtr(fn, t.span, "trigger.span", alignof(std::uint32_t));
  checkPtr(fn, t.fire, "trigger.fire", alignof(std::uint32_t));
  if (!(t.theta > 0.0f && t.theta < 1.0f))
    fail(fn, "trigger.theta = " + std::to_string(t.theta) + " is outside (0, 1)");
}

/// The widest element among the planes (0 when there are none).
inline std::uint32_t maxElemBytes(const ReorderPlane* planes, std::uint32_t nPlanes) {
  std::uint32_t m = 0;
  for (std::uint32_t p = 0; p < nPlanes; ++p)
    if (planes[p].elemBytes > m) m = planes[p].elemBytes;
  return m;
}

/// Validate the planes of a reorder or restore, and `perm` / `inv` with them:
/// supported element sizes, non-null and aligned data, no two of them
/// overlapping, and (with `needMask`) the mask among the planes.
inline void checkPlanes(const char* fn, const ReorderPlane* planes, std::uint32_t nPlanes,
                        const std::uint8_t* mask, const std::int32_t* perm,
                        const std::int32_t* inv, std::int64_t n, bool needMask) {
  if (nPlanes > 0 && planes == nullptr) fail(fn, "planes is null but nPlanes > 0");
  for (std::uint32_t p = 0; p < nPlanes; ++p)
    if (!supportedElem(planes[p].elemBytes))
      fail(fn, "plane " + std::to_string(p) + " has elemBytes = " +
                   std::to_string(planes[p].elemBytes) + "; it must be 1, 2, 4, 8 or 16");
  if (n == 0) return; // nothing is addressed
  checkPtr(fn, perm, "perm", alignof(std::int32_t));
  checkPtr(fn, inv, "inv", alignof(std::int32_t));
  for (std::uint32_t p = 0; p < nPlanes; ++p) {
    const std::string name = "plane " + std::to_string(p);
    checkPtr(fn, planes[p].data, name.c_str(), planes[p].elemBytes);
  }
  // Overlap: every extent [begin, begin + n * elemBytes) against every other.
  const std::uint32_t total = nPlanes + 2;
  auto extent = [&](std::uint32_t k, std::uintptr_t& b, std::uintptr_t& e, std::string& name) {
    if (k < nPlanes) {
      b = reinterpret_cast<std::uintptr_t>(planes[k].data);
      e = b + static_cast<std::uintptr_t>(n) * planes[k].elemBytes;
      name = "plane " + std::to_string(k);
    } else {
      b = reinterpret_cast<std::uintptr_t>(k == nPlanes ? perm : inv);
      e = b + static_cast<std::uintptr_t>(n) * sizeof(std::int32_t);
      name = k == nPlanes ? "perm" : "inv";
    }
  };
  for (std::uint32_t a = 0; a < total; ++a) {
    std::uintptr_t ab, ae, bb, be;
    std::string an, bn;
    extent(a, ab, ae, an);
    for (std::uint32_t b = a + 1; b < total; ++b) {
      extent(b, bb, be, bn);
      if (ab < be && bb < ae) fail(fn, an + " overlaps " + bn + "; planes must not overlap");
    }
  }
  if (needMask) {
    checkPtr(fn, mask, "mask");
    bool found = false;
    for (std::uint32_t p = 0; p < nPlanes && !found; ++p)
      found = planes[p].data == static_cast<const void*>(mask) && planes[p].elemBytes == 1u;
    if (!found)
      fail(fn, "mask is not among the planes; the mask must be one of the planes (elemBytes 1) so "
               "that it moves with them");
  }
}

/// Validate a reorder request.
inline void checkReorder(const char* fn, const ReorderPlane* planes, std::uint32_t nPlanes,
                         const std::uint8_t* mask, std::uint32_t flags, const std::int32_t* perm,
                         const std::int32_t* inv, const std::int32_t* indexMap,
                         const std::uint32_t* count, const std::uint32_t* span,
                         const std::uint32_t* fire, const void* scratch, std::int64_t n) {
  checkSamples(fn, n);
  checkFlags(fn, flags);
  checkPtr(fn, count, "count", alignof(std::uint32_t));
  checkPtr(fn, span, "span", alignof(std::uint32_t));
  if (fire != nullptr) checkPtr(fn, fire, "fire", alignof(std::uint32_t));
  checkPlanes(fn, planes, nPlanes, mask, perm, inv, n, true);
  if (n > 0) {
    checkPtr(fn, indexMap, "indexMap", alignof(std::int32_t));
    checkPtr(fn, scratch, "scratch", 16);
  }
}

/// Validate a restore request.
inline void checkRestore(const char* fn, const ReorderPlane* planes, std::uint32_t nPlanes,
                         const std::int32_t* perm, const std::int32_t* inv, const void* scratch,
                         std::int64_t n) {
  checkSamples(fn, n);
  checkPlanes(fn, planes, nPlanes, nullptr, perm, inv, n, false);
  if (n > 0) checkPtr(fn, scratch, "scratch", 16);
}

/// Validate a scan request (`out` may equal `in`: the scan runs in place).
template <class T>
inline void checkScan(const char* fn, const T* in, const T* out, const T* blockSums,
                      std::int64_t n) {
  checkSamples(fn, n);
  if (n == 0) return;
  checkPtr(fn, in, "in", alignof(T));
  checkPtr(fn, out, "out", alignof(T));
  checkPtr(fn, blockSums, "blockSums", alignof(T));
  auto overlaps = [n](const T* a, const T* b) {
    const auto ab = reinterpret_cast<std::uintptr_t>(a), bb = reinterpret_cast<std::uintptr_t>(b);
    const auto bytes = static_cast<std::uintptr_t>(n) * sizeof(T);
    return ab < bb + bytes && bb < ab + bytes;
  };
  if (in != out && overlaps(in, out))
    fail(fn, "out partially overlaps in; they must be the same array or disjoint");
  if (overlaps(blockSums, in) || overlaps(blockSums, out))
    fail(fn, "blockSums overlaps in or out; the scratch must be disjoint from the data");
}

} // namespace Impl
} // namespace sieve
