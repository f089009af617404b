// SPDX-License-Identifier: Apache-2.0
// Sieve tests: the CUDA emulator stands in for <cuda_runtime_api.h> (tests/cuda_emu).
#pragma once
#include "sieve_cuda_emulator.hpp"
