// SPDX-License-Identifier: Apache-2.0
// Sieve — the distributed face (component Sieve::mpi, SIEVE_HAVE_MPI): global
// answers over the ranks of an MPI communicator, each rank compacting its own
// samples on its own execution space.
//
//   Global mpi::compact([label,] exec, comm, mask[, polarity], index_map, count, scratch[,
//   trigger]) Global mpi::compact([label,] exec, comm, population, mask[, polarity])
//   FindallResult<View> mpi::findall([label,] exec, comm, mask)
//   FindallResult<View> mpi::findall([label,] exec, comm, pred, view)
//   FindallResult<View> mpi::findall([label,] exec, comm, n, pred(i))
//   Global mpi::rebalance([label,] exec, comm[, workspace], mask[, polarity], planes...)
//   Global mpi::rebalance([label,] exec, comm[, workspace], population, planes)
//
// Global order: the ranks' samples one after another, rank 0's first. Every
// call is collective over `comm` (every rank calls it, in the same order) and
// blocking. A rank whose arguments are rejected, or whose local step throws,
// still takes part in one agreement round before anything is exchanged: then
// every rank throws (that rank its own exception, the others
// std::invalid_argument naming it), and no rank hangs. Not agreed: MPI not
// initialized, MPI_COMM_NULL or an intercommunicator (every rank passes the
// same communicator, so they fail together) and MPI's own errors (its default
// handler ends the job). Every call starts with the same handshake (one
// MPI_Iallreduce of two int64 naming the call): ranks in different sieve::mpi
// calls all throw std::invalid_argument naming them, none hangs in mismatched
// collectives; a rank whose peers never join throws after $SIEVE_MPI_TIMEOUT
// seconds (1800 when unset; 0 or off: wait for ever).
//
// Costs per call (besides the handshake): compact / findall add one round of three non-blocking
// collectives of a few int64 (MPI_Iallreduce x2 + MPI_Iexscan) after a host
// read of the local count; rebalance adds one MPI_Allgather of four int64 per
// rank, one MPI_Allreduce of an int, and one MPI_Alltoallv of the survivors'
// plane bytes. docs/distributed.md has the design and its limits at scale.
#pragma once

#include <sieve/config.hpp>

#include <sieve/compact.hpp>
#include <sieve/findall.hpp>
#include <sieve/impl/mpi/exchange.hpp>
#include <sieve/population.hpp>
#include <sieve/reorder.hpp>

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

/// Where this rank's samples stand in the global order after a call: its
/// k-th (kept or held) sample is global sample `offset + k`, for k < `local`;
/// `total` is the sum of `local` over the ranks.
struct Global {
  std::int64_t local = 0;
  std::int64_t offset = 0;
  std::int64_t total = 0;
};

/// What sieve::mpi::findall returns: the global linear indices of this
/// rank's selected elements (ascending), where they stand among every rank's
/// selected elements, and the elements (the positions the indices count).
template <class View>
struct FindallResult {
  View indices;                    // global linear indices, int64
  Global selected;                 // selected elements: indices.extent(0) == selected.local
  std::int64_t element_offset = 0; // elements on the ranks before this one
  std::int64_t elements = 0;       // elements on every rank
};

/// The buffers of sieve::mpi::rebalance, kept between calls: a call given a
/// workspace allocates only what the workspace lacks (it grows to the largest
/// call and never shrinks), so that steady-state calls allocate nothing but
/// the planes that must grow. A cheap handle (View semantics); one call at a
/// time per workspace. Without one, each call allocates and frees its own.
template <class ExecSpace = Kokkos::DefaultExecutionSpace>
class RebalanceWorkspace {
 public:
  using memory_space = typename ExecSpace::memory_space;
  /// An empty workspace; `label` names its allocations ("<label>: sieve::mpi::rebalance::send",
  /// ...). O(1).
  explicit RebalanceWorkspace(const std::string& label = "") : label(label) {}

  std::string label;
  Kokkos::View<std::int32_t*, memory_space> map;
  Kokkos::View<std::uint32_t, memory_space> count;
  Kokkos::View<unsigned char*, memory_space> scratch, send, recv;
  Kokkos::View<unsigned char*, Kokkos::HostSpace> hsend,
      hrecv; // staging when MPI cannot read the space
  Kokkos::View<sieve::Impl::ExchangeBlock*, memory_space> sends, recvs;
  Kokkos::View<std::uint8_t*, memory_space> order; // a Population's mask in sample-id order
};

