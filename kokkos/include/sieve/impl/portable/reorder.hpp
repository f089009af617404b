// SPDX-License-Identifier: Apache-2.0
// Sieve (internal) — the portable implementation: reorder / restore.
#pragma once

#include <sieve/impl/portable/base.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace sieve {
namespace Impl {
namespace Portable {

/// The state of one reorder call (keep bits, word offsets, kept count, span
/// and fire words, in the space's memory): core's ReorderState.
using ::sieve::Impl::ReorderState;

/// Element i of a plane, moved as an opaque word of its size (any
/// trivially-copyable element, Kokkos::Array included, strided or not; a
/// column or the rows of a rank-2 plane).
template <class W>
struct PlaneWords {
  unsigned char* base;
  i64 stride; // bytes
  KOKKOS_INLINE_FUNCTION W& operator()(const i64 i) const {
    return *reinterpret_cast<W*>(base + i * stride);
  }
};

template <class PlaneView>
auto planeWords(const PlaneView& v) {
  using W = ElemOf<sizeof(typename PlaneView::non_const_value_type)>;
  return PlaneWords<W>{reinterpret_cast<unsigned char*>(v.data()),
                       static_cast<i64>(strideBytes(v))};
}

/// Stage one plane over the span, then place every slot at its destination.
template <class Exec, class W>
void moveWords(const Exec& exec, const std::string& label, const PlaneWords<W>& plane,
               unsigned char* stageBytes, const ReorderState& s) {
  W* stage = reinterpret_cast<W*>(stageBytes);
  Kokkos::parallel_for(
      label + "::stage", Range<Exec>(exec, 0, s.n), KOKKOS_LAMBDA(const i64 i) {
        if (s.active() && i < s.sp()) stage[i] = plane(i);
      });
  Kokkos::parallel_for(
      label + "::place", Range<Exec>(exec, 0, s.n), KOKKOS_LAMBDA(const i64 i) {
        if (s.active() && i < s.sp()) plane(s.dst(i)) = stage[i];
      });
}

/// The word planes of typed rank-1 planes (the descriptors and strides the
/// list form takes). No allocation.
template <class... Planes>
struct TypedPlanes {
  std::array<ReorderPlane, sizeof...(Planes)> desc;
  std::array<std::size_t, sizeof...(Planes)> stride;
  explicit TypedPlanes(const Planes&... planes)
      : desc{ReorderPlane{static_cast<void*>(planes.data()),
                          static_cast<std::uint32_t>(sizeof(typename Planes::value_type))}...},
        stride{strideBytes(planes)...} {}
};

/// reorder over a list of `nPlanes` word planes (`desc`: data and element
/// size, 1, 2, 4, 8 or 16 bytes; `strideBytes`: bytes between elements),
/// what sieve::reorder hands every face (rank-2 planes expanded into their
/// rows or columns).
template <class Exec, class MaskView, class PermView, class InvView, class MapView>
void reorderPlanes(const Exec& exec, const std::string& label, const MaskView& mask,
                   std::uint32_t flags, const PermView& perm, const InvView& inv,
                   const MapView& map, std::uint32_t* count, std::uint32_t* span,
                   std::uint32_t* fire, unsigned char* scratch, i64 n, const ReorderPlane* desc,
                   const std::size_t* strideBytes, std::uint32_t nPlanes) {
  if (n == 0) {
    Kokkos::parallel_for(
        label + "::empty", Range<Exec>(exec, 0, 1),
        KOKKOS_LAMBDA(const i64) { reorderEpilogue(count, span, fire, 0u); });
    return;
  }
  const i64 nwords = ReorderLayout::words(n);
  std::uint32_t* bits = carve<std::uint32_t>(scratch, ReorderLayout::bits(n));
  std::uint32_t* wordOff = carve<std::uint32_t>(scratch, ReorderLayout::wordOff(n));
  std::uint32_t* cnt = carve<std::uint32_t>(scratch, ReorderLayout::cnt(n));
  const ReorderState s{bits, wordOff, cnt, span, fire, n};

  Kokkos::parallel_for(
      label + "::bits", Range<Exec>(exec, 0, nwords), KOKKOS_LAMBDA(const i64 w) {
        if (!s.active()) return;
        const i64 sp = s.sp();
        bits[w] =
            w * 32 < sp ? groupKeepBits([&](i64 i) { return mask(i); }, w * 32, sp, flags) : 0u;
      });
  Kokkos::parallel_scan(
      label + "::offsets", Range<Exec>(exec, 0, nwords),
      KOKKOS_LAMBDA(const i64 w, std::uint32_t& upd, const bool final) {
        if (!s.active()) return;
        const auto v = static_cast<std::uint32_t>(popcount32(bits[w]));
        if (final) {
          wordOff[w] = upd;
          if (w == nwords - 1) *cnt = upd + v;
        }
        upd += v;
      });
  // One staging plane for every plane (and perm): it starts at the same
  // offset whatever the element size (sized for the widest by the caller).
  unsigned char* stage = carve<unsigned char>(scratch, ReorderLayout::stage(n, 4));
  for (std::uint32_t p = 0; p < nPlanes; ++p)
    withElem(desc[p].elemBytes, [&](auto tag) {
      using W = typename decltype(tag)::type;
      moveWords(exec, label,
                PlaneWords<W>{static_cast<unsigned char*>(desc[p].data),
                              static_cast<i64>(strideBytes[p])},
                stage, s);
    });
  moveWords(exec, label, planeWords(perm), stage, s);
  Kokkos::parallel_for(
      label + "::inverse", Range<Exec>(exec, 0, n), KOKKOS_LAMBDA(const i64 i) {
        if (!s.active() || i >= s.sp()) return;
        const std::int32_t p = perm(i);
        if (slotInRange(p, s.n)) inv(p) = static_cast<std::int32_t>(i);
      });
  Kokkos::parallel_for(
      label + "::identity", Range<Exec>(exec, 0, n), KOKKOS_LAMBDA(const i64 i) {
        if (s.active() && i < s.kept()) map(i) = static_cast<std::int32_t>(i);
      });
  Kokkos::parallel_for(
      label + "::words", Range<Exec>(exec, 0, 1), KOKKOS_LAMBDA(const i64) {
        if (s.active()) reorderEpilogue(count, span, fire, *cnt);
      });
}

/// reorder of typed rank-1 planes (the form the cross-backend test drives).
template <class Exec, class MaskView, class PermView, class InvView, class MapView, class... Planes>
void reorder(const Exec& exec, const std::string& label, const MaskView& mask, std::uint32_t flags,
             const PermView& perm, const InvView& inv, const MapView& map, std::uint32_t* count,
             std::uint32_t* span, std::uint32_t* fire, unsigned char* scratch, i64 n,
             const Planes&... planes) {
  const TypedPlanes<Planes...> list(planes...);
  reorderPlanes(exec, label, mask, flags, perm, inv, map, count, span, fire, scratch, n,
                list.desc.data(), list.stride.data(),
                static_cast<std::uint32_t>(sizeof...(Planes)));
}

/// Stage every slot of one plane, then gather it back through inv.
template <class Exec, class W, class InvView>
void restoreWords(const Exec& exec, const std::string& label, const PlaneWords<W>& plane,
                  const InvView& inv, unsigned char* stageBytes, i64 n) {
  W* stage = reinterpret_cast<W*>(stageBytes);
  Kokkos::parallel_for(
      label + "::stage", Range<Exec>(exec, 0, n),
      KOKKOS_LAMBDA(const i64 i) { stage[i] = plane(i); });
  Kokkos::parallel_for(
      label + "::gather", Range<Exec>(exec, 0, n), KOKKOS_LAMBDA(const i64 i) {
        const std::int32_t from = inv(i);
        if (slotInRange(from, n)) plane(i) = stage[from];
      });
}

/// restore over a list of word planes (as reorderPlanes).
template <class Exec, class PermView, class InvView>
void restorePlanes(const Exec& exec, const std::string& label, const PermView& perm,
                   const InvView& inv, unsigned char* scratch, i64 n, const ReorderPlane* desc,
                   const std::size_t* strideBytes, std::uint32_t nPlanes) {
  if (n == 0) return;
  unsigned char* stage = carve<unsigned char>(scratch, ReorderLayout::stage(n, 4));
  for (std::uint32_t p = 0; p < nPlanes; ++p)
    withElem(desc[p].elemBytes, [&](auto tag) {
      using W = typename decltype(tag)::type;
      restoreWords(exec, label,
                   PlaneWords<W>{static_cast<unsigned char*>(desc[p].data),
                                 static_cast<i64>(strideBytes[p])},
                   inv, stage, n);
    });
  Kokkos::parallel_for(
      label + "::identity", Range<Exec>(exec, 0, n), KOKKOS_LAMBDA(const i64 i) {
        perm(i) = static_cast<std::int32_t>(i);
        inv(i) = static_cast<std::int32_t>(i);
      });
}

/// restore of typed rank-1 planes.
template <class Exec, class PermView, class InvView, class... Planes>
void restore(const Exec& exec, const std::string& label, const PermView& perm, const InvView& inv,
             unsigned char* scratch, i64 n, const Planes&... planes) {
  const TypedPlanes<Planes...> list(planes...);
  restorePlanes(exec, label, perm, inv, scratch, n, list.desc.data(), list.stride.data(),
                static_cast<std::uint32_t>(sizeof...(Planes)));
}

} // namespace Portable
} // namespace Impl
} // namespace sieve
