// SPDX-License-Identifier: Apache-2.0
// Sieve benchmarks — a small timing harness: every variant of a case runs once
// per repetition, interleaved with the others (so that a noisy machine slows
// them alike), and the best time of all repetitions is kept. Every row can
// also go to a CSV file (Csv), for scripts/plot_bench.py.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#if defined(_OPENMP)
#include <omp.h>
#endif
#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace sieve_bench {

/// Keep freed buffers in the heap (as a long-running code's allocator does):
/// a variant that allocates its result then reuses warm pages instead of
/// faulting fresh ones in. Call before Kokkos::initialize.
inline void keepFreedPages() {
#if defined(__GLIBC__)
  mallopt(M_MMAP_THRESHOLD, 1 << 30);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
}

/// While it lives, allocations of 128 KiB or more come from fresh pages
/// (mapped, unmapped when freed, each page faulted in on first touch), as
/// glibc's default allocator does for blocks above its threshold (which it
/// raises, up to 32 MiB, as mapped blocks are freed: for blocks between 128
/// KiB and 32 MiB this is harsher than a warmed-up default); the heap's free
/// pages are returned first. After it, freed pages are kept again
/// (keepFreedPages), but the heap's must be faulted in anew: run such
/// variants in a case of their own, after the others.
struct FreshPages {
  FreshPages() {
#if defined(__GLIBC__)
    mallopt(M_MMAP_THRESHOLD, 128 * 1024);
    mallopt(M_TRIM_THRESHOLD, 128 * 1024);
    malloc_trim(0); // (the kept heap's free pages back to the system)
#endif
  }
  ~FreshPages() { keepFreedPages(); }
  FreshPages(const FreshPages&) = delete;
  FreshPages& operator=(const FreshPages&) = delete;
};

/// A variant's run `f`, with fresh pages (FreshPages) while it runs.
template <class F>
std::function<void()> withFreshPages(F f) {
  return [f] {
    const FreshPages fresh;
    f();
  };
}

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
  // What the CSV says of the case:
  std::string primitive; // compact, scan, reorder
  std::int64_t n = 0;    // samples
  double kept = -1;      // the fraction of the samples the mask keeps (< 0: no mask)
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
  std::printf("%-34s %-30s %10s %9s %10s %10s\n", "case", "variant", "time [ms]", "GB/s", "x copy",
              "x sieve");
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

/// What a variant is beside sieve's: the bandwidth limit (the baseline copy),
/// sieve's own, or a peer.
inline const char* roleOf(const Case& c, const Variant& v) {
  if (v.name == c.baseline) return "memcpy";
  return v.name.rfind("sieve", 0) == 0 ? "sieve" : "peer";
}

/// One CSV row per measured variant:
/// primitive,case,n,kept_fraction,implementation,role,seconds,bytes,gb_per_s,x_memcpy,x_sieve,
/// threads,isa (kept_fraction empty where there is no mask).
class Csv {
 public:
  Csv() = default;
  Csv(const Csv&) = delete;
  Csv& operator=(const Csv&) = delete;
  ~Csv() {
    if (f_) std::fclose(f_);
  }
  bool open(const std::string& path, int threads, const std::string& isa) {
    f_ = std::fopen(path.c_str(), "w");
    threads_ = threads;
    isa_ = isa;
    if (f_)
      std::fprintf(f_,
                   "primitive,case,n,kept_fraction,implementation,role,seconds,bytes,gb_per_s,"
                   "x_memcpy,x_sieve,threads,isa\n");
    return f_ != nullptr;
  }
  bool isOpen() const { return f_ != nullptr; }
  void write(const Case& c) {
    if (!f_) return;
    const Variant* base = find(c, c.baseline);
    const Variant* subj = find(c, c.subject);
    for (const auto& v : c.variants) {
      char kept[32] = "", gbs[32] = "", xb[32] = "", xs[32] = "";
      if (c.kept >= 0) std::snprintf(kept, sizeof kept, "%.6f", c.kept);
      if (v.bytes > 0) std::snprintf(gbs, sizeof gbs, "%.3f", v.bytes / v.best * 1e-9);
      if (base) std::snprintf(xb, sizeof xb, "%.4f", v.best / base->best);
      if (subj) std::snprintf(xs, sizeof xs, "%.4f", v.best / subj->best);
      std::fprintf(f_, "%s,%s,%lld,%s,%s,%s,%.9g,%.0f,%s,%s,%s,%d,%s\n", quote(c.primitive).c_str(),
                   quote(c.name).c_str(), static_cast<long long>(c.n), kept, quote(v.name).c_str(),
                   roleOf(c, v), v.best, v.bytes, gbs, xb, xs, threads_, quote(isa_).c_str());
    }
    std::fflush(f_);
  }

 private:
  static std::string quote(const std::string& s) {
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string q = "\"";
    for (const char ch : s) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
    return q + "\"";
  }
  std::FILE* f_ = nullptr;
  int threads_ = 0;
  std::string isa_;
};

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
    const std::size_t a = bytes * t / T / 64 * 64,
                      b = t + 1 == T ? bytes : bytes * (t + 1) / T / 64 * 64;
    std::memcpy(static_cast<char*>(dst) + a, static_cast<const char*>(src) + a, b - a);
  }
}

} // namespace sieve_bench