namespace Impl {

using sieve::Impl::Names;

using sieve::Impl::CallRegion;

/// A compaction on every rank, placed in the global order: the handshake,
/// then `local()` (the rank's compaction, returning its count) inside the
/// rank's Attempt, then one counting round that also agrees on failures.
template <class Local>
Global countedCompact(const char* fn, Call call, const std::string& label, MPI_Comm comm,
                      Local&& local) {
  checkComm(fn, comm);
  handshake(fn, comm, call);
  const CallRegion region(Names(label, fn).prefix);
  Attempt mine;
  std::int64_t count = 0;
  mine.run([&] { count = local(); });
  const Tally t = tally(comm, mine, {count});
  if (t.failedRank < commSize(comm))
    throwAgreed(fn, mine, t.failedRank, commSize(comm), "in its local compaction");
  return Global{count, t.before[0], t.sums[0]};
}

template <class Exec, class Mask, class... Args>
Global compactEntry(const std::string& label, const Exec& exec, MPI_Comm comm, const Mask& mask,
                    const Args&... args) {
  constexpr const char* fn = "sieve::mpi::compact";
  constexpr std::size_t p = sieve::Impl::kLeadingPolarity<Args...> ? 1 : 0;
  static_assert(sizeof...(Args) >= p + 3,
                "sieve::mpi::compact: the arguments are compact([label,] exec, comm, mask[, "
                "polarity], index_map, count, scratch[, trigger])");
  return countedCompact(fn, Call::compact, label, comm, [&] {
    sieve::compact(label, exec, mask, args...);
    std::uint32_t c = 0;
    if constexpr (sizeof...(Args) >= p + 3)                   // else only the assertion above
      Kokkos::deep_copy(c, sieve::Impl::nth<p + 1>(args...)); // fences
    return static_cast<std::int64_t>(c);
  });
}

/// Adds the rank's element offset to its local linear indices.
template <class V>
struct AddOffset {
  V v;
  std::int64_t offset;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const { v(i) += offset; }
};

template <class First, class... Args>
std::int64_t elementsOf(const First& first, const Args&... args) {
  if constexpr (Kokkos::is_view<First>::value) return static_cast<std::int64_t>(first.size());
  else if constexpr (sieve::Impl::kFindallCount<First>) return static_cast<std::int64_t>(first);
  else return static_cast<std::int64_t>(sieve::Impl::nth<0>(args...).size());
}

template <class Exec, class First, class... Args>
auto findallEntry(const std::string& label, const Exec& exec, MPI_Comm comm, const First& first,
                  const Args&... args) {
  constexpr const char* fn = "sieve::mpi::findall";
  using Result = decltype(sieve::findall(exec, first, args..., sieve::linear_indices));
  static_assert(Kokkos::is_view<Result>::value,
                "sieve::mpi::findall: it returns the global linear indices in a new View; "
                "sieve::into is not one of its options");
  checkComm(fn, comm);
  handshake(fn, comm, Call::findall);
  const CallRegion region(Names(label, fn).prefix);
  Attempt mine;
  Result indices;
  std::int64_t elements = 0;
  mine.run([&] {
    indices = sieve::findall(label, exec, first, args..., sieve::linear_indices);
    elements = elementsOf(first, args...);
  });
  const std::int64_t local = static_cast<std::int64_t>(indices.extent(0));
  const Tally t = tally(comm, mine, {local, elements});
  const int p = commSize(comm);
  if (t.failedRank < p) throwAgreed(fn, mine, t.failedRank, p, "in its local findall");
  if (t.before[1] != 0 && local > 0) {
    Kokkos::parallel_for(Names(label, fn)("offset"),
                         Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(exec, 0, local),
                         AddOffset<Result>{indices, t.before[1]});
    exec.fence();
  }
  return FindallResult<Result>{indices, Global{local, t.before[0], t.sums[0]}, t.before[1],
                               t.sums[1]};
}

/// What sieve::mpi::findall returns for these arguments.
template <class Exec, class First, class... Args>
using FindallReturn =
    FindallResult<decltype(sieve::findall(std::declval<const Exec&>(), std::declval<const First&>(),
                                          std::declval<const Args&>()..., sieve::linear_indices))>;

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
    return V(alloc, static_cast<std::size_t>(n), v.extent(1));
  else return V(alloc, static_cast<std::size_t>(n));
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
  bool direct = mpiReads<typename Exec::memory_space>();

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
    if (ws.count.data() == nullptr) ws.count = decltype(ws.count)(wsNames("count"));
    sieve::compact(label, exec, mask, polarity, ws.map, ws.count, ws.scratch);
    std::uint32_t c = 0;
    Kokkos::deep_copy(c, ws.count); // fences
    kept = c;
    return n;
  };
  return rebalanceRun(fn, Call::rebalance, label, exec, comm, ws, false, local, planes...);
}

