// SPDX-License-Identifier: Apache-2.0
// Sieve (internal) — the portable implementation: Kokkos parallel patterns
// only, for every execution space without a native face (Serial, Threads, HIP,
// SYCL, OpenMPTarget) and for Views a native face cannot take (strided).
// One file per primitive under portable/.
#pragma once

#include <sieve/impl/portable/compact.hpp>
#include <sieve/impl/portable/reorder.hpp>
#include <sieve/impl/portable/scan.hpp>
