// SPDX-License-Identifier: Apache-2.0
// Sieve tests — a CUDA emulator on the CPU, for the native CUDA face's kernels
// and tests compiled as plain C++ (tests/cuda_emu). It stands in for
// <cuda_runtime.h>: the runtime subset Sieve and its tests call, and the device
// side (threadIdx, __syncthreads, warp shuffles and votes, atomics, __shared__).
//
// Execution model:
// - Every CUDA thread of a block is a fiber with its own stack; the block's
//   fibers run on one OS thread, switched at every __syncthreads and warp
//   collective, in a seeded random order (so code between two barriers runs
//   lane by lane, in a different interleaving per block). They share the OS
//   thread's floating-point control state (a kernel that changes it aborts).
// - __shared__ is `static thread_local`: one copy per OS thread, which runs one
//   block at a time. Several blocks run at once on a pool of OS threads
//   (SIEVE_EMU_WORKERS, default 4), so inter-block protocols (decoupled
//   look-back) run with real concurrency.
// - Blocks start in a seeded random order (SIEVE_EMU_BLOCK_ORDER: unset or
//   `random`: a permutation a launch drawn from SIEVE_EMU_SEED; a number: from
//   that seed; `ordered`: index order). CUDA promises no order of blocks, only
//   that a block that has started runs on: here a started block keeps its OS
//   thread until it ends, so a kernel that waits only on blocks that started
//   before it (the look-back's tiles taken from a counter) always finishes,
//   and one that waits on a lower blockIdx (tiles taken from blockIdx.x)
//   stalls. A thread spinning (__nanosleep) while no block of its launch
//   has ended for SIEVE_EMU_STALL_SECONDS (default 60) aborts, naming the
//   settings that replay it; the first launch prints them.
// - Strict: every thread of the block must reach each __syncthreads, and all
//   32 lanes each warp collective, in the same order and with a full mask;
//   anything else is reported as divergence / deadlock and aborts.
// - Kernels run when launched (stream order holds trivially); a stream being
//   captured records launches into the graph instead, and a call that would
//   break a capture (allocation, synchronisation, copies, a launch on the
//   legacy stream) fails as CUDA's ThreadLocal mode makes it fail.
// - Under AddressSanitizer (the CI's sanitizer run) it is a memcheck for
//   device allocations: the bytes past each allocation are poisoned.
// What it cannot show: speed, the GPU memory model (x86 is stronger), warp
// lockstep assumptions, resource limits (ptxas checks those), overflows of
// __shared__ arrays (thread_local storage has no redzones), kernels reading
// host memory, and more blocks resident at once than it has OS threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <tuple>
#include <type_traits>
#include <utility>

#define SIEVE_CUDA_EMULATION 1

// ---- types -------------------------------------------------------------------
struct dim3 {
  unsigned x, y, z;
  constexpr dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};
struct uint3 {
  unsigned x, y, z;
};
struct alignas(8) uint2 {
  unsigned x, y;
};
struct alignas(16) uint4 {
  unsigned x, y, z, w;
};
struct alignas(16) int4 {
  int x, y, z, w;
};
struct alignas(16) ulonglong2 {
  unsigned long long x, y;
};

enum cudaError_t {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInvalidConfiguration = 9,
  cudaErrorInvalidDevice = 101,
  cudaErrorInvalidResourceHandle = 400,
  cudaErrorIllegalState = 401,
  cudaErrorStreamCaptureUnsupported = 900,
  cudaErrorStreamCaptureInvalidated = 901,
  cudaErrorStreamCaptureUnmatched = 903,
  cudaErrorStreamCaptureImplicit = 906,
  cudaErrorStreamCaptureWrongThread = 908,
};
typedef cudaError_t cudaError;

enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4
};
enum cudaStreamCaptureMode {
  cudaStreamCaptureModeGlobal = 0,
  cudaStreamCaptureModeThreadLocal = 1,
  cudaStreamCaptureModeRelaxed = 2
};
enum cudaDeviceAttr {
  cudaDevAttrMaxThreadsPerBlock = 1,
  cudaDevAttrMultiProcessorCount = 16,
  cudaDevAttrComputeCapabilityMajor = 75,
  cudaDevAttrComputeCapabilityMinor = 76
};
struct cudaFuncAttributes {
  std::size_t sharedSizeBytes = 0, constSizeBytes = 0, localSizeBytes = 0;
  int maxThreadsPerBlock = 1024, numRegs = 0, ptxVersion = 90, binaryVersion = 90;
};

struct CUstream_st;
typedef CUstream_st* cudaStream_t;
struct CUgraph_st;
typedef CUgraph_st* cudaGraph_t;
struct CUgraphExec_st;
typedef CUgraphExec_st* cudaGraphExec_t;

