// SPDX-License-Identifier: Apache-2.0
// Sieve — the differential fuzzer's run on Kokkos::OpenMP (fuzz_run.hpp).
#include "fuzz_run.hpp"

template void sieve_fuzz::fuzzOn<Kokkos::OpenMP>(FuzzedDataProvider&, std::int64_t, float);
