// SPDX-License-Identifier: Apache-2.0
// Sieve (internal) — the Cuda face: the native CUDA kernels (native/cuda),
// enqueued on the stream of a Kokkos::Cuda instance, with that instance's
// device current for the launch (CudaDeviceGuard). Asynchronous and
// capture-safe: nothing is allocated, synchronised or read back — except the
// keys' radix order and dense scatter, which serve blocking calls: they
// allocate their scratch on the instance and read their status words back.
// The scan, the dense scatter and the predicate's selection are header-only
// CUDA (cuda::Scan, cuda::DenseScatter, cuda::SelectIf).
#pragma once

#include <sieve/impl/call.hpp>
#include <sieve/impl/faces/table.hpp>

#if defined(KOKKOS_ENABLE_CUDA) && SIEVE_HAVE_CUDA
// Kokkos' CUDA backend is compiled by a CUDA compiler in every translation
// unit; so is this face, whose scan, dense scatter and predicate selection
// are header-only kernels (the caller's operator and functors compiled in).
#if !defined(__CUDACC__)
#error \
    "Sieve: with Kokkos::Cuda, compile every translation unit that includes Sieve with a CUDA compiler (nvcc, nvcc_wrapper or clang in CUDA mode), as Kokkos requires"
#endif
#include <cuda_runtime.h>
#include <sieve/core/scatter_result.hpp>
#include <sieve/native/cuda/check.hpp>
#include <sieve/native/cuda/compact.hpp>
#include <sieve/native/cuda/radix.hpp>
#include <sieve/native/cuda/reorder.hpp>
#include <sieve/native/cuda/scan.cuh>
#include <sieve/native/cuda/scatter.cuh>
#include <sieve/native/cuda/select.cuh>
#include <sieve/native/cuda/select.hpp>

#include <array>
#include <memory>
#include <string>

namespace sieve {
namespace Impl {

template <>
struct Faces<Face::Cuda> {
  static constexpr bool has(Primitive p) { return faceHas(Face::Cuda, p); }

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

  /// The same selection with its keep bits from the predicate
  /// (SelectFilled): from(k) (a PredFill: pred(element k)) evaluated in the
  /// kernel (cuda::SelectIf), no mask written. Asynchronous, capture-safe.
  template <class From>
  static void selectFilled(const Kokkos::Cuda& exec, const Names& names, const SelectSpec& spec,
                           void* scratch, std::size_t /*scratchBytes*/, const From& from) {
    const NativeKernel<Kokkos::Cuda> k(exec, names, Face::Cuda);
    const CudaDeviceGuard device(exec.cuda_device());
    cuda::SelectIf::enqueueChecked(spec, from, scratch, exec.cuda_stream());
  }

  /// Two status words on the instance (`label`), `enqueue(words)` on its
  /// stream with its device current, then the words read back (a fence
  /// named "`call`: status read"): blocking.
  template <class Enqueue>
  static std::array<std::int64_t, 2> withStatus(const Kokkos::Cuda& exec, const Names& names,
                                                const char* call, const char* label,
                                                const Enqueue& enqueue) {
    auto status = allocate<Kokkos::View<std::int64_t*, Kokkos::CudaSpace>>(
        Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, names(label)), 2);
    {
      const CudaDeviceGuard device(exec.cuda_device());
      enqueue(status.data());
    }
    std::array<std::int64_t, 2> words{{0, 0}};
    Kokkos::deep_copy(exec, Kokkos::View<std::int64_t*, Kokkos::HostSpace>(words.data(), 2),
                      status);
    fence(exec, std::string(call) + ": status read");
    return words;
  }

  /// Scratch bytes of radixOrder (core/radix.hpp).
  static constexpr std::size_t radixOrderScratchBytes(std::int64_t n) {
    return radix_order_device_scratch_bytes(n);
  }

  /// The stable order of n 64-bit keys (each < 2^bits; device memory) into
  /// `order` (radixOrderDevice, on `scratch` of radixOrderScratchBytes(n)
  /// bytes) on the instance's stream, then its status word read back:
  /// blocking.
  static void radixOrder(const Kokkos::Cuda& exec, const Names& names, const std::uint64_t* keys,
                         std::int64_t n, int bits, std::int64_t* order, void* scratch,
                         std::size_t scratchBytes) {
    const NativeKernel<Kokkos::Cuda> k(exec, names, Face::Cuda);
    const auto words =
        withStatus(exec, names, "radix order", "radix_status", [&](std::int64_t* status) {
          radixOrderDevice(keys, n, bits, order, status, scratch, scratchBytes, exec.cuda_stream());
        });
    if (words[0] != 0)
      fail(names.prefix.c_str(), std::to_string(words[0]) +
                                     " key distance(s) outside the keys' own span (a key "
                                     "changed between its reads); nothing was written");
  }

  /// radixOrder enqueued only: its two status words in `status` (device
  /// memory), not read back. Asynchronous, capture-safe.
  static void radixOrderAsync(const Kokkos::Cuda& exec, const Names& names,
                              const std::uint64_t* keys, std::int64_t n, int bits,
                              std::int64_t* order, std::int64_t* status, void* scratch,
                              std::size_t scratchBytes) {
    const NativeKernel<Kokkos::Cuda> k(exec, names, Face::Cuda);
    const CudaDeviceGuard device(exec.cuda_device());
    radixOrderDevice(keys, n, bits, order, status, scratch, scratchBytes, exec.cuda_stream());
  }

  /// Whether the native dense scatter serves `records` records into
  /// `buckets` buckets here: always (its passes are 8-bit digits, the portable
  /// counting sort's histograms grow with buckets x chunks; no GPU run has
  /// measured a crossover yet).
  static constexpr bool denseScatterPays(std::int64_t /*buckets*/, std::int64_t /*records*/,
                                         std::int64_t /*recordBytes*/) {
    return true;
  }

  /// The stable counting scatter of n records (recOf(i), device functors) by
  /// a dense digit in [0, buckets) on the instance's stream
  /// (cuda::DenseScatter, its scratch and status words allocated on the
  /// instance), then its status read back: blocking. Out in digit order,
  /// offsets[0 .. buckets]; records outside counted (nothing written), a
  /// digit that changed between reads counted.
  template <class Rec, class RecOf, class DigitOf>
  static DenseScatterResult denseScatter(const Kokkos::Cuda& exec, const Names& names,
                                         const RecOf& recOf, std::int64_t n, const DigitOf& digitOf,
                                         std::int64_t buckets, Rec* out, std::int64_t* offsets) {
    const NativeKernel<Kokkos::Cuda> k(exec, names, Face::Cuda);
    const std::size_t bytes = cuda::DenseScatter::scratchBytes(n, buckets, sizeof(Rec));
    auto scratch = allocate<Kokkos::View<unsigned char*, Kokkos::CudaSpace>>(
        Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, names("dense_scratch")), bytes);
    const auto words =
        withStatus(exec, names, "keys::scatter_dense", "dense_status", [&](std::int64_t* status) {
          cuda::DenseScatter::enqueue(recOf, n, digitOf, buckets, out, offsets, status,
                                      scratch.data(), bytes, exec.cuda_stream());
        });
    return DenseScatterResult{words[0], words[1]};
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
};

} // namespace Impl
} // namespace sieve
#endif