#define cudaStreamDefault 0x00
#define cudaStreamNonBlocking 0x01
#define cudaStreamLegacy ((cudaStream_t)0x1)
#define cudaStreamPerThread ((cudaStream_t)0x2)

// ---- the runtime subset --------------------------------------------------------
cudaError_t cudaMalloc(void** p, std::size_t bytes);
template <class T>
cudaError_t cudaMalloc(T** p, std::size_t bytes) {
  return cudaMalloc(reinterpret_cast<void**>(p), bytes);
}
cudaError_t cudaFree(void* p);
cudaError_t cudaMemset(void* p, int value, std::size_t bytes);
cudaError_t cudaMemsetAsync(void* p, int value, std::size_t bytes, cudaStream_t s = nullptr);
cudaError_t cudaMemcpy(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind,
                            cudaStream_t s = nullptr);
cudaError_t cudaMemGetInfo(std::size_t* freeBytes, std::size_t* totalBytes);
cudaError_t cudaDeviceSynchronize();
cudaError_t cudaStreamCreate(cudaStream_t* s);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* s, unsigned flags);
cudaError_t cudaStreamDestroy(cudaStream_t s);
cudaError_t cudaStreamSynchronize(cudaStream_t s);
cudaError_t cudaStreamBeginCapture(cudaStream_t s, cudaStreamCaptureMode mode);
cudaError_t cudaStreamEndCapture(cudaStream_t s, cudaGraph_t* graph);
cudaError_t cudaGraphInstantiate(cudaGraphExec_t* exec, cudaGraph_t graph,
                                 unsigned long long flags = 0);
cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t s);
cudaError_t cudaGraphDestroy(cudaGraph_t graph);
cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec);
cudaError_t cudaGetLastError();
cudaError_t cudaPeekAtLastError();
const char* cudaGetErrorName(cudaError_t err);
const char* cudaGetErrorString(cudaError_t err);
cudaError_t cudaGetDevice(int* device);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaGetDeviceCount(int* count);
cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device);
template <class F>
cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* attr, F*) {
  *attr = cudaFuncAttributes{};
  return cudaSuccess;
}

namespace sieve_emu {

/// How a launch hands out its blocks (SIEVE_EMU_BLOCK_ORDER,
/// SIEVE_EMU_STALL_SECONDS; the emulator's own tests set it).
struct Dispatch {
  bool ordered = false;     // blocks start in index order
  std::uint64_t seed = 0;   // else: launch k's permutation is drawn from (seed, k)
  double stallSeconds = 60; // a spin with no block ended for this long aborts (0: never)
};
/// The settings launches take now, and a change of them (not while a
/// launch runs; every later launch, graph replays included, takes them).
Dispatch dispatch();
void setDispatch(const Dispatch& d);

/// Runs `body` as a grid of `grid` x `block` threads on `stream` (or records
/// it while the stream is captured). Returns the launch's error.
cudaError_t launchBody(dim3 grid, dim3 block, cudaStream_t stream, std::function<void()> body);

/// Launch `kernel(args...)` (the arguments are copied, as CUDA copies them).
template <class... Params, class... Args>
cudaError_t launch(void (*kernel)(Params...), dim3 grid, dim3 block, cudaStream_t stream,
                   Args&&... args) {
  static_assert(sizeof...(Params) == sizeof...(Args), "sieve_emu: kernel argument count");
  auto values = std::make_shared<std::tuple<std::decay_t<Params>...>>(std::forward<Args>(args)...);
  return launchBody(grid, block, stream, [kernel, values] { std::apply(kernel, *values); });
}

// ---- the device side -------------------------------------------------------------
struct ThreadCtx {
  uint3 thread, block;
  dim3 blockSize, gridSize;
};
/// The running CUDA thread's coordinates (only inside a kernel).
const ThreadCtx& ctx();

void syncthreads();
/// Every lane of the calling warp publishes `value` and gets the 32 values
/// back (`kind` names the collective: all lanes must call the same one).
const std::uint64_t* warpExchange(unsigned mask, int kind, std::uint64_t value);
/// A spinning thread lets the others (and other blocks) run.
void spinYield();

template <class T>
std::uint64_t toBits(const T& v) {
  static_assert(sizeof(T) <= 8 && std::is_trivially_copyable_v<T>,
                "sieve_emu: shuffles of <= 8 bytes");
  std::uint64_t b = 0;
  std::memcpy(&b, &v, sizeof(T));
  return b;
}
template <class T>
T fromBits(std::uint64_t b) {
  T v;
  std::memcpy(&v, &b, sizeof(T));
  return v;
}
void checkWidth(int width);

} // namespace sieve_emu

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__
#define __launch_bounds__(...)
#define __shared__ static thread_local
#define __constant__ static const

