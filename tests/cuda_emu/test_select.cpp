// SPDX-License-Identifier: Apache-2.0
// Sieve tests: tests/cuda/test_select.cu compiled for the CPU emulator.
#include "../cuda/test_select.cu"
