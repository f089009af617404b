// SPDX-License-Identifier: Apache-2.0
// Sieve (internal) — the one dispatch point of the Kokkos face.
//
// A call on an execution space runs on one "face": the native face of that
// space (the OpenMP twins on Kokkos::OpenMP, the native CUDA kernels on
// Kokkos::Cuda) when it has one and every View is contiguous, the portable
// Kokkos implementation otherwise. `Faces<F>` is the per-face table (one
// static member per primitive the face has, core/faces.hpp, with one
// signature per primitive); `dispatch` and `runNative` are the only places
// that choose. Adding a face means one specialisation of Faces
// (impl/faces/<face>.hpp), its row of faceHas and one line in nativeFaceOf;
// adding a primitive means one member per face that has it.
#pragma once

#include <sieve/impl/call.hpp>
#include <sieve/impl/common.hpp>
#include <sieve/impl/faces/cuda.hpp>
#include <sieve/impl/faces/openmp.hpp>
#include <sieve/impl/faces/portable.hpp>
#include <sieve/impl/faces/table.hpp>
#include <sieve/native/host/memory.hpp>
#include <sieve/native/host/team.hpp>

#include <atomic>
#include <initializer_list>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

namespace sieve {
namespace Impl {

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

/// Hint that a host View just allocated (not yet touched) be backed by huge
/// pages (adviseHugePagesHost, native/host/memory.hpp): its first touch then
/// faults 2 MiB at a time, not 4 KiB (far less time: docs/tuning.md); a
/// result of scatter_sparse over 2^24 distinct keys is 256 MiB, fresh pages
/// on every call under glibc's default allocator. Only HostSpace Views of
/// Tuning::Host::kHugePageMinBytes (32 MiB) or more; a hint: no byte
/// changes, a no-op elsewhere. O(1), no fence.
template <class V>
void adviseHugePages(const V& v) {
  (void)v;
  if constexpr (std::is_same_v<typename V::memory_space, Kokkos::HostSpace>)
    (void)adviseHugePagesHost(v.data(), v.size() * sizeof(typename V::value_type));
}

/// For benchmarks and tests only: while set, every call takes the portable
/// face and the generic paths, as on a space without a native face (what a
/// Kokkos::HIP or Kokkos::SYCL user gets), on the same data. Set through
/// ForcePortable.
inline std::atomic<bool>& portableForced() {
  static std::atomic<bool> forced{false};
  return forced;
}

/// Forces the portable face for its lifetime (benchmarks and tests only;
/// not for calls in flight on other threads).
class ForcePortable {
 public:
  ForcePortable() : was_(portableForced().exchange(true)) {}
  ~ForcePortable() { portableForced().store(was_); }
  ForcePortable(const ForcePortable&) = delete;
  ForcePortable& operator=(const ForcePortable&) = delete;

