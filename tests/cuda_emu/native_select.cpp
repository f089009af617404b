// SPDX-License-Identifier: Apache-2.0
// Sieve tests: the native CUDA select source compiled for the CPU emulator.
#include "../../native/src/cuda/select.cu"
