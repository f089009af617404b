// SPDX-License-Identifier: Apache-2.0
// Sieve Kokkos tests — Kokkos is initialised once around every test; a run in
// which nothing passed exits with the skip code (tests/common/main.hpp).
#include "../common/main.hpp"

#include <gtest/gtest.h>
#include <Kokkos_Core.hpp>

int main(int argc, char* argv[]) {
  sieve_test::reuseLargeAllocations();
  Kokkos::initialize(argc, argv);
  ::testing::InitGoogleTest(&argc, argv);
  const int result = RUN_ALL_TESTS();
  Kokkos::finalize();
  return sieve_test::finishRun(result);
}
