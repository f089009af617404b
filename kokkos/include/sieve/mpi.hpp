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
#include <sieve/impl/mpi/device_buffers.hpp>
#include <sieve/impl/mpi/exchange.hpp>
#include <sieve/population.hpp>
#include <sieve/reorder.hpp>

#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

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

} // namespace mpi
} // namespace sieve

// The internals build on the types above and on the single-rank API.
#include <sieve/impl/mpi/compact.hpp>
#include <sieve/impl/mpi/findall.hpp>
#include <sieve/impl/mpi/population.hpp>
#include <sieve/impl/mpi/rebalance.hpp>

namespace sieve {
namespace mpi {

/// Sets how the rebalances that follow hand plane bytes to MPI, for the
/// whole process. Auto (the default): host memory directly; device memory
/// directly when MPI says at run time that it reads it (Open MPI's
/// MPIX_Query_cuda_support() on Kokkos::Cuda), else through host copies.
/// Direct: always directly (an MPI that is CUDA-aware but cannot say so).
/// Staged: always through host copies (on host spaces too). The bytes every
/// rank ends with are the same in every mode, and ranks may use different
/// ones (the staging is a rank's own). The environment variable
/// SIEVE_MPI_DEVICE_BUFFERS=auto|direct|staged sets the starting mode (any
/// other value: every rebalance throws std::invalid_argument, on every rank
/// as agreed failures do). O(1), thread-safe.
inline void set_device_buffers(DeviceBuffers mode) {
  Impl::deviceBuffersMode().store(static_cast<int>(mode), std::memory_order_relaxed);
}

/// The mode set_device_buffers set (or the environment). O(1); throws
/// std::invalid_argument for an unknown SIEVE_MPI_DEVICE_BUFFERS value.
inline DeviceBuffers device_buffers() { return Impl::deviceBuffers(); }

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
template <class ExecSpace, class MaskView, class IndexMap, class CountView, class ScratchView>
std::enable_if_t<sieve::Impl::kIsExec<ExecSpace> && sieve::Impl::IsView<MaskView>::value, Global>
compact(const ExecSpace& exec, MPI_Comm comm, const MaskView& mask, const IndexMap& index_map,
        const CountView& count, const ScratchView& scratch) {
  return Impl::compactEntry(std::string(), exec, comm, mask, index_map, count, scratch);
}

/// sieve::mpi::compact with a trigger. As above.
template <class ExecSpace, class MaskView, class IndexMap, class CountView, class ScratchView,
          class TriggerType>
std::enable_if_t<sieve::Impl::kIsExec<ExecSpace> && sieve::Impl::IsView<MaskView>::value, Global>
compact(const ExecSpace& exec, MPI_Comm comm, const MaskView& mask, const IndexMap& index_map,
        const CountView& count, const ScratchView& scratch, const TriggerType& trigger) {
  return Impl::compactEntry(std::string(), exec, comm, mask, index_map, count, scratch, trigger);
}

/// sieve::mpi::compact with the mask's `polarity`. As above.
template <class ExecSpace, class MaskView, class IndexMap, class CountView, class ScratchView>
std::enable_if_t<sieve::Impl::kIsExec<ExecSpace> && sieve::Impl::IsView<MaskView>::value, Global>
compact(const ExecSpace& exec, MPI_Comm comm, const MaskView& mask, MaskPolarity polarity,
        const IndexMap& index_map, const CountView& count, const ScratchView& scratch) {
  return Impl::compactEntry(std::string(), exec, comm, mask, polarity, index_map, count, scratch);
}

/// sieve::mpi::compact with the mask's `polarity` and a trigger. As above.
template <class ExecSpace, class MaskView, class IndexMap, class CountView, class ScratchView,
          class TriggerType>
std::enable_if_t<sieve::Impl::kIsExec<ExecSpace> && sieve::Impl::IsView<MaskView>::value, Global>
compact(const ExecSpace& exec, MPI_Comm comm, const MaskView& mask, MaskPolarity polarity,
        const IndexMap& index_map, const CountView& count, const ScratchView& scratch,
        const TriggerType& trigger) {
  return Impl::compactEntry(std::string(), exec, comm, mask, polarity, index_map, count, scratch,
                            trigger);
}

/// sieve::mpi::compact with a label naming its profiling region and its local compaction's. As
/// above.
template <class ExecSpace, class MaskView, class IndexMap, class CountView, class ScratchView>
std::enable_if_t<sieve::Impl::kIsExec<ExecSpace> && sieve::Impl::IsView<MaskView>::value, Global>
compact(const std::string& label, const ExecSpace& exec, MPI_Comm comm, const MaskView& mask,
        const IndexMap& index_map, const CountView& count, const ScratchView& scratch) {
  return Impl::compactEntry(label, exec, comm, mask, index_map, count, scratch);
}

/// sieve::mpi::compact with a label and a trigger. As above.
template <class ExecSpace, class MaskView, class IndexMap, class CountView, class ScratchView,
          class TriggerType>
std::enable_if_t<sieve::Impl::kIsExec<ExecSpace> && sieve::Impl::IsView<MaskView>::value, Global>
compact(const std::string& label, const ExecSpace& exec, MPI_Comm comm, const MaskView& mask,
        const IndexMap& index_map, const CountView& count, const ScratchView& scratch,
        const TriggerType& trigger) {
  return Impl::compactEntry(label, exec, comm, mask, index_map, count, scratch, trigger);
}

/// sieve::mpi::compact with a label and the mask's `polarity`. As above.
template <class ExecSpace, class MaskView, class IndexMap, class CountView, class ScratchView>
std::enable_if_t<sieve::Impl::kIsExec<ExecSpace> && sieve::Impl::IsView<MaskView>::value, Global>
compact(const std::string& label, const ExecSpace& exec, MPI_Comm comm, const MaskView& mask,
        MaskPolarity polarity, const IndexMap& index_map, const CountView& count,
        const ScratchView& scratch) {
  return Impl::compactEntry(label, exec, comm, mask, polarity, index_map, count, scratch);
}

/// sieve::mpi::compact with a label, the mask's `polarity` and a trigger. As above.
template <class ExecSpace, class MaskView, class IndexMap, class CountView, class ScratchView,
          class TriggerType>
std::enable_if_t<sieve::Impl::kIsExec<ExecSpace> && sieve::Impl::IsView<MaskView>::value, Global>
compact(const std::string& label, const ExecSpace& exec, MPI_Comm comm, const MaskView& mask,
        MaskPolarity polarity, const IndexMap& index_map, const CountView& count,
        const ScratchView& scratch, const TriggerType& trigger) {
  return Impl::compactEntry(label, exec, comm, mask, polarity, index_map, count, scratch, trigger);
}

/// The global linear indices of this rank's selected elements: the local
/// sieve::findall of `mask` with sieve::linear_indices (`options...`: its
/// options but sieve::into), plus the number of elements on the lower ranks.
/// Element e of this rank is global element element_offset + e; `selected`
/// places the selected ones in the global order the same way mpi::compact
/// places survivors.
///
/// Collective and blocking (the local findall fences once to size its result;
/// then one round of three non-blocking collectives of a few int64, and one
/// kernel adding the offset). Returns a new rank-1 View of int64 (with a
/// sieve::FindallWorkspace, a View into the result buffer it keeps, valid
/// until its next findall). Throws what sieve::findall throws, on every rank,
/// as mpi::compact does.
template <class ExecSpace, class MaskView, class... Options>
std::enable_if_t<sieve::Impl::kIsExec<ExecSpace> && sieve::Impl::IsView<MaskView>::value,
                 Impl::FindallReturn<ExecSpace, MaskView, Options...>>
findall(const ExecSpace& exec, MPI_Comm comm, const MaskView& mask, const Options&... options) {
  return Impl::findallEntry(std::string(), exec, comm, mask, options...);
}

/// sieve::mpi::findall of the elements of `view` for which `pred` returns
/// true (sieve::findall's predicate form). As above.
template <class ExecSpace, class Pred, class View, class... Options>
std::enable_if_t<sieve::Impl::kIsExec<ExecSpace> && !sieve::Impl::IsView<Pred>::value &&
                     !sieve::Impl::kFindallCount<Pred>,
                 Impl::FindallReturn<ExecSpace, Pred, View, Options...>>
findall(const ExecSpace& exec, MPI_Comm comm, const Pred& pred, const View& view,
        const Options&... options) {
  return Impl::findallEntry(std::string(), exec, comm, pred, view, options...);
}

/// sieve::mpi::findall of the indices i in [0, n) (local) for which pred(i)
/// is true (sieve::findall's index form). As above.
template <class ExecSpace, class N, class Pred, class... Options>
std::enable_if_t<sieve::Impl::kIsExec<ExecSpace> && sieve::Impl::kFindallCount<N>,
                 Impl::FindallReturn<ExecSpace, N, Pred, Options...>>
findall(const ExecSpace& exec, MPI_Comm comm, const N& n, const Pred& pred,
        const Options&... options) {
  return Impl::findallEntry(std::string(), exec, comm, n, pred, options...);
}

/// sieve::mpi::findall (mask form) with a label.
template <class ExecSpace, class MaskView, class... Options>
std::enable_if_t<sieve::Impl::kIsExec<ExecSpace> && sieve::Impl::IsView<MaskView>::value,
                 Impl::FindallReturn<ExecSpace, MaskView, Options...>>
findall(const std::string& label, const ExecSpace& exec, MPI_Comm comm, const MaskView& mask,
        const Options&... options) {
  return Impl::findallEntry(label, exec, comm, mask, options...);
}

/// sieve::mpi::findall (pred form) with a label.
template <class ExecSpace, class Pred, class View, class... Options>
std::enable_if_t<sieve::Impl::kIsExec<ExecSpace> && !sieve::Impl::IsView<Pred>::value &&
                     !sieve::Impl::kFindallCount<Pred>,
                 Impl::FindallReturn<ExecSpace, Pred, View, Options...>>
findall(const std::string& label, const ExecSpace& exec, MPI_Comm comm, const Pred& pred,
        const View& view, const Options&... options) {
  return Impl::findallEntry(label, exec, comm, pred, view, options...);
}

/// sieve::mpi::findall (index form) with a label.
template <class ExecSpace, class N, class Pred, class... Options>
std::enable_if_t<sieve::Impl::kIsExec<ExecSpace> && sieve::Impl::kFindallCount<N>,
                 Impl::FindallReturn<ExecSpace, N, Pred, Options...>>
findall(const std::string& label, const ExecSpace& exec, MPI_Comm comm, const N& n,
        const Pred& pred, const Options&... options) {
  return Impl::findallEntry(label, exec, comm, n, pred, options...);
}

/// Move the survivors of every rank's `mask` so that each rank holds
/// floor(N / ranks) or ceil(N / ranks) of the N survivors (the lower ranks
/// the larger shares), in the global order (rank r's survivors before rank
/// r + 1's, each rank's in sample order): afterwards plane(k), k < local, is
/// global survivor offset + k. Dead samples are dropped. Returns {local,
/// offset, total} of the new distribution.
///
/// `mask`: rank-1 View of std::uint8_t (non-zero keeps), n samples.
/// `planes`: one or more non-const rank-1
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
/// fails to allocate its buffers. A plane given as a temporary (not a
/// variable) is a compile error.
template <class ExecSpace, class MaskView, class... Planes>
std::enable_if_t<sieve::Impl::kIsExec<ExecSpace> && sieve::Impl::IsView<MaskView>::value, Global>
rebalance(const ExecSpace& exec, MPI_Comm comm, const MaskView& mask, Planes&&... planes) {
  RebalanceWorkspace<ExecSpace> ws;
  return Impl::rebalanceEntry(std::string(), exec, comm, ws, mask, MaskPolarity::keep,
                              std::forward<Planes>(planes)...);
}

/// sieve::mpi::rebalance with the mask's `polarity` (MaskPolarity::drop: non-zero drops). As above.
template <class ExecSpace, class MaskView, class... Planes>
std::enable_if_t<sieve::Impl::kIsExec<ExecSpace> && sieve::Impl::IsView<MaskView>::value, Global>
rebalance(const ExecSpace& exec, MPI_Comm comm, const MaskView& mask, MaskPolarity polarity,
          Planes&&... planes) {
  RebalanceWorkspace<ExecSpace> ws;
  return Impl::rebalanceEntry(std::string(), exec, comm, ws, mask, polarity,
                              std::forward<Planes>(planes)...);
}

/// sieve::mpi::rebalance with a label naming its profiling region and prefixing its kernel and
/// allocation labels. As above.
template <class ExecSpace, class MaskView, class... Planes>
std::enable_if_t<sieve::Impl::kIsExec<ExecSpace> && sieve::Impl::IsView<MaskView>::value, Global>
rebalance(const std::string& label, const ExecSpace& exec, MPI_Comm comm, const MaskView& mask,
          Planes&&... planes) {
  RebalanceWorkspace<ExecSpace> ws(label);
  return Impl::rebalanceEntry(label, exec, comm, ws, mask, MaskPolarity::keep,
                              std::forward<Planes>(planes)...);
}

/// sieve::mpi::rebalance with a label and the mask's `polarity` (MaskPolarity::drop: non-zero
/// drops). As above.
template <class ExecSpace, class MaskView, class... Planes>
std::enable_if_t<sieve::Impl::kIsExec<ExecSpace> && sieve::Impl::IsView<MaskView>::value, Global>
rebalance(const std::string& label, const ExecSpace& exec, MPI_Comm comm, const MaskView& mask,
          MaskPolarity polarity, Planes&&... planes) {
  RebalanceWorkspace<ExecSpace> ws(label);
  return Impl::rebalanceEntry(label, exec, comm, ws, mask, polarity,
                              std::forward<Planes>(planes)...);
}

/// sieve::mpi::rebalance with a workspace whose buffers it reuses (and grows when they are short):
/// a step that rebalances every so often allocates nothing but the planes that must grow. As above.
template <class ExecSpace, class MaskView, class... Planes>
std::enable_if_t<sieve::Impl::kIsExec<ExecSpace> && sieve::Impl::IsView<MaskView>::value, Global>
rebalance(const ExecSpace& exec, MPI_Comm comm, RebalanceWorkspace<ExecSpace>& workspace,
          const MaskView& mask, Planes&&... planes) {
  return Impl::rebalanceEntry(std::string(), exec, comm, workspace, mask, MaskPolarity::keep,
                              std::forward<Planes>(planes)...);
}

/// sieve::mpi::rebalance with a workspace and the mask's `polarity` (MaskPolarity::drop: non-zero
/// drops). As above.
template <class ExecSpace, class MaskView, class... Planes>
std::enable_if_t<sieve::Impl::kIsExec<ExecSpace> && sieve::Impl::IsView<MaskView>::value, Global>
rebalance(const ExecSpace& exec, MPI_Comm comm, RebalanceWorkspace<ExecSpace>& workspace,
          const MaskView& mask, MaskPolarity polarity, Planes&&... planes) {
  return Impl::rebalanceEntry(std::string(), exec, comm, workspace, mask, polarity,
                              std::forward<Planes>(planes)...);
}

/// sieve::mpi::rebalance with a label and a workspace. As above.
template <class ExecSpace, class MaskView, class... Planes>
std::enable_if_t<sieve::Impl::kIsExec<ExecSpace> && sieve::Impl::IsView<MaskView>::value, Global>
rebalance(const std::string& label, const ExecSpace& exec, MPI_Comm comm,
          RebalanceWorkspace<ExecSpace>& workspace, const MaskView& mask, Planes&&... planes) {
  return Impl::rebalanceEntry(label, exec, comm, workspace, mask, MaskPolarity::keep,
                              std::forward<Planes>(planes)...);
}

/// sieve::mpi::rebalance with a label, a workspace and the mask's `polarity` (MaskPolarity::drop:
/// non-zero drops). As above.
template <class ExecSpace, class MaskView, class... Planes>
std::enable_if_t<sieve::Impl::kIsExec<ExecSpace> && sieve::Impl::IsView<MaskView>::value, Global>
rebalance(const std::string& label, const ExecSpace& exec, MPI_Comm comm,
          RebalanceWorkspace<ExecSpace>& workspace, const MaskView& mask, MaskPolarity polarity,
          Planes&&... planes) {
  return Impl::rebalanceEntry(label, exec, comm, workspace, mask, polarity,
                              std::forward<Planes>(planes)...);
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
  return Impl::PopulationCalls::compact(std::string(), exec, comm, population, mask, polarity);
}

/// sieve::mpi::compact of a Population with a label naming its region.
template <class ExecSpace, class MaskView>
std::enable_if_t<sieve::Impl::kIsExec<ExecSpace>, Global> compact(
    const std::string& label, const ExecSpace& exec, MPI_Comm comm,
    const Population<ExecSpace>& population, const MaskView& mask,
    MaskPolarity polarity = MaskPolarity::keep) {
  return Impl::PopulationCalls::compact(label, exec, comm, population, mask, polarity);
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
  return Impl::PopulationCalls::rebalance(std::string(), exec, comm, workspace, population, planes,
                                          std::index_sequence_for<Views...>{});
}

/// sieve::mpi::rebalance of a Population with a label.
template <class ExecSpace, class... Views>
Global rebalance(const std::string& label, const ExecSpace& exec, MPI_Comm comm,
                 RebalanceWorkspace<ExecSpace>& workspace, const Population<ExecSpace>& population,
                 const Planes<Views...>& planes) {
  return Impl::PopulationCalls::rebalance(label, exec, comm, workspace, population, planes,
                                          std::index_sequence_for<Views...>{});
}

/// sieve::mpi::rebalance of a Population with a workspace of its own (its
/// buffers allocated and freed by the call).
template <class ExecSpace, class... Views>
Global rebalance(const ExecSpace& exec, MPI_Comm comm, const Population<ExecSpace>& population,
                 const Planes<Views...>& planes) {
  RebalanceWorkspace<ExecSpace> ws;
  return Impl::PopulationCalls::rebalance(std::string(), exec, comm, ws, population, planes,
                                          std::index_sequence_for<Views...>{});
}

/// sieve::mpi::rebalance of a Population with a label, without a workspace.
template <class ExecSpace, class... Views>
Global rebalance(const std::string& label, const ExecSpace& exec, MPI_Comm comm,
                 const Population<ExecSpace>& population, const Planes<Views...>& planes) {
  RebalanceWorkspace<ExecSpace> ws(label);
  return Impl::PopulationCalls::rebalance(label, exec, comm, ws, population, planes,
                                          std::index_sequence_for<Views...>{});
}

} // namespace mpi
} // namespace sieve