template <class Exec, class Mask, class... Planes>
Global rebalanceWithPolarity(const std::string& label, const Exec& exec, MPI_Comm comm,
                             RebalanceWorkspace<Exec>& ws, const Mask& mask,
                             const MaskPolarity polarity, Planes&... planes) {
  return rebalanceFree(label, exec, comm, ws, mask, polarity, planes...);
}

/// map(i) = inv(map(i)): sample ids to their slots.
template <class Map, class Inv>
struct ToSlots {
  Map map;
  Inv inv;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const { map(i) = inv(map(i)); }
};

/// What the distributed calls do to a Population's private state.
struct PopulationAccess {
  template <class Exec>
  static auto& state(const Population<Exec>& pop, const char* what) {
    return pop.state(what);
  }

  /// mpi::compact of a Population: Population::compact, then the tally.
  template <class Exec, class Mask>
  static Global compact(const std::string& label, const Exec& exec, MPI_Comm comm,
                        const Population<Exec>& pop, const Mask& mask, MaskPolarity polarity) {
    return countedCompact("sieve::mpi::compact", Call::population_compact, label, comm, [&] {
      return static_cast<std::int64_t>(pop.compact(exec, mask, polarity));
    });
  }

  /// mpi::rebalance of a Population: its survivors (by the mask of its last
  /// compaction, as it reads now) move in sample-id order; afterwards the
  /// Population is born again on the moved planes.
  template <class Exec, class... Views, std::size_t... J>
  static Global rebalance(const std::string& label, const Exec& exec, MPI_Comm comm,
                          RebalanceWorkspace<Exec>& ws, const Population<Exec>& pop,
                          const Planes<Views...>& given, std::index_sequence<J...>) {
    constexpr const char* fn = "sieve::mpi::rebalance";
    using State = std::remove_reference_t<decltype(pop.state(fn))>;
    using Policy = Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>;
    static_assert(sieve::Impl::firstBadPlane<Exec, Views...>() < 0,
                  "sieve::mpi::rebalance: every plane of a Population must be a writable rank-1 "
                  "View of trivially-copyable 1, 2, 4, 8 or 16-byte elements, or a rank-2 View "
                  "of them (extent(0) the samples, one row each), accessible from the "
                  "execution space");
    Planes<Views...> planes = given; // handles: the same planes (a Population's never grow)
    const Names wsNames(ws.label, fn);
    const Names names(label, fn);
    // Everything that may throw runs in phase 1, inside the rank's Attempt,
    // after the handshake: an empty handle on one rank makes every rank throw.
    State* state = nullptr;
    auto local = [&](std::int64_t& kept, const void*& mask, MaskPolarity& polarity) {
      state = &pop.state(fn);
      State& s = *state;
      mask = s.mask.data();
      polarity = s.polarity;
      Population<Exec>::checkNoSpawnPending(s, fn);
      if (s.mask.data() == nullptr && s.n > 0)
        sieve::Impl::fail(fn,
                          "no compaction of the population since it was made (or cloned): "
                          "it knows no mask yet; call compact first");
      bool hasMask = s.n == 0;
      std::string extents;
      (
          [&](const auto& v) {
            if (static_cast<std::int64_t>(v.extent(0)) != s.n)
              extents = "a plane has extent " + std::to_string(v.extent(0));
            using V = std::decay_t<decltype(v)>;
            if (V::rank == 1 && sizeof(sieve::Impl::ValueOf<V>) == 1 &&
                static_cast<const void*>(v.data()) == static_cast<const void*>(s.mask.data()))
              hasMask = true;
          }(std::get<J>(planes.views)),
          ...);
      if (!extents.empty())
        sieve::Impl::fail(fn, extents + "; every plane of the population must have its n = " +
                                  std::to_string(s.n) + " samples");
      if (!hasMask)
        sieve::Impl::fail(fn,
                          "the plane set must hold the population's mask (the View of its "
                          "last compaction): it moves with the samples and its tail is made "
                          "dead");
      std::apply(
          [&](const auto&... v) {
            sieve::Impl::Record::check(fn, s.trigger, s.n, s.perm, s.inv, v...);
          },
          planes.views);
      ensure(ws.map, static_cast<std::size_t>(s.n), wsNames("index_map"));
      ensure(ws.scratch, sieve::compact_scratch_bytes(s.n), wsNames("scratch"));
      if (ws.count.data() == nullptr) ws.count = decltype(ws.count)(wsNames("count"));
      // The survivors in sample-id order, each sample id then mapped back to
      // its slot.
      if (!s.permIdentity)
        ensure(ws.order, static_cast<std::size_t>(s.n), wsNames("sample_order_mask"));
      const bool identity = Population<Exec>::compactBySample(s, exec, s.polarity, ws.order.data(),
                                                              ws.map, ws.count, ws.scratch);
      std::uint32_t c = 0;
      Kokkos::deep_copy(c, ws.count); // fences
      kept = c;
      if (!identity && kept > 0) {
        Kokkos::parallel_for(
            names("to_slots"), Policy(exec, 0, kept),
            ToSlots<decltype(ws.map), typename Population<Exec>::index_view>{ws.map, s.inv});
      }
      return s.n;
    };
    const Global g = std::apply(
        [&](auto&... v) {
          return rebalanceRun(fn, Call::population_rebalance, label, exec, comm, ws, true, local,
                              v...);
        },
        planes.views);
    State& s = *state; // phase 1 ran on every rank that gets here
    // Born again on the moved planes: sample id k = slot k = global survivor
    // offset + k; the index map the identity over [0, local), as a compaction
    // of the moved mask gives; span = local, fire = 0; nothing to restore.
    pop.identity(exec);
    const std::uint32_t held = static_cast<std::uint32_t>(g.local);
    Kokkos::deep_copy(exec, s.count, held);
    Kokkos::deep_copy(exec, s.trigger.span, held);
    Kokkos::deep_copy(exec, s.trigger.fire, std::uint32_t(0));
    Kokkos::deep_copy(exec, s.trigger.live32, (held + 31u) / 32u);
    exec.fence();
    sieve::Impl::Record::forget(s.trigger);
    s.permIdentity = !s.graphReorders;
    s.spawnedSinceCompact = false;
    return g;
  }
};

