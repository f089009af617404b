// SPDX-License-Identifier: Apache-2.0
// Sieve tests — the CUDA emulator's runtime subset (see
// include/sieve_cuda_emulator.hpp): allocations, copies and memsets, streams,
// graph capture with CUDA's ThreadLocal rules, graphs, errors, the device
// queries, and launches (run on the pool of emu_pool.cpp) with their
// dispatch settings (the blocks' start order, the stall watchdog).
#include "emu_internal.hpp"

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace sieve_emu {
namespace {

// ---- the runtime's state ---------------------------------------------------------
std::mutex gMutex; // launches, allocations and streams (the tests call from one thread)
std::atomic<std::uint64_t> gLaunches{0};
std::uint64_t gSeed = [] {
  const char* s = std::getenv("SIEVE_EMU_SEED");
  return s != nullptr ? std::strtoull(s, nullptr, 0) : 0x5137E5EEDull;
}();
/// SIEVE_EMU_BLOCK_ORDER: unset, empty or `random` (a seed drawn from
/// SIEVE_EMU_SEED), `ordered`, or a seed (a number, as strtoull reads it).
/// SIEVE_EMU_STALL_SECONDS: the stall watchdog's limit (0: off).
Dispatch gDispatch = [] {
  Dispatch d;
  std::uint64_t s = gSeed ^ 0xB10C0DE5ull;
  d.seed = splitmix(s);
  const char* o = std::getenv("SIEVE_EMU_BLOCK_ORDER");
  const std::string order = o != nullptr ? o : "";
  if (order == "ordered") {
    d.ordered = true;
  } else if (!order.empty() && order != "random") {
    char* end = nullptr;
    d.seed = std::strtoull(order.c_str(), &end, 0);
    if (end == nullptr || *end != '\0')
      fatal("SIEVE_EMU_BLOCK_ORDER=" + order + ": not `ordered`, `random` nor a seed");
  }
  if (const char* t = std::getenv("SIEVE_EMU_STALL_SECONDS")) {
    char* end = nullptr;
    d.stallSeconds = std::strtod(t, &end);
    if (end == t || *end != '\0' || !(d.stallSeconds >= 0))
      fatal(std::string("SIEVE_EMU_STALL_SECONDS=") + t + ": not a number of seconds");
  }
  return d;
}();
bool gDispatchShown = false;
std::map<std::uintptr_t, std::size_t> gAllocs;
std::size_t gAllocated = 0;
constexpr std::size_t kDeviceBytes = std::size_t(4) << 30; // what cudaMemGetInfo reports
thread_local cudaError_t tLastError = cudaSuccess;
thread_local int tDevice = 0;
thread_local int tCaptures = 0; // streams this thread is capturing
} // namespace
} // namespace sieve_emu

struct CUgraph_st {
  std::vector<std::function<void()>> nodes;
};
struct CUgraphExec_st {
  std::vector<std::function<void()>> nodes;
};
struct CUstream_st {
  unsigned flags = 0;
  bool capturing = false, invalidated = false;
  CUgraph_st* graph = nullptr;
};

