// SPDX-License-Identifier: Apache-2.0
// Sieve tests — the CUDA emulator's fibers (see include/sieve_cuda_emulator.hpp):
// the context switch, the scheduler that runs one block's CUDA threads as
// fibers on the calling OS thread in a seeded random order, and the device
// side they call (threadIdx / blockIdx, __syncthreads, warp collectives).
#include "emu_internal.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#if !defined(__x86_64__)
#include <ucontext.h>
#endif

namespace sieve_emu {

[[noreturn]] void fatal(const std::string& what) {
  std::fprintf(stderr, "[sieve CUDA emulator] fatal: %s\n", what.c_str());
  std::fflush(stderr);
  std::abort();
}

namespace {

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
      *--sp = nullptr;                              // fiberEntry's (absent) return address
      *--sp = reinterpret_cast<void*>(&fiberEntry); // where the first switch returns to
      for (int r = 0; r < 6; ++r) *--sp = nullptr;  // rbp rbx r12 r13 r14 r15
      *--sp = nullptr;                              // MXCSR and the x87 control word:
      std::memcpy(sp, &fpEnv, sizeof fpEnv);        // the scheduler's
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

} // namespace

void runBlock(const std::function<void()>& fn, dim3 grid, dim3 blk, std::uint64_t b,
              std::uint64_t seed) {
  executor().runBlock(fn, grid, blk, b, seed);
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