#define threadIdx (::sieve_emu::ctx().thread)
#define blockIdx (::sieve_emu::ctx().block)
#define blockDim (::sieve_emu::ctx().blockSize)
#define gridDim (::sieve_emu::ctx().gridSize)
inline constexpr int warpSize = 32;

inline void __syncthreads() { ::sieve_emu::syncthreads(); }
inline void __syncwarp(unsigned mask = 0xFFFFFFFFu) { (void)::sieve_emu::warpExchange(mask, 1, 0); }
inline unsigned __ballot_sync(unsigned mask, int pred) {
  const std::uint64_t* v = ::sieve_emu::warpExchange(mask, 2, pred != 0);
  unsigned r = 0;
  for (unsigned l = 0; l < 32; ++l) r |= static_cast<unsigned>(v[l] != 0) << l;
  return r;
}
inline int __all_sync(unsigned mask, int pred) {
  const std::uint64_t* v = ::sieve_emu::warpExchange(mask, 7, pred != 0);
  for (unsigned l = 0; l < 32; ++l)
    if (v[l] == 0) return 0;
  return 1;
}
inline int __any_sync(unsigned mask, int pred) {
  const std::uint64_t* v = ::sieve_emu::warpExchange(mask, 8, pred != 0);
  for (unsigned l = 0; l < 32; ++l)
    if (v[l] != 0) return 1;
  return 0;
}
template <class T>
unsigned __match_any_sync(unsigned mask, T value) {
  static_assert(std::is_integral_v<T> && sizeof(T) >= 4,
                "sieve_emu: __match_any_sync of a 32- or 64-bit integer");
  const unsigned lane = ::sieve_emu::ctx().thread.x & 31u;
  const std::uint64_t* v = ::sieve_emu::warpExchange(mask, 9, ::sieve_emu::toBits(value));
  unsigned r = 0;
  for (unsigned l = 0; l < 32; ++l) r |= static_cast<unsigned>(v[l] == v[lane]) << l;
  return r;
}
template <class T>
T __shfl_sync(unsigned mask, T var, int src, int width = 32) {
  ::sieve_emu::checkWidth(width);
  const std::uint64_t* v = ::sieve_emu::warpExchange(mask, 3, ::sieve_emu::toBits(var));
  return ::sieve_emu::fromBits<T>(v[static_cast<unsigned>(src) & 31u]);
}
template <class T>
T __shfl_up_sync(unsigned mask, T var, unsigned delta, int width = 32) {
  ::sieve_emu::checkWidth(width);
  const unsigned lane = ::sieve_emu::ctx().thread.x & 31u;
  const std::uint64_t* v = ::sieve_emu::warpExchange(mask, 4, ::sieve_emu::toBits(var));
  return lane >= delta ? ::sieve_emu::fromBits<T>(v[lane - delta]) : var;
}
template <class T>
T __shfl_down_sync(unsigned mask, T var, unsigned delta, int width = 32) {
  ::sieve_emu::checkWidth(width);
  const unsigned lane = ::sieve_emu::ctx().thread.x & 31u;
  const std::uint64_t* v = ::sieve_emu::warpExchange(mask, 5, ::sieve_emu::toBits(var));
  return lane + delta < 32u ? ::sieve_emu::fromBits<T>(v[lane + delta]) : var;
}
template <class T>
T __shfl_xor_sync(unsigned mask, T var, int laneMask, int width = 32) {
  ::sieve_emu::checkWidth(width);
  const unsigned lane = ::sieve_emu::ctx().thread.x & 31u;
  const std::uint64_t* v = ::sieve_emu::warpExchange(mask, 6, ::sieve_emu::toBits(var));
  return ::sieve_emu::fromBits<T>(v[(lane ^ static_cast<unsigned>(laneMask)) & 31u]);
}

inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz(static_cast<unsigned>(x)); }
inline int __clzll(long long x) {
  return x == 0 ? 64 : __builtin_clzll(static_cast<unsigned long long>(x));
}
inline unsigned __brev(unsigned x) {
  unsigned r = 0;
  for (int i = 0; i < 32; ++i) r |= ((x >> i) & 1u) << (31 - i);
  return r;
}
template <class T>
T __ldg(const T* p) {
  return *p;
}
inline void __nanosleep(unsigned) { ::sieve_emu::spinYield(); }
inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_block() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }

template <class T>
T atomicAdd(T* p, T v) {
  return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);
}
template <class T>
T atomicExch(T* p, T v) {
  return __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST);
}
template <class T>
T atomicCAS(T* p, T expected, T desired) {
  __atomic_compare_exchange_n(p, &expected, desired, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  return expected;
}