namespace sieve_emu {
namespace {
std::set<CUstream_st*> gStreams;

cudaError_t fail(cudaError_t e) {
  if (e != cudaSuccess) tLastError = e;
  return e;
}

bool isLegacy(cudaStream_t s) { return s == nullptr || s == cudaStreamLegacy; }

/// A call CUDA forbids while this thread captures (ThreadLocal mode): it
/// fails and invalidates the captures in progress.
cudaError_t unsafeDuringCapture() {
  if (tCaptures == 0) return cudaSuccess;
  for (auto* s : gStreams)
    if (s->capturing) s->invalidated = true;
  return fail(cudaErrorStreamCaptureUnsupported);
}

bool deviceRange(const void* p, std::size_t bytes) {
  if (bytes == 0) return true;
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  auto it = gAllocs.upper_bound(a);
  if (it == gAllocs.begin()) return false;
  --it;
  return a >= it->first && a + bytes <= it->first + it->second;
}

cudaError_t checkStream(cudaStream_t s) {
  if (isLegacy(s) || s == cudaStreamPerThread || gStreams.count(s) != 0) return cudaSuccess;
  return fail(cudaErrorInvalidResourceHandle);
}

/// Run `op` now, or record it into the graph of the stream being captured.
cudaError_t enqueue(cudaStream_t s, std::function<void()> op) {
  if (cudaError_t e = checkStream(s); e != cudaSuccess) return e;
  if (!isLegacy(s) && s != cudaStreamPerThread && s->capturing) {
    s->graph->nodes.push_back(std::move(op));
    return cudaSuccess;
  }
  if (isLegacy(s) && tCaptures > 0) { // the legacy stream would join the capture
    for (auto* st : gStreams)
      if (st->capturing) st->invalidated = true;
    return fail(cudaErrorStreamCaptureImplicit);
  }
  op();
  return cudaSuccess;
}
} // namespace

cudaError_t launchBody(dim3 grid, dim3 block, cudaStream_t stream, std::function<void()> body) {
  const std::uint64_t threads = std::uint64_t(block.x) * block.y * block.z;
  if (grid.x == 0 || grid.y == 0 || grid.z == 0 || threads == 0 || threads > kMaxThreads)
    return fail(cudaErrorInvalidConfiguration);
  if (threads % 32 != 0)
    fatal("blocks of whole warps only (" + std::to_string(threads) + " threads)");
  std::lock_guard<std::mutex> lk(gMutex);
  const std::uint64_t blocks = std::uint64_t(grid.x) * grid.y * grid.z;
  auto fn = std::make_shared<std::function<void()>>(std::move(body));
  return enqueue(stream, [fn, grid, block, blocks] {
    // (Run with gMutex held: by launchBody, or by cudaGraphLaunch.)
    if (!gDispatchShown) {
      gDispatchShown = true;
      std::fprintf(stderr, "[sieve CUDA emulator] blocks start %s; replay: %s\n",
                   gDispatch.ordered ? "in index order" : "in a random order",
                   describeDispatch(gDispatch).c_str());
    }
    const std::uint64_t k = gLaunches.fetch_add(1);
    Job j;
    j.fn = fn.get();
    j.grid = grid;
    j.block = block;
    j.blocks = blocks;
    j.seed = gSeed ^ (k * 0x9E3779B97F4A7C15ull);
    j.how = gDispatch;
    if (!j.how.ordered) j.order = Permutation(blocks, j.how.seed ^ (k * 0xD6E8FEB86659FD93ull));
    runOnPool(j);
  });
}

Dispatch dispatch() {
  std::lock_guard<std::mutex> lk(gMutex);
  return gDispatch;
}

void setDispatch(const Dispatch& d) {
  std::lock_guard<std::mutex> lk(gMutex);
  gDispatch = d;
}

std::string describeDispatch(const Dispatch& d) {
  char line[128];
  const auto seed = static_cast<unsigned long long>(gSeed);
  if (d.ordered)
    std::snprintf(line, sizeof line, "SIEVE_EMU_SEED=0x%llx SIEVE_EMU_BLOCK_ORDER=ordered", seed);
  else
    std::snprintf(line, sizeof line, "SIEVE_EMU_SEED=0x%llx SIEVE_EMU_BLOCK_ORDER=0x%llx", seed,
                  static_cast<unsigned long long>(d.seed));
  return line;
}

} // namespace sieve_emu

using namespace sieve_emu;

cudaError_t cudaMalloc(void** p, std::size_t bytes) {
  if (p == nullptr) return fail(cudaErrorInvalidValue);
  std::lock_guard<std::mutex> lk(gMutex);
  if (cudaError_t e = unsafeDuringCapture(); e != cudaSuccess) return e;
  const std::size_t rounded = (bytes + 255) / 256 * 256 + 256;
  if (gAllocated + rounded > kDeviceBytes) return fail(cudaErrorMemoryAllocation);
  void* q = std::aligned_alloc(256, rounded);
  if (q == nullptr) return fail(cudaErrorMemoryAllocation);
  gAllocs[reinterpret_cast<std::uintptr_t>(q)] = bytes;
  gAllocated += rounded;
#if defined(SIEVE_EMU_ASAN)
  // Past the requested bytes is out of bounds (memcheck's rule), not slack.
  __asan_poison_memory_region(static_cast<unsigned char*>(q) + bytes, rounded - bytes);
#endif
  *p = q;
  return cudaSuccess;
}

cudaError_t cudaFree(void* p) {
  if (p == nullptr) return cudaSuccess;
  std::lock_guard<std::mutex> lk(gMutex);
  if (cudaError_t e = unsafeDuringCapture(); e != cudaSuccess) return e;
  auto it = gAllocs.find(reinterpret_cast<std::uintptr_t>(p));
  if (it == gAllocs.end()) return fail(cudaErrorInvalidValue);
  const std::size_t rounded = (it->second + 255) / 256 * 256 + 256;
  gAllocated -= rounded;
#if defined(SIEVE_EMU_ASAN)
  __asan_unpoison_memory_region(p, rounded);
#endif
  gAllocs.erase(it);
  std::free(p);
  return cudaSuccess;
}

