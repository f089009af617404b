// SPDX-License-Identifier: Apache-2.0
// Sieve (internal) — what every public entry point of the Kokkos face shares:
// View checks, profiling regions, fences and the choice of backend.
#pragma once

#include <sieve/config.hpp>
#include <sieve/core/fault.hpp>
#include <sieve/core/rules.hpp>
#include <sieve/core/types.hpp>
#include <sieve/core/validate.hpp>

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

namespace sieve {
namespace Impl {

template <class V>
constexpr int viewRank() {
  return static_cast<int>(V::rank);
}

template <class V, class = void>
struct IsView : std::false_type {};
template <class V>
struct IsView<V, std::enable_if_t<Kokkos::is_view<V>::value>> : std::true_type {};

template <class E>
inline constexpr bool kIsExec = Kokkos::is_execution_space<E>::value;

template <class Exec, class V>
inline constexpr bool kAccessible =
    Kokkos::SpaceAccessibility<Exec, typename V::memory_space>::accessible;

template <class V>
using ValueOf = typename V::non_const_value_type;

/// Traits that are safe to evaluate on any type (a non-View gives rank -1,
/// value type void, not accessible): the static_asserts of the entry points
/// use them, so a wrong argument yields the readable assertion first and no
/// error from inside the library.
template <class V, bool = IsView<V>::value>
struct Safe {
  static constexpr int rank = -1;
  using value = void;
  static constexpr bool writable = false;
  template <class Exec>
  static constexpr bool accessible() {
    return false;
  }
};
template <class V>
struct Safe<V, true> {
  static constexpr int rank = static_cast<int>(V::rank);
  using value = typename V::non_const_value_type;
  static constexpr bool writable = !std::is_const_v<typename V::value_type>;
  template <class Exec>
  static constexpr bool accessible() {
    return Kokkos::SpaceAccessibility<Exec, typename V::memory_space>::accessible;
  }
};

/// A rank-R View of exactly `T`, accessible from Exec (and writable if W).
template <class Exec, class V, int R, class T, bool W>
inline constexpr bool kViewOf = Safe<V>::rank == R&& std::is_same_v<typename Safe<V>::value, T> &&
                                (!W || Safe<V>::writable) && Safe<V>::template accessible<Exec>();

/// The names one public call gives Kokkos Tools: `prefix` is "sieve::<call>",
/// or "<label>: sieve::<call>" when the caller gave a label. The call's
/// profiling region is "<prefix>[<face>]"; its kernels are "<prefix>::<phase>"
/// and its allocations "<prefix>::<what>".
struct Names {
  std::string prefix;
  Names(const std::string& label, const char* call)
      : prefix(label.empty() ? std::string(call) : label + ": " + call) {}
  std::string operator()(const char* what) const { return prefix + "::" + what; }
};

template <class V>
inline constexpr bool kWritable = !std::is_const_v<typename V::value_type>;

/// Fence an instance with a Kokkos Tools label "sieve::<what>".
template <class Exec>
void fence(const Exec& exec, const std::string& what) {
#if KOKKOS_VERSION >= 30600
  exec.fence("sieve::" + what);
#else
  (void)what;
  exec.fence();
#endif
}

/// Size, once, the team scratch a device instance keeps. Kokkos' CUDA and
/// HIP backends keep level-1 team-scratch buffers per instance (a small pool:
/// a launch takes the first free one) and call the allocator in every team
/// launch while the buffer it took has size 0 (an empty allocation, which
/// Kokkos Tools see, per launch of a portable team kernel). One team launch
/// asking for a few bytes sizes the first buffer, the one that launches from
/// one host thread at a time always take: later launches that ask for none
/// allocate nothing. Asynchronous, on `exec`; nothing on spaces that run on
/// the host (they keep no such buffer per launch).
template <class Exec>
void keepTeamScratch(const Exec& exec, const Names& names) {
  if constexpr (!Kokkos::SpaceAccessibility<Exec, Kokkos::HostSpace>::accessible) {
    using Team = Kokkos::TeamPolicy<Exec>;
    Kokkos::parallel_for(names("team_scratch"),
                         Team(exec, 1, 1).set_scratch_size(1, Kokkos::PerTeam(64)),
                         KOKKOS_LAMBDA(const typename Team::member_type&){});
  } else {
    (void)exec;
    (void)names;
  }
}

/// Whether a rank-1 View's elements are contiguous (stride 1).
template <class V>
bool contiguous(const V& v) {
  return v.extent(0) <= 1 || v.stride(0) == 1;
}

/// Bytes between consecutive elements of a rank-1 View. Element i starts at
/// byte i * strideBytes(v) of v.data(), also for Views of Kokkos::Array, whose
/// data() Kokkos 3.x - 4.3 typed as a pointer to the array's scalars.
template <class V>
std::size_t strideBytes(const V& v) {
  return static_cast<std::size_t>(v.stride(0)) * sizeof(ValueOf<V>);
}

/// The bytes a View's elements cover (any rank), from v.data() to the end of
/// its last element: sum over d of (extent(d) - 1) * stride(d) elements, plus
/// one (not its layout's span(), which may reach past its last element).
/// A strided View's address range: the overlap rule itself (viewBytes)
/// compares the bytes its elements touch.
template <class V>
std::size_t coveredBytes(const V& v) {
  if (v.size() == 0) return 0;
  std::size_t last = 0;
  if constexpr (V::rank > 0) // (a rank-0 View: one element)
    for (unsigned d = 0; d < static_cast<unsigned>(V::rank); ++d)
      last += (v.extent(d) - 1) * static_cast<std::size_t>(v.stride(d));
  return last * sizeof(ValueOf<V>) + sizeof(ValueOf<V>);
}

/// The bytes a View's elements touch (any rank and layout: its extents and
/// strides, in bytes), for the one overlap rule (shareBytes,
/// core/overlap.hpp): Views whose elements share no byte do not overlap,
/// whatever their address ranges (the interleaved columns of one
/// LayoutRight table). O(rank).
///
/// Kokkos < 4.4 stores the elements of a View of Kokkos::Array whole only in
/// LayoutRight (and rank 0); in any other layout scalar c of every element
/// lies c x span() / N scalars after scalar 0 (one plane per scalar): such a
/// View counts as its whole address range, from data() on.
template <class V>
ArrayBytes viewBytes(const char* name, const V& v) {
  constexpr std::uint32_t R = static_cast<std::uint32_t>(V::rank);
#if KOKKOS_VERSION < 40400
  if constexpr (std::is_same_v<typename V::traits::specialize, Kokkos::Array<>> && R > 0 &&
                !std::is_same_v<typename V::array_layout, Kokkos::LayoutRight>) {
    using Scalar = typename ValueOf<V>::value_type;
    const std::size_t planes = static_cast<std::size_t>(v.span()) * sizeof(Scalar);
    const std::size_t covered = coveredBytes(v);
    return arrayBytes(
        name, v.data(),
        v.size() == 0 ? 0 : static_cast<std::int64_t>(covered > planes ? covered : planes), 1);
  }
#endif
  std::uintptr_t extent[R > 0 ? R : 1] = {}, step[R > 0 ? R : 1] = {};
  if constexpr (R > 0) // (a rank-0 View: one element)
    for (std::uint32_t d = 0; d < R; ++d) {
      extent[d] = static_cast<std::uintptr_t>(v.extent(d));
      step[d] = static_cast<std::uintptr_t>(v.stride(d)) * sizeof(ValueOf<V>);
    }
  return stridedBytes(name, v.data(), sizeof(ValueOf<V>), R, extent, step);
}

/// The capacity a kept result buffer grows to when `need` items do not fit
/// its `old` ones: 1.5 times, at least `need`, at most `most` (unless need is
/// more). The calls that keep result buffers in a workspace (findall,
/// scatter_sparse) grow them so.
inline std::int64_t grownCapacity(std::int64_t old, std::int64_t need, std::int64_t most) {
  std::int64_t cap = old + old / 2;
  if (cap > most) cap = most;
  return cap < need ? need : cap;
}

/// A View of Sieve's own: every allocation of the Kokkos face goes through
/// here (`V(alloc, extents...)` after the allocation point, core/fault.hpp).
template <class V, class Alloc, class... Extents>
V allocate(const Alloc& alloc, const Extents&... extents) {
  allocationPoint();
  const OneAllocationPoint one;
  return V(alloc, extents...);
}

/// A host mirror of a View of Sieve's own making (an allocation on device
/// spaces; the View itself on host ones): one allocation point, as allocate.
template <class V>
auto hostMirror(const V& v) {
  allocationPoint();
  const OneAllocationPoint one; // (as allocate)
  return Kokkos::create_mirror_view(v);
}

template <class V>
std::int64_t extent64(const V& v) {
  return static_cast<std::int64_t>(v.extent(0));
}

/// A rank-0 View must be allocated (it is read or written by the call).
template <class V>
void checkWord(const char* fn, const V& v, const char* name) {
  if (v.data() == nullptr) fail(fn, std::string(name) + " is an empty View; it must hold one word");
}

/// The byte size of a scratch View.
template <class V>
std::size_t scratchBytes(const V& v) {
  return static_cast<std::size_t>(v.extent(0)) * sizeof(typename V::value_type);
}

template <class V>
void checkScratch(const char* fn, const V& scratch, std::size_t need, const char* rule) {
  if (scratchBytes(scratch) < need)
    fail(fn, "scratch holds " + std::to_string(scratchBytes(scratch)) + " bytes; " + rule + " = " +
                 std::to_string(need) + " are needed");
  if (need > 0 && !contiguous(scratch)) fail(fn, "scratch must be a contiguous View");
}

} // namespace Impl
} // namespace sieve
