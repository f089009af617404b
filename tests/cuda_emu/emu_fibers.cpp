// SPDX-License-Identifier: Apache-2.0
// Sieve tests — the CUDA emulator's fibers (see include/sieve_cuda_emulator.hpp):
// the context switch, the scheduler that runs one block's CUDA threads as
// fibers on the calling OS thread in a seeded random order (each fiber that
// stops hands over straight to the next), and the device side they call
// (threadIdx / blockIdx, __syncthreads, warp collectives, the spin that lets
// others run, watched for stalls).
#include "emu_internal.hpp"

#include <sys/mman.h>

#include <chrono>
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
// The callee-saved registers only: the floating-point control state (MXCSR,
// the x87 control word) is the OS thread's, shared by the fibers that run on
// it (no kernel changes it: checked at the end of every block), not switched
// (saving and loading it at every switch cost about a tenth of the emulated
// suite's time).
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
  movq %rsp, (%rdi)
  movq %rsi, %rsp
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

// A fiber's region: a guard page, then its stack of kStackBytes, whose top
// lies kLine x colour(t) bytes below the region's end. Regions of a power of
// two would put the top of every stack in the same cache sets, and each
// switch would miss in L1 and L2: thread t's top lies (t % 16) pages past a
// 64 KiB boundary and colour(t) lines below its page, distinct for 1024
// threads modulo 64 KiB, and 64 consecutive threads take nearly distinct
// lines of a page.
constexpr std::size_t kStackBytes = std::size_t(64) << 10;
constexpr std::size_t kPage = 4096, kLine = 64;
constexpr std::size_t kStride = kPage + kStackBytes;
constexpr std::size_t colour(unsigned t) { return (17u * (t / 16u) + t % 16u) % 64u; }

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

