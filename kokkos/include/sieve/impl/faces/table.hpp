// SPDX-License-Identifier: Apache-2.0
// Sieve (internal) — the per-face table of the Kokkos face: the faces and
// their primitives (core/faces.hpp, one table for every translation unit),
// and the native face of an execution space. The table's specialisations
// (impl/faces/<face>.hpp) include this header; impl/faces.hpp gathers them
// and holds the one dispatch.
#pragma once

#include <sieve/core/faces.hpp>
#include <sieve/impl/common.hpp>

#include <type_traits>

namespace sieve {
namespace Impl {

template <Face F>
using FaceTag = std::integral_constant<Face, F>;

/// The per-face table; every specialisation implements the primitives
/// faceHas (core/faces.hpp) gives it, and says so with
/// `has(p) = faceHas(F, p)`.
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
