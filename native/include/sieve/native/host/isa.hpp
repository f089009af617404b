// SPDX-License-Identifier: Apache-2.0
// Sieve — the instruction set the host twins run their hot loops with.
//
// The library is built for the architecture's baseline (no -march flag is
// needed or exported). On x86-64 the hot loops also exist in AVX2 and AVX-512
// versions, chosen once at run time from what the CPU supports; the
// environment variable SIEVE_HOST_ISA=portable|avx2|avx512 caps the choice.
// Every version produces the same bytes.
#pragma once

#include <cstdint>

namespace sieve {

enum class HostIsa : int { Portable = 0, Avx2 = 1, Avx512 = 2 };

/// The instruction set the host twins use now.
HostIsa hostIsa();

/// Whether this CPU (and this build) can run `isa`.
bool hostIsaSupported(HostIsa isa);

/// Use `isa` from now on (for tests and benchmarks; not thread-safe against
/// concurrent twin calls). Returns false, changing nothing, if unsupported.
bool setHostIsa(HostIsa isa);

/// "portable", "avx2" or "avx512".
const char* hostIsaName(HostIsa isa);

namespace Impl {
/// Inclusive or exclusive wrapping sum scan of in[0..len) into out from `pre`
/// (in == out allowed); returns the running sum after the last element. The
/// hot loop of cpu::Scan for 32-bit integers, in the selected instruction set.
std::uint32_t hostScanSum32(const std::uint32_t* in, std::uint32_t* out, std::int64_t len,
                            std::uint32_t pre, bool inclusive);
} // namespace Impl
} // namespace sieve
