// SPDX-License-Identifier: Apache-2.0
// Sieve — a differential fuzzer over the public Kokkos API (libFuzzer).
//
// Each input picks a backend (Kokkos::Serial: the portable face;
// Kokkos::OpenMP: the OpenMP twins), a sample count (mostly small, often on a
// word / tile / scan-block boundary, sometimes up to ~1e5), a mask, a theta,
// and then a sequence of up to 32 steps: compact (with or without the
// trigger, either polarity, on the whole mask or on [0, span)), reorder
// (gated by the trigger or unconditional with a caller span), restore, kill,
// revive / spawn (also past the span), a scan (inclusive or exclusive, Sum /
// Max / Min, int32 or int64), and deliberately invalid calls. After every
// step the whole state — every plane byte, perm, inv, the index map, count,
// span and fire — is compared with a plain sequential model of the documented
// semantics (tests/common/reference.hpp, which shares no code with the
// library). Invalid calls must throw std::invalid_argument and change
// nothing. Any difference, crash or sanitizer report is a finding.
//
// Build: scripts/fuzz.sh (clang, -fsanitize=fuzzer,address,undefined); the
// campaign's build (scripts/fuzz_campaign.sh) drops the sanitizers for speed.
// The run itself: fuzz_run.hpp, compiled per backend (fuzz_serial.cpp,
// fuzz_openmp.cpp).
//
// Two settings narrow a run (read once, at start):
//   SIEVE_FUZZ_FACES  `both` (default), `serial` or `openmp`: the backend every
//                     input runs on (the input's backend bit is still consumed,
//                     so one corpus serves every setting);
//   SIEVE_FUZZ_MAX_N  the largest sample count (default 100000; a campaign
//                     caps it for throughput, the edges up to it stay).
#include <fuzzer/FuzzedDataProvider.h>
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <string>

namespace sieve_fuzz {
// Defined (explicitly instantiated) in fuzz_serial.cpp and fuzz_openmp.cpp.
template <class Exec>
void fuzzOn(FuzzedDataProvider& in, std::int64_t n, float theta);
} // namespace sieve_fuzz

namespace {

/// Sample counts worth trying: word, scan-block and tile edges.
constexpr std::int64_t kEdges[] = {0,   1,    2,    31,   32,   33,   63,   64,   65,   255,
                                   256, 1023, 1024, 1025, 2047, 2048, 2049, 4095, 4096, 4097};
constexpr std::int64_t kBigEdges[] = {8191, 8192, 8193, 65535, 65536, 65537};

/// Mostly small counts (fast runs: many executions), often on an edge, now
/// and then a large one.
std::int64_t pickN(FuzzedDataProvider& in) {
  switch (in.ConsumeIntegralInRange<int>(0, 31)) {
  case 0: return kBigEdges[in.ConsumeIntegralInRange<std::size_t>(0, std::size(kBigEdges) - 1)];
  case 1: return in.ConsumeIntegralInRange<std::int64_t>(0, 100000);
  case 2:
  case 3:
  case 4:
  case 5:
  case 6:
  case 7: return kEdges[in.ConsumeIntegralInRange<std::size_t>(0, std::size(kEdges) - 1)];
  default: return in.ConsumeIntegralInRange<std::int64_t>(0, 300);
  }
}

constexpr float kThetas[] = {0.05f, 0.25f, 0.5f, 0.75f, 0.999f};

enum class Faces { Both, Serial, OpenMP };
Faces gFaces = Faces::Both;
std::int64_t gMaxN = 100000;

[[noreturn]] void badSetting(const char* name, const char* value, const char* rule) {
  std::fprintf(stderr, "sieve fuzz: %s=%s: %s\n", name, value, rule);
  std::exit(2);
}

void readSettings() {
  if (const char* f = std::getenv("SIEVE_FUZZ_FACES")) {
    const std::string v = f;
    if (v == "serial") gFaces = Faces::Serial;
    else if (v == "openmp") gFaces = Faces::OpenMP;
    else if (v.empty() || v == "both") gFaces = Faces::Both;
    else badSetting("SIEVE_FUZZ_FACES", f, "not `both`, `serial` nor `openmp`");
  }
  if (const char* m = std::getenv("SIEVE_FUZZ_MAX_N")) {
    char* end = nullptr;
    const long long v = std::strtoll(m, &end, 0);
    if (end == m || *end != '\0' || v < 0 || v > 100000)
      badSetting("SIEVE_FUZZ_MAX_N", m, "not a sample count in [0, 100000]");
    gMaxN = v;
  }
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  setenv("OMP_PROC_BIND", "false", 0);
  setenv("OMP_NUM_THREADS", "2", 0);
  readSettings();
  Kokkos::initialize();
  std::atexit([] { Kokkos::finalize(); });
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  const bool pick = in.ConsumeBool();
  const bool openmp = gFaces == Faces::Both ? pick : gFaces == Faces::OpenMP;
  const std::int64_t n = std::min(pickN(in), gMaxN);
  const float theta = kThetas[in.ConsumeIntegralInRange<std::size_t>(0, std::size(kThetas) - 1)];
  if (openmp)
    sieve_fuzz::fuzzOn<Kokkos::OpenMP>(in, n, theta);
  else
    sieve_fuzz::fuzzOn<Kokkos::Serial>(in, n, theta);
  return 0;
}
