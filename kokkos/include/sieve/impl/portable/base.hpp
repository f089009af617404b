// SPDX-License-Identifier: Apache-2.0
// Sieve (internal) — the portable implementation: Kokkos parallel patterns
// only, for every execution space without a native face (Serial, Threads, HIP,
// SYCL, OpenMPTarget) and for Views a native face cannot take (strided).
// It makes the same moves and writes the same words as the native faces, by
// the same rules (core/), so integer results are bit-identical. Everything is
// enqueued on the instance; nothing is fenced, allocated or read back.
#pragma once

#include <sieve/core/bits.hpp>
#include <sieve/core/elem.hpp>
#include <sieve/core/layout.hpp>
#include <sieve/core/rules.hpp>
#include <sieve/core/state.hpp>
#include <sieve/core/tuning.hpp>
#include <sieve/impl/common.hpp>

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

namespace sieve {
namespace Impl {
namespace Portable {

using i64 = std::int64_t;

template <class Exec>
using Range = Kokkos::RangePolicy<Exec, Kokkos::IndexType<i64>>;

/// Compaction tiles (groups of 32 samples) and scan blocks: core/tuning.hpp.
using Tuning::Portable::kScanBlock;
using Tuning::Portable::kTileGroups;

/// Whether Exec runs a kernel's iterations one after another on the calling
/// thread (Kokkos::Serial). The portable primitives then run sequential forms
/// (one pass, in place, as a single-iteration kernel on the instance): the
/// same moves and the same bytes as their data-parallel forms, at the cost
/// of the hand-written loop instead of two or three passes.
template <class Exec>
inline constexpr bool kSequential =
#if defined(KOKKOS_ENABLE_SERIAL)
    std::is_same_v<Exec, Kokkos::Serial>;
#else
    false;
#endif

/// Enqueue `body()` once on the instance (the sequential forms: host code,
/// reached only where kSequential<Exec>).
template <class Exec, class Body>
void runOnce(const Exec& exec, const std::string& label, const Body& body) {
  Kokkos::parallel_for(label, Range<Exec>(exec, 0, 1), [=](const i64) { body(); });
}

/// Byte i of a mask View, for groupKeepBits (a functor: a plain lambda is
/// host-only under nvcc, and that template is host and device). Refers to
/// the View (no copy, no reference count), for use within the expression.
template <class MaskView>
struct MaskAt {
  const MaskView& mask;
  KOKKOS_INLINE_FUNCTION std::uint8_t operator()(const i64 i) const { return mask(i); }
};
template <class MaskView>
MaskAt(const MaskView&) -> MaskAt<MaskView>;

/// Keep bits of the samples [base, min(base + 32, end)) of a mask, host code:
/// whole groups of a contiguous mask (`bytes` non-null) a word at a time,
/// else byte by byte (groupKeepBits). Same bits either way.
template <class MaskView>
inline std::uint32_t hostKeepBits(const MaskView& mask, const std::uint8_t* bytes, i64 base,
                                  i64 end, std::uint32_t flags) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  if (bytes != nullptr && end - base >= 32) {
    std::uint32_t words[8];
    std::memcpy(words, bytes + base, sizeof words);
    return keepBitsOfWords(words, flags);
  }
#else
  (void)bytes;
#endif
  return groupKeepBits(MaskAt{mask}, base, end, flags);
}

/// The bytes of a mask View when its samples are contiguous, else null.
template <class MaskView>
inline const std::uint8_t* contiguousBytes(const MaskView& mask) {
  return mask.extent(0) > 0 && mask.stride(0) == 1
             ? reinterpret_cast<const std::uint8_t*>(mask.data())
             : nullptr;
}

} // namespace Portable
} // namespace Impl
} // namespace sieve
