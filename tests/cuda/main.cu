// SPDX-License-Identifier: Apache-2.0
// Sieve CUDA tests — without a GPU every device case skips, and a run in which
// nothing passed exits with the skip code (ctest shows it skipped).
#include "../common/main.hpp"

#include <gtest/gtest.h>

int main(int argc, char* argv[]) {
  sieve_test::reuseLargeAllocations();
  ::testing::InitGoogleTest(&argc, argv);
  return sieve_test::finishRun(RUN_ALL_TESTS());
}
