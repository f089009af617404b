// SPDX-License-Identifier: Apache-2.0
// Sieve tests — what the CUDA emulator's translation units share (private to
// tests/cuda_emu; kernels and tests see include/sieve_cuda_emulator.hpp only):
// emu_fibers.cpp runs one block at a time on the calling OS thread, every CUDA
// thread a fiber; emu_pool.cpp runs the blocks of a launch at once on a pool
// of OS threads; emu_runtime.cpp is the runtime subset (allocations, copies,
// streams, graph capture, launches).
#pragma once

#include "sieve_cuda_emulator.hpp"

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>

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

/// Reports `what` on stderr and aborts (emu_fibers.cpp).
[[noreturn]] void fatal(const std::string& what);

/// The most threads a block may have.
constexpr unsigned kMaxThreads = 1024;

/// SplitMix64: the next value of the stream whose state is `s`.
inline std::uint64_t splitmix(std::uint64_t& s) {
  std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// ---- fibers (emu_fibers.cpp) ----------------------------------------------------
/// Runs block `b` of `fn` over `grid` x `blk` on the calling OS thread, its
/// threads fibers scheduled in the order `seed` draws; aborts on a divergent
/// barrier or warp collective.
void runBlock(const std::function<void()>& fn, dim3 grid, dim3 blk, std::uint64_t b,
              std::uint64_t seed);

// ---- the pool of OS threads (emu_pool.cpp) --------------------------------------
/// A launch: its body, its shape, and the next block to take.
struct Job {
  const std::function<void()>* fn;
  dim3 grid, block;
  std::uint64_t blocks, seed;
  std::atomic<std::uint64_t> next{0};
};

/// Runs every block of `j` on the pool (the calling thread included) and
/// returns when all are done.
void runOnPool(Job& j);

} // namespace sieve_emu
