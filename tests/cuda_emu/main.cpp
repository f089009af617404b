// SPDX-License-Identifier: Apache-2.0
// Sieve tests: tests/cuda/main.cu compiled for the CPU emulator.
#include "../cuda/main.cu"