/// The floating-point control state of the calling OS thread (x86-64:
/// MXCSR and the x87 control word; elsewhere swapcontext switches it).
struct FpControl {
  std::uint32_t mxcsr = 0, x87 = 0;
  bool operator!=(const FpControl& o) const { return mxcsr != o.mxcsr || x87 != o.x87; }
};
inline FpControl fpControl() {
  FpControl c;
#if defined(__x86_64__)
  std::uint16_t cw = 0;
  asm volatile("stmxcsr %0" : "=m"(c.mxcsr));
  asm volatile("fnstcw %0" : "=m"(cw));
  c.mxcsr &= ~0x3Fu; // the control bits, not the sticky exception flags
  c.x87 = cw;
#endif
  return c;
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
  Job* job = nullptr;
  std::uint64_t blockIndex = 0, rng = 0;
  // The stall watchdog: spins of this block, and when it last saw a block
  // of its launch end.
  std::uint64_t spins = 0, seenFinished = 0;
  bool watching = false;
  std::chrono::steady_clock::time_point progressAt{};
  const void* schedBottom = nullptr; // the scheduler's stack (AddressSanitizer)
  std::size_t schedSize = 0;
  void* schedFake = nullptr;

  ~Executor() { unmap(); }

  void unmap() {
    if (stacks == nullptr) return;
#if defined(SIEVE_EMU_ASAN)
    // No poison left behind for whatever maps these pages next.
    __asan_unpoison_memory_region(stacks, std::size_t(capacity) * kStride);
#endif
    munmap(stacks, std::size_t(capacity) * kStride);
    stacks = nullptr;
  }

  void reserve(unsigned n) {
    if (n <= capacity) return;
    unmap();
    void* p = mmap(nullptr, std::size_t(n) * kStride, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) fatal("cannot map fiber stacks");
    stacks = static_cast<unsigned char*>(p);
    capacity = n;
    for (unsigned t = 0; t < n; ++t) // the guard page under every stack
      mprotect(stackOf(t), kPage, PROT_NONE);
    fibers.resize(n);
    for (Fiber& f : fibers) f = Fiber{}; // none has run on the new stacks
  }

  Fiber& cur() { return fibers[current]; }

  unsigned char* stackOf(unsigned t) { return stacks + std::size_t(t) * kStride; }

  /// A seeded random pick from the runnable fibers, taken out of the set.
  unsigned pickRunnable() {
    const auto k = static_cast<std::size_t>( // uniform, no division
        (static_cast<unsigned __int128>(splitmix(rng)) * runnable.size()) >> 64);
    const unsigned t = runnable[k];
    runnable[k] = runnable.back();
    runnable.pop_back();
    return t;
  }

  /// From the running fiber straight to the next runnable one (a seeded
  /// random pick; itself, after a yield, runs on), or to the scheduler when
  /// none is runnable: the block is over, or stuck. `done`: the running
  /// fiber never comes back.
  void switchAway(bool done = false) {
    Fiber& f = cur();
    void** fake = done ? nullptr : &f.asanFake;
    if (runnable.empty()) {
      asanLeave(fake, schedBottom, schedSize);
#if defined(__x86_64__)
      sieve_emu_switch(&f.sp, schedSp);
#else
      swapcontext(&f.uc, &sched);
#endif
    } else {
      const unsigned next = pickRunnable();
      if (next == current) return;
      current = next;
      tCtx = &fibers[next].ctx;
      asanLeave(fake, stackOf(next), kStride);
#if defined(__x86_64__)
      sieve_emu_switch(&f.sp, fibers[next].sp);
#else
      swapcontext(&f.uc, &fibers[next].uc);
#endif
    }
    asanArrive(f.asanFake, nullptr, nullptr);
  }

  /// The running fiber waits until something makes it runnable again.
  void block() {
    cur().state = State::Waiting;
    switchAway();
  }
  /// The running fiber goes back to the runnable set and lets another run.
  void yield() {
    runnable.push_back(current);
    switchAway();
  }
  void wake(unsigned t) {
    fibers[t].state = State::Runnable;
    runnable.push_back(t);
  }

  /// A spinning thread of this block: abort when no block of the launch
  /// has ended for job->how.stallSeconds (checked every 64 spins).
  void watchStall() {
    const double limit = job->how.stallSeconds;
    if (limit <= 0 || (++spins & 63u) != 0) return;
    const std::uint64_t done = job->finished.load(std::memory_order_relaxed);
    const auto now = std::chrono::steady_clock::now();
    if (!watching || done != seenFinished) {
      watching = true;
      seenFinished = done;
      progressAt = now;
      return;
    }
    if (std::chrono::duration<double>(now - progressAt).count() < limit) return;
    const std::uint64_t started = job->next.load();
    char secs[32];
    std::snprintf(secs, sizeof secs, "%g", limit);
    fatal("block " + std::to_string(blockIndex) + " of " + std::to_string(job->blocks) +
          ": a thread has spun for " + secs + " s while no block of its launch ended (" +
          std::to_string(started < job->blocks ? started : job->blocks) + " started, " +
          std::to_string(done) +
          " ended): it waits on what no running block will do, such as a block that has not "
          "started (a kernel that relies on blocks starting in index order; CUDA promises "
          "none). Replay: " +
          describeDispatch(job->how));
  }

  void runBlock(Job& j, std::uint64_t b, std::uint64_t seed) {
    const dim3 grid = j.grid, blk = j.block;
    threads = blk.x * blk.y * blk.z;
    reserve(threads);
    body = j.fn;
    job = &j;
    blockIndex = b;
    rng = seed;
    spins = 0;
    watching = false;
    barrierArrived = finished = 0;
    barrierWaiting.clear();
    warps.assign((threads + 31) / 32, WarpState{});
    runnable.clear();
    const FpControl fpAtStart = fpControl();
    const uint3 bi{static_cast<unsigned>(b % grid.x), static_cast<unsigned>((b / grid.x) % grid.y),
                   static_cast<unsigned>(b / (std::uint64_t(grid.x) * grid.y))};
    const bool flat = blk.y == 1 && blk.z == 1;
    for (unsigned t = 0; t < threads; ++t) {
      Fiber& f = fibers[t];
      f.ctx.thread =
          flat ? uint3{t, 0, 0} : uint3{t % blk.x, (t / blk.x) % blk.y, t / (blk.x * blk.y)};
      f.ctx.block = bi;
      f.ctx.blockSize = blk;
      f.ctx.gridSize = grid;
      f.state = State::Runnable;
      unsigned char* base = stackOf(t);
#if defined(SIEVE_EMU_ASAN)
      // The frames a finished fiber never returned from stay poisoned: on
      // x86-64, those between its last stack pointer (its final switch) and
      // its top (every other frame unpoisoned itself as it returned).
#if defined(__x86_64__)
      if (f.sp != nullptr) {
        auto* last = static_cast<unsigned char*>(f.sp);
        __asan_unpoison_memory_region(last, static_cast<std::size_t>(base + kStride - last));
      }
#else
      __asan_unpoison_memory_region(base, kStride);
#endif
#endif
#if defined(__x86_64__)
      auto top = reinterpret_cast<std::uintptr_t>(base + kStride - kLine * colour(t)) &
                 ~std::uintptr_t(15);
      void** sp = reinterpret_cast<void**>(top);
      *--sp = nullptr;                              // fiberEntry's (absent) return address
      *--sp = reinterpret_cast<void*>(&fiberEntry); // where the first switch returns to
      for (int r = 0; r < 6; ++r) *--sp = nullptr;  // rbp rbx r12 r13 r14 r15
      f.sp = sp;
#else
      getcontext(&f.uc);
      f.uc.uc_stack.ss_sp = base;
      f.uc.uc_stack.ss_size = kStride;
      f.uc.uc_link = nullptr;
      makecontext(&f.uc, fiberEntryC, 0);
#endif
      runnable.push_back(t);
    }
    // The fibers pass control among themselves (switchAway); it comes back
    // here when none is runnable.
    tEx = this;
    current = pickRunnable();
    tCtx = &fibers[current].ctx;
    asanLeave(&schedFake, stackOf(current), kStride);
#if defined(__x86_64__)
    sieve_emu_switch(&schedSp, fibers[current].sp);
#else
    swapcontext(&sched, &fibers[current].uc);
#endif
    asanArrive(schedFake, nullptr, nullptr);
    tCtx = nullptr;
    tEx = nullptr;
    if (fpControl() != fpAtStart)
      fatal("block " + std::to_string(b) +
            ": a kernel changed the floating-point control state (rounding, exceptions), "
            "which the fibers of an OS thread share");
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
  const void* from = nullptr;
  std::size_t fromSize = 0;
  asanArrive(nullptr, &from, &fromSize);
  if (e->schedBottom == nullptr) { // the first fiber of all is entered from the scheduler
    e->schedBottom = from;
    e->schedSize = fromSize;
  }
  try {
    (*e->body)();
  } catch (...) {
    fatal("a kernel threw a C++ exception");
  }
  e = tEx;
  e->cur().state = State::Done;
  ++e->finished;
  e->switchAway(true);
  fatal("a finished fiber was resumed");
}

Executor& executor() {
  thread_local Executor e;
  return e;
}

} // namespace

void runBlock(Job& j, std::uint64_t b, std::uint64_t seed) { executor().runBlock(j, b, seed); }

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
  if (tEx != nullptr && tCtx != nullptr) {
    tEx->watchStall();
    tEx->yield();
  }
  std::this_thread::yield();
}

void checkWidth(int width) {
  if (width != 32) fatal("shuffles of width other than 32 are not emulated");
}

} // namespace sieve_emu
