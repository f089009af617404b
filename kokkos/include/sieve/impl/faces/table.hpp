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

/// The primitives a face may or may not provide natively. Select: one
/// selection of core/select.hpp (findall's mask forms); SelectFilled: the
/// same with its keep bits from the predicate, evaluated inside the selection
/// (findall's predicate form, fused: a PredFill, which gives a host face its
/// mask bytes block by block and a device face pred(element k) per sample).
/// On the portable face Select, RadixOrder and DenseScatter are findall's and keys' own
/// generic kernels (impl/findall/run.hpp, impl/keys/scatter.hpp: any mask,
/// item or key source): the table's members are the native faces'.
/// RadixOrder: the stable order of 64-bit keys (core/radix.hpp; the keys'
/// sparse sort). DenseScatter: the stable counting scatter of records by a
/// dense digit (core/radix.hpp, denseScatterPlan; keys::scatter_dense). SparseScatter: the stable
/// sort of records by a 64-bit word (core/radix.hpp, sparseScatterPlan; keys::scatter_sparse of
/// integer keys: the records moved, no gather). Capture: a replay of a call
/// sequence recorded once and launched as one (a CUDA graph); faces without it replay the calls
/// every time.
enum class Primitive {
  Compact,
  Reorder,
  Restore,
  Scan,
  Select,
  SelectFilled,
  RadixOrder,
  DenseScatter,
  SparseScatter,
  Capture
};

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
