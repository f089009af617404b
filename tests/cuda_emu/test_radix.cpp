// SPDX-License-Identifier: Apache-2.0
// Sieve tests: tests/cuda/test_radix.cu compiled for the CPU emulator.
#include "../cuda/test_radix.cu"
