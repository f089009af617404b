// SPDX-License-Identifier: Apache-2.0
// Sieve — sieve::Graph: a step built once and launched many times. Nodes:
// compaction (+ trigger), spawn, reorder and restore of a Population, scans,
// keys::sort_permutation and scatter_dense through a DenseWorkspace,
// keys::scatter_sparse through a fixed SparseWorkspace, keys::reduce_by_key
// (of keys, or of a workspace's latest), keys::permute / unpermute through a
// PermuteWorkspace, and user kernels (any capture-safe call: findall into a
// workspace); their scratch comes from one
// ScratchArena (the peak of the nodes' needs, not the sum). Nothing is
// allocated per launch; the Views the nodes name are read at every launch (a
// mask changed between launches is seen).
//
//   sieve::Graph<Exec> step("step");
//   auto t = step.kernel("transport", [=](const Exec& e) { Kokkos::parallel_for(..., e, ...); });
//   auto c = step.compact(pop, alive);                 // after t (the previous node)
//   step.reorder(pop, planes);                          // gated on the device by `fire`
//   step.instantiate(exec);                             // the arena's one allocation (+ capture)
//   for (...) step.launch(exec);                        // asynchronous on exec
//
// On host spaces a launch replays the nodes in order on the instance. On
// Kokkos::Cuda the first launch captures the nodes' launches on the
// instance's stream into a CUDA graph (the Sieve calls are capture-safe: no
// allocation, synchronisation or host read; sieve::reserve runs first so that
// Kokkos allocates nothing lazily inside the capture; the debug checks, which
// read perm / inv back, must be off), instantiated once; each launch is then
// one cudaGraphLaunch, the reorder gated by the fire word on the device. The
// CUDA path is compiled, not yet run on a GPU. Kokkos::Experimental::Graph is not used: its nodes
// are Kokkos kernels only, and Sieve's native faces (the OpenMP twins, the CUDA kernels on the
// instance's stream) are not.
#pragma once

#include <sieve/arena.hpp>
#include <sieve/debug.hpp>
#include <sieve/impl/faces.hpp>
#include <sieve/impl/population/access.hpp>
#include <sieve/impl/population/state.hpp>
#include <sieve/keys.hpp>
#include <sieve/permute.hpp>
#include <sieve/population.hpp>
#include <sieve/reserve.hpp>
#include <sieve/scan.hpp>

#include <Kokkos_Core.hpp>

#include <functional>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

namespace sieve {

/// A step of Sieve calls and user kernels on `ExecSpace`, built once,
/// launched many times. Copies are handles to the same graph. Not
/// thread-safe: one launch at a time per graph.
template <class ExecSpace = Kokkos::DefaultExecutionSpace>
class Graph {
 public:
  using execution_space = ExecSpace;
  using memory_space = typename ExecSpace::memory_space;
  using node = int;
  /// The dependencies of a node: earlier nodes. Empty: the node added last
  /// (nodes run in the order they were added, which every dependency list
  /// must agree with).
  using deps = std::vector<node>;

  explicit Graph(const std::string& label = "graph") : s_(std::make_shared<State>(label)) {}

  /// A compaction of `mask` into `pop`'s index map and count, with its
  /// trigger (Population::compact_async). Returns the node.
  template <class MaskView>
  node compact(const Population<ExecSpace>& pop, const MaskView& mask,
               MaskPolarity polarity = MaskPolarity::keep, const deps& after = {}) {
    static_assert(PopState::template maskOk<MaskView>(),
                  "sieve::Graph::compact: the mask must be a rank-1 View of std::uint8_t or bool "
                  "(non-zero keeps), accessible from the execution space");
    if constexpr (PopState::template maskOk<MaskView>())
      return compactNode(pop, mask, polarity, after);
    else return -1;
  }

  /// A reorder of `planes` by `pop` (a no-op on the device unless the
  /// trigger fired). The compaction it follows must be a node of this graph
  /// or a call before the first launch. Returns the node.
  template <class... Views>
  node reorder(const Population<ExecSpace>& pop, const Planes<Views...>& planes,
               const deps& after = {}) {
    static_assert(PopState::template planesOk<Views...>(),
                  "sieve::Graph::reorder: every plane of the plane set (sieve::planes) must be a "
                  "writable rank-1 View of trivially-copyable 1, 2, 4, 8 or 16-byte elements, "
                  "or a rank-2 View of them (extent(0) the samples, one row each), accessible "
                  "from the execution space");
    if constexpr (PopState::template planesOk<Views...>()) return reorderNode(pop, planes, after);
    else return -1;
  }

