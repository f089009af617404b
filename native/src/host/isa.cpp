// SPDX-License-Identifier: Apache-2.0
// Sieve — choosing the instruction set of the host hot loops.
#include <sieve/native/host/isa.hpp>

#include "kernels.hpp"

#include <atomic>
#include <cstdlib>
#include <cstring>

namespace sieve {
namespace {

bool cpuHas(HostIsa isa) {
  switch (isa) {
  case HostIsa::Portable: return true;
#if SIEVE_HOST_X86_DISPATCH
  case HostIsa::Avx2:
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi") &&
           __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("popcnt");
  case HostIsa::Avx512:
    return cpuHas(HostIsa::Avx2) && __builtin_cpu_supports("avx512f") &&
           __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
           __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vbmi2");
#endif
  default: return false;
  }
}

HostIsa initialIsa() {
  HostIsa best = HostIsa::Portable;
  if (cpuHas(HostIsa::Avx512)) best = HostIsa::Avx512;
  else if (cpuHas(HostIsa::Avx2)) best = HostIsa::Avx2;
  if (const char* env = std::getenv("SIEVE_HOST_ISA")) {
    HostIsa cap = best;
    if (std::strcmp(env, "portable") == 0) cap = HostIsa::Portable;
    else if (std::strcmp(env, "avx2") == 0) cap = HostIsa::Avx2;
    else if (std::strcmp(env, "avx512") == 0) cap = HostIsa::Avx512;
    if (static_cast<int>(cap) < static_cast<int>(best)) best = cap;
  }
  return best;
}

std::atomic<int>& currentIsa() {
  static std::atomic<int> isa{static_cast<int>(initialIsa())};
  return isa;
}

} // namespace

HostIsa hostIsa() { return static_cast<HostIsa>(currentIsa().load(std::memory_order_relaxed)); }

bool hostIsaSupported(HostIsa isa) { return cpuHas(isa); }

bool setHostIsa(HostIsa isa) {
  if (!cpuHas(isa)) return false;
  currentIsa().store(static_cast<int>(isa), std::memory_order_relaxed);
  return true;
}

const char* hostIsaName(HostIsa isa) {
  switch (isa) {
  case HostIsa::Avx2: return "avx2";
  case HostIsa::Avx512: return "avx512";
  default: return "portable";
  }
}

namespace Impl {

const HostKernels& hostKernels() {
#if SIEVE_HOST_X86_DISPATCH
  switch (hostIsa()) {
  case HostIsa::Avx512: return hostKernelsAvx512();
  case HostIsa::Avx2: return hostKernelsAvx2();
  default: break;
  }
#endif
  return hostKernelsPortable();
}

std::uint32_t hostScanSum32(const std::uint32_t* in, std::uint32_t* out, std::int64_t len,
                            std::uint32_t pre, bool inclusive) {
  return hostKernels().scanSum32(in, out, len, pre, inclusive);
}

} // namespace Impl
} // namespace sieve
