// SPDX-License-Identifier: Apache-2.0
// Sieve benchmark — sieve::mpi::rebalance against its limit, an MPI_Alltoallv
// of the same bytes between the same ranks (same counts and displacements,
// buffers already packed), and against the local compaction it starts with.
//
//   mpiexec -n 2 sieve_bench_mpi [--n SAMPLES_PER_RANK] [--reps R]
//
// The input is skewed: rank r keeps 90% of its samples when r is even, 10%
// when odd, so about 40% of the survivors change rank. Planes: the mask, an
// int32 id and four doubles (37 bytes per sample). Times are medians over R
// repetitions, each started after an MPI_Barrier, the slowest rank's time.
#include <sieve/mpi.hpp>
#include <sieve/sieve.hpp>

#include "harness.hpp"

#include <mpi.h>
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

using Exec = Kokkos::DefaultExecutionSpace;
using Mem = Exec::memory_space;

double slowest(double t) {
  double m = 0;
  MPI_Allreduce(&t, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return m;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

} // namespace

int main(int argc, char* argv[]) {
  MPI_Init(&argc, &argv);
  Kokkos::initialize(argc, argv);
  {
    std::int64_t n = std::int64_t{1} << 22;
    int reps = 15;
    bool keepPages = false;
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      if (a == "--n" && i + 1 < argc) n = std::atoll(argv[++i]);
      else if (a == "--reps" && i + 1 < argc) reps = std::atoi(argv[++i]);
      else if (a == "--keep-pages") keepPages = true;
      else if (a == "--help") {
        std::printf("mpiexec -n P sieve_bench_mpi [--n SAMPLES_PER_RANK] [--reps R]\n");
        n = -1;
      }
    }
    int p = 1, rank = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (keepPages) sieve_bench::keepFreedPages();
    if (n >= 0) {
      const Exec exec;
      const double keep = rank % 2 == 0 ? 0.9 : 0.1;
      std::mt19937_64 rng(1234 + rank);
      auto hmask = Kokkos::View<std::uint8_t*, Kokkos::HostSpace>("hmask", n);
      for (std::int64_t i = 0; i < n; ++i)
        hmask(i) = std::uniform_real_distribution<>()(rng) < keep;
      Kokkos::View<std::uint8_t*, Mem> mask0("mask0", n);
      Kokkos::deep_copy(mask0, hmask);
      Kokkos::View<std::int32_t*, Mem> id0("id0", n);
      Kokkos::View<double*, Mem> x0("x0", n);
      Kokkos::parallel_for(
          "init", Kokkos::RangePolicy<Exec>(exec, 0, n), KOKKOS_LAMBDA(const std::int64_t i) {
            id0(i) = static_cast<std::int32_t>(i);
            x0(i) = 0.5 * static_cast<double>(i);
          });
      exec.fence();
      const std::int64_t cap = 2 * n; // room for any share: no reallocation inside the timing
      Kokkos::View<std::uint8_t*, Mem> mask("mask", cap), m("m", cap);
      Kokkos::View<std::int32_t*, Mem> id("id", cap);
      Kokkos::View<double*, Mem> a("a", cap), b("b", cap), c("c", cap), d("d", cap);
      const auto head = std::pair<std::int64_t, std::int64_t>(0, n);
      auto reset = [&] {
        Kokkos::deep_copy(exec, Kokkos::subview(mask, head), mask0);
        Kokkos::deep_copy(exec, Kokkos::subview(m, head), mask0);
        Kokkos::deep_copy(exec, Kokkos::subview(id, head), id0);
        for (auto* v : {&a, &b, &c, &d}) Kokkos::deep_copy(exec, Kokkos::subview(*v, head), x0);
        exec.fence();
      };
      auto maskN = Kokkos::subview(mask, head);

      // The exchange's plan, as the call makes it, for the Alltoallv alone.
      std::uint32_t kept = 0;
      {
        Kokkos::View<std::int32_t*, Mem> map("map", n);
        Kokkos::View<std::uint32_t, Mem> cnt("cnt");
        Kokkos::View<unsigned char*, Mem> scratch("scratch", sieve::compact_scratch_bytes(n));
        kept = sieve::compact(mask0, map, cnt, scratch);
      }
      std::vector<std::int64_t> counts(p);
      const std::int64_t k64 = kept;
      MPI_Allgather(&k64, 1, MPI_INT64_T, counts.data(), 1, MPI_INT64_T, MPI_COMM_WORLD);
      const auto layout = sieve::Impl::recordLayout({1, 4, 8, 8, 8, 8});
      const auto plan = sieve::Impl::exchangePlan(counts, rank, layout);
      // The same exchange with the block each rank keeps sent to itself too
      // (what a rebalance through one plain Alltoallv of every survivor moves).
      std::vector<int> sendAll = plan.sendUnits, sendAllDispl = plan.sendDispl,
                       recvAll = plan.recvUnits, recvAllDispl = plan.recvDispl;
      std::uint64_t recvAllBytes = plan.recvBytes;
      for (const auto& blk : plan.sends)
        if (blk.rank == rank) {
          const int u = static_cast<int>((blk.samples * layout.bytes + plan.unit - 1) / plan.unit);
          sendAll[rank] = recvAll[rank] = u;
          sendAllDispl[rank] = static_cast<int>(blk.byteBegin / plan.unit);
          recvAllDispl[rank] = static_cast<int>(plan.recvBytes / plan.unit);
          recvAllBytes += u * plan.unit;
        }
      std::vector<unsigned char> sbuf(std::max<std::uint64_t>(plan.sendBytes, 16), 1),
          rbuf(std::max<std::uint64_t>(recvAllBytes, 16), 2);
      MPI_Datatype unit;
      MPI_Type_contiguous(static_cast<int>(plan.unit), MPI_BYTE, &unit);
      MPI_Type_commit(&unit);

      std::vector<double> tReb, tWs, tA2a, tA2aAll, tCompact;
      sieve::mpi::RebalanceWorkspace<Exec> ws("bench");
      Kokkos::View<std::int32_t*, Mem> map("map", n);
      Kokkos::View<std::uint32_t, Mem> cnt("cnt");
      Kokkos::View<unsigned char*, Mem> scratch("scratch", sieve::compact_scratch_bytes(n));
      for (int r = 0; r < reps + 1; ++r) { // the first round warms up
        reset();
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        const auto g = sieve::mpi::rebalance(exec, MPI_COMM_WORLD, maskN, m, id, a, b, c, d);
        const double reb = slowest(MPI_Wtime() - t0);
        if (g.total != plan.total) std::fprintf(stderr, "rank %d: total mismatch\n", rank);
        reset();
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        sieve::mpi::rebalance(exec, MPI_COMM_WORLD, ws, maskN, m, id, a, b, c, d);
        const double withWs = slowest(MPI_Wtime() - t0);
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        MPI_Alltoallv(sbuf.data(), plan.sendUnits.data(), plan.sendDispl.data(), unit, rbuf.data(),
                      plan.recvUnits.data(), plan.recvDispl.data(), unit, MPI_COMM_WORLD);
        const double a2a = slowest(MPI_Wtime() - t0);
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        MPI_Alltoallv(sbuf.data(), sendAll.data(), sendAllDispl.data(), unit, rbuf.data(),
                      recvAll.data(), recvAllDispl.data(), unit, MPI_COMM_WORLD);
        const double a2aAll = slowest(MPI_Wtime() - t0);
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        sieve::compact(exec, mask0, map, cnt, scratch);
        exec.fence();
        const double cmp = slowest(MPI_Wtime() - t0);
        if (r > 0) {
          tReb.push_back(reb);
          tWs.push_back(withWs);
          tA2a.push_back(a2a);
          tA2aAll.push_back(a2aAll);
          tCompact.push_back(cmp);
        }
      }
      MPI_Type_free(&unit);
      if (rank == 0) {
        const double reb = median(tReb), ws1 = median(tWs), a2a = median(tA2a),
                     all = median(tA2aAll), cmp = median(tCompact);
        std::uint64_t moved = 0;
        for (const auto& s : plan.sends)
          if (s.rank != rank) moved += static_cast<std::uint64_t>(s.samples);
        std::printf(
            "sieve_bench_mpi: %d ranks, %lld samples per rank, %lld survivors in all, "
            "%u bytes per sample, %s, %d reps (medians, slowest rank)\n",
            p, static_cast<long long>(n), static_cast<long long>(plan.total),
            static_cast<unsigned>(layout.bytes), Exec::name(), reps);
        std::printf("  MPI_Alltoallv, the bytes that change rank   %9.3f ms  (the limit)\n",
                    1e3 * a2a);
        std::printf("  MPI_Alltoallv, every survivor's bytes      %9.3f ms\n", 1e3 * all);
        std::printf("  local sieve::compact                       %9.3f ms\n", 1e3 * cmp);
        std::printf(
            "  rebalance with a RebalanceWorkspace        %9.3f ms  x%.2f the limit, "
            "x%.2f the plain Alltoallv\n",
            1e3 * ws1, ws1 / a2a, ws1 / all);
        std::printf(
            "  rebalance, buffers allocated per call      %9.3f ms  x%.2f the limit, "
            "x%.2f the plain Alltoallv\n",
            1e3 * reb, reb / a2a, reb / all);
        std::printf("  rank 0 sends %llu of its %lld survivors to other ranks\n",
                    static_cast<unsigned long long>(moved), static_cast<long long>(plan.kept));
      }
    }
  }
  Kokkos::finalize();
  MPI_Finalize();
  return 0;
}
