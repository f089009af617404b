// Sieve (internal) — the native faces the Kokkos face dispatches to.
#pragma once

#include <sieve/impl/common.hpp>
#include <sieve/native/host/compact.hpp>
#include <sieve/native/host/reorder.hpp>
#include <sieve/native/host/scan.hpp>

#if defined(KOKKOS_ENABLE_CUDA) && SIEVE_HAVE_CUDA
#include <sieve/native/cuda/compact.hpp>
#include <sieve/native/cuda/reorder.hpp>
#if defined(__CUDACC__)
#include <sieve/native/cuda/scan.cuh>
#define SIEVE_KOKKOS_CUDA_SCAN 1
#endif
#endif

namespace sieve {
namespace Impl {

/// The OpenMP team of a Kokkos::OpenMP instance: its own threads.
template <class Exec>
HostTeam hostTeamOf(const Exec& exec) {
  return HostTeam{static_cast<int>(exec.concurrency())};
}

} // namespace Impl
} // namespace sieve