cudaError_t cudaMemset(void* p, int value, std::size_t bytes) {
  std::lock_guard<std::mutex> lk(gMutex);
  if (cudaError_t e = unsafeDuringCapture(); e != cudaSuccess) return e;
  if (!deviceRange(p, bytes)) return fail(cudaErrorInvalidValue);
  if (bytes != 0) std::memset(p, value, bytes);
  return cudaSuccess;
}

cudaError_t cudaMemsetAsync(void* p, int value, std::size_t bytes, cudaStream_t s) {
  std::lock_guard<std::mutex> lk(gMutex);
  if (!deviceRange(p, bytes)) return fail(cudaErrorInvalidValue);
  return enqueue(s, [p, value, bytes] {
    if (bytes != 0) std::memset(p, value, bytes);
  });
}

namespace {
bool copyRanges(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind) {
  const bool srcDev = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
  const bool dstDev = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
  if (kind == cudaMemcpyDefault) return true;
  return (!srcDev || deviceRange(src, bytes)) && (!dstDev || deviceRange(dst, bytes)) &&
         (srcDev || !deviceRange(src, 1) || bytes == 0) &&
         (dstDev || !deviceRange(dst, 1) || bytes == 0);
}
} // namespace

cudaError_t cudaMemcpy(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind) {
  std::lock_guard<std::mutex> lk(gMutex);
  if (cudaError_t e = unsafeDuringCapture(); e != cudaSuccess) return e;
  if (!copyRanges(dst, src, bytes, kind)) return fail(cudaErrorInvalidValue);
  if (bytes != 0) std::memmove(dst, src, bytes);
  return cudaSuccess;
}

cudaError_t cudaMemcpyAsync(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind,
                            cudaStream_t s) {
  std::lock_guard<std::mutex> lk(gMutex);
  if (!copyRanges(dst, src, bytes, kind)) return fail(cudaErrorInvalidValue);
  return enqueue(s, [dst, src, bytes] {
    if (bytes != 0) std::memmove(dst, src, bytes);
  });
}

cudaError_t cudaMemGetInfo(std::size_t* freeBytes, std::size_t* totalBytes) {
  std::lock_guard<std::mutex> lk(gMutex);
  *freeBytes = kDeviceBytes - gAllocated;
  *totalBytes = kDeviceBytes;
  return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize() {
  std::lock_guard<std::mutex> lk(gMutex);
  return unsafeDuringCapture();
}

cudaError_t cudaStreamCreate(cudaStream_t* s) { return cudaStreamCreateWithFlags(s, 0); }

cudaError_t cudaStreamCreateWithFlags(cudaStream_t* s, unsigned flags) {
  if (s == nullptr || flags > 1u) return fail(cudaErrorInvalidValue);
  std::lock_guard<std::mutex> lk(gMutex);
  auto* st = new CUstream_st;
  st->flags = flags;
  gStreams.insert(st);
  *s = st;
  return cudaSuccess;
}

cudaError_t cudaStreamDestroy(cudaStream_t s) {
  std::lock_guard<std::mutex> lk(gMutex);
  if (isLegacy(s) || gStreams.count(s) == 0) return fail(cudaErrorInvalidResourceHandle);
  if (s->capturing) {
    --tCaptures;
    delete s->graph;
  }
  gStreams.erase(s);
  delete s;
  return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t s) {
  std::lock_guard<std::mutex> lk(gMutex);
  if (cudaError_t e = checkStream(s); e != cudaSuccess) return e;
  if (!isLegacy(s) && s != cudaStreamPerThread && s->capturing) {
    s->invalidated = true;
    return fail(cudaErrorStreamCaptureUnsupported);
  }
  if (isLegacy(s)) return unsafeDuringCapture();
  return cudaSuccess;
}

cudaError_t cudaStreamBeginCapture(cudaStream_t s, cudaStreamCaptureMode) {
  std::lock_guard<std::mutex> lk(gMutex);
  if (isLegacy(s) || s == cudaStreamPerThread) return fail(cudaErrorStreamCaptureUnsupported);
  if (cudaError_t e = checkStream(s); e != cudaSuccess) return e;
  if (s->capturing) return fail(cudaErrorIllegalState);
  s->capturing = true;
  s->invalidated = false;
  s->graph = new CUgraph_st;
  ++tCaptures;
  return cudaSuccess;
}

cudaError_t cudaStreamEndCapture(cudaStream_t s, cudaGraph_t* graph) {
  std::lock_guard<std::mutex> lk(gMutex);
  if (isLegacy(s) || gStreams.count(s) == 0) return fail(cudaErrorInvalidResourceHandle);
  if (!s->capturing) return fail(cudaErrorIllegalState);
  s->capturing = false;
  --tCaptures;
  if (s->invalidated) {
    delete s->graph;
    s->graph = nullptr;
    *graph = nullptr;
    return fail(cudaErrorStreamCaptureInvalidated);
  }
  *graph = s->graph;
  s->graph = nullptr;
  return cudaSuccess;
}

cudaError_t cudaGraphInstantiate(cudaGraphExec_t* exec, cudaGraph_t graph, unsigned long long) {
  if (exec == nullptr || graph == nullptr) return fail(cudaErrorInvalidValue);
  *exec = new CUgraphExec_st{graph->nodes};
  return cudaSuccess;
}

cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t s) {
  if (exec == nullptr) return fail(cudaErrorInvalidValue);
  std::lock_guard<std::mutex> lk(gMutex);
  if (cudaError_t e = checkStream(s); e != cudaSuccess) return e;
  if (!isLegacy(s) && s != cudaStreamPerThread && s->capturing) {
    for (const auto& n : exec->nodes) s->graph->nodes.push_back(n);
    return cudaSuccess;
  }
  if (isLegacy(s) && tCaptures > 0) return unsafeDuringCapture();
  for (const auto& n : exec->nodes) n();
  return cudaSuccess;
}