/// Whether every argument after the optional polarity is an lvalue (a
/// variable the call can give a new allocation).
template <class... Args>
constexpr bool planesAreVariables() {
  const bool lvalue[] = {std::is_lvalue_reference_v<Args>..., true};
  const bool polarity[] = {std::is_same_v<std::decay_t<Args>, MaskPolarity>..., false};
  for (std::size_t i = polarity[0] ? 1 : 0; i < sizeof...(Args); ++i)
    if (!lvalue[i]) return false;
  return true;
}

template <class Exec, class Mask, class... Args>
Global rebalanceEntry(const std::string& label, const Exec& exec, MPI_Comm comm,
                      RebalanceWorkspace<Exec>& ws, const Mask& mask, Args&... args) {
  if constexpr (sizeof...(Args) == 0) {
    return rebalanceFree(label, exec, comm, ws, mask, MaskPolarity::keep);
  } else if constexpr (std::is_same_v<std::remove_const_t<sieve::Impl::Nth<0, Args...>>,
                                      MaskPolarity>) {
    return rebalanceWithPolarity(label, exec, comm, ws, mask, args...);
  } else {
    return rebalanceFree(label, exec, comm, ws, mask, MaskPolarity::keep, args...);
  }
}

} // namespace Impl

/// Compact this rank's mask (sieve::compact, same arguments after `comm`) and
/// place its survivors in the global order: returns {local count, this rank's
/// offset (the survivors on lower ranks), total}; survivor k of this rank
/// (sample index_map(k)) is global survivor offset + k.
///
/// Collective and blocking: the local compaction runs on `exec`, the count is
/// read back to the host (a fence; a few bytes), then one round of three
/// non-blocking collectives (MPI_Iallreduce of the count, MPI_Iexscan of it,
/// MPI_Iallreduce of the failure flag) gives the answer. O(n) local work,
/// O(log ranks) latency, nothing per sample on the network. Throws what
/// sieve::compact throws, on every rank (see the header comment): the rank
/// with the bad argument its own std::invalid_argument, the others one naming
/// that rank; std::invalid_argument for a communicator that is null or an
/// intercommunicator, or MPI not initialized.
template <class ExecSpace, class MaskView, class... Args>
std::enable_if_t<sieve::Impl::kIsExec<ExecSpace> && sieve::Impl::IsView<MaskView>::value, Global>
compact(const ExecSpace& exec, MPI_Comm comm, const MaskView& mask, const Args&... args) {
  return Impl::compactEntry(std::string(), exec, comm, mask, args...);
}

