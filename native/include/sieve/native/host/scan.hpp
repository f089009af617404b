// SPDX-License-Identifier: Apache-2.0
// Sieve — cpu::Scan, the OpenMP prefix scan (host twin of cuda::Scan).
//
// Inclusive: out[i] = init (+) in[0] (+) ... (+) in[i].
// Exclusive: out[0] = init, out[i] = init (+) in[0] (+) ... (+) in[i-1].
// Unseeded inclusive (no init, as std::inclusive_scan(first, last, d, op)):
// out[i] = in[0] (+) ... (+) in[i], the same folds with init left out.
//
// Layout: the input is cut into blocks of `blockSize_` elements. Every block's
// total is folded left to right into blockSums[b]; the prefix of a block is the
// left-to-right fold of `init` and the totals before it; the block is then
// scanned left to right from its prefix. The association order depends on the
// block size only, never on the thread count, so even floating-point results
// are identical at any number of threads (and run to run).
//
// The blocks are processed in rounds sized so that a thread's share of a round
// stays in its L2 cache between the totals pass and the scan pass: memory sees
// one read of `in` and one write of `out`. One team barrier per round.
#pragma once

#include <sieve/core/tuning.hpp>
#include <sieve/core/types.hpp>
#include <sieve/core/validate.hpp>
#include <sieve/native/host/isa.hpp>
#include <sieve/native/host/team.hpp>

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace sieve {
namespace Impl {

/// The value types a scan takes: arithmetic, bool excluded (a "sum" of flags
/// is a count: scan an integer type).
template <class T>
inline constexpr bool kScannable = std::is_arithmetic_v<T> && !std::is_same_v<T, bool>;

/// 32-bit integer sums run the vectorised hot loop of the library (isa.hpp).
template <class T, class OP>
inline constexpr bool kScanFast32 = std::is_same_v<OP, ::sieve::Sum>&& std::is_integral_v<T> &&
                                    sizeof(T) == 4;

/// Fold of in[0..len) (len >= 1), left to right.
template <class T, class OP>
inline T foldBlock(const T* SIEVE_RESTRICT in, std::int64_t len, const OP& op) {
  if constexpr (std::is_same_v<OP, ::sieve::Sum> && std::is_integral_v<T>) {
    // Integer sums reassociate exactly: let the compiler vectorise.
    using U = std::make_unsigned_t<T>;
    U acc = 0;
    for (std::int64_t i = 0; i < len; ++i) acc = static_cast<U>(acc + static_cast<U>(in[i]));
    return static_cast<T>(acc);
  } else {
    T acc = in[0];
    for (std::int64_t i = 1; i < len; ++i) acc = op(acc, in[i]);
    return acc;
  }
}

/// Scan in[0..len) into out starting from `pre` (in == out allowed).
template <class T, class OP, bool Inclusive>
inline void scanBlock(const T* in, T* out, std::int64_t len, T pre, const OP& op) {
  if constexpr (kScanFast32<T, OP>) {
    hostScanSum32(reinterpret_cast<const std::uint32_t*>(in), reinterpret_cast<std::uint32_t*>(out),
                  len, static_cast<std::uint32_t>(pre), Inclusive);
  } else {
    T acc = pre;
    for (std::int64_t i = 0; i < len; ++i) {
      const T v = in[i];
      if constexpr (Inclusive) {
        acc = op(acc, v);
        out[i] = acc;
      } else {
        out[i] = acc;
        acc = op(acc, v);
      }
    }
  }
}

/// The inclusive scan of in[0..len) (len >= 1) into out from its first
/// element: the block that starts an unseeded fold (in == out allowed).
template <class T, class OP>
inline void scanBlockFromFirst(const T* in, T* out, std::int64_t len, const OP& op) {
  if constexpr (kScanFast32<T, OP>) {
    scanBlock<T, OP, true>(in, out, len, T(0), op); // an integer sum from 0: the same bits
  } else {
    T acc = in[0];
    out[0] = acc;
    for (std::int64_t i = 1; i < len; ++i) {
      acc = op(acc, in[i]);
      out[i] = acc;
    }
  }
}

/// `acc (+) v`, or v when the fold has not started (an unseeded scan before
/// its first block).
template <class T, class OP>
inline T foldOn(bool started, const T& acc, const T& v, const OP& op) {
  return started ? op(acc, v) : v;
}

/// The team body of the host scan: every thread of the team calls it with the
/// same arguments. blockSums[b] receives the total of block b. Seeded, the
/// fold starts from `init`; unseeded (inclusive only), from in[0] (`init`
/// unused): the prefix of block b is then the fold of the totals before it.
template <class T, class OP, bool Inclusive, unsigned B, bool Seeded = true>
void scanTeamBody(const TeamCtx& t, const T* in, T* out, T* blockSums, std::int64_t n,
                  const T& init, const OP& op) {
  static_assert(B > 0, "sieve::cpu::Scan: blockSize_ must be positive");
  static_assert(Inclusive || Seeded, "sieve::cpu::Scan: an exclusive scan needs an init");
  if (n <= 0) return;
  const std::int64_t nb = (n + B - 1) / B;
  std::int64_t k =
      Tuning::Host::kScanRoundBytesPerThread / static_cast<std::int64_t>(B * sizeof(T));
  if (k < 1) k = 1;
  const std::int64_t perRound = k * t.size;
  T running = init;      // private; every thread computes the same chain of values
  bool started = Seeded; // whether `running` holds a fold yet (always, seeded)
  for (std::int64_t r0 = 0; r0 < nb; r0 += perRound) {
    const std::int64_t r1 = r0 + perRound < nb ? r0 + perRound : nb;
    std::int64_t s0, s1;
    teamShare(t, r1 - r0, s0, s1);
    s0 += r0;
    s1 += r0;
    for (std::int64_t b = s0; b < s1; ++b) {
      const std::int64_t lo = b * B, hi = lo + B < n ? lo + B : n;
      blockSums[b] = foldBlock<T, OP>(in + lo, hi - lo, op);
    }
    teamBarrier(t);
    T pre = running;
    bool preStarted = started;
    for (std::int64_t b = r0; b < s0; ++b) {
      pre = foldOn(preStarted, pre, blockSums[b], op);
      preStarted = true;
    }
    for (std::int64_t b = s0; b < s1; ++b) {
      const std::int64_t lo = b * B, hi = lo + B < n ? lo + B : n;
      if (preStarted) scanBlock<T, OP, Inclusive>(in + lo, out + lo, hi - lo, pre, op);
      else scanBlockFromFirst<T, OP>(in + lo, out + lo, hi - lo, op);
      pre = foldOn(preStarted, pre, blockSums[b], op);
      preStarted = true;
    }
    for (std::int64_t b = r0; b < r1; ++b) {
      running = foldOn(started, running, blockSums[b], op);
      started = true;
    }
  }
  // Like the end of an `omp for`: no thread returns (and reads `out`, or
  // reuses `blockSums` for the next scan) before every block is written.
  teamBarrier(t);
}

} // namespace Impl

namespace cpu {

/// OpenMP parallel prefix scan (host twin of cuda::Scan).
///
/// `in` and `out` hold `n` elements (`out == in` scans in place);
/// `blockSums` must hold at least `n` elements (it uses ceil(n / blockSize_)).
/// `blockSize_` defaults to Tuning::Host::kScanBlock (core/tuning.hpp).
/// `OP` is an associative functor `T(T, T)` (sieve::Sum, Min, Max or a user's);
/// `init` defaults to the operator's identity. `Seeded = false` (scan() only,
/// inclusive only) starts the fold from in[0] instead, as std::inclusive_scan
/// without init: out[0] = in[0], out[i] = out[i-1] (+) in[i]; `init` is then
/// unused (pass any value), and OP needs no identity. O(n) work, blocking.
/// Throws std::invalid_argument for n < 0, n > INT32_MAX, null, misaligned or
/// overlapping arrays.
struct Scan {
  /// Block sums the scan writes: ceil(n / blockSize_) (the contract asks for n).
  template <unsigned blockSize_ = Tuning::Host::kScanBlock>
  static constexpr std::int64_t blocksOf(std::int64_t n) {
    return n > 0 ? (n + blockSize_ - 1) / blockSize_ : 0;
  }

  /// Context-aware scan: called by every thread of an active parallel region it
  /// work-shares over that team (the blocks split across the threads, the
  /// block prefixes after a team barrier, a barrier at the end as an `omp for`
  /// has); every thread of the team must make the call with the same
  /// arguments (not inside `single` / `master`). Outside a parallel region it
  /// opens its own with the OpenMP default thread count.
  template <class T, class OP, bool Inclusive, unsigned blockSize_ = Tuning::Host::kScanBlock,
            bool Seeded = true>
  static void scan(const T* in, T* out, T* blockSums, std::int64_t n,
                   const T& init = identityOf<OP, T>(), const OP& op = OP()) {
    static_assert(Impl::kScannable<T>, "sieve::cpu::Scan takes arithmetic types other than bool");
    static_assert(Inclusive || Seeded, "sieve::cpu::Scan: an exclusive scan needs an init");
    Impl::checkScan("sieve::cpu::Scan", in, out, blockSums, n, 1, 1, blocksOf<blockSize_>(n));
    if (Impl::hostInParallel()) {
      Impl::scanTeamBody<T, OP, Inclusive, blockSize_, Seeded>(Impl::enclosingTeam(), in, out,
                                                               blockSums, n, init, op);
      return;
    }
    scan<T, OP, Inclusive, blockSize_, Seeded>(HostTeam{}, in, out, blockSums, n, init, op);
  }

  /// Scan on a team of `team.threads` threads in a parallel region of its own
  /// (nested when called inside one), whatever the calling context.
  template <class T, class OP, bool Inclusive, unsigned blockSize_ = Tuning::Host::kScanBlock,
            bool Seeded = true>
  static void scan(HostTeam team, const T* in, T* out, T* blockSums, std::int64_t n,
                   const T& init = identityOf<OP, T>(), const OP& op = OP()) {
    static_assert(Impl::kScannable<T>, "sieve::cpu::Scan takes arithmetic types other than bool");
    static_assert(Inclusive || Seeded, "sieve::cpu::Scan: an exclusive scan needs an init");
    Impl::checkScan("sieve::cpu::Scan", in, out, blockSums, n, 1, 1, blocksOf<blockSize_>(n));
    const int threads = Impl::teamSizeFor(team, n, Tuning::Host::kScanMinPerThread);
    Impl::runTeam(threads, [&](const Impl::TeamCtx& t) {
      Impl::scanTeamBody<T, OP, Inclusive, blockSize_, Seeded>(t, in, out, blockSums, n, init, op);
    });
  }

  /// Inclusive scan (context-aware, see scan()).
  template <class T, class OP, unsigned blockSize_ = Tuning::Host::kScanBlock>
  static void inclusive(const T* in, T* out, T* blockSums, std::int64_t n,
                        const T& init = identityOf<OP, T>(), const OP& op = OP()) {
    scan<T, OP, true, blockSize_>(in, out, blockSums, n, init, op);
  }
  /// Inclusive scan on a team of its own.
  template <class T, class OP, unsigned blockSize_ = Tuning::Host::kScanBlock>
  static void inclusive(HostTeam team, const T* in, T* out, T* blockSums, std::int64_t n,
                        const T& init = identityOf<OP, T>(), const OP& op = OP()) {
    scan<T, OP, true, blockSize_>(team, in, out, blockSums, n, init, op);
  }
  /// Exclusive scan (context-aware, see scan()).
  template <class T, class OP, unsigned blockSize_ = Tuning::Host::kScanBlock>
  static void exclusive(const T* in, T* out, T* blockSums, std::int64_t n,
                        const T& init = identityOf<OP, T>(), const OP& op = OP()) {
    scan<T, OP, false, blockSize_>(in, out, blockSums, n, init, op);
  }
  /// Exclusive scan on a team of its own.
  template <class T, class OP, unsigned blockSize_ = Tuning::Host::kScanBlock>
  static void exclusive(HostTeam team, const T* in, T* out, T* blockSums, std::int64_t n,
                        const T& init = identityOf<OP, T>(), const OP& op = OP()) {
    scan<T, OP, false, blockSize_>(team, in, out, blockSums, n, init, op);
  }
};

} // namespace cpu
} // namespace sieve
