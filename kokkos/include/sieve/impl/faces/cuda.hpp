// SPDX-License-Identifier: Apache-2.0
// Sieve (internal) — the Cuda face: the native CUDA kernels (native/cuda),
// enqueued on the stream of a Kokkos::Cuda instance, with that instance's
// device current for the launch (CudaDeviceGuard). Asynchronous and
// capture-safe: nothing is allocated, synchronised or read back. The scan is
// header-only CUDA (cuda::Scan): it is native only in translation units
// compiled by nvcc; elsewhere Kokkos::Cuda scans take the portable face.
#pragma once

#include <sieve/impl/call.hpp>
#include <sieve/impl/faces/table.hpp>

#if defined(KOKKOS_ENABLE_CUDA) && SIEVE_HAVE_CUDA
#include <cuda_runtime.h>
#include <sieve/native/cuda/check.hpp>
#include <sieve/native/cuda/compact.hpp>
#include <sieve/native/cuda/reorder.hpp>
#include <sieve/native/cuda/select.hpp>
#if defined(__CUDACC__)
#include <sieve/native/cuda/scan.cuh>
#endif

#include <memory>

namespace sieve {
namespace Impl {

template <>
struct Faces<Face::Cuda> {
  static constexpr bool has(Primitive p) {
    // SelectFilled would need the predicate inside the kernel (a template
    // the library cannot compile ahead): findall's predicate form fills its
    // mask with a Kokkos kernel, then selects.
    if (p == Primitive::SelectFilled) return false;
    // The CUDA radix order (onesweep) and counting scatter are owed: the
    // keys' sorts take the portable face there.
    if (p == Primitive::RadixOrder || p == Primitive::DenseScatter) return false;
#if defined(__CUDACC__)
    return true;
#else
    return p != Primitive::Scan;
#endif
  }

  template <class Mask, class Map>
  static void compact(const Kokkos::Cuda& exec, const Names& names, const Mask& mask,
                      std::uint32_t flags, const Map& map, std::uint32_t* count, void* scratch,
                      const ReorderTrigger* trig, std::int64_t n) {
    const NativeKernel<Kokkos::Cuda> k(exec, names, Face::Cuda);
    const CudaDeviceGuard device(exec.cuda_device());
    compactDeviceChecked(mask.data(), flags, map.data(), count, scratch, n, exec.cuda_stream(),
                         trig);
  }

  template <class Mask, class Perm, class Inv, class Map>
  static void reorder(const Kokkos::Cuda& exec, const Names& names, const Mask& mask,
                      std::uint32_t flags, const Perm& perm, const Inv& inv, const Map& map,
                      std::uint32_t* count, std::uint32_t* span, std::uint32_t* fire, void* scratch,
                      std::int64_t n, const ReorderPlane* desc, std::uint32_t nPlanes,
                      const std::size_t* /*strides: every word plane is contiguous here*/) {
    const NativeKernel<Kokkos::Cuda> k(exec, names, Face::Cuda);
    const CudaDeviceGuard device(exec.cuda_device());
    reorderDeviceChecked(desc, nPlanes, mask.data(), flags, perm.data(), inv.data(), map.data(),
                         count, span, fire, scratch, n, exec.cuda_stream());
  }

  template <class Perm, class Inv>
  static void restore(const Kokkos::Cuda& exec, const Names& names, const Perm& perm,
                      const Inv& inv, void* scratch, std::int64_t n, const ReorderPlane* desc,
                      std::uint32_t nPlanes,
                      const std::size_t* /*strides: every word plane is contiguous here*/) {
    const NativeKernel<Kokkos::Cuda> k(exec, names, Face::Cuda);
    const CudaDeviceGuard device(exec.cuda_device());
    restoreDeviceChecked(desc, nPlanes, perm.data(), inv.data(), scratch, n, exec.cuda_stream());
  }

  /// One selection (core/select.hpp): one pass with decoupled look-back on
  /// the instance's stream, on `scratch` (select_scratch_bytes(spec.n),
  /// device memory: the findall workspace's native region); findall checked
  /// its Views at its entry. Asynchronous.
  static void select(const Kokkos::Cuda& exec, const Names& names, const SelectSpec& spec,
                     void* scratch, std::size_t scratchBytes) {
    const NativeKernel<Kokkos::Cuda> k(exec, names, Face::Cuda);
    const CudaDeviceGuard device(exec.cuda_device());
    selectDeviceChecked(spec, scratch, scratchBytes, exec.cuda_stream());
  }

  /// A captured call sequence: a CUDA graph, instantiated once.
  struct Captured {
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
    ~Captured() {
      if (exec) cudaGraphExecDestroy(exec);
      if (graph) cudaGraphDestroy(graph);
    }
  };

  /// Record the launches `replay()` enqueues on the instance's stream into a
  /// CUDA graph and instantiate it (after `prepare()`, outside the capture,
  /// and a fence). Blocking. A replay that throws ends the capture first.
  template <class Prepare, class Replay>
  static std::shared_ptr<void> capture(const Kokkos::Cuda& exec, const Prepare& prepare,
                                       const Replay& replay) {
    auto g = std::make_shared<Captured>();
    const CudaDeviceGuard device(exec.cuda_device());
    prepare();
    exec.fence();
    SIEVE_CUDA_CHECK(cudaStreamBeginCapture(exec.cuda_stream(), cudaStreamCaptureModeThreadLocal));
    try {
      replay();
    } catch (...) {
      cudaStreamEndCapture(exec.cuda_stream(), &g->graph);
      throw;
    }
    SIEVE_CUDA_CHECK(cudaStreamEndCapture(exec.cuda_stream(), &g->graph));
    SIEVE_CUDA_CHECK(cudaGraphInstantiateWithFlags(&g->exec, g->graph, 0));
    return g;
  }

  /// Enqueue a captured sequence on the instance's stream (asynchronous).
  static void launchCaptured(const Kokkos::Cuda& exec, const std::shared_ptr<void>& held) {
    const CudaDeviceGuard device(exec.cuda_device());
    SIEVE_CUDA_CHECK(
        cudaGraphLaunch(static_cast<const Captured*>(held.get())->exec, exec.cuda_stream()));
  }

#if defined(__CUDACC__)
  /// Seeded: the fold starts from `init`; unseeded (inclusive only), from
  /// in(0), `init` unused.
  template <bool Inclusive, bool Seeded = true, class In, class Out, class Op, class T>
  static void scan(const Kokkos::Cuda& exec, const Names& names, const In& in, const Out& out,
                   const Op& op, const T& init, T* blockSums, std::int64_t n) {
    const NativeKernel<Kokkos::Cuda> k(exec, names, Face::Cuda);
    const CudaDeviceGuard device(exec.cuda_device());
    cuda::Scan::enqueue<T, Op, Inclusive, Seeded>(in.data(), out.data(), blockSums, n, init,
                                                  exec.cuda_stream(), op);
  }
#endif
};

} // namespace Impl
} // namespace sieve
#endif
