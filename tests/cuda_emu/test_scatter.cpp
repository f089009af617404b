// SPDX-License-Identifier: Apache-2.0
// Sieve tests: tests/cuda/test_scatter.cu compiled for the CPU emulator.
#include "../cuda/test_scatter.cu"
