// SPDX-License-Identifier: Apache-2.0
// Sieve (internal) — the one dispatch point of the Kokkos face.
//
// A call on an execution space runs on one "face": the native face of that
// space (the OpenMP twins on Kokkos::OpenMP, the native CUDA kernels on
// Kokkos::Cuda) when it has one and every View is contiguous, the portable
// Kokkos implementation otherwise. `Faces<F>` is the per-face table (static
// compact / reorder / restore / scan, all with one signature per primitive);
// `dispatch` is the only place that chooses. Adding a face means one
// specialisation of Faces (impl/faces/<face>.hpp) and one line in
// nativeFaceOf; adding a primitive means one member per face.
#pragma once

#include <sieve/impl/common.hpp>
#include <sieve/native/host/team.hpp>

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

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

/// A call that launches Kokkos kernels (findall, keys, and any primitive on
/// the portable face) cannot run on Kokkos::OpenMP from inside an OpenMP
/// parallel region: Kokkos refuses (3.x) or may crash (4.x). It throws this
/// instead, before anything is enqueued. (The native twins behind compact,
/// reorder, restore and the scans on contiguous Views run there.)
template <class Exec>
void checkKernelsAllowed(const char* fn) {
#if defined(KOKKOS_ENABLE_OPENMP)
  if constexpr (std::is_same_v<Exec, Kokkos::OpenMP>) {
    if (hostInParallel())
      fail(fn,
           "called inside an OpenMP parallel region; Kokkos::OpenMP cannot launch the "
           "kernels this call needs there: call it outside the region (sieve::compact, "
           "reorder, restore and the scans on contiguous Views can run inside one)");
  }
#else
  (void)fn;
#endif
}

/// The public name of primitive P (for the errors of dispatch).
constexpr const char* primitiveName(Primitive p) {
  return p == Primitive::Compact   ? "sieve::compact"
         : p == Primitive::Reorder ? "sieve::reorder"
         : p == Primitive::Restore ? "sieve::restore"
                                   : "sieve::scan";
}

/// The face a call of primitive P on Exec runs on, given whether its Views
/// are all contiguous.
template <class Exec, Primitive P>
Face faceFor(bool contiguous) {
  constexpr Face native = nativeFaceOf<Exec>();
  return native != Face::Portable && Faces<native>::has(P) && contiguous ? native : Face::Portable;
}

/// The one dispatch point: calls `f(FaceTag<face>{})` with the face that runs
/// primitive P on Exec. Only the two candidate faces are instantiated.
template <class Exec, Primitive P, class F>
void dispatch(bool contiguous, F&& f) {
  constexpr Face native = nativeFaceOf<Exec>();
  if constexpr (native != Face::Portable && Faces<native>::has(P)) {
    if (contiguous) {
      f(FaceTag<native>{});
      return;
    }
  }
  // The portable face launches Kokkos kernels (e.g. strided Views on OpenMP).
  checkKernelsAllowed<Exec>(primitiveName(P));
  f(FaceTag<Face::Portable>{});
}

/// Run `f(0)` once on face F of `exec`: directly on the OpenMP face (its calls
/// are synchronous on host memory), as a one-thread kernel `label` on the
/// instance elsewhere (ordered after the call's other work, nothing read
/// back). For the small epilogues of a call (a total, a trigger word).
template <Face F, class Exec, class Fn>
void onOneThread(const Exec& exec, const std::string& label, const Fn& f) {
  if constexpr (F == Face::OpenMP) {
    f(0);
  } else {
    Kokkos::parallel_for(label, Kokkos::RangePolicy<Exec>(exec, 0, 1), f);
  }
}

/// The outputs (and scratch) of the Sieve calls running right now, process
/// wide. Two calls that write the same output or share a scratch at the same
/// time race and corrupt both (every thread of an OpenMP parallel region
/// calling sieve::compact on the same Views is the usual way to get there);
/// a call whose Views are in use by another one throws instead. Two calls that
/// merely follow each other are fine, so a call made from `omp single` /
/// `omp master`, or from every thread on its own Views, is never refused.
class CallClaims {
 public:
  /// Claims `ptrs` (null entries ignored) for the caller's lifetime, or
  /// throws std::invalid_argument naming `names[k]` of the first one in use.
  CallClaims(const char* fn, std::initializer_list<const void*> ptrs,
             std::initializer_list<const char*> names) {
    std::lock_guard<std::mutex> lock(registry().m);
    auto& live = registry().live;
    auto name = names.begin();
    for (const void* p : ptrs) {
      const char* what = name != names.end() ? *name++ : "an output";
      if (p == nullptr) continue;
      if (std::find(live.begin(), live.end(), p) != live.end()) {
        release(live);
        fail(fn, std::string(what) +
                     " is in use by another Sieve call running at the same time (every thread of "
                     "an OpenMP parallel region calling it?): concurrent calls must not share "
                     "outputs or scratch; call it once (omp single / master) or give each "
                     "concurrent call its own Views");
      }
      if (count_ == kMax) break;
      live.push_back(p);
      mine_[count_++] = p;
    }
  }
  ~CallClaims() {
    std::lock_guard<std::mutex> lock(registry().m);
    release(registry().live);
  }
  CallClaims(const CallClaims&) = delete;
  CallClaims& operator=(const CallClaims&) = delete;

 private:
  struct Registry {
    std::mutex m;
    std::vector<const void*> live;
  };
  static Registry& registry() {
    static Registry r;
    return r;
  }
  void release(std::vector<const void*>& live) {
    for (std::size_t k = 0; k < count_; ++k) {
      const auto it = std::find(live.begin(), live.end(), mine_[k]);
      if (it != live.end()) live.erase(it);
    }
    count_ = 0;
  }
  static constexpr std::size_t kMax = 4;
  const void* mine_[kMax] = {};
  std::size_t count_ = 0;
};

/// A profiling region "<prefix>[<face>]" around one public call.
class CallRegion {
 public:
  CallRegion(const Names& names, Face f) {
    Kokkos::Profiling::pushRegion(names.prefix + "[" + faceName(f) + "]");
  }
  ~CallRegion() { Kokkos::Profiling::popRegion(); }
  CallRegion(const CallRegion&) = delete;
  CallRegion& operator=(const CallRegion&) = delete;
};

/// The native faces run no Kokkos kernel: each of their calls is shown to
/// Kokkos Tools as one kernel "<prefix>[<face>]" (a parallel_for event on the
/// instance's device id), so they appear in timelines and kernel timers like
/// the portable kernels. Free when no tool is loaded.
template <class Exec>
class NativeKernel {
 public:
  NativeKernel(const Exec& exec, const Names& names, Face f) {
    if (Kokkos::Tools::profileLibraryLoaded()) {
      active_ = true;
      Kokkos::Tools::beginParallelFor(names.prefix + "[" + faceName(f) + "]",
                                      Kokkos::Tools::Experimental::device_id(exec), &id_);
    }
  }
  ~NativeKernel() {
    if (active_) Kokkos::Tools::endParallelFor(id_);
  }
  NativeKernel(const NativeKernel&) = delete;
  NativeKernel& operator=(const NativeKernel&) = delete;

 private:
  bool active_ = false;
  std::uint64_t id_ = 0;
};

} // namespace Impl
} // namespace sieve

#include <sieve/impl/faces/cuda.hpp>
#include <sieve/impl/faces/openmp.hpp>
#include <sieve/impl/faces/portable.hpp>
