// SPDX-License-Identifier: Apache-2.0
// Sieve (internal) — the faces and the per-face table: which faces exist,
// which primitives each has, and the native face of an execution space.
// The table's specialisations (impl/faces/<face>.hpp) include this header;
// impl/faces.hpp gathers them and holds the one `dispatch`.
#pragma once

#include <sieve/impl/common.hpp>

#include <type_traits>

namespace sieve {
namespace Impl {

enum class Face { Portable, OpenMP, Cuda };

template <Face F>
using FaceTag = std::integral_constant<Face, F>;

inline const char* faceName(Face f) {
  switch (f) {
  case Face::OpenMP: return "openmp";
  case Face::Cuda: return "cuda";
  default: return "portable";
  }
}

/// The primitives a face may or may not provide natively.
enum class Primitive { Compact, Reorder, Restore, Scan };

/// The per-face table; every specialisation says which primitives it has
/// (`has(p)`) and implements those.
template <Face F>
struct Faces;

/// The native face of execution space Exec (Portable when it has none).
template <class Exec>
constexpr Face nativeFaceOf() {
#if defined(KOKKOS_ENABLE_OPENMP)
  if constexpr (std::is_same_v<Exec, Kokkos::OpenMP>) return Face::OpenMP;
#endif
#if defined(KOKKOS_ENABLE_CUDA) && SIEVE_HAVE_CUDA
  if constexpr (std::is_same_v<Exec, Kokkos::Cuda>) return Face::Cuda;
#endif
  return Face::Portable;
}

} // namespace Impl
} // namespace sieve
