// SPDX-License-Identifier: Apache-2.0
// Sieve — what a native face's scatter of records reports to its caller: the
// same types on every face (the OpenMP twins and the CUDA kernels). No
// Kokkos, no CUDA runtime.
#pragma once

#include <cstdint>
#include <vector>

namespace sieve {

/// What a dense scatter found: records whose digit is outside [0, buckets)
/// (counted by the first read: then nothing was written), and records whose
/// digit changed between its reads (a key functor that answers differently;
/// 0 for a pure one): before the scatter, they were written nowhere (the
/// output is incomplete); before the sort of their run, they end the run
/// (every record is in out once, not all in digit order).
struct DenseScatterResult {
  std::int64_t outside = 0;
  std::int64_t changed = 0;
};

/// What a sparse scatter (host faces) did. taken false: a run was longer
/// than its limit, nothing was written (the caller sorts another way).
/// outside: records whose word exceeded the largest word at the first read
/// (then nothing was written). changed: records whose word changed between
/// the reads (the output is incomplete, or, when it changed only before the
/// sort of its run, not in order: every record once). runStart[v] (V + 1 of
/// them): the first position of the words of top digit v (runStart[V] = n);
/// runKeys[v] (V + 1): the distinct words in the runs before v (runKeys[V]:
/// all).
struct SparseScatterResult {
  bool taken = false;
  std::int64_t outside = 0;
  std::int64_t changed = 0;
  std::vector<std::int64_t> runStart, runKeys;
};

} // namespace sieve
