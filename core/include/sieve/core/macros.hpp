// SPDX-License-Identifier: Apache-2.0
// Sieve — backend-neutral macros.
//
// Header-only, no Kokkos, no CUDA runtime: every rule in core/ is callable from
// host code compiled by any C++17 compiler and from device code compiled by
// nvcc / hipcc (then the functions are __host__ __device__).
#pragma once

#if defined(__CUDACC__) || defined(__HIPCC__)
#define SIEVE_HOST_DEVICE __host__ __device__
#else
#define SIEVE_HOST_DEVICE
#endif

#define SIEVE_INLINE SIEVE_HOST_DEVICE inline

#if defined(__GNUC__) || defined(__clang__)
#define SIEVE_LIKELY(x) __builtin_expect(!!(x), 1)
#define SIEVE_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define SIEVE_RESTRICT __restrict__
/// Keeps a rarely taken branch's body (a buffer flush) out of a hot loop.
#define SIEVE_NOINLINE __attribute__((noinline))
#else
#define SIEVE_LIKELY(x) (x)
#define SIEVE_UNLIKELY(x) (x)
#define SIEVE_RESTRICT
#define SIEVE_NOINLINE
#endif

/// A hint that the bytes at `p` are read soon (a gather's element some
/// iterations ahead): a prefetch into the caches in host code, nothing on a
/// device.
#if (defined(__GNUC__) || defined(__clang__)) && !defined(__CUDA_ARCH__) && \
    !defined(__HIP_DEVICE_COMPILE__) && !defined(__SYCL_DEVICE_ONLY__)
#define SIEVE_PREFETCH(p) __builtin_prefetch(p)
#else
#define SIEVE_PREFETCH(p) ((void)0)
#endif
