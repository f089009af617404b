// Sieve (internal) — what every public entry point of the Kokkos face shares:
// View checks, profiling regions, fences and the choice of backend.
#pragma once

#include <sieve/config.hpp>
#include <sieve/core/rules.hpp>
#include <sieve/core/types.hpp>
#include <sieve/core/validate.hpp>

#include <Kokkos_Core.hpp>

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

template <class V>
inline constexpr bool kWritable = !std::is_const_v<typename V::value_type>;

/// The backend a call on an execution space of type Exec runs on.
enum class Backend { Portable, OpenMP, Cuda };

template <class Exec>
constexpr Backend backendOf() {
#if defined(KOKKOS_ENABLE_OPENMP)
  if constexpr (std::is_same_v<Exec, Kokkos::OpenMP>) return Backend::OpenMP;
#endif
#if defined(KOKKOS_ENABLE_CUDA) && SIEVE_HAVE_CUDA
  if constexpr (std::is_same_v<Exec, Kokkos::Cuda>) return Backend::Cuda;
#endif
  return Backend::Portable;
}

inline const char* backendName(Backend b) {
  switch (b) {
  case Backend::OpenMP: return "openmp";
  case Backend::Cuda: return "cuda";
  default: return "portable";
  }
}

/// A profiling region "sieve::<what>[<backend>]" around one public call; the
/// backend in brackets is the face that did the work.
class Region {
 public:
  Region(const char* what, Backend b) {
    Kokkos::Profiling::pushRegion(std::string("sieve::") + what + "[" + backendName(b) + "]");
  }
  ~Region() { Kokkos::Profiling::popRegion(); }
  Region(const Region&) = delete;
  Region& operator=(const Region&) = delete;
};

/// Fence an instance (the overloads without an instance end with it).
template <class Exec>
void fence(const Exec& exec, const char* label) {
#if KOKKOS_VERSION >= 30600
  exec.fence(std::string("sieve::") + label + ": fence after a call without an instance");
#else
  (void)label;
  exec.fence();
#endif
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

/// The bytes a rank-1 View's elements cover, from v.data().
template <class V>
std::size_t coveredBytes(const V& v) {
  return v.extent(0) == 0 ? 0 : (v.extent(0) - 1) * strideBytes(v) + sizeof(ValueOf<V>);
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

/// Static checks shared by the mask / index map / word / scratch arguments.
template <class Exec, class V>
constexpr void assertMaskView() {
  static_assert(IsView<V>::value, "sieve: the mask must be a Kokkos::View");
  static_assert(viewRank<V>() == 1, "sieve: the mask must be a rank-1 View");
  static_assert(std::is_same_v<ValueOf<V>, std::uint8_t>, "sieve: the mask must hold std::uint8_t");
  static_assert(kAccessible<Exec, V>, "sieve: the mask is not accessible from the execution space");
}
template <class Exec, class V>
constexpr void assertIndexView(const char*) {
  static_assert(IsView<V>::value, "sieve: index maps and permutations must be Kokkos::Views");
  static_assert(viewRank<V>() == 1, "sieve: index maps and permutations must be rank-1 Views");
  static_assert(std::is_same_v<ValueOf<V>, std::int32_t>,
                "sieve: index maps and permutations must hold std::int32_t");
  static_assert(kWritable<V>, "sieve: index maps and permutations are written: no const View");
  static_assert(kAccessible<Exec, V>,
                "sieve: an index map or permutation is not accessible from the execution space");
}
template <class Exec, class V>
constexpr void assertWordView() {
  static_assert(IsView<V>::value, "sieve: count and trigger words must be Kokkos::Views");
  static_assert(viewRank<V>() == 0, "sieve: count and trigger words must be rank-0 Views");
  static_assert(std::is_same_v<ValueOf<V>, std::uint32_t>,
                "sieve: count and trigger words must hold std::uint32_t");
  static_assert(kWritable<V>, "sieve: count and trigger words are written: no const View");
  static_assert(kAccessible<Exec, V>,
                "sieve: a count or trigger word is not accessible from the execution space");
}
template <class Exec, class V>
constexpr void assertScratchView() {
  static_assert(IsView<V>::value, "sieve: scratch must be a Kokkos::View");
  static_assert(viewRank<V>() == 1, "sieve: scratch must be a rank-1 View");
  static_assert(sizeof(typename V::value_type) == 1 && std::is_trivially_copyable_v<ValueOf<V>>,
                "sieve: scratch must be a View of bytes (std::byte, char or std::uint8_t)");
  static_assert(kWritable<V>, "sieve: scratch is written: no const View");
  static_assert(kAccessible<Exec, V>, "sieve: scratch is not accessible from the execution space");
}

} // namespace Impl
} // namespace sieve