cudaError_t cudaGraphDestroy(cudaGraph_t graph) {
  delete graph;
  return cudaSuccess;
}
cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec) {
  delete exec;
  return cudaSuccess;
}

cudaError_t cudaGetLastError() {
  const cudaError_t e = tLastError;
  tLastError = cudaSuccess;
  return e;
}
cudaError_t cudaPeekAtLastError() { return tLastError; }

const char* cudaGetErrorName(cudaError_t err) {
  switch (err) {
  case cudaSuccess: return "cudaSuccess";
  case cudaErrorInvalidValue: return "cudaErrorInvalidValue";
  case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
  case cudaErrorInvalidConfiguration: return "cudaErrorInvalidConfiguration";
  case cudaErrorInvalidDevice: return "cudaErrorInvalidDevice";
  case cudaErrorInvalidResourceHandle: return "cudaErrorInvalidResourceHandle";
  case cudaErrorIllegalState: return "cudaErrorIllegalState";
  case cudaErrorStreamCaptureUnsupported: return "cudaErrorStreamCaptureUnsupported";
  case cudaErrorStreamCaptureInvalidated: return "cudaErrorStreamCaptureInvalidated";
  case cudaErrorStreamCaptureUnmatched: return "cudaErrorStreamCaptureUnmatched";
  case cudaErrorStreamCaptureImplicit: return "cudaErrorStreamCaptureImplicit";
  case cudaErrorStreamCaptureWrongThread: return "cudaErrorStreamCaptureWrongThread";
  }
  return "cudaErrorUnknown";
}
const char* cudaGetErrorString(cudaError_t err) {
  switch (err) {
  case cudaSuccess: return "no error";
  case cudaErrorInvalidConfiguration: return "invalid configuration argument";
  case cudaErrorInvalidDevice: return "invalid device ordinal";
  case cudaErrorStreamCaptureUnsupported: return "operation not permitted when stream is capturing";
  case cudaErrorStreamCaptureInvalidated:
    return "operation failed due to a previous error during capture";
  case cudaErrorStreamCaptureImplicit:
    return "operation would make the legacy stream depend on a capturing blocking stream";
  default: return "emulated CUDA error";
  }
}

cudaError_t cudaGetDevice(int* device) {
  *device = tDevice;
  return cudaSuccess;
}
cudaError_t cudaSetDevice(int device) {
  if (device != 0) return fail(cudaErrorInvalidDevice);
  tDevice = device;
  return cudaSuccess;
}
cudaError_t cudaGetDeviceCount(int* count) {
  *count = 1;
  return cudaSuccess;
}
cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device) {
  if (device != 0) return fail(cudaErrorInvalidDevice);
  switch (attr) {
  case cudaDevAttrMaxThreadsPerBlock: *value = 1024; return cudaSuccess;
  case cudaDevAttrMultiProcessorCount: *value = 132; return cudaSuccess;
  case cudaDevAttrComputeCapabilityMajor: *value = 9; return cudaSuccess;
  case cudaDevAttrComputeCapabilityMinor: *value = 0; return cudaSuccess;
  }
  return fail(cudaErrorInvalidValue);
}