  /// A restore of `planes` by `pop` (Population::restore: the index map is
  /// made again from the restored mask). Returns the node.
  template <class... Views>
  node restore(const Population<ExecSpace>& pop, const Planes<Views...>& planes,
               const deps& after = {}) {
    static_assert(PopState::template planesOk<Views...>(),
                  "sieve::Graph::restore: every plane of the plane set (sieve::planes) must be a "
                  "writable rank-1 View of trivially-copyable 1, 2, 4, 8 or 16-byte elements, "
                  "or a rank-2 View of them (extent(0) the samples, one row each), accessible "
                  "from the execution space");
    if constexpr (PopState::template planesOk<Views...>()) return restoreNode(pop, planes, after);
    else return -1;
  }

  /// A spawn of `k` (a device word, read at every launch) samples into
  /// `pop`'s free slots (Population::spawn_async: slots(i) receives the
  /// i-th; pop.spawned() reads k, or 0 when fewer than k slots were free or
  /// k > slots.extent(0), and then nothing changed). A compaction must
  /// follow before the next reorder. Returns the node.
  template <class Slots>
  node spawn(const Population<ExecSpace>& pop, const typename Population<ExecSpace>::count_view& k,
             const Slots& slots, const deps& after = {}) {
    static_assert(PopState::template slotsOk<Slots>(),
                  "sieve::Graph::spawn: slots must be a writable rank-1 View of std::int32_t "
                  "accessible from the execution space");
    if constexpr (PopState::template slotsOk<Slots>()) return spawnNode(pop, k, slots, after);
    else return -1;
  }

 private:
  using PopState = Impl::PopulationState<ExecSpace>;
  using Access = Impl::PopulationAccess;

  template <class MaskView>
  node compactNode(const Population<ExecSpace>& pop, const MaskView& mask, MaskPolarity polarity,
                   const deps& after) {
    auto st = Access::shared(pop, "Graph::compact");
    PopState::checkMask(*st, "sieve::Graph::compact", mask);
    const int slot = reserve("compact", compact_scratch_bytes(st->n));
    // The node holds a copy of the caller's mask handle: its bytes stay allocated.
    return add("compact", after, slot,
               [st, mask, polarity](const ExecSpace& exec, const Scratch& s) {
                 PopState::compactWith(*st, exec, s, mask, polarity);
               });
  }

  template <class... Views>
  node reorderNode(const Population<ExecSpace>& pop, const Planes<Views...>& planes,
                   const deps& after) {
    auto st = Access::shared(pop, "Graph::reorder");
    st->graphReorders = true; // launched on the device: perm is no longer known on the host
    st->permIdentity = false;
    const int slot = reserve("reorder", reorder_scratch_bytes(st->n, PopState::widest(planes)));
    return add("reorder", after, slot, [st, planes](const ExecSpace& exec, const Scratch& s) {
      PopState::reorderWith(*st, exec, s, planes);
    });
  }

  template <class... Views>
  node restoreNode(const Population<ExecSpace>& pop, const Planes<Views...>& planes,
                   const deps& after) {
    auto st = Access::shared(pop, "Graph::restore");
    const int slot = reserve("restore", reorder_scratch_bytes(st->n, PopState::widest(planes)));
    return add("restore", after, slot, [st, planes](const ExecSpace& exec, const Scratch& s) {
      PopState::restoreWith(*st, exec, s, planes);
    });
  }

  template <class Slots>
  node spawnNode(const Population<ExecSpace>& pop,
                 const typename Population<ExecSpace>::count_view& k, const Slots& slots,
                 const deps& after) {
    auto st = Access::shared(pop, "Graph::spawn");
    PopState::checkSlots("sieve::Graph::spawn", slots);
    const int slot = reserve("spawn", Impl::spawnScratchBytes(st->n));
    return add("spawn", after, slot, [st, k, slots](const ExecSpace& exec, const Scratch& s) {
      PopState::spawnWith(*st, exec, s, k, slots, static_cast<std::int64_t>(slots.extent(0)), true);
    });
  }

 public:
  /// An inclusive scan of `in` into `out` with `op` (sieve::inclusive_scan),
  /// its block sums from the arena, its total into `total` (a rank-0 View; may
  /// be empty). Returns the node.
  template <class In, class Out, class Op = Sum,
            class Total = Kokkos::View<typename Out::non_const_value_type, memory_space>>
  node inclusive_scan(const In& in, const Out& out, Op op = {}, const Total& total = {},
                      const deps& after = {}) {
    using T = typename Out::non_const_value_type;
    const std::int64_t n = static_cast<std::int64_t>(in.extent(0));
    const std::size_t elems = scan_scratch_size<T>(n);
    const int slot = reserve("scan", elems * sizeof(T));
    return add(
        "inclusive_scan", after, slot,
        [in, out, op, total, elems, label = s_->label](const ExecSpace& exec, const Scratch& s) {
          const Kokkos::View<T*, memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>> sums(
              reinterpret_cast<T*>(s.data()), elems);
          if (total.data() != nullptr) sieve::inclusive_scan(label, exec, in, out, op, sums, total);
          else sieve::inclusive_scan(label, exec, in, out, op, sums);
        });
  }

