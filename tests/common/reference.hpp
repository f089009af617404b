// SPDX-License-Identifier: Apache-2.0
// Sieve tests — the independent references: plain sequential loops written
// from the specification, sharing no code with the library (not even the
// rules in core/), so that a rule written wrong in one place is caught.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

namespace sieve_test {

inline bool refKeeps(std::uint8_t b, bool drop) { return drop ? b == 0 : b != 0; }

struct RefCompact {
  std::vector<std::int32_t> map; // kept indices, ascending
  std::uint32_t count = 0;
  std::uint32_t live32 = 0;
};

inline RefCompact refCompact(const std::uint8_t* mask, std::int64_t n, bool drop) {
  RefCompact r;
  for (std::int64_t i = 0; i < n; ++i)
    if (refKeeps(mask[i], drop)) r.map.push_back(static_cast<std::int32_t>(i));
  r.count = static_cast<std::uint32_t>(r.map.size());
  for (std::int64_t g = 0; g * 32 < n; ++g) {
    bool any = false;
    for (std::int64_t i = g * 32; i < n && i < g * 32 + 32; ++i)
      any = any || refKeeps(mask[i], drop);
    r.live32 += any ? 1u : 0u;
  }
  return r;
}

/// fire = count < theta * 32 * live32 && count < span && span >= 4096 (double).
inline std::uint32_t refFire(std::uint32_t count, std::uint32_t live32, std::uint32_t span,
                             float theta) {
  const double cap = double(theta) * 32.0 * double(live32);
  return (double(count) < cap && count < span && span >= 4096u) ? 1u : 0u;
}

/// The span the public API leaves after a compaction with a trigger: just
/// past the last kept sample when that lies at or past the span, else the span.
inline std::uint32_t refCoveredSpan(std::uint32_t span, const std::vector<std::int32_t>& kept) {
  if (kept.empty() || std::int64_t(kept.back()) < std::int64_t(span)) return span;
  return static_cast<std::uint32_t>(kept.back()) + 1u;
}

/// Copy one element of `elem` bytes (1, 2, 4, 8 or 16): fixed-size copies the
/// compiler inlines (the references move millions of elements).
inline void copyElem(unsigned char* dst, const unsigned char* src, std::uint32_t elem) {
  switch (elem) {
  case 1: *dst = *src; break;
  case 2: std::memcpy(dst, src, 2); break;
  case 4: std::memcpy(dst, src, 4); break;
  case 8: std::memcpy(dst, src, 8); break;
  case 16: std::memcpy(dst, src, 16); break;
  default: std::memcpy(dst, src, elem); break;
  }
}

/// One plane of raw bytes, `elem` bytes per sample.
struct RefPlane {
  std::vector<unsigned char> bytes;
  std::uint32_t elem = 0;
};

struct RefState {
  std::vector<RefPlane> planes; // the mask is planes[maskPlane]
  std::size_t maskPlane = 0;
  std::vector<std::int32_t> perm, inv, map;
  std::uint32_t count = 0, span = 0, fire = 0;
};

/// The reorder as the specification words it: a stable partition of the slots
/// [0, min(span, n)) — kept (by the mask plane before the move) first —
/// applied to every plane and to perm; then inv from perm, the identity map
/// over the kept, count = span = kept, fire = 0. A no-op when `useFire` and
/// fire == 0.
inline void refReorder(RefState& s, std::int64_t n, bool drop, bool useFire) {
  if (n == 0) {
    s.count = s.span = 0;
    s.fire = 0;
    return;
  }
  if (useFire && s.fire == 0) return;
  const std::int64_t sp = std::int64_t(s.span) < n ? std::int64_t(s.span) : n;
  std::vector<std::int64_t> order; // new slot -> old slot
  const auto& mask = s.planes[s.maskPlane].bytes;
  for (std::int64_t i = 0; i < sp; ++i)
    if (refKeeps(mask[static_cast<std::size_t>(i)], drop)) order.push_back(i);
  const auto kept = static_cast<std::uint32_t>(order.size());
  for (std::int64_t i = 0; i < sp; ++i)
    if (!refKeeps(mask[static_cast<std::size_t>(i)], drop)) order.push_back(i);
  for (auto& p : s.planes) {
    std::vector<unsigned char> old = p.bytes;
    for (std::int64_t t = 0; t < sp; ++t)
      copyElem(&p.bytes[static_cast<std::size_t>(t) * p.elem],
               &old[static_cast<std::size_t>(order[static_cast<std::size_t>(t)]) * p.elem], p.elem);
  }
  std::vector<std::int32_t> oldPerm = s.perm;
  for (std::int64_t t = 0; t < sp; ++t)
    s.perm[static_cast<std::size_t>(t)] =
        oldPerm[static_cast<std::size_t>(order[static_cast<std::size_t>(t)])];
  for (std::int64_t t = 0; t < sp; ++t)
    s.inv[static_cast<std::size_t>(s.perm[static_cast<std::size_t>(t)])] =
        static_cast<std::int32_t>(t);
  for (std::uint32_t t = 0; t < kept; ++t) s.map[t] = static_cast<std::int32_t>(t);
  s.count = s.span = kept;
  if (useFire) s.fire = 0;
}

/// The restore as the specification words it: sample i back at slot i — a
/// gather by inv over all n slots of every plane (the mask included) — and
/// perm / inv the identity; index map, count, span and fire untouched.
inline void refRestore(RefState& s) {
  const std::size_t n = s.inv.size();
  for (auto& p : s.planes) {
    const std::vector<unsigned char> old = p.bytes;
    for (std::size_t i = 0; i < n; ++i)
      if (s.inv[i] >= 0 && static_cast<std::size_t>(s.inv[i]) < n) // else the slot keeps its value
        copyElem(&p.bytes[i * p.elem], &old[static_cast<std::size_t>(s.inv[i]) * p.elem], p.elem);
  }
  for (std::size_t i = 0; i < n; ++i) s.perm[i] = s.inv[i] = static_cast<std::int32_t>(i);
}

/// Deterministic content for plane `p` of element size `elem`: every byte a
/// function of (plane, sample, byte), so any misplaced byte shows.
inline std::vector<unsigned char> planeBytes(std::int64_t n, std::uint32_t elem, std::uint32_t p) {
  std::vector<unsigned char> b(static_cast<std::size_t>(n) * elem);
  for (std::int64_t i = 0; i < n; ++i)
    for (std::uint32_t k = 0; k < elem; ++k)
      b[static_cast<std::size_t>(i) * elem + k] =
          static_cast<unsigned char>((i * 131 + k * 17 + p * 59 + (i >> 8) * 7) & 0xFF);
  return b;
}

/// Sequential scans.
template <class T, class Op>
std::vector<T> refScan(const std::vector<T>& in, Op op, T init, bool inclusive) {
  std::vector<T> out(in.size());
  T acc = init;
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (inclusive) {
      acc = op(acc, in[i]);
      out[i] = acc;
    } else {
      out[i] = acc;
      acc = op(acc, in[i]);
    }
  }
  return out;
}

} // namespace sieve_test
