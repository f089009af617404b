// SPDX-License-Identifier: Apache-2.0
// Sieve tests — what the CUDA emulator's translation units share (private to
// tests/cuda_emu; kernels and tests see include/sieve_cuda_emulator.hpp only):
// emu_fibers.cpp runs one block at a time on the calling OS thread, every CUDA
// thread a fiber; emu_pool.cpp runs the blocks of a launch at once on a pool
// of OS threads, in the order of the launch's dispatch (index order or a
// seeded permutation); emu_runtime.cpp is the runtime subset (allocations,
// copies, streams, graph capture, launches, the dispatch settings).
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

/// A seeded bijection of [0, n) (n >= 1): rounds of an odd multiply, an
/// added key and an xor-shift on the smallest power of two that holds n
/// (each a bijection there), walked until the value falls inside [0, n)
/// (cycle walking: fewer than two rounds on average). The blocks' random
/// dispatch order; no allocation, any grid size.
class Permutation {
 public:
  Permutation(std::uint64_t n, std::uint64_t seed) : n_(n) {
    while (bits_ < 64 && (std::uint64_t(1) << bits_) < n) ++bits_;
    mask_ = bits_ == 64 ? ~std::uint64_t(0) : (std::uint64_t(1) << bits_) - 1;
    for (auto& k : mul_) k = splitmix(seed) | 1u;
    for (auto& k : add_) k = splitmix(seed);
  }
  std::uint64_t operator()(std::uint64_t k) const {
    if (bits_ == 0) return 0;
    do k = round(k);
    while (k >= n_);
    return k;
  }

 private:
  std::uint64_t round(std::uint64_t x) const {
    const unsigned shift = bits_ / 2 + 1;
    for (int r = 0; r < 4; ++r) {
      x = (x * mul_[r] + add_[r]) & mask_;
      x ^= x >> shift;
    }
    return x;
  }
  std::uint64_t n_, mask_ = 0;
  unsigned bits_ = 0;
  std::uint64_t mul_[4] = {}, add_[4] = {};
};

// ---- the pool of OS threads (emu_pool.cpp) --------------------------------------
/// A launch: its body, its shape, its dispatch settings and the order its
/// blocks start in (index order, or `order`'s permutation), the next start
/// to hand out and how many blocks have ended (the stall watchdog's sign of
/// progress).
struct Job {
  const std::function<void()>* fn;
  dim3 grid, block;
  std::uint64_t blocks, seed;
  Dispatch how;
  Permutation order{1, 0};
  std::atomic<std::uint64_t> next{0}, finished{0};
};

// ---- the runtime (emu_runtime.cpp) ----------------------------------------------
/// The environment that replays dispatch `d` (SIEVE_EMU_SEED and
/// SIEVE_EMU_BLOCK_ORDER), for the messages of a failure.
std::string describeDispatch(const Dispatch& d);

// ---- fibers (emu_fibers.cpp) ----------------------------------------------------
/// Runs block `b` of launch `j` on the calling OS thread, its threads fibers
/// scheduled in the order `seed` draws; aborts on a divergent barrier or warp
/// collective, and when a thread spins while no block of `j` finishes for
/// j.stallSeconds.
void runBlock(Job& j, std::uint64_t b, std::uint64_t seed);

/// Runs every block of `j` on the pool (the calling thread included) and
/// returns when all are done.
void runOnPool(Job& j);

} // namespace sieve_emu
