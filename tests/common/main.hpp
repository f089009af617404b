// SPDX-License-Identifier: Apache-2.0
// Sieve tests — the end of every test binary's main: a run in which no test
// passed and none failed (every case skipped, as the CUDA ones do without a
// GPU, or none selected) exits with kSkipReturnCode, which CTest reports as
// skipped (SKIP_RETURN_CODE), not passed.
#pragma once

#include <gtest/gtest.h>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace sieve_test {

inline constexpr int kSkipReturnCode = 77;

/// Keep freed buffers in the heap (glibc): the suites allocate and free
/// populations of tens of MB per case, and fresh pages cost more than the
/// tests' own work.
inline void reuseLargeAllocations() {
#if defined(__GLIBC__)
  mallopt(M_MMAP_THRESHOLD, 1 << 30);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
}

inline int finishRun(int rc) {
  if (::testing::GTEST_FLAG(list_tests)) return rc;
  const auto& u = *::testing::UnitTest::GetInstance();
  if (rc == 0 && u.failed_test_count() == 0 && u.successful_test_count() == 0)
    return kSkipReturnCode;
  return rc;
}

} // namespace sieve_test
