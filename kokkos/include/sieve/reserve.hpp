// SPDX-License-Identifier: Apache-2.0
// Sieve — sieve::reserve: have Kokkos allocate, at setup, the buffers it keeps
// per execution space for the portable kernels, so that no later Sieve call
// given its scratch allocates anything, the first one included.
#pragma once

#include <sieve/compact.hpp>
#include <sieve/reorder.hpp>
#include <sieve/scan.hpp>
#include <sieve/trigger.hpp>

#include <cstdint>
#include <string>

namespace sieve {

/// Runs every kernel shape of Sieve's portable face once, on a small problem
/// of its own, so that Kokkos allocates now the buffers it keeps per execution
/// space and otherwise allocates lazily in the first kernel that needs them
/// (team scratch, reduction buffers: "Kokkos::Serial::scratch_mem",
/// "Kokkos::CudaSpace::TeamScratchMemory" and the like). After it, the calls given their scratch
/// allocate nothing from the first one on, on every space whose buffers do not grow with the
/// problem size (Serial, OpenMP, Threads; on GPU spaces Kokkos' reduction buffers may still grow
/// for a larger n on the portable face, i.e. strided Views). Call it once per process and space at
/// setup, before capturing or timing; on a GPU space once per instance (each Kokkos::Cuda(stream)
/// keeps its own team scratch), and the promise holds for calls from one host thread at a time.
/// O(1) work (about 4 000 samples); allocates and frees its own Views; fences `exec`. Throws
/// std::invalid_argument, with nothing run, when called inside an OpenMP parallel region on
/// Kokkos::OpenMP (which cannot launch kernels there); otherwise what Kokkos' allocations throw.
template <class ExecSpace>
std::enable_if_t<Impl::kIsExec<ExecSpace>> reserve(const ExecSpace& exec) {
  using Dev = Kokkos::Device<ExecSpace, typename ExecSpace::memory_space>;
  const Impl::Names names("", "sieve::reserve");
  Impl::checkKernelsAllowed<ExecSpace>("sieve::reserve");
  const std::int64_t n = 2 * Tuning::Portable::kScanBlock + 33; // two full blocks and a tail
  // Every array twice: contiguous (the native face where there is one) and
  // strided (the portable face on every space).
  auto mask2 =
      Impl::allocate<Kokkos::View<std::uint8_t**, Kokkos::LayoutRight, Dev>>(names("mask"), n, 2);
  auto i32 =
      Impl::allocate<Kokkos::View<std::int32_t**, Kokkos::LayoutRight, Dev>>(names("int32"), n, 6);
  auto f64 =
      Impl::allocate<Kokkos::View<double**, Kokkos::LayoutRight, Dev>>(names("double"), n, 2);
  auto i64 =
      Impl::allocate<Kokkos::View<std::int64_t**, Kokkos::LayoutRight, Dev>>(names("int64"), n, 2);
  auto mask = Impl::allocate<Kokkos::View<std::uint8_t*, Dev>>(names("mask"), n);
  auto perm = Impl::allocate<Kokkos::View<std::int32_t*, Dev>>(names("perm"), n);
  auto inv = Impl::allocate<Kokkos::View<std::int32_t*, Dev>>(names("inv"), n);
  auto map = Impl::allocate<Kokkos::View<std::int32_t*, Dev>>(names("map"), n);
  auto count = Impl::allocate<Kokkos::View<std::uint32_t, Dev>>(names("count"));
  auto span = Impl::allocate<Kokkos::View<std::uint32_t, Dev>>(names("span"));
  Kokkos::View<std::uint32_t, Dev> unconditional;
  auto scratch = Impl::allocate<Kokkos::View<unsigned char*, Dev>>(names("scratch"),
                                                                   reorder_scratch_bytes(n, 8));
  Trigger<typename ExecSpace::memory_space> trig("reserve", 0.5f);
  const auto all = Kokkos::ALL;
  const auto smask = Kokkos::subview(mask2, all, 0);
  const auto sperm = Kokkos::subview(i32, all, 0), sinv = Kokkos::subview(i32, all, 1);
  const auto smap = Kokkos::subview(i32, all, 2);
  const auto sx = Kokkos::subview(f64, all, 0);
  Kokkos::parallel_for(
      names("identity"), Kokkos::RangePolicy<ExecSpace>(exec, 0, n),
      KOKKOS_LAMBDA(const std::int64_t i) {
        mask(i) = smask(i) = static_cast<std::uint8_t>(i % 3 == 0);
        perm(i) = inv(i) = sperm(i) = sinv(i) = static_cast<std::int32_t>(i);
      });
  Kokkos::deep_copy(exec, trig.span, static_cast<std::uint32_t>(n));
  Kokkos::deep_copy(exec, span, static_cast<std::uint32_t>(n));
  Impl::keepTeamScratch(exec, names); // GPU spaces: else an (empty) allocation per team kernel
  for (int strided = 0; strided < 2; ++strided) {
    if (strided) {
      compact(names.prefix, exec, smask, smap, count, scratch, trig);
      reorder(names.prefix, exec, smask, sperm, sinv, smap, count, span, unconditional, scratch,
              smask, sx);
      restore(names.prefix, exec, sperm, sinv, scratch, smask, sx);
    } else {
      compact(names.prefix, exec, mask, map, count, scratch, trig);
      reorder(names.prefix, exec, mask, perm, inv, map, count, span, unconditional, scratch, mask);
      restore(names.prefix, exec, perm, inv, scratch, mask);
    }
    Kokkos::deep_copy(exec, span, static_cast<std::uint32_t>(n));
  }
  // Scans of 4- and 8-byte elements, contiguous and strided, with their
  // block sums.
  const auto scans = [&](auto zero, const auto& in, const auto& out) {
    using T = decltype(zero);
    auto sums = Impl::allocate<Kokkos::View<T*, typename ExecSpace::memory_space>>(
        Kokkos::view_alloc(exec, names("block_sums")), scan_scratch_size<T>(Impl::extent64(in)));
    inclusive_scan(names.prefix, exec, in, out, sums);
    exclusive_scan(names.prefix, exec, in, out, zero, sums);
  };
  scans(std::int32_t(0), Kokkos::subview(i32, all, 3), Kokkos::subview(i32, all, 4));
  scans(std::int32_t(0), map, perm);
  scans(std::int64_t(0), Kokkos::subview(i64, all, 0), Kokkos::subview(i64, all, 1));
  scans(0.0, sx, Kokkos::subview(f64, all, 1));
  Impl::fence(exec, "reserve: done");
}

/// sieve::reserve on a default instance of ExecSpace.
template <class ExecSpace = Kokkos::DefaultExecutionSpace>
void reserve() {
  reserve(ExecSpace{});
}

} // namespace sieve