  /// keys::sort_permutation of the indices 0 .. n-1 by `key_fn` into `perm`
  /// through `workspace` (a DenseWorkspace), as the asynchronous call: `n` a
  /// count, or a rank-0 View of std::int64_t read at every launch. Nothing
  /// allocated, fenced or read back at a launch; a key outside the range
  /// writes nothing and surfaces at workspace.check(). Its keys are the
  /// workspace's latest, which a reduce_by_key node given the workspace reads.
  /// Returns the node.
  template <class N, class KeyFn, class Perm, class Key>
  node sort_permutation(const N& n, const KeyFn& key_fn, const Perm& perm,
                        const keys::DenseWorkspace<Key, ExecSpace>& workspace,
                        const deps& after = {}) {
    if (workspace.elements() < 0)
      Impl::fail("sieve::Graph::sort_permutation", "the workspace is empty");
    return add("sort_permutation", after, -1,
               [n, key_fn, perm, workspace, label = s_->label](const ExecSpace& exec,
                                                               const Scratch&) {
                 (void)sieve::keys::sort_permutation(label, exec, n, key_fn, perm, workspace);
               });
  }

  /// keys::scatter_dense of `input` into `output` through `workspace` (a
  /// DenseWorkspace), as the asynchronous call: nothing allocated, fenced or
  /// read back at a launch; a key outside the range writes nothing and
  /// surfaces at workspace.check(). Its keys are the workspace's latest,
  /// which a reduce_by_key node given the workspace reads. Returns the node.
  template <class Input, class Output, class Key>
  node scatter_dense(const Input& input, const Output& output,
                     const keys::DenseWorkspace<Key, ExecSpace>& workspace,
                     const deps& after = {}) {
    if (workspace.elements() < 0)
      Impl::fail("sieve::Graph::scatter_dense", "the workspace is empty");
    return add(
        "scatter_dense", after, -1,
        [input, output, workspace, label = s_->label](const ExecSpace& exec, const Scratch&) {
          (void)sieve::keys::scatter_dense(label, exec, input, output, workspace);
        });
  }

  /// keys::scatter_sparse of `input` into `output` through a fixed
  /// `workspace` (a SparseWorkspace made with elements), as the asynchronous
  /// call: nothing allocated, fenced or read back at a launch; more distinct
  /// keys than its capacity leave every key empty and surface at
  /// workspace.check().
  /// Its keys are the workspace's latest (the count on the device), which a
  /// reduce_by_key node given the workspace reads. Returns the node.
  template <class Input, class Output, class Key>
  node scatter_sparse(const Input& input, const Output& output,
                      const keys::SparseWorkspace<Key, ExecSpace>& workspace,
                      const deps& after = {}) {
    if (workspace.elements() < 0)
      Impl::fail("sieve::Graph::scatter_sparse",
                 "the workspace is not a fixed one (made with elements): a call given a "
                 "growing workspace reads its number of keys back");
    return add(
        "scatter_sparse", after, -1,
        [input, output, workspace, label = s_->label](const ExecSpace& exec, const Scratch&) {
          (void)sieve::keys::scatter_sparse(label, exec, input, output, workspace);
        });
  }

