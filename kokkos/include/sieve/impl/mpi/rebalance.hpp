// SPDX-License-Identifier: Apache-2.0
// Sieve (internal) — sieve::mpi::rebalance, phase by phase: the local checks and
// survivors, the agreement on one exchange plan, the packing, the exchange
// and the unpacking (RebalanceRun), and the free rebalance's phase 1.
// Included by <sieve/mpi.hpp> after its public types (Global, FindallResult,
// RebalanceWorkspace) and the single-rank API it builds on.
#pragma once

#include <sieve/core/distribute.hpp>
#include <sieve/impl/args.hpp>
#include <sieve/impl/call.hpp>
#include <sieve/impl/common.hpp>
#include <sieve/impl/constraints.hpp>
#include <sieve/impl/mpi/exchange.hpp>

#include <mpi.h>
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace sieve {
namespace mpi {
namespace Impl {

using sieve::Impl::CallRegion;
using sieve::Impl::Names;

/// Whether a plane's View type can be given a new allocation (managed, not
/// strided).
template <class V>
inline constexpr bool kGrowable = !V::traits::memory_traits::is_unmanaged &&
                                  !std::is_same_v<typename V::array_layout, Kokkos::LayoutStride>;

/// The run-time checks of one plane; lowers `capacity` to the plane's extent
/// when it cannot grow. A rank-1 plane must be contiguous; a rank-2 plane
/// (extent(0) the samples, its rows moving whole) may have any strides, and
/// is measured by its address range.
template <class V>
void checkPlane(const char* fn, std::int64_t n, std::size_t j, const V& v,
                std::vector<sieve::Impl::ArrayBytes>& arrays, std::int64_t& capacity) {
  const std::string name = "plane " + std::to_string(j);
  const std::int64_t e = static_cast<std::int64_t>(v.extent(0));
  if (e < n)
    sieve::Impl::fail(fn, name + " has extent " + std::to_string(e) +
                              "; every plane must hold the mask's n = " + std::to_string(n) +
                              " samples");
  if (V::rank == 1 && !sieve::Impl::contiguous(v))
    sieve::Impl::fail(fn, name + " must be contiguous (stride 1)");
  constexpr std::size_t b = sizeof(sieve::Impl::ValueOf<V>);
  if (v.size() > 0) sieve::Impl::checkPtr(fn, v.data(), name.c_str(), b);
  bool growable = false;
  if constexpr (kGrowable<V>) growable = v.use_count() > 0;
  if (!growable) capacity = std::min(capacity, e);
  if constexpr (V::rank == 1) arrays.push_back(sieve::Impl::arrayBytes(name, v.data(), e, b));
  else
    arrays.push_back(sieve::Impl::ArrayBytes{name, reinterpret_cast<std::uintptr_t>(v.data()),
                                             sieve::Impl::coveredBytes(v), 1, 1});
}

/// Elements per sample of a plane: 1, or a rank-2 plane's extent(1).
template <class V>
std::uint32_t colsOf(const V& v) {
  if constexpr (V::rank == 1) return 1u;
  else return static_cast<std::uint32_t>(v.extent(1));
}

/// A plane as the pack and unpack kernels move it.
template <class V>
PlaneBytes planeBytes(const V& v, std::int64_t before, std::uint32_t elem) {
  PlaneBytes b{reinterpret_cast<unsigned char*>(v.data()), before, elem};
  b.sample = static_cast<std::int64_t>(v.stride(0)) * elem;
  if constexpr (V::rank == 2) {
    b.cols = colsOf(v);
    b.col = static_cast<std::int64_t>(v.stride(1)) * elem;
  }
  return b;
}

/// A new allocation of plane `v`'s type for `n` samples (a rank-2 plane
/// keeps its row length).
template <class V>
V grownPlane(const V& v, std::int64_t n) {
  const auto alloc = Kokkos::view_alloc(Kokkos::WithoutInitializing, v.label());
  if constexpr (V::rank == 2 && V::rank_dynamic == 2)
    return sieve::Impl::allocate<V>(alloc, static_cast<std::size_t>(n), v.extent(1));
  else return sieve::Impl::allocate<V>(alloc, static_cast<std::size_t>(n));
}

template <class Tuple, class F, std::size_t... J>
void forEachPlane(Tuple& t, F&& f, std::index_sequence<J...>) {
  (f(std::integral_constant<std::size_t, J>{}, std::get<J>(t)), ...);
}

/// Fill bytes [from, to) of a mask plane with the byte that reads as dead.
struct FillDead {
  unsigned char* mask;
  unsigned char dead;
  std::int64_t from;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const { mask[from + i] = dead; }
};

/// Phase 2 of a rebalance: every rank's failure, count, plane set and room,
/// in one MPI_Allgather; every rank computes the same plan or throws.
inline sieve::Impl::ExchangePlan rebalanceAgree(const char* fn, MPI_Comm comm, const Attempt& mine,
                                                std::int64_t kept, std::int64_t capacity,
                                                const std::vector<std::uint32_t>& elem,
                                                const std::vector<std::uint32_t>& cols,
                                                const sieve::Impl::RecordLayout& layout,
                                                bool fixed) {
  const int p = commSize(comm), rank = commRank(comm);
  // The plane set's digest: element sizes, and the row length of every
  // rank-2 plane (0 marks a rank-1 plane: a View<double* [1]> is not a
  // View<double*>).
  std::vector<std::uint32_t> shape;
  for (std::size_t j = 0; j < elem.size(); ++j) {
    shape.push_back(elem[j]);
    shape.push_back(cols[j]);
  }
  const std::uint64_t signature = sieve::Impl::planeSignature(shape);
  const std::array<std::int64_t, 4> record{mine.failed() ? 1 : 0, kept,
                                           static_cast<std::int64_t>(signature), capacity};
  std::vector<std::int64_t> all(4 * static_cast<std::size_t>(p));
  check(MPI_Allgather(record.data(), 4, MPI_INT64_T, all.data(), 4, MPI_INT64_T, comm),
        "MPI_Allgather");
  for (int q = 0; q < p; ++q)
    if (all[4 * q] != 0) throwAgreed(fn, mine, q, p, "checking its arguments or compacting");
  std::vector<std::int64_t> counts(p);
  for (int q = 0; q < p; ++q) {
    counts[q] = all[4 * q + 1];
    if (all[4 * q + 2] != all[2]) {
      std::string sizes;
      for (std::size_t j = 0; j < elem.size(); ++j)
        sizes += (sizes.empty() ? "" : ", ") + std::to_string(elem[j]) +
                 (cols[j] != 0 ? " x " + std::to_string(cols[j]) : std::string());
      sieve::Impl::fail(fn, "the ranks pass different plane sets: rank " + std::to_string(q) +
                                "'s planes (their number, element sizes and row lengths, in "
                                "order) differ from rank 0's; this rank's are {" +
                                sizes + "} bytes. Every rank must pass the same planes");
    }
  }
  const sieve::Impl::ExchangePlan plan = sieve::Impl::exchangePlan(counts, rank, layout);
  for (int q = 0; q < p; ++q) {
    const std::int64_t need = sieve::Impl::shareSize(plan.total, p, q);
    if (need > all[4 * q + 3])
      sieve::Impl::fail(
          fn, "rank " + std::to_string(q) + " is to hold " + std::to_string(need) +
                  " samples, but " +
                  (fixed ? "its population has " + std::to_string(all[4 * q + 3]) +
                               " slots (a Population never grows: make it with room for "
                               "ceil(total / ranks) samples on every rank)"
                         : "a plane of its holds " + std::to_string(all[4 * q + 3]) +
                               " and cannot grow (a View that does not own its memory); give it "
                               "room for ceil(total / ranks) samples") +
                  ". Nothing was exchanged");
  }
  return plan;
}

/// One rebalance, phase by phase: the state the phases share (the planes,
/// their element sizes and record layout, what phase 1 found, the grown
/// planes and the byte planes packed from and unpacked to).
template <class Exec, class... Planes>
struct RebalanceRun {
  using Policy = Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>;
  static constexpr int N = static_cast<int>(sizeof...(Planes));
  static constexpr auto seq = std::index_sequence_for<Planes...>{};

  const char* fn;
  const Exec& exec;
  MPI_Comm comm;
  RebalanceWorkspace<Exec>& ws;
  bool fixed; // every plane keeps its extent (a Population's: they never grow)
  Names names, wsNames;
  int p, rank;
  std::tuple<Planes&...> refs;
  std::vector<std::uint32_t> elem;  // bytes per element
  std::vector<std::uint32_t> cols;  // elements per sample (a rank-2 plane's row)
  std::vector<std::uint32_t> shape; // cols, 0 for the rank-1 planes (the digest)
  sieve::Impl::RecordLayout layout;
  // Phase 1.
  Attempt mine;
  std::int64_t kept = 0, capacity = std::numeric_limits<std::int64_t>::max();
  const void* mask = nullptr;                 // the mask's bytes (its tail is made dead)
  MaskPolarity polarity = MaskPolarity::keep; // what they mean
  // Phase 3.
  std::tuple<std::remove_const_t<Planes>...> grown;
  Kokkos::Array<PlaneBytes, N> from{}, to{};
  int maskPlane = -1;
  std::int64_t maskExtent = 0;
  bool direct = true; // (set in local(): a bad SIEVE_MPI_DEVICE_BUFFERS is an agreed failure)

  RebalanceRun(const char* f, const std::string& label, const Exec& e, MPI_Comm c,
               RebalanceWorkspace<Exec>& w, bool fix, Planes&... planes)
      : fn(f), exec(e), comm(c), ws(w), fixed(fix), names(label, f), wsNames(w.label, f),
        p(commSize(c)), rank(commRank(c)),
        refs(planes...), elem{static_cast<std::uint32_t>(sizeof(sieve::Impl::ValueOf<Planes>))...},
        cols{colsOf(planes)...}, shape{(Planes::rank == 1 ? 0u : colsOf(planes))...},
        layout(sieve::Impl::recordLayout(elem, cols)) {}

  /// 1. Local: check the arguments, find the survivors, read their count.
  template <class Local>
  void local(Local&& findSurvivors) {
    mine.run([&] {
      direct = mpiReads<typename Exec::memory_space>();
      sieve::Impl::checkKernelsAllowed<Exec>(fn); // pack and unpack are Kokkos kernels
      const std::int64_t n = findSurvivors(kept, mask, polarity); // checks the mask, fills ws.map
      std::vector<sieve::Impl::ArrayBytes> arrays;
      forEachPlane(
          refs, [&](auto j, auto& v) { checkPlane(fn, n, j, v, arrays, capacity); }, seq);
      if (fixed) capacity = std::min(capacity, n);
      sieve::Impl::checkApart(fn, arrays, 0, true, "planes must not overlap; each is moved once");
    });
  }

  /// 2. Agree on failures, plane sets and room; every rank the same plan.
  sieve::Impl::ExchangePlan agree() {
    return rebalanceAgree(fn, comm, mine, kept, capacity, elem, shape, layout, fixed);
  }

  /// 3. Allocate and pack; agree again before the exchange (an allocation
  ///    may fail on one rank only). The planes are still untouched.
  void pack(const sieve::Impl::ExchangePlan& plan) {
    Attempt packed;
    packed.run([&] {
      ensure(ws.send, std::max<std::uint64_t>(plan.sendBytes, plan.unit), wsNames("send"));
      ensure(ws.recv, std::max<std::uint64_t>(plan.recvBytes, plan.unit), wsNames("recv"));
      uploadBlocks(exec, ws.sends, wsNames("sends"), plan.sends);
      uploadBlocks(exec, ws.recvs, wsNames("recvs"), plan.recvs);
      forEachPlane(
          refs, [&](auto j, auto& v) { bytePlanes(plan, j, v); }, seq);
      if (plan.kept > 0)
        Kokkos::parallel_for(
            names("pack"), Policy(exec, 0, plan.kept),
            PackPlanes<N, decltype(ws.map), decltype(ws.sends)>{
                from, ws.map, ws.sends, static_cast<int>(plan.sends.size()), ws.send.data()});
      exec.fence();
      if (!direct) {
        ensure(ws.hsend, ws.send.extent(0), wsNames("send_host"));
        ensure(ws.hrecv, ws.recv.extent(0), wsNames("recv_host"));
        Kokkos::deep_copy(
            Kokkos::subview(ws.hsend, std::make_pair(std::size_t(0), ws.send.extent(0))), ws.send);
      }
    });
    const int failedPack = agreeFailure(comm, packed, rank, p);
    if (failedPack < p) throwAgreed(fn, packed, failedPack, p, "allocating or packing its buffers");
  }

  /// Plane J's byte planes (grown first when it is too short and may grow),
  /// and whether it is the mask.
  template <class J, class V>
  void bytePlanes(const sieve::Impl::ExchangePlan& plan, J, V& v) {
    constexpr std::size_t j = J::value;
    auto& g = std::get<j>(grown);
    if constexpr (kGrowable<V>) {
      if (!fixed && static_cast<std::int64_t>(v.extent(0)) < plan.received)
        g = grownPlane(v, plan.received);
    }
    const auto before = static_cast<std::int64_t>(layout.before[j]);
    from[j] = planeBytes(v, before, elem[j]);
    to[j] = g.data() != nullptr ? planeBytes(g, before, elem[j]) : from[j];
    if (V::rank == 1 && elem[j] == 1 && mask != nullptr &&
        static_cast<const void*>(v.data()) == mask) {
      maskPlane = static_cast<int>(j);
      maskExtent = g.data() != nullptr ? static_cast<std::int64_t>(g.extent(0))
                                       : static_cast<std::int64_t>(v.extent(0));
    }
  }

  /// 4. One exchange of every plane's bytes (the block a rank keeps stays in
  ///    its send buffer); then unpack in place, or into the grown planes; the
  ///    mask plane's tail past the new local count reads dead (no ghost
  ///    samples for the next compaction).
  void exchange(const sieve::Impl::ExchangePlan& plan) {
    {
      const UnitType type(plan.unit);
      check(MPI_Alltoallv(direct ? ws.send.data() : ws.hsend.data(), plan.sendUnits.data(),
                          plan.sendDispl.data(), type.get(),
                          direct ? ws.recv.data() : ws.hrecv.data(), plan.recvUnits.data(),
                          plan.recvDispl.data(), type.get(), comm),
            "MPI_Alltoallv");
    }
    if (!direct)
      Kokkos::deep_copy(
          exec, ws.recv,
          Kokkos::subview(ws.hrecv, std::make_pair(std::size_t(0), ws.recv.extent(0))));
    if (plan.received > 0)
      Kokkos::parallel_for(
          names("unpack"), Policy(exec, 0, plan.received),
          UnpackPlanes<N, decltype(ws.recvs)>{to, ws.recvs, static_cast<int>(plan.recvs.size()),
                                              rank, ws.recv.data(), ws.send.data()});
    if (maskPlane >= 0 && maskExtent > plan.received)
      Kokkos::parallel_for(names("dead_tail"), Policy(exec, 0, maskExtent - plan.received),
                           FillDead{to[maskPlane].data, maskByte(polarity, false), plan.received});
    exec.fence();
    forEachPlane(
        refs,
        [&](auto j, auto& v) {
          auto& g = std::get<decltype(j)::value>(grown);
          if (g.data() != nullptr) v = g;
        },
        seq);
  }
};

/// A rebalance: the handshake, then phases 1-4 (RebalanceRun).
/// `local(kept, mask, polarity)` (phase 1, after the handshake, inside the
/// rank's Attempt: whatever it throws is agreed) checks the arguments, writes
/// ws.map (the survivors' slots in the order they are to move) and sets
/// `kept`, the mask's bytes (their tail reads dead afterwards when they are
/// one of the planes) and their polarity; `fixed` keeps every plane at its
/// extent (a Population's: they never grow).
template <class Exec, class Local, class... Planes>
Global rebalanceRun(const char* fn, Call call, const std::string& label, const Exec& exec,
                    MPI_Comm comm, RebalanceWorkspace<Exec>& ws, bool fixed, Local&& local,
                    Planes&... planes) {
  checkComm(fn, comm);
  handshake(fn, comm, call);
  const CallRegion region(Names(label, fn).prefix);
  RebalanceRun<Exec, Planes...> run(fn, label, exec, comm, ws, fixed, planes...);
  run.local(std::forward<Local>(local));
  const sieve::Impl::ExchangePlan plan = run.agree();
  run.pack(plan);
  run.exchange(plan);
  return Global{plan.received, sieve::Impl::shareBegin(plan.total, run.p, run.rank), plan.total};
}

/// The free rebalance's static checks and phase 1: the mask compacted in
/// slot order.
template <class Exec, class Mask, class... Planes>
Global rebalanceFree(const std::string& label, const Exec& exec, MPI_Comm comm,
                     RebalanceWorkspace<Exec>& ws, const Mask& mask, MaskPolarity polarity,
                     Planes&... planes) {
  constexpr const char* fn = "sieve::mpi::rebalance";
  static_assert(sizeof...(Planes) > 0,
                "sieve::mpi::rebalance: give the planes to move after the mask (and polarity)");
  static_assert((!std::is_const_v<Planes> && ...),
                "sieve::mpi::rebalance: every plane must be a non-const View variable (an lvalue): "
                "the call writes it, and gives it a new allocation when it is too short");
  constexpr int bad = sieve::Impl::firstBadPlane<Exec, std::remove_const_t<Planes>...>();
  static_assert(bad < 0,
                "sieve::mpi::rebalance: every plane must be a writable rank-1 View of "
                "trivially-copyable 1, 2, 4, 8 or 16-byte elements, or a rank-2 View of them "
                "(extent(0) the samples, one row each), accessible from the execution space "
                "(on Kokkos < 4.4 a View of Kokkos::Array must be rank 1 and LayoutRight)");
  const Names wsNames(ws.label, fn);
  auto local = [&](std::int64_t& kept, const void*& bytes, MaskPolarity& meaning) {
    bytes = mask.data();
    meaning = polarity;
    const std::int64_t n = sieve::Impl::extent64(mask);
    sieve::Impl::checkSamples(fn, n, "mask.extent(0)");
    ensure(ws.map, static_cast<std::size_t>(n), wsNames("index_map"));
    ensure(ws.scratch, sieve::compact_scratch_bytes(n), wsNames("scratch"));
    if (ws.count.data() == nullptr)
      ws.count = sieve::Impl::allocate<decltype(ws.count)>(wsNames("count"));
    sieve::compact(label, exec, mask, polarity, ws.map, ws.count, ws.scratch);
    std::uint32_t c = 0;
    Kokkos::deep_copy(c, ws.count); // fences
    kept = c;
    return n;
  };
  return rebalanceRun(fn, Call::rebalance, label, exec, comm, ws, false, local, planes...);
}

/// Every free rebalance overload ends here: its planes must be variables
/// (lvalues) the call can give a new allocation; then rebalanceFree.
template <class Exec, class Mask, class... Planes>
Global rebalanceEntry(const std::string& label, const Exec& exec, MPI_Comm comm,
                      RebalanceWorkspace<Exec>& ws, const Mask& mask, MaskPolarity polarity,
                      Planes&&... planes) {
  static_assert((std::is_lvalue_reference_v<Planes> && ...),
                "sieve::mpi::rebalance: every plane must be a View variable (an lvalue), not a "
                "temporary: the call may give it a new allocation");
  return rebalanceFree(label, exec, comm, ws, mask, polarity, planes...);
}

} // namespace Impl
} // namespace mpi
} // namespace sieve