 private:
  bool was_;
};

/// Whether a call may run on a native face now (none is forced off).
inline bool nativeAllowed() { return !portableForced().load(std::memory_order_relaxed); }

/// Exec's native face when it has primitive P, else Portable.
template <class Exec, Primitive P>
constexpr Face nativeFaceFor() {
  constexpr Face native = nativeFaceOf<Exec>();
  return native != Face::Portable && Faces<native>::has(P) ? native : Face::Portable;
}

/// The face a call of primitive P on Exec runs on, given whether its Views
/// are all contiguous.
template <class Exec, Primitive P>
Face faceFor(bool contiguous) {
  constexpr Face native = nativeFaceFor<Exec, P>();
  return contiguous && nativeAllowed() ? native : Face::Portable;
}

/// Whether Exec's native face takes a call of primitive P: it has P, the
/// call is `eligible` (its Views contiguous, its records of a kind the face
/// reads), no ForcePortable is active, and `pays(FaceTag<native>{})` (the
/// face's own rule, asked only of a face that has P). The question every
/// plan asks (findall's, the keys').
template <class Exec, Primitive P, class Pays>
bool nativeTakes(bool eligible, const Pays& pays) {
  constexpr Face native = nativeFaceFor<Exec, P>();
  if constexpr (native != Face::Portable) {
    return eligible && nativeAllowed() && pays(FaceTag<native>{});
  } else {
    (void)eligible, (void)pays;
    return false;
  }
}
/// The same for a primitive the native face takes whenever it has it.
template <class Exec, Primitive P>
bool nativeTakes(bool eligible) {
  return nativeTakes<Exec, P>(eligible, [](auto) { return true; });
}

/// The face a path of a call runs on: Exec's native face for P when the
/// call's plan took it (`onNative`), else the portable one.
template <class Exec, Primitive P>
Face pathFace(bool onNative) {
  return onNative ? nativeFaceFor<Exec, P>() : Face::Portable;
}

/// Whether Exec has a native face with primitive P (known at compile time).
template <class Exec, Primitive P>
inline constexpr bool kHasNative = nativeFaceFor<Exec, P>() != Face::Portable;

/// Runs `f(FaceTag<native>{})` on Exec's native face for P, for a path a
/// plan chose with nativeTakes: a call that reaches it on a space without
/// that face is an internal error, thrown, never a silent no-op.
template <class Exec, Primitive P, class F>
void onNative(const char* fn, F&& f) {
  constexpr Face native = nativeFaceFor<Exec, P>();
  if constexpr (native != Face::Portable) {
    f(FaceTag<native>{});
  } else {
    (void)f;
    throw std::logic_error(std::string(fn) +
                           ": internal error: a native path without a native face");
  }
}

/// For the primitives whose portable form is a call's own generic kernels
/// (findall's selections, the keys' orders and scatters): calls
/// `f(FaceTag<native>{})` when Exec's native face has P and `eligible`, and
/// returns whether it did (the caller then takes its generic path). Only
/// the native face is instantiated.
template <class Exec, Primitive P, class F>
bool runNative(bool eligible, F&& f) {
  constexpr Face native = nativeFaceFor<Exec, P>();
  if constexpr (native != Face::Portable) {
    if (eligible && nativeAllowed()) {
      f(FaceTag<native>{});
      return true;
    }
  } else {
    (void)eligible, (void)f;
  }
  return false;
}

/// The one dispatch point of the primitives every face has: calls
/// `f(FaceTag<face>{})` with the face that runs primitive P on Exec. Only
/// the two candidate faces are instantiated.
template <class Exec, Primitive P, class F>
void dispatch(const char* fn, bool contiguous, F&& f) {
  static_assert(Faces<Face::Portable>::has(P),
                "sieve (internal): dispatch serves the primitives the portable face has; "
                "runNative serves the others");
  if (runNative<Exec, P>(contiguous, f)) return;
  // The portable face launches Kokkos kernels (e.g. strided Views on OpenMP).
  checkKernelsAllowed<Exec>(fn); // named for the public call
  f(FaceTag<Face::Portable>{});
}

/// The tail of every call of a primitive with faces, after its checks:
/// claim its outputs and scratch, open its region (named for the face that
/// runs it), and run `body(FaceTag<face>{})` on that face.
template <class Exec, Primitive P, class Body>
void runCall(const char* fn, const Names& names, bool contiguous,
             std::initializer_list<Claim> claims, Body&& body) {
  const CallClaims held(fn, claims);
  const CallRegion region(names, faceFor<Exec, P>(contiguous));
  dispatch<Exec, P>(fn, contiguous, std::forward<Body>(body));
}

/// The same tail for the calls that run their own Kokkos kernels on every
/// space (keys, permute): claims, a region on the portable face, `body()`.
template <class Exec, class Body>
void runKernels(const char* fn, const Names& names, std::initializer_list<Claim> claims,
                Body&& body) {
  checkKernelsAllowed<Exec>(fn);
  const CallClaims held(fn, claims);
  const CallRegion region(names, Face::Portable);
  body();
}

/// A call sequence `replay()` on exec, through the native face's captured
/// form where it has one (Primitive::Capture: recorded once into `held`
/// after `prepare()`, then launched as one; `launch` false records only),
/// else `replay()` itself (when `launch`).
template <class Exec, class Prepare, class Replay>
void replayCaptured(const Exec& exec, std::shared_ptr<void>& held, bool launch,
                    const Prepare& prepare, const Replay& replay) {
  constexpr Face native = nativeFaceFor<Exec, Primitive::Capture>();
  if constexpr (native != Face::Portable) {
    if (nativeAllowed()) {
      if (!held) held = Faces<native>::capture(exec, prepare, replay);
      if (launch) Faces<native>::launchCaptured(exec, held);
      return;
    }
    if (launch) replay();
  } else {
    (void)exec;
    (void)held;
    (void)prepare;
    if (launch) replay();
  }
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

} // namespace Impl
} // namespace sieve