/// sieve::mpi::compact with a label naming its profiling region and its
/// local compaction's.
template <class ExecSpace, class MaskView, class... Args>
std::enable_if_t<sieve::Impl::kIsExec<ExecSpace> && sieve::Impl::IsView<MaskView>::value, Global>
compact(const std::string& label, const ExecSpace& exec, MPI_Comm comm, const MaskView& mask,
        const Args&... args) {
  return Impl::compactEntry(label, exec, comm, mask, args...);
}

/// The global linear indices of this rank's selected elements: the local
/// sieve::findall with sieve::linear_indices (mask form, predicate form
/// `findall(exec, comm, pred, view[, options...])`, or index form
/// `findall(exec, comm, n, pred(i)[, options...])`, i in [0, n) local), plus
/// the number of elements on the lower ranks. Element e of this rank is global element
/// element_offset + e; `selected` places the selected ones in the global
/// order the same way mpi::compact places survivors.
///
/// Collective and blocking (the local findall fences once to size its result;
/// then one round of three non-blocking collectives of a few int64, and one
/// kernel adding the offset). Returns a new rank-1 View of int64 (with a
/// sieve::FindallWorkspace, a View into the result buffer it keeps, valid
/// until its next findall). Throws what
/// sieve::findall throws, on every rank, as mpi::compact does.
template <class ExecSpace, class First, class... Args>
std::enable_if_t<sieve::Impl::kIsExec<ExecSpace>, Impl::FindallReturn<ExecSpace, First, Args...>>
findall(const ExecSpace& exec, MPI_Comm comm, const First& first, const Args&... args) {
  return Impl::findallEntry(std::string(), exec, comm, first, args...);
}

/// sieve::mpi::findall with a label.
template <class ExecSpace, class First, class... Args>
std::enable_if_t<sieve::Impl::kIsExec<ExecSpace>, Impl::FindallReturn<ExecSpace, First, Args...>>
findall(const std::string& label, const ExecSpace& exec, MPI_Comm comm, const First& first,
        const Args&... args) {
  return Impl::findallEntry(label, exec, comm, first, args...);
}

#define SIEVE_MPI_LVALUE_PLANES                                                               \
  "sieve::mpi::rebalance: every plane must be a View variable (an lvalue), not a temporary: " \
  "the call may give it a new allocation"

