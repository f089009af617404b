// SPDX-License-Identifier: Apache-2.0
// Sieve — the state of one reorder call and its epilogue, shared by every face.
//
// The CUDA kernels and the portable Kokkos path read the same state (the
// device-side words and the keep-bit regions of the scratch, layout.hpp) and
// end with the same epilogue; the host twin uses the same gate, span and
// epilogue. Host and device callable, no Kokkos, no CUDA runtime.
#pragma once

#include <sieve/core/bits.hpp>
#include <sieve/core/rules.hpp>

#include <cstdint>

namespace sieve {
namespace Impl {

/// The last writes of a reorder that moved: `count = span = cnt`, `fire = 0`
/// (`fire` may be null). Also the whole of a reorder of n == 0 (cnt = 0).
SIEVE_INLINE void reorderEpilogue(std::uint32_t* count, std::uint32_t* span, std::uint32_t* fire,
                                  std::uint32_t cnt) {
  *count = cnt;
  *span = cnt;
  if (fire != nullptr) *fire = 0u;
}

/// Whether a gated call runs: no gate word, or the word (e.g. the reorder's
/// fire word, read on the face's own memory) is non-zero. The one gate rule
/// of every gated kernel (reorder moves, the CUDA scan of a gated replay).
SIEVE_INLINE bool gateOpen(const std::uint32_t* gate) { return gate == nullptr || *gate != 0u; }

/// The state of one reorder call, in the memory of the face that runs it:
/// the keep bits of the span (one word per 32 samples), the exclusive kept
/// count before each word, the kept count of the span, and the span and fire
/// words. Every kernel reads span and fire itself (fire == 0 makes it a no-op),
/// so nothing is read back. Members a face does not compute may be null
/// (the host twin keeps its cursors instead of wordOff and cnt).
struct ReorderState {
  const std::uint32_t* bits;
  const std::uint32_t* wordOff;
  const std::uint32_t* cnt;
  const std::uint32_t* span;
  const std::uint32_t* fire; // may be null: unconditional
  std::int64_t n;

  /// Whether the call moves anything (no fire word, or fire != 0).
  SIEVE_INLINE bool active() const { return gateOpen(fire); }
  /// The span the moves cover: the span word clamped to n.
  SIEVE_INLINE std::int64_t sp() const { return effectiveSpan(*span, n); }
  /// The kept count of the span (once computed).
  SIEVE_INLINE std::int64_t kept() const { return static_cast<std::int64_t>(*cnt); }
  /// Where slot i (< sp()) goes (once bits, wordOff and cnt are computed).
  SIEVE_INLINE std::int64_t dst(std::int64_t i) const {
    return reorderDstFromBits(bits, wordOff, i, kept());
  }
};

} // namespace Impl
} // namespace sieve
