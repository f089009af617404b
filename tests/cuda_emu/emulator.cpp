// SPDX-License-Identifier: Apache-2.0
// Sieve tests — the CUDA emulator (see include/sieve_cuda_emulator.hpp): the
// runtime subset, the fiber scheduler that runs a block's threads, and the
// pool of OS threads that runs blocks at once.
#include "sieve_cuda_emulator.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#if !defined(__x86_64__)
#include <ucontext.h>
#endif

// AddressSanitizer follows the switches between stacks (the sanitizer CI run).
#if defined(__SANITIZE_ADDRESS__)
#define SIEVE_EMU_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SIEVE_EMU_ASAN 1
#endif
#endif
#if defined(SIEVE_EMU_ASAN)
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

namespace sieve_emu {
namespace {

[[noreturn]] void fatal(const std::string& what) {
  std::fprintf(stderr, "[sieve CUDA emulator] fatal: %s\n", what.c_str());
  std::fflush(stderr);
  std::abort();
}

// ---- context switch ------------------------------------------------------------
#if defined(__x86_64__)
extern "C" void sieve_emu_switch(void** save, void* to);
asm(R"(
  .text
  .p2align 4
  .globl sieve_emu_switch
  .type sieve_emu_switch, @function
sieve_emu_switch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  subq $8, %rsp
  stmxcsr (%rsp)
  fnstcw 4(%rsp)
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  ldmxcsr (%rsp)
  fldcw 4(%rsp)
  addq $8, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size sieve_emu_switch, .-sieve_emu_switch
  .section .note.GNU-stack,"",@progbits
  .text
)");
#endif

constexpr std::size_t kStackBytes = std::size_t(64) << 10;
constexpr unsigned kMaxThreads = 1024;

enum class State { Runnable, Waiting, Done };

struct Fiber {
#if defined(__x86_64__)
  void* sp = nullptr;
#else
  ucontext_t uc;
#endif
  ThreadCtx ctx{};
  State state = State::Runnable;
  void* asanFake = nullptr; // AddressSanitizer's fake stack while switched out
};

struct WarpState {
  unsigned arrived = 0, gen = 0;
  int kind[2] = {0, 0};
  std::uint64_t slots[2][32] = {};
  unsigned waiting[32] = {};
  unsigned nWaiting = 0;
};

std::uint64_t splitmix(std::uint64_t& s) {
  std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// Tell AddressSanitizer about a switch to the stack [bottom, bottom + size)
/// (`save`: where the leaving context keeps its fake stack; null when it
/// never comes back) and, once there, that it arrived.
inline void asanLeave(void** save, const void* bottom, std::size_t size) {
#if defined(SIEVE_EMU_ASAN)
  __sanitizer_start_switch_fiber(save, bottom, size);
#else
  (void)save, (void)bottom, (void)size;
#endif
}
inline void asanArrive(void* fake, const void** fromBottom, std::size_t* fromSize) {
#if defined(SIEVE_EMU_ASAN)
  __sanitizer_finish_switch_fiber(fake, fromBottom, fromSize);
#else
  (void)fake, (void)fromBottom, (void)fromSize;
#endif
}

struct Executor;
thread_local Executor* tEx = nullptr;
thread_local const ThreadCtx* tCtx = nullptr;

[[noreturn]] void fiberEntry();
#if !defined(__x86_64__)
void fiberEntryC() { fiberEntry(); }
#endif

/// Runs blocks on the calling OS thread, one at a time, every CUDA thread of
/// a block a fiber.
struct Executor {
  unsigned char* stacks = nullptr;
  unsigned capacity = 0;
  std::vector<Fiber> fibers;
  std::vector<unsigned> runnable, barrierWaiting;
  std::vector<WarpState> warps;
  unsigned threads = 0, barrierArrived = 0, finished = 0, current = 0;
#if defined(__x86_64__)
  void* schedSp = nullptr;
#else
  ucontext_t sched;
#endif
  const std::function<void()>* body = nullptr;
  std::uint64_t rng = 0;
  const void* schedBottom = nullptr; // the scheduler's stack (AddressSanitizer)
  std::size_t schedSize = 0;
  void* schedFake = nullptr;

  ~Executor() {
    if (stacks != nullptr) munmap(stacks, std::size_t(capacity) * kStackBytes);
  }

  void reserve(unsigned n) {
    if (n <= capacity) return;
    if (stacks != nullptr) munmap(stacks, std::size_t(capacity) * kStackBytes);
    void* p = mmap(nullptr, std::size_t(n) * kStackBytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) fatal("cannot map fiber stacks");
    stacks = static_cast<unsigned char*>(p);
    capacity = n;
    const long page = sysconf(_SC_PAGESIZE);
    for (unsigned t = 0; t < n; ++t) // a guard page under every stack
      mprotect(stacks + std::size_t(t) * kStackBytes, static_cast<std::size_t>(page), PROT_NONE);
    fibers.resize(n);
  }

  Fiber& cur() { return fibers[current]; }

  unsigned char* stackOf(unsigned t) { return stacks + std::size_t(t) * kStackBytes; }

  /// From the running fiber to the scheduler (`done`: never to come back).
  void switchToScheduler(bool done = false) {
    Fiber& f = cur();
    asanLeave(done ? nullptr : &f.asanFake, schedBottom, schedSize);
#if defined(__x86_64__)
    sieve_emu_switch(&f.sp, schedSp);
#else
    swapcontext(&f.uc, &sched);
#endif
    asanArrive(f.asanFake, nullptr, nullptr);
  }

  /// The running fiber waits until something makes it runnable again.
  void block() {
    cur().state = State::Waiting;
    switchToScheduler();
  }
  /// The running fiber goes to the back of the runnable set and lets another run.
  void yield() {
    runnable.push_back(current);
    switchToScheduler();
  }
  void wake(unsigned t) {
    fibers[t].state = State::Runnable;
    runnable.push_back(t);
  }

  void runBlock(const std::function<void()>& fn, dim3 grid, dim3 blk, std::uint64_t b,
                std::uint64_t seed) {
    threads = blk.x * blk.y * blk.z;
    reserve(threads);
    body = &fn;
    rng = seed;
    barrierArrived = finished = 0;
    barrierWaiting.clear();
    warps.assign((threads + 31) / 32, WarpState{});
    runnable.clear();
#if defined(__x86_64__)
    // The floating-point control state a fiber starts with (saved and
    // restored at every switch, as the ABI keeps it across calls).
    std::uint32_t fpEnv[2] = {0, 0};
    asm volatile("stmxcsr %0" : "=m"(fpEnv[0]));
    asm volatile("fnstcw %0" : "=m"(fpEnv[1]));
#endif
    const uint3 bi{static_cast<unsigned>(b % grid.x), static_cast<unsigned>((b / grid.x) % grid.y),
                   static_cast<unsigned>(b / (std::uint64_t(grid.x) * grid.y))};
    for (unsigned t = 0; t < threads; ++t) {
      Fiber& f = fibers[t];
      f.ctx.thread = {t % blk.x, (t / blk.x) % blk.y, t / (blk.x * blk.y)};
      f.ctx.block = bi;
      f.ctx.blockSize = blk;
      f.ctx.gridSize = grid;
      f.state = State::Runnable;
      unsigned char* base = stacks + std::size_t(t) * kStackBytes;
#if defined(SIEVE_EMU_ASAN)
      // The frames a finished fiber never returned from stay poisoned.
      __asan_unpoison_memory_region(base, kStackBytes);
#endif
#if defined(__x86_64__)
      auto top = reinterpret_cast<std::uintptr_t>(base + kStackBytes) & ~std::uintptr_t(15);
      void** sp = reinterpret_cast<void**>(top);
      *--sp = nullptr;                                 // fiberEntry's (absent) return address
      *--sp = reinterpret_cast<void*>(&fiberEntry);    // where the first switch returns to
      for (int r = 0; r < 6; ++r) *--sp = nullptr;     // rbp rbx r12 r13 r14 r15
      *--sp = nullptr;                                 // MXCSR and the x87 control word:
      std::memcpy(sp, &fpEnv, sizeof fpEnv);           // the scheduler's
      f.sp = sp;
#else
      getcontext(&f.uc);
      f.uc.uc_stack.ss_sp = base;
      f.uc.uc_stack.ss_size = kStackBytes;
      f.uc.uc_link = nullptr;
      makecontext(&f.uc, fiberEntryC, 0);
#endif
      runnable.push_back(t);
    }
    tEx = this;
    while (!runnable.empty()) {
      const std::size_t k = splitmix(rng) % runnable.size();
      current = runnable[k];
      runnable[k] = runnable.back();
      runnable.pop_back();
      tCtx = &fibers[current].ctx;
      asanLeave(&schedFake, stackOf(current), kStackBytes);
#if defined(__x86_64__)
      sieve_emu_switch(&schedSp, fibers[current].sp);
#else
      swapcontext(&sched, &fibers[current].uc);
#endif
      asanArrive(schedFake, nullptr, nullptr);
    }
    tCtx = nullptr;
    tEx = nullptr;
    if (finished != threads) {
      unsigned inWarp = 0;
      for (const auto& w : warps) inWarp += w.nWaiting;
      fatal("block " + std::to_string(b) + ": " + std::to_string(threads - finished) +
            " threads can never finish (" + std::to_string(barrierWaiting.size()) +
            " wait at a __syncthreads that " + std::to_string(threads - barrierWaiting.size()) +
            " threads never reach, " + std::to_string(inWarp) +
            " in a warp collective not every lane reaches): divergent barrier or early exit");
    }
  }
};

void fiberEntry() {
  Executor* e = tEx;
  asanArrive(nullptr, &e->schedBottom, &e->schedSize);
  try {
    (*e->body)();
  } catch (...) {
    fatal("a kernel threw a C++ exception");
  }
  e = tEx;
  e->cur().state = State::Done;
  ++e->finished;
  e->switchToScheduler(true);
  fatal("a finished fiber was resumed");
}

Executor& executor() {
  thread_local Executor e;
  return e;
}

// ---- the pool of OS threads that run blocks at once ---------------------------
struct Job {
  const std::function<void()>* fn;
  dim3 grid, block;
  std::uint64_t blocks, seed;
  std::atomic<std::uint64_t> next{0};
};

void work(Job& j) {
  Executor& ex = executor();
  for (;;) {
    const std::uint64_t b = j.next.fetch_add(1);
    if (b >= j.blocks) return;
    std::uint64_t s = j.seed ^ (b * 0xD1B54A32D192ED03ull);
    ex.runBlock(*j.fn, j.grid, j.block, b, splitmix(s));
  }
}

class Pool {
 public:
  Pool() {
    long workers = 4;
    if (const char* w = std::getenv("SIEVE_EMU_WORKERS")) workers = std::strtol(w, nullptr, 10);
    workers = workers < 1 ? 1 : workers > 64 ? 64 : workers;
    for (long k = 1; k < workers; ++k) threads_.emplace_back([this] { loop(); });
  }
  ~Pool() {
    {
      std::lock_guard<std::mutex> lk(m_);
      stop_ = true;
    }
    cv_.notify_all();
    for (auto& t : threads_) t.join();
  }
  void run(Job& j) {
    if (j.blocks == 1 || threads_.empty()) {
      work(j);
      return;
    }
    {
      std::lock_guard<std::mutex> lk(m_);
      job_ = &j;
      ++generation_;
      busy_ = static_cast<unsigned>(threads_.size());
    }
    cv_.notify_all();
    work(j);
    std::unique_lock<std::mutex> lk(m_);
    done_.wait(lk, [&] { return busy_ == 0; });
    job_ = nullptr;
  }

 private:
  void loop() {
    std::uint64_t seen = 0;
    for (;;) {
      Job* j = nullptr;
      {
        std::unique_lock<std::mutex> lk(m_);
        cv_.wait(lk, [&] { return stop_ || generation_ != seen; });
        if (stop_) return;
        seen = generation_;
        j = job_;
      }
      work(*j);
      std::lock_guard<std::mutex> lk(m_);
      if (--busy_ == 0) done_.notify_all();
    }
  }
  std::mutex m_;
  std::condition_variable cv_, done_;
  std::vector<std::thread> threads_;
  Job* job_ = nullptr;
  std::uint64_t generation_ = 0;
  unsigned busy_ = 0;
  bool stop_ = false;
};

Pool& pool() {
  static Pool p;
  return p;
}

// ---- the runtime's state ---------------------------------------------------------
std::mutex gMutex; // launches, allocations and streams (the tests call from one thread)
std::atomic<std::uint64_t> gLaunches{0};
std::uint64_t gSeed = [] {
  const char* s = std::getenv("SIEVE_EMU_SEED");
  return s != nullptr ? std::strtoull(s, nullptr, 0) : 0x5137E5EEDull;
}();
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
  if (threads % 32 != 0) fatal("blocks of whole warps only (" + std::to_string(threads) + " threads)");
  std::lock_guard<std::mutex> lk(gMutex);
  const std::uint64_t blocks = std::uint64_t(grid.x) * grid.y * grid.z;
  auto fn = std::make_shared<std::function<void()>>(std::move(body));
  return enqueue(stream, [fn, grid, block, blocks] {
    Job j;
    j.fn = fn.get();
    j.grid = grid;
    j.block = block;
    j.blocks = blocks;
    j.seed = gSeed ^ (gLaunches.fetch_add(1) * 0x9E3779B97F4A7C15ull);
    pool().run(j);
  });
}

const ThreadCtx& ctx() {
  if (tCtx == nullptr) fatal("threadIdx / blockIdx read outside a kernel");
  return *tCtx;
}

void syncthreads() {
  Executor* e = tEx;
  if (e == nullptr || tCtx == nullptr) fatal("__syncthreads outside a kernel");
  if (++e->barrierArrived == e->threads) {
    e->barrierArrived = 0;
    for (unsigned t : e->barrierWaiting) e->wake(t);
    e->barrierWaiting.clear();
    e->yield();
  } else {
    e->barrierWaiting.push_back(e->current);
    e->block();
  }
}

const std::uint64_t* warpExchange(unsigned mask, int kind, std::uint64_t value) {
  Executor* e = tEx;
  if (e == nullptr || tCtx == nullptr) fatal("a warp collective outside a kernel");
  if (mask != 0xFFFFFFFFu) fatal("warp collectives with a partial mask are not emulated");
  const unsigned t = e->current, lane = t & 31u;
  WarpState& w = e->warps[t / 32];
  const unsigned buf = w.gen & 1u;
  if (w.arrived == 0) w.kind[buf] = kind;
  else if (w.kind[buf] != kind)
    fatal("warp " + std::to_string(t / 32) + ": lanes meet in different warp collectives (" +
          std::to_string(w.kind[buf]) + " and " + std::to_string(kind) + "): divergence");
  w.slots[buf][lane] = value;
  if (++w.arrived == 32) {
    w.arrived = 0;
    ++w.gen;
    for (unsigned k = 0; k < w.nWaiting; ++k) e->wake(w.waiting[k]);
    w.nWaiting = 0;
    e->yield();
  } else {
    w.waiting[w.nWaiting++] = t;
    e->block();
  }
  return w.slots[buf];
}

void spinYield() {
  if (tEx != nullptr && tCtx != nullptr) tEx->yield();
  std::this_thread::yield();
}

void checkWidth(int width) {
  if (width != 32) fatal("shuffles of width other than 32 are not emulated");
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
         (srcDev || !deviceRange(src, 1) || bytes == 0) && (dstDev || !deviceRange(dst, 1) || bytes == 0);
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
  case cudaErrorStreamCaptureInvalidated: return "operation failed due to a previous error during capture";
  case cudaErrorStreamCaptureImplicit: return "operation would make the legacy stream depend on a capturing blocking stream";
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