/// Move the survivors of every rank's `mask` so that each rank holds
/// floor(N / ranks) or ceil(N / ranks) of the N survivors (the lower ranks
/// the larger shares), in the global order (rank r's survivors before rank
/// r + 1's, each rank's in sample order): afterwards plane(k), k < local, is
/// global survivor offset + k. Dead samples are dropped. Returns {local,
/// offset, total} of the new distribution.
///
/// `mask`: rank-1 View of std::uint8_t (non-zero keeps, or drops with
/// MaskPolarity::drop), n samples. `planes`: one or more non-const rank-1
/// View variables of trivially-copyable 1, 2, 4, 8 or 16-byte elements,
/// contiguous, or rank-2 View variables of such elements (View<double* [3]>,
/// View<int**>: LayoutRight, LayoutLeft or LayoutStride) whose rows move
/// whole (extent(1) elements a sample, packed together in the exchange), each
/// holding the n samples from index 0 (extent(0)), the same number, element
/// sizes and row lengths in the same order on every rank; moved bit for bit.
/// The mask may be one of them. A plane shorter than the new local count is
/// given a new allocation with its label and row length (as Kokkos::realloc
/// does: other handles to the old one keep the old samples; a LayoutStride
/// plane cannot grow); a longer one keeps its extent: when it
/// is the mask, its slots from `local` on read dead (the next compaction
/// counts exactly the samples this rank holds); another plane's keep their
/// old bytes.
///
/// Collective and blocking. O(n) local work and allocation (index map,
/// compaction scratch, send and receive buffers of the survivors' bytes; none
/// with a RebalanceWorkspace that already holds them);
/// one MPI_Allgather of 32 bytes per rank, one MPI_Allreduce, one
/// MPI_Alltoallv of the survivors' plane bytes (device buffers go through
/// host copies unless MPI is CUDA-aware). Throws std::invalid_argument on
/// every rank, before any plane is written: a rank's bad argument (a plane
/// too short for n, strided, misaligned or overlapping another), plane sets
/// that differ between ranks, or a plane that cannot grow (it does not own
/// its memory) where more samples must go; and on every rank when one rank
/// fails to allocate its buffers.
template <class ExecSpace, class MaskView, class... Args>
std::enable_if_t<sieve::Impl::kIsExec<ExecSpace> && sieve::Impl::IsView<MaskView>::value, Global>
rebalance(const ExecSpace& exec, MPI_Comm comm, const MaskView& mask, Args&&... args) {
  static_assert(Impl::planesAreVariables<Args...>(), SIEVE_MPI_LVALUE_PLANES);
  RebalanceWorkspace<ExecSpace> ws;
  return Impl::rebalanceEntry(std::string(), exec, comm, ws, mask, args...);
}

/// sieve::mpi::rebalance with a label naming its profiling region and
/// prefixing its kernel and allocation labels.
template <class ExecSpace, class MaskView, class... Args>
std::enable_if_t<sieve::Impl::kIsExec<ExecSpace> && sieve::Impl::IsView<MaskView>::value, Global>
rebalance(const std::string& label, const ExecSpace& exec, MPI_Comm comm, const MaskView& mask,
          Args&&... args) {
  static_assert(Impl::planesAreVariables<Args...>(), SIEVE_MPI_LVALUE_PLANES);
  RebalanceWorkspace<ExecSpace> ws(label);
  return Impl::rebalanceEntry(label, exec, comm, ws, mask, args...);
}

/// sieve::mpi::rebalance with a workspace whose buffers it reuses (and grows
/// when they are short): a step that rebalances every so often allocates
/// nothing but the planes that must grow.
template <class ExecSpace, class MaskView, class... Args>
std::enable_if_t<sieve::Impl::kIsExec<ExecSpace> && sieve::Impl::IsView<MaskView>::value, Global>
rebalance(const ExecSpace& exec, MPI_Comm comm, RebalanceWorkspace<ExecSpace>& workspace,
          const MaskView& mask, Args&&... args) {
  static_assert(Impl::planesAreVariables<Args...>(), SIEVE_MPI_LVALUE_PLANES);
  return Impl::rebalanceEntry(std::string(), exec, comm, workspace, mask, args...);
}

/// sieve::mpi::rebalance with a label and a workspace.
template <class ExecSpace, class MaskView, class... Args>
std::enable_if_t<sieve::Impl::kIsExec<ExecSpace> && sieve::Impl::IsView<MaskView>::value, Global>
rebalance(const std::string& label, const ExecSpace& exec, MPI_Comm comm,
          RebalanceWorkspace<ExecSpace>& workspace, const MaskView& mask, Args&&... args) {
  static_assert(Impl::planesAreVariables<Args...>(), SIEVE_MPI_LVALUE_PLANES);
  return Impl::rebalanceEntry(label, exec, comm, workspace, mask, args...);
}