  /// keys::reduce_by_key of `values` by `keys` into `result` (init, op; as the
  /// call), the scratch of its big keys from the arena: no allocation, no
  /// fence, nothing read back at a launch. The keys' offsets and the values
  /// are read at every launch. Keys of a workspace call must stay that
  /// workspace's latest: a node that calls the workspace again makes them
  /// stale, and the launch throws (std::invalid_argument, as the call does).
  /// `keys` may instead be a DenseWorkspace or a fixed SparseWorkspace: the
  /// keys of its latest call at each launch (a sort_permutation or scatter
  /// node's), of at most its elements() elements (the values must hold as
  /// many). Returns the node.
  template <class Keys, class Values, class Init, class Op, class Result>
  node reduce_by_key(const Keys& keys, const Values& values, const Init& init, const Op& op,
                     const Result& result, const deps& after = {}) {
    static_assert(Impl::Keys::kIsKeys<Keys> || IsDense<Keys>::value || IsSparse<Keys>::value,
                  "sieve::Graph::reduce_by_key: 'keys' must be the DenseKeys, SparseKeys or "
                  "ReducedKeys of a call, or a DenseWorkspace or SparseWorkspace (its latest "
                  "keys)");
    using T = typename Result::non_const_value_type;
    using Kept = sieve::keys::ReduceWorkspace<T, ExecSpace>;
    std::int64_t n = 0;
    if constexpr (IsDense<Keys>::value || IsSparse<Keys>::value) {
      n = keys.elements();
      if (n < 0)
        Impl::fail("sieve::Graph::reduce_by_key",
                   "the workspace is empty, or one that grows (its keys' count is read back)");
    } else {
      n = keys.num_elements();
    }
    const std::int64_t pieces = Impl::Keys::foldScratchPieces(n);
    const int slot = reserve("reduce_by_key", 2 * static_cast<std::size_t>(pieces) * sizeof(T));
    return add("reduce_by_key", after, slot,
               [keys, values, init, op, result, n, pieces,
                label = s_->label](const ExecSpace& exec, const Scratch& s) {
                 T* p = reinterpret_cast<T*>(s.data());
                 const typename Kept::scratch_view first(
                     Kokkos::View<T*, memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
                         p, static_cast<std::size_t>(pieces)));
                 const typename Kept::scratch_view last(
                     Kokkos::View<T*, memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
                         p + pieces, static_cast<std::size_t>(pieces)));
                 Impl::Keys::foldEntry(Impl::Names(label, "sieve::keys::reduce_by_key"), exec,
                                       latest(keys), values, init, op, result,
                                       Kept(first, last, n));
               });
  }

  /// keys::permute of the planes of `planes` (sieve::planes) by `perm`
  /// through `workspace`, as the call given a PermuteWorkspace: nothing
  /// allocated, fenced or read back at a launch; an entry of perm outside
  /// [0, n) writes no plane and surfaces at workspace.check(). perm is read
  /// at every launch. Returns the node.
  template <class Perm, class... Views>
  node permute(const Perm& perm, const keys::PermuteWorkspace<ExecSpace>& workspace,
               const Planes<Views...>& planes, const deps& after = {}) {
    return permuteNode<true>("permute", perm, workspace, planes, after);
  }

  /// keys::unpermute, as Graph::permute.
  template <class Perm, class... Views>
  node unpermute(const Perm& perm, const keys::PermuteWorkspace<ExecSpace>& workspace,
                 const Planes<Views...>& planes, const deps& after = {}) {
    return permuteNode<false>("unpermute", perm, workspace, planes, after);
  }

  /// A user kernel: `f(exec)` enqueues work on the instance (no fence, no
  /// allocation, no host read if the graph is to run on Kokkos::Cuda).
  /// Returns the node.
  node kernel(const std::string& name, std::function<void(const ExecSpace&)> f,
              const deps& after = {}) {
    return add(name, after, -1, [f](const ExecSpace& exec, const Scratch&) { f(exec); });
  }

  /// Commit the arena (the graph's one allocation) and, on Kokkos::Cuda,
  /// capture the nodes into a CUDA graph instantiated once. Called by the
  /// first launch otherwise; blocking. Throws std::invalid_argument for an
  /// empty graph, or when called again after a node was added.
  void instantiate(const ExecSpace& exec) {
    State& s = *s_;
    if (s.nodes.empty()) Impl::fail("sieve::Graph::instantiate", "the graph has no node");
    if (!s.arena.committed()) {
      s.arena.commit();
      for (Node& nd : s.nodes)
        if (nd.slot >= 0) nd.scratch = s.arena.slot(nd.slot);
    }
    replayOrCapture(exec, false);
  }

  /// Run the nodes on `exec`, in order: asynchronous on the instance (as the
  /// calls they hold are). The first launch instantiates. Throws
  /// std::invalid_argument for an empty graph; a node that throws (a failed
  /// allocation) leaves the nodes before it done, each as its call leaves it.
  void launch(const ExecSpace& exec) {
    State& s = *s_;
    if (!s.arena.committed()) instantiate(exec);
    replayOrCapture(exec, true);
  }

  /// The arena the nodes' scratch comes from (its peak / sum / bytes). O(1).
  const ScratchArena<memory_space>& arena() const { return s_->arena; }
  std::size_t size() const { return s_->nodes.size(); }

 private:
  using Scratch = typename ScratchArena<memory_space>::view;
  struct Node {
    std::string name;
    int slot;
    Scratch scratch;
    std::function<void(const ExecSpace&, const Scratch&)> run;
  };
  struct State {
    explicit State(const std::string& l) : label(l), arena(l) {}
    std::string label;
    ScratchArena<memory_space> arena;
    std::vector<Node> nodes;
    std::shared_ptr<void> captured; // the face's captured replay (a CUDA graph), if it has one
  };
  std::shared_ptr<State> s_;

  template <class K>
  struct IsDense : std::false_type {};
  template <class Key>
  struct IsDense<keys::DenseWorkspace<Key, ExecSpace>> : std::true_type {};
  template <class K>
  struct IsSparse : std::false_type {};
  template <class Key>
  struct IsSparse<keys::SparseWorkspace<Key, ExecSpace>> : std::true_type {};

  /// The keys a reduce_by_key node folds by: its keys, or the keys of a
  /// DenseWorkspace's latest call (stale once it serves another).
  template <class K>
  static const K& latest(const K& k) {
    return k;
  }
  template <class Key>
  static keys::DenseKeys<Key, ExecSpace> latest(const keys::DenseWorkspace<Key, ExecSpace>& ws) {
    keys::DenseKeys<Key, ExecSpace> k(ws.offsets(), ws.num_keys(), ws.elements(), ws.min_key(),
                                      ws.max_key());
    k.attachCall(ws.rejected(), ws.generation(), *ws.generation());
    return k;
  }
  template <class Key>
  static keys::SparseKeys<Key, ExecSpace> latest(const keys::SparseWorkspace<Key, ExecSpace>& ws) {
    keys::SparseKeys<Key, ExecSpace> k(ws.kept().offsets, ws.kept().keys, ws.capacity(),
                                       ws.elements(), ws.key_count());
    k.attachCall(ws.rejected(), ws.generation(), *ws.generation(), ws.capacity());
    return k;
  }

  template <bool Gather, class Perm, class... Views>
  node permuteNode(const char* name, const Perm& perm,
                   const keys::PermuteWorkspace<ExecSpace>& workspace,
                   const Planes<Views...>& planes, const deps& after) {
    if (workspace.elements() < 0)
      Impl::fail(Gather ? "sieve::Graph::permute" : "sieve::Graph::unpermute",
                 "the workspace is empty");
    return add(name, after, -1,
               [perm, workspace, planes, label = s_->label](const ExecSpace& exec,
                                                                  const Scratch&) {
                 const Impl::Names names(label, Gather ? "sieve::keys::permute"
                                                       : "sieve::keys::unpermute");
                 std::apply(
                     [&](const auto&... v) {
                       Impl::Permute::call<Gather>(names, exec, perm, workspace, v...);
                     },
                     planes.views);
               });
  }

  /// A slot live while the next node runs only.
  int reserve(const char* what, std::size_t bytes) {
    const int step = static_cast<int>(s_->nodes.size());
    if (s_->arena.committed())
      Impl::fail("sieve::Graph",
                 "the graph is instantiated; add every node before the first launch");
    return s_->arena.reserve(std::string(what) + " " + std::to_string(step), bytes, step, step);
  }

  template <class F>
  node add(const std::string& name, const deps& after, int slot, F&& f) {
    State& s = *s_;
    if (s.arena.committed())
      Impl::fail("sieve::Graph",
                 "the graph is instantiated; add every node before the first launch");
    const node id = static_cast<node>(s.nodes.size());
    for (const node d : after)
      if (d < 0 || d >= id)
        Impl::fail("sieve::Graph", "node '" + name + "' depends on node " + std::to_string(d) +
                                       ", which is not an earlier node of this graph");
    s.nodes.push_back(Node{name, slot, Scratch(), std::forward<F>(f)});
    return id;
  }

  void replay(const ExecSpace& exec) const {
    const Impl::CallRegion region("sieve::Graph[" + s_->label + "]");
    for (const Node& nd : s_->nodes) nd.run(exec, nd.scratch);
  }

  /// The nodes on exec: captured once and launched as one on a face that
  /// captures (Kokkos::Cuda: a CUDA graph), replayed otherwise (`launch`
  /// false: capture only).
  void replayOrCapture(const ExecSpace& exec, bool launch) const {
    Impl::replayCaptured(
        exec, s_->captured, launch,
        [&]() {
          if (debug_checks())
            Impl::fail("sieve::Graph",
                       "the debug checks read perm / inv back to the host, which a "
                       "CUDA graph cannot capture; turn them off to launch a graph");
          sieve::reserve(exec); // Kokkos' lazily allocated buffers, before the capture
        },
        [&]() { replay(exec); });
  }
};

} // namespace sieve
