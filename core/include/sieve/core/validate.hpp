// SPDX-License-Identifier: Apache-2.0
// Sieve — argument validation (host only). Every check throws
// std::invalid_argument with a message naming the call, the argument and the
// rule it broke. Called by every face before anything is enqueued or written.
#pragma once

#include <sieve/core/check.hpp>
#include <sieve/core/overlap.hpp>
#include <sieve/core/radix.hpp>
#include <sieve/core/rules.hpp>
#include <sieve/core/select.hpp>
#include <sieve/core/types.hpp>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace sieve {
namespace Impl {

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

/// Validate a trigger: every word non-null and aligned, theta in (0, 1).
inline void checkTrigger(const char* fn, const ReorderTrigger& t) {
  checkPtr(fn, t.live32, "trigger.live32", alignof(std::uint32_t));
  checkPtr(fn, t.span, "trigger.span", alignof(std::uint32_t));
  checkPtr(fn, t.fire, "trigger.fire", alignof(std::uint32_t));
  if (!(t.theta > 0.0f && t.theta < 1.0f))
    fail(fn, "trigger.theta = " + std::to_string(t.theta) + " is outside (0, 1)");
}

/// Throw naming the first pair (a, b), b >= from, a < b, that shares a byte;
/// pairs both at or past `from` are only checked when `among` is set.
inline void checkApart(const char* fn, const std::vector<ArrayBytes>& arrays, std::size_t from,
                       bool among, const char* rule) {
  for (std::size_t b = from; b < arrays.size(); ++b)
    for (std::size_t a = 0; a < b; ++a) {
      if (a >= from && !among) continue;
      if (shareBytes(arrays[a], arrays[b]))
        fail(fn, arrays[a].name + " overlaps " + arrays[b].name + "; " + rule);
    }
}

/// The arrays of a selection, for the overlap checks: mask (unless it comes
/// from a callback), values (Value), out (the items written: min(cap, n)), count.
inline std::vector<ArrayBytes> selectArrays(const SelectSpec& s, bool maskFromFill) {
  const std::uint32_t size = selectItemBytes(s.item, s.elemBytes);
  std::vector<ArrayBytes> arrays;
  if (!maskFromFill) arrays.push_back(arrayBytes("mask", s.mask, s.n, 1));
  if (s.item == SelectItem::Value) arrays.push_back(arrayBytes("values", s.values, s.n, size));
  const std::int64_t written = s.cap < s.n ? s.cap : s.n;
  arrays.push_back(arrayBytes("out", s.out, written, size));
  arrays.push_back(arrayBytes("count", s.count, 1, sizeof(std::int64_t)));
  return arrays;
}

/// Validate a selection (core/select.hpp): n >= 0, cap >= 0, an item kind
/// and size a face supports, int32 indices only below 2^31, every array that
/// would be addressed non-null, and mask, values, out (its first cap items)
/// and count sharing no byte. `maskFromFill`: the mask comes from a callback
/// (s.mask unused).
inline void checkSelectSpec(const char* fn, const SelectSpec& s, bool maskFromFill = false) {
  if (s.n < 0) fail(fn, "n = " + std::to_string(s.n) + "; it must be >= 0");
  if (s.cap < 0) fail(fn, "cap = " + std::to_string(s.cap) + "; it must be >= 0");
  const std::uint32_t size = selectItemBytes(s.item, s.elemBytes);
  if (s.item != SelectItem::Index64 && s.item != SelectItem::Index32 && s.item != SelectItem::Value)
    fail(fn, "item = " + std::to_string(static_cast<std::uint32_t>(s.item)) +
                 "; it must be SelectItem::Index64, Index32 or Value");
  if (size == 0 || size != s.elemBytes)
    fail(fn, "elemBytes = " + std::to_string(s.elemBytes) +
                 "; it must be 8 for Index64, 4 for Index32, and 1, 2, 4 or 8 for Value");
  if (s.item == SelectItem::Index32 && s.n > std::int64_t(INT32_MAX) + 1)
    fail(fn, "n = " + std::to_string(s.n) +
                 "; int32 indices need every index below 2^31 (n <= 2147483648)");
  if (s.count == nullptr) fail(fn, "count is null");
  if (s.n > 0 && !maskFromFill && s.mask == nullptr) fail(fn, "mask is null");
  if (s.n > 0 && s.item == SelectItem::Value && s.values == nullptr) fail(fn, "values is null");
  if (s.cap > 0 && s.n > 0 && s.out == nullptr) fail(fn, "out is null");
  const std::vector<ArrayBytes> arrays = selectArrays(s, maskFromFill);
  checkApart(fn, arrays, arrays.size() - 2, true,
             "the output and the count must not share a byte with each other or the inputs");
}

/// Validate a CUDA selection (selectDevice; cuda::SelectIf with
/// `maskFromKeep`, whose s.mask is unused): checkSelectSpec, n <=
/// kSelectDeviceMaxSamples, count 8-byte aligned (a device word), and the
/// scratch: scratchBytes >= select_scratch_bytes(n), non-null and 8-byte
/// aligned where that is not 0, sharing no byte with mask, values, out or count.
inline void checkSelectDevice(const char* fn, const SelectSpec& s, const void* scratch,
                              std::size_t scratchBytes, bool maskFromKeep = false) {
  checkSelectDeviceSamples(fn, s.n); // first: no overlap check over spans past the limit
  checkSelectSpec(fn, s, maskFromKeep);
  checkPtr(fn, s.count, "count", alignof(std::int64_t));
  const std::size_t need = select_scratch_bytes(s.n);
  if (scratchBytes < need)
    fail(fn, "scratchBytes = " + std::to_string(scratchBytes) + "; it must be at least " +
                 "select_scratch_bytes(n) = " + std::to_string(need));
  if (need == 0) return; // no scratch is addressed
  checkPtr(fn, scratch, "scratch", alignof(std::uint64_t));
  std::vector<ArrayBytes> arrays = selectArrays(s, maskFromKeep);
  arrays.push_back(arrayBytes("scratch", scratch, static_cast<std::int64_t>(need), 1));
  checkApart(fn, arrays, arrays.size() - 1, false,
             "the scratch must not share a byte with mask, values, out or count");
}

/// The record count of a device scatter pass (cuda::DenseScatter,
/// radixOrderDevice): 0 <= n <= kDenseScatterDeviceMaxRecords (one block a
/// tile, at most 2^31 - 1 blocks).
inline void checkDeviceScatterRecords(const char* fn, std::int64_t n) {
  if (n < 0 || n > kDenseScatterDeviceMaxRecords)
    fail(fn, "n = " + std::to_string(n) + "; it must be in [0, kDenseScatterDeviceMaxRecords = " +
                 std::to_string(kDenseScatterDeviceMaxRecords) + "]");
}

/// The arguments every radix order shares (radixOrderHost, radixOrderDevice):
/// n >= 0, bits in [0, 64], keys and order present and 8-byte aligned while
/// n > 0.
inline void checkRadixOrderArgs(const char* fn, const std::uint64_t* keys, std::int64_t n, int bits,
                                const std::int64_t* order) {
  if (n < 0) fail(fn, "n = " + std::to_string(n) + " is negative; the key count must be >= 0");
  if (bits < 0 || bits > 64) fail(fn, "bits = " + std::to_string(bits) + "; it must be in [0, 64]");
  if (n > 0) {
    checkPtr(fn, keys, "keys", alignof(std::uint64_t));
    checkPtr(fn, order, "order", alignof(std::int64_t));
  }
}

/// The index width a radix order runs with (its internal entries that take
/// it): 4 or 8 bytes, and at least radixIndexBytes(n) (8 past 2^32 - 1 keys).
inline void checkRadixIndexBytes(const char* fn, std::int64_t n, std::size_t indexBytes) {
  if ((indexBytes != 4u && indexBytes != 8u) || indexBytes < radixIndexBytes(n))
    fail(fn, "indexBytes = " + std::to_string(indexBytes) +
                 "; it must be 4 or 8, and at least radixIndexBytes(n = " + std::to_string(n) +
                 ") = " + std::to_string(radixIndexBytes(n)) + " (8 past 2^32 - 1 keys)");
}

/// A radix order's scratch: scratchBytes >= need, the rule of its face (the
/// host's or the device's, `device`) at indexBytes; the message names the
/// public rule at radixIndexBytes(n), else the internal 8-byte one.
inline void checkRadixScratchBytes(const char* fn, std::int64_t n, std::size_t indexBytes,
                                   std::size_t scratchBytes, std::size_t need, bool device) {
  if (scratchBytes >= need) return;
  const bool publicRule = indexBytes == radixIndexBytes(n);
  const char* rule =
      device ? (publicRule ? "radix_order_device_scratch_bytes(n)"
                           : "Impl::radixOrderDeviceScratchBytes(n, 8)")
             : (publicRule ? "radix_order_scratch_bytes(n)" : "Impl::radixOrderScratchBytes(n, 8)");
  fail(fn, "scratchBytes = " + std::to_string(scratchBytes) + " is less than " + rule + " = " +
               std::to_string(need));
}

/// The arguments of the device dense scatter (cuda::DenseScatter): n in
/// [0, kDenseScatterDeviceMaxRecords], 1 <= buckets <= 2^62, out (n records,
/// aligned to recordAlign) where n > 0, offsets (buckets + 1
/// int64), status (2 int64) and scratch (dense_scatter_device_scratch_bytes)
/// present and aligned, sharing no byte with each other.
inline void checkDenseScatterDevice(const char* fn, std::int64_t n, std::int64_t buckets,
                                    const void* out, std::size_t recordBytes,
                                    std::size_t recordAlign, const std::int64_t* offsets,
                                    const std::int64_t* status, const void* scratch,
                                    std::size_t scratchBytes, std::size_t need) {
  checkDeviceScatterRecords(fn, n);
  if (buckets < 1 || buckets > (std::int64_t(1) << 62))
    fail(fn, "buckets = " + std::to_string(buckets) + "; it must be in [1, 2^62]");
  if (n > 0) checkPtr(fn, out, "out", recordAlign);
  checkPtr(fn, offsets, "offsets", alignof(std::int64_t));
  checkPtr(fn, status, "status", alignof(std::int64_t));
  checkPtr(fn, scratch, "scratch");
  if (scratchBytes < need)
    fail(fn, "scratchBytes = " + std::to_string(scratchBytes) +
                 "; it must be at least dense_scatter_device_scratch_bytes(n, buckets, "
                 "sizeof(record)) = " +
                 std::to_string(need));
  const std::vector<ArrayBytes> arrays{
      arrayBytes("out", out, n, recordBytes),
      arrayBytes("offsets", offsets, buckets + 1, sizeof(std::int64_t)),
      arrayBytes("status", status, 2, sizeof(std::int64_t)),
      arrayBytes("scratch", scratch, static_cast<std::int64_t>(need), 1)};
  checkApart(fn, arrays, 1, true, "out, offsets, status and the scratch must not share a byte");
}

/// Validate a compaction request (pointers may be null only where nothing is
/// addressed, i.e. the samples when n == 0; `count` is always written).
/// Mask, index map (its first n slots), scratch (compact_scratch_bytes(n)) and
/// count must not share a byte; strided mask / map give their strides in bytes.
inline void checkCompact(const char* fn, const std::uint8_t* mask, std::uint32_t flags,
                         const std::int32_t* indexMap, const std::uint32_t* count,
                         const void* scratch, std::int64_t n, std::size_t maskStride = 1,
                         std::size_t mapStride = sizeof(std::int32_t),
                         const ReorderTrigger* trig = nullptr) {
  checkSamples(fn, n);
  checkFlags(fn, flags);
  checkPtr(fn, count, "count", alignof(std::uint32_t));
  if (trig != nullptr) checkTrigger(fn, *trig);
  std::vector<ArrayBytes> arrays;
  if (n > 0) {
    checkPtr(fn, mask, "mask");
    checkPtr(fn, indexMap, "indexMap", alignof(std::int32_t));
    checkPtr(fn, scratch, "scratch", alignof(std::int64_t));
    arrays.push_back(arrayBytes("mask", mask, n, 1, maskStride));
    arrays.push_back(arrayBytes("indexMap", indexMap, n, sizeof(std::int32_t), mapStride));
    arrays.push_back(
        arrayBytes("scratch", scratch, static_cast<std::int64_t>(compact_scratch_bytes(n)), 1));
  }
  arrays.push_back(arrayBytes("count", count, 1, sizeof(std::uint32_t)));
  if (trig != nullptr) {
    arrays.push_back(arrayBytes("trigger.live32", trig->live32, 1, sizeof(std::uint32_t)));
    arrays.push_back(arrayBytes("trigger.span", trig->span, 1, sizeof(std::uint32_t)));
    arrays.push_back(arrayBytes("trigger.fire", trig->fire, 1, sizeof(std::uint32_t)));
  }
  checkApart(fn, arrays, 1, true,
             "mask, indexMap, scratch, count and the trigger words must not share a byte");
}
inline std::uint32_t maxElemBytes(const ReorderPlane* planes, std::uint32_t nPlanes) {
  std::uint32_t m = 0;
  for (std::uint32_t p = 0; p < nPlanes; ++p)
    if (planes[p].elemBytes > m) m = planes[p].elemBytes;
  return m;
}

/// Validate the planes of a reorder or restore, and `perm` / `inv` with them:
/// supported element sizes, non-null and aligned data, no two of them
/// overlapping (nor overlapping the index map, when one is given), and (with
/// `needMask`) the mask among the planes. Strided arrays give the bytes each
/// covers and their stride in bytes (`extentBytes`, `strideBytes`: entry k for
/// plane k, nPlanes for perm, nPlanes + 1 for inv, nPlanes + 2 for the index
/// map); by default an array covers n elements, contiguous.
inline std::vector<ArrayBytes> checkPlanes(const char* fn, const ReorderPlane* planes,
                                           std::uint32_t nPlanes, const std::uint8_t* mask,
                                           const std::int32_t* perm, const std::int32_t* inv,
                                           std::int64_t n, bool needMask,
                                           const std::size_t* extentBytes = nullptr,
                                           const std::size_t* strideBytes = nullptr,
                                           const std::int32_t* indexMap = nullptr) {
  if (nPlanes > 0 && planes == nullptr) fail(fn, "planes is null but nPlanes > 0");
  for (std::uint32_t p = 0; p < nPlanes; ++p)
    if (!supportedElem(planes[p].elemBytes))
      fail(fn, "plane " + std::to_string(p) + " has elemBytes = " +
                   std::to_string(planes[p].elemBytes) + "; it must be 1, 2, 4, 8 or 16");
  if (n == 0) return {}; // nothing is addressed
  checkPtr(fn, perm, "perm", alignof(std::int32_t));
  checkPtr(fn, inv, "inv", alignof(std::int32_t));
  for (std::uint32_t p = 0; p < nPlanes; ++p) {
    const std::string name = "plane " + std::to_string(p);
    checkPtr(fn, planes[p].data, name.c_str(), planes[p].elemBytes);
  }
  // Overlap: every array against every other.
  std::vector<ArrayBytes> arrays;
  arrays.reserve(nPlanes + 7);
  const std::uint32_t total = nPlanes + (indexMap != nullptr ? 3 : 2);
  for (std::uint32_t k = 0; k < total; ++k) {
    const std::size_t elem = k < nPlanes ? planes[k].elemBytes : sizeof(std::int32_t);
    const void* p = k < nPlanes        ? planes[k].data
                    : k == nPlanes     ? static_cast<const void*>(perm)
                    : k == nPlanes + 1 ? static_cast<const void*>(inv)
                                       : static_cast<const void*>(indexMap);
    std::string name = k < nPlanes        ? "plane " + std::to_string(k)
                       : k == nPlanes     ? std::string("perm")
                       : k == nPlanes + 1 ? std::string("inv")
                                          : std::string("indexMap");
    ArrayBytes a = arrayBytes(std::move(name), p, n, elem);
    if (extentBytes) a.bytes = extentBytes[k];
    if (strideBytes) a.stride = strideBytes[k];
    arrays.push_back(std::move(a));
  }
  checkApart(fn, arrays, 1, true, "planes must not overlap");
  if (needMask) {
    checkPtr(fn, mask, "mask");
    bool found = false;
    for (std::uint32_t p = 0; p < nPlanes && !found; ++p)
      found = planes[p].data == static_cast<const void*>(mask) && planes[p].elemBytes == 1u;
    if (!found)
      fail(fn,
           "mask is not among the planes; the mask must be one of the planes (elemBytes 1) so "
           "that it moves with them");
  }
  return arrays;
}

/// The reorder scratch (reorder_scratch_bytes(n, maxElem) bytes) must not
/// overlap the arrays checkPlanes returned; it is appended to them.
inline void checkScratchApart(const char* fn, std::vector<ArrayBytes>& arrays, const void* scratch,
                              std::int64_t n, std::uint32_t maxElem) {
  const std::size_t from = arrays.size();
  arrays.push_back(arrayBytes("scratch", scratch,
                              static_cast<std::int64_t>(reorder_scratch_bytes(n, maxElem)), 1));
  checkApart(fn, arrays, from, false, "scratch must not overlap the planes, perm, inv or indexMap");
}

/// Validate a reorder request.
inline void checkReorder(const char* fn, const ReorderPlane* planes, std::uint32_t nPlanes,
                         const std::uint8_t* mask, std::uint32_t flags, const std::int32_t* perm,
                         const std::int32_t* inv, const std::int32_t* indexMap,
                         const std::uint32_t* count, const std::uint32_t* span,
                         const std::uint32_t* fire, const void* scratch, std::int64_t n,
                         const std::size_t* extentBytes = nullptr,
                         const std::size_t* strideBytes = nullptr) {
  checkSamples(fn, n);
  checkFlags(fn, flags);
  checkPtr(fn, count, "count", alignof(std::uint32_t));
  checkPtr(fn, span, "span", alignof(std::uint32_t));
  if (fire != nullptr) checkPtr(fn, fire, "fire", alignof(std::uint32_t));
  if (n > 0) checkPtr(fn, indexMap, "indexMap", alignof(std::int32_t));
  std::vector<ArrayBytes> arrays = checkPlanes(fn, planes, nPlanes, mask, perm, inv, n, true,
                                               extentBytes, strideBytes, indexMap);
  if (n > 0) {
    checkPtr(fn, scratch, "scratch", 16);
    checkScratchApart(fn, arrays, scratch, n, maxElemBytes(planes, nPlanes));
    const std::size_t words = arrays.size();
    arrays.push_back(arrayBytes("count", count, 1, sizeof(std::uint32_t)));
    arrays.push_back(arrayBytes("span", span, 1, sizeof(std::uint32_t)));
    if (fire != nullptr) arrays.push_back(arrayBytes("fire", fire, 1, sizeof(std::uint32_t)));
    checkApart(fn, arrays, words, true,
               "the count, span and fire words must not overlap each other, the planes, perm, "
               "inv, indexMap or scratch");
  }
}

/// Validate a restore request.
inline void checkRestore(const char* fn, const ReorderPlane* planes, std::uint32_t nPlanes,
                         const std::int32_t* perm, const std::int32_t* inv, const void* scratch,
                         std::int64_t n, const std::size_t* extentBytes = nullptr,
                         const std::size_t* strideBytes = nullptr) {
  checkSamples(fn, n);
  std::vector<ArrayBytes> arrays =
      checkPlanes(fn, planes, nPlanes, nullptr, perm, inv, n, false, extentBytes, strideBytes);
  if (n > 0) {
    checkPtr(fn, scratch, "scratch", 16);
    checkScratchApart(fn, arrays, scratch, n, maxElemBytes(planes, nPlanes));
  }
}

/// Validate a scan request (`out` may equal `in`: the scan runs in place).
/// Strided input / output give their strides in elements; `sumsElems` is the
/// size of blockSums (by contract at least n).
template <class T>
inline void checkScan(const char* fn, const T* in, const T* out, const T* blockSums, std::int64_t n,
                      std::size_t inStride = 1, std::size_t outStride = 1,
                      std::int64_t sumsElems = -1) {
  checkSamples(fn, n);
  if (n == 0) return;
  checkPtr(fn, in, "in", alignof(T));
  checkPtr(fn, out, "out", alignof(T));
  checkPtr(fn, blockSums, "blockSums", alignof(T));
  const auto e = static_cast<std::uintptr_t>(sizeof(T));
  auto arr = [&](const T* p, std::size_t stride, std::int64_t elems, std::uintptr_t& b,
                 std::uintptr_t& bytes, std::uintptr_t& s) {
    b = reinterpret_cast<std::uintptr_t>(p);
    s = static_cast<std::uintptr_t>(stride) * e;
    bytes = elems > 0 ? static_cast<std::uintptr_t>(elems - 1) * s + e : 0;
  };
  std::uintptr_t ib, ibytes, is, ob, obytes, os, bb, bbytes, bs;
  arr(in, inStride, n, ib, ibytes, is);
  arr(out, outStride, n, ob, obytes, os);
  arr(blockSums, 1, sumsElems < 0 ? n : sumsElems, bb, bbytes, bs);
  if (!(in == out && inStride == outStride) && shareBytes(ib, ibytes, is, e, ob, obytes, os, e))
    fail(fn, "out partially overlaps in; they must be the same array or disjoint");
  if (shareBytes(bb, bbytes, bs, e, ib, ibytes, is, e) ||
      shareBytes(bb, bbytes, bs, e, ob, obytes, os, e))
    fail(fn, "blockSums overlaps in or out; the scratch must be disjoint from the data");
}

} // namespace Impl
} // namespace sieve