/// The compaction of a Population on every rank (Population::compact with
/// `mask`, `polarity`), placed in the global order as mpi::compact places
/// survivors: returns {local count, offset, total}. Collective and blocking
/// (the same round of collectives as mpi::compact). Throws what
/// Population::compact throws, on every rank (the rank with the bad argument
/// its own std::invalid_argument, the others one naming that rank).
template <class ExecSpace, class MaskView>
std::enable_if_t<sieve::Impl::kIsExec<ExecSpace>, Global> compact(
    const ExecSpace& exec, MPI_Comm comm, const Population<ExecSpace>& population,
    const MaskView& mask, MaskPolarity polarity = MaskPolarity::keep) {
  return Impl::PopulationAccess::compact(std::string(), exec, comm, population, mask, polarity);
}

/// sieve::mpi::compact of a Population with a label naming its region.
template <class ExecSpace, class MaskView>
std::enable_if_t<sieve::Impl::kIsExec<ExecSpace>, Global> compact(
    const std::string& label, const ExecSpace& exec, MPI_Comm comm,
    const Population<ExecSpace>& population, const MaskView& mask,
    MaskPolarity polarity = MaskPolarity::keep) {
  return Impl::PopulationAccess::compact(label, exec, comm, population, mask, polarity);
}

/// Rebalance a Population across the ranks: the survivors of every rank
/// (the samples its mask, the View of its last compaction, keeps as it reads
/// now, spawned ones included) move, in sample-id order, so that each rank
/// holds floor(N / ranks) or ceil(N / ranks) of the N survivors in the
/// global order (rank r's before rank r + 1's), every plane of `planes` bit
/// for bit; then the Population is born again on the moved planes: sample id
/// k = slot k = global survivor offset + k, perm = inv = identity, the index
/// map the identity over [0, local) and count = span = local (as a compaction
/// of the moved mask gives), fire = 0, nothing to restore (a restore keeps
/// this order). The mask's slots from `local` on read dead; the other
/// planes' slots there keep their old bytes. The result does not depend on
/// whether or how often the trigger reordered the planes before.
///
/// `planes` must be the population's plane set (sieve::planes): the mask
/// among them, every plane with the population's n samples, the same set the
/// reorders since the last restore moved, the same number and element sizes
/// on every rank. A Population never grows: every rank needs n >= ceil(N /
/// ranks) slots. Collective and blocking; buffers from `workspace` (grown,
/// reused). Throws std::invalid_argument on every rank, before any plane is
/// written, for any of these, a rank with no compaction yet, or ranks in
/// different sieve::mpi calls.
template <class ExecSpace, class... Views>
Global rebalance(const ExecSpace& exec, MPI_Comm comm, RebalanceWorkspace<ExecSpace>& workspace,
                 const Population<ExecSpace>& population, const Planes<Views...>& planes) {
  return Impl::PopulationAccess::rebalance(std::string(), exec, comm, workspace, population, planes,
                                           std::index_sequence_for<Views...>{});
}

/// sieve::mpi::rebalance of a Population with a label.
template <class ExecSpace, class... Views>
Global rebalance(const std::string& label, const ExecSpace& exec, MPI_Comm comm,
                 RebalanceWorkspace<ExecSpace>& workspace, const Population<ExecSpace>& population,
                 const Planes<Views...>& planes) {
  return Impl::PopulationAccess::rebalance(label, exec, comm, workspace, population, planes,
                                           std::index_sequence_for<Views...>{});
}

/// sieve::mpi::rebalance of a Population with a workspace of its own (its
/// buffers allocated and freed by the call).
template <class ExecSpace, class... Views>
Global rebalance(const ExecSpace& exec, MPI_Comm comm, const Population<ExecSpace>& population,
                 const Planes<Views...>& planes) {
  RebalanceWorkspace<ExecSpace> ws;
  return Impl::PopulationAccess::rebalance(std::string(), exec, comm, ws, population, planes,
                                           std::index_sequence_for<Views...>{});
}

/// sieve::mpi::rebalance of a Population with a label, without a workspace.
template <class ExecSpace, class... Views>
Global rebalance(const std::string& label, const ExecSpace& exec, MPI_Comm comm,
                 const Population<ExecSpace>& population, const Planes<Views...>& planes) {
  RebalanceWorkspace<ExecSpace> ws(label);
  return Impl::PopulationAccess::rebalance(label, exec, comm, ws, population, planes,
                                           std::index_sequence_for<Views...>{});
}

#undef SIEVE_MPI_LVALUE_PLANES

} // namespace mpi
} // namespace sieve
