// Sieve benchmarks — a small timing harness: every variant of a case runs once
// per repetition, interleaved with the others (so that a noisy machine slows
// them alike), and the best time of all repetitions is kept.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#if defined(_OPENMP)
#include <omp.h>
#endif

namespace sieve_bench {

struct Variant {
  std::string name;
  std::function<void()> run;   // the timed work
  std::function<void()> reset; // untimed, before every run (may be empty)
  double bytes = 0;            // memory traffic of one run, for GB/s
  double best = 1e30;          // seconds
};

struct Case {
  std::string name;
  std::vector<Variant> variants;
  std::string baseline; // the variant the others are compared with (the copy)
  std::string subject;  // the variant the "vs sieve" column refers to
};

inline double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

inline void runCase(Case& c, int reps) {
  for (int r = 0; r < reps; ++r)
    for (auto& v : c.variants) {
      if (v.reset) v.reset();
      const double t0 = now();
      v.run();
      v.best = std::min(v.best, now() - t0);
    }
}

inline const Variant* find(const Case& c, const std::string& name) {
  for (const auto& v : c.variants)
    if (v.name == name) return &v;
  return nullptr;
}

inline void printHeader() {
  std::printf("%-34s %-30s %10s %9s %10s %10s\n", "case", "variant", "time [ms]", "GB/s",
              "x copy", "x sieve");
  std::printf("%s\n", std::string(108, '-').c_str());
}

inline void printCase(const Case& c) {
  const Variant* base = find(c, c.baseline);
  const Variant* subj = find(c, c.subject);
  for (const auto& v : c.variants) {
    char gbs[32] = "-";
    if (v.bytes > 0) std::snprintf(gbs, sizeof gbs, "%.1f", v.bytes / v.best * 1e-9);
    std::printf("%-34s %-30s %10.3f %9s %10.2f %10.2f\n", c.name.c_str(), v.name.c_str(),
                v.best * 1e3, gbs, base ? v.best / base->best : 0.0,
                subj ? v.best / subj->best : 0.0);
  }
  std::printf("\n");
  std::fflush(stdout);
}

/// memcpy of `bytes` split across the OpenMP threads: the bandwidth limit.
inline void parallelCopy(void* dst, const void* src, std::size_t bytes) {
#pragma omp parallel
  {
#if defined(_OPENMP)
    const std::size_t t = static_cast<std::size_t>(omp_get_thread_num());
    const std::size_t T = static_cast<std::size_t>(omp_get_num_threads());
#else
    const std::size_t t = 0, T = 1;
#endif
    const std::size_t a = bytes * t / T / 64 * 64, b = t + 1 == T ? bytes : bytes * (t + 1) / T / 64 * 64;
    std::memcpy(static_cast<char*>(dst) + a, static_cast<const char*>(src) + a, b - a);
  }
}

} // namespace sieve_bench
