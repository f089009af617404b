// SPDX-License-Identifier: Apache-2.0
// Sieve — the faces and what each one runs natively: one table for every
// translation unit, whatever compiles it (g++, nvcc, clang).
//
// A face is one implementation of the primitives: the portable Kokkos
// kernels, the OpenMP twins (native/host), the CUDA kernels (native/cuda).
// Which face an execution space has is the build's business (the Kokkos
// face's nativeFaceOf); which primitives a face has is this table alone.
// No Kokkos, no CUDA runtime.
#pragma once

#include <sieve/core/macros.hpp>

namespace sieve {
namespace Impl {

enum class Face { Portable, OpenMP, Cuda };

/// The primitives a face may provide.
/// - Compact, Reorder, Restore, Scan: the filtering primitives on arrays.
/// - Select: one selection of core/select.hpp (findall's mask forms).
/// - SelectFilled: the same with its keep bits from a predicate evaluated
///   inside the selection (findall's predicate form, fused).
/// - RadixOrder: the stable order of 64-bit keys (core/radix.hpp).
/// - DenseScatter: the stable counting scatter of records by a dense digit.
/// - SparseScatter: the stable sort of records by a 64-bit word (host only).
/// - Capture: a call sequence recorded once and launched as one (a CUDA graph).
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

/// Whether face `f` implements primitive `p`. The portable face runs the
/// array primitives; findall and keys run their own generic kernels where a
/// native face does not take a call (any mask, item source or key functor).
SIEVE_INLINE constexpr bool faceHas(Face f, Primitive p) {
  switch (f) {
  case Face::Portable:
    return p == Primitive::Compact || p == Primitive::Reorder || p == Primitive::Restore ||
           p == Primitive::Scan;
  case Face::OpenMP: return p != Primitive::Capture;
  case Face::Cuda: return p != Primitive::SparseScatter;
  }
  return false;
}

/// The table as a bit mask of one face (bit p for primitive p): what a
/// translation unit compiled by another compiler must agree with.
SIEVE_INLINE constexpr unsigned faceMask(Face f) {
  unsigned m = 0;
  for (int p = 0; p <= static_cast<int>(Primitive::Capture); ++p)
    if (faceHas(f, static_cast<Primitive>(p))) m |= 1u << p;
  return m;
}

/// The face's name in profiling regions and kernel labels.
SIEVE_INLINE constexpr const char* faceName(Face f) {
  switch (f) {
  case Face::OpenMP: return "openmp";
  case Face::Cuda: return "cuda";
  default: return "portable";
  }
}

} // namespace Impl
} // namespace sieve
