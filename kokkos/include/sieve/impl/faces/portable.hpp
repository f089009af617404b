// SPDX-License-Identifier: Apache-2.0
// Sieve (internal) — the portable face: Kokkos parallel patterns on any
// execution space (impl/portable/), for spaces without a native face and for
// strided Views. It has the array primitives (compact, reorder, restore,
// scan); findall and keys run their own generic kernels where no native face
// takes a call (impl/findall/run.hpp, impl/keys/).
#pragma once

#include <sieve/impl/faces/table.hpp>
#include <sieve/impl/portable.hpp>

namespace sieve {
namespace Impl {

template <>
struct Faces<Face::Portable> {
  static constexpr bool has(Primitive p) { return faceHas(Face::Portable, p); }

  template <class Exec, class Mask, class Map>
  static void compact(const Exec& exec, const Names& names, const Mask& mask, std::uint32_t flags,
                      const Map& map, std::uint32_t* count, void* scratch,
                      const ReorderTrigger* trig, std::int64_t n) {
    Portable::compact(exec, names.prefix, mask, flags, map, count, scratch, trig, n);
  }

  // reorder / restore take the word planes sieve::reorder made of the
  // caller's planes (rank-2 planes as rows or columns): their descriptors,
  // and their strides in bytes in the trailing argument, which the native
  // faces ignore (they run only when every word plane is contiguous).
  template <class Exec, class Mask, class Perm, class Inv, class Map>
  static void reorder(const Exec& exec, const Names& names, const Mask& mask, std::uint32_t flags,
                      const Perm& perm, const Inv& inv, const Map& map, std::uint32_t* count,
                      std::uint32_t* span, std::uint32_t* fire, void* scratch, std::int64_t n,
                      const ReorderPlane* desc, std::uint32_t nPlanes,
                      const std::size_t* strideBytes) {
    Portable::reorderPlanes(exec, names.prefix, mask, flags, perm, inv, map, count, span, fire,
                            static_cast<unsigned char*>(scratch), n, desc, strideBytes, nPlanes);
  }

  template <class Exec, class Perm, class Inv>
  static void restore(const Exec& exec, const Names& names, const Perm& perm, const Inv& inv,
                      void* scratch, std::int64_t n, const ReorderPlane* desc,
                      std::uint32_t nPlanes, const std::size_t* strideBytes) {
    Portable::restorePlanes(exec, names.prefix, perm, inv, static_cast<unsigned char*>(scratch), n,
                            desc, strideBytes, nPlanes);
  }

  /// Seeded: the fold starts from `init`; unseeded (inclusive only), from
  /// in(0), `init` unused.
  template <bool Inclusive, bool Seeded = true, class Exec, class In, class Out, class Op, class T>
  static void scan(const Exec& exec, const Names& names, const In& in, const Out& out, const Op& op,
                   const T& init, T* blockSums, std::int64_t n) {
    Portable::scan<Inclusive, Seeded>(exec, names.prefix, in, out, op, init, blockSums, n);
  }
};

} // namespace Impl
} // namespace sieve
