// SPDX-License-Identifier: Apache-2.0
// Sieve CUDA tests — without a GPU every device case skips, and a run in which
// nothing passed exits with the skip code (ctest shows it skipped).
#include "../common/main.hpp"
#include "device.hpp"

#include <gtest/gtest.h>

#include <cstdio>

__global__ void sieve_test::probeKernel() {}

int main(int argc, char* argv[]) {
  sieve_test::reuseLargeAllocations();
  ::testing::InitGoogleTest(&argc, argv);
  if (!sieve_test::noDeviceReason().empty())
    std::printf("[sieve] the CUDA cases skip: %s\n", sieve_test::noDeviceReason().c_str());
  return sieve_test::finishRun(RUN_ALL_TESTS());
}
