// SPDX-License-Identifier: Apache-2.0
// Sieve host tests — the native host face, no Kokkos.
#include "../common/main.hpp"

#include <gtest/gtest.h>

int main(int argc, char* argv[]) {
  sieve_test::reuseLargeAllocations();
  ::testing::InitGoogleTest(&argc, argv);
  return sieve_test::finishRun(RUN_ALL_TESTS());
}
