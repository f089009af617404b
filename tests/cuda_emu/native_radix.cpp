// SPDX-License-Identifier: Apache-2.0
// Sieve tests: the native CUDA radix order source compiled for the CPU emulator.
#include "../../native/src/cuda/radix.cu"
