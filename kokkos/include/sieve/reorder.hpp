// SPDX-License-Identifier: Apache-2.0
// Sieve — sieve::reorder / sieve::restore: the physical reorder of
// structure-of-arrays planes, and its undo.
#pragma once

#include <sieve/debug.hpp>
#include <sieve/impl/args.hpp>
#include <sieve/impl/common.hpp>
#include <sieve/impl/faces.hpp>
#include <sieve/trigger.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

namespace sieve {

/// Bytes of scratch sieve::reorder / sieve::restore need for `n` samples whose
/// widest plane has `max_elem_bytes`-byte elements: the compaction scratch
/// rounded up to 16 bytes, then one staging plane of max(n, 1) elements of
/// max(max_elem_bytes, 4) bytes. O(1). Throws std::invalid_argument for a bad
/// n or an element size other than 1, 2, 4, 8 or 16.
inline std::size_t reorder_scratch_bytes(std::int64_t n, std::uint32_t max_elem_bytes) {
  Impl::checkSamples("sieve::reorder_scratch_bytes", n);
  Impl::checkElemBytes("sieve::reorder_scratch_bytes", max_elem_bytes, "max_elem_bytes");
  return reorderScratchBytes(n, max_elem_bytes);
}

namespace Impl {

/// A short list of T: the first N entries inline, more on the heap (only a
/// rank-2 plane of many columns gets there: a call of rank-1 planes never
/// allocates).
template <class T, std::size_t N>
class SmallList {
 public:
  void push_back(const T& v) {
    if (heap_.empty() && size_ < N) {
      inline_[size_++] = v;
      return;
    }
    if (heap_.empty()) heap_.assign(inline_.begin(), inline_.begin() + size_);
    heap_.push_back(v);
    ++size_;
  }
  std::size_t size() const { return size_; }
  T* data() { return heap_.empty() ? inline_.data() : heap_.data(); }
  const T* data() const { return heap_.empty() ? inline_.data() : heap_.data(); }
  const T* begin() const { return data(); }
  const T* end() const { return data() + size_; }
  const T& operator[](std::size_t i) const { return data()[i]; }

 private:
  std::array<T, N> inline_{};
  std::vector<T> heap_;
  std::size_t size_ = 0;
};

/// One "word plane" as the faces move it: n words of `elem` bytes, one every
/// `stride` bytes from `data`, covering `bytes` bytes; `column` is the
/// column of the rank-2 plane it is (-1: the whole plane or its whole rows).
struct WordPlane {
  void* data;
  std::uint32_t elem;
  std::size_t stride, bytes;
  std::int64_t column;
};

/// The word planes of one plane, in order, to `f(WordPlane)`. A rank-1 plane
/// is one (its elements). A rank-2 plane (extent(0) = the samples) whose rows
/// are contiguous (LayoutRight, or one column) and of 1, 2, 4, 8 or 16 bytes,
/// aligned to that, is one (its rows: View<double* [2]>, View<float* [4]>);
/// any other is one per column, each of the element size (LayoutLeft: every
/// column contiguous; LayoutRight double[3]: three columns 24 bytes apart,
/// interleaved; LayoutStride as its strides say). No allocation.
template <class V, class F>
void forWordPlanes(const V& v, F&& f) {
  using T = ValueOf<V>;
  constexpr std::size_t e = sizeof(T);
  auto* base =
      reinterpret_cast<unsigned char*>(const_cast<T*>(reinterpret_cast<const T*>(v.data())));
  if constexpr (V::rank == 1) {
    f(WordPlane{base, static_cast<std::uint32_t>(e), strideBytes(v), coveredBytes(v), -1});
  } else {
    const std::size_t n = v.extent(0), cols = v.extent(1);
    if (cols == 0) return;
    const std::size_t s0 = static_cast<std::size_t>(v.stride(0)) * e;
    const std::size_t row = cols * e;
    const auto covered = [&](std::size_t w) { return n == 0 ? 0 : (n - 1) * s0 + w; };
    const bool rows = (cols == 1 || v.stride(1) == 1) && row <= 16 &&
                      supportedElem(static_cast<std::uint32_t>(row)) &&
                      reinterpret_cast<std::uintptr_t>(base) % row == 0 &&
                      (n <= 1 || s0 % row == 0);
    if (rows) {
      f(WordPlane{base, static_cast<std::uint32_t>(row), s0, covered(row), -1});
    } else {
      const std::size_t s1 = static_cast<std::size_t>(v.stride(1)) * e;
      for (std::size_t c = 0; c < cols; ++c)
        f(WordPlane{base + c * s1, static_cast<std::uint32_t>(e), s0, covered(e),
                    static_cast<std::int64_t>(c)});
    }
  }
}

/// The widest word a plane moves (the staging element its reorder needs).
template <class V>
std::uint32_t widestWord(const V& v) {
  std::uint32_t w = 1;
  forWordPlanes(v, [&](const WordPlane& p) { w = p.elem > w ? p.elem : w; });
  return w;
}

/// The bytes a plane moves per sample: its element (rank 1), or its row
/// (rank 2: extent(1) elements). What a trigger records of it.
template <class V>
std::size_t rowBytes(const V& v) {
  if constexpr (V::rank == 1) return sizeof(ValueOf<V>);
  else return sizeof(ValueOf<V>) * v.extent(1);
}

/// The word planes a plane type gives at most, when that is known at compile
/// time (a PlaneSet keeps that many inline; a rank-2 plane of run-time
/// columns counts 4, and more go to the heap).
template <class V>
constexpr std::size_t wordPlanesHint() {
  if constexpr (Safe<V>::rank != 2) {
    return 1;
  } else {
    constexpr std::size_t c = V::static_extent(1);
    return c == 0 ? 4 : c > 16 ? 16 : c;
  }
}

/// What reorder and restore check of their planes at run time, with the
/// planes expanded into word planes (forWordPlanes): the element descriptors
/// (for the native faces), the memory each word plane covers and its stride
/// (the portable face moves strided ones), equal extents. Entries past the
/// word planes: perm, inv, map.
template <class... Planes>
struct PlaneSet {
  static constexpr std::size_t kInline = (wordPlanesHint<Planes>() + ... + 0) + 3;
  SmallList<ReorderPlane, kInline> desc;
  SmallList<std::size_t, kInline> bytes;  // memory covered: word planes, perm, inv, map
  SmallList<std::size_t, kInline> stride; // bytes between elements
  std::uint32_t count = 0;                // word planes
  bool contiguous = true;
  std::uint32_t maxElem = 1;

  template <class Perm, class Inv, class Map>
  PlaneSet(const char* fn, std::int64_t n, const Perm& perm, const Inv& inv, const Map& map,
           const Planes&... planes) {
    std::size_t k = 0;
    const std::array<std::int64_t, sizeof...(Planes)> extents{extent64(planes)...};
    for (const std::int64_t e : extents) {
      if (e != n)
        fail(fn, "plane " + std::to_string(k) + " has extent " + std::to_string(e) +
                     "; every plane must have n = " + std::to_string(n) + " samples");
      ++k;
    }
    constexpr bool anyRank2 = ((Planes::rank == 2) || ... || false);
    std::vector<std::string> names; // rank-2 calls only: the planes' own names
    k = 0;
    (add(planes, k++, anyRank2 ? &names : nullptr), ...);
    count = static_cast<std::uint32_t>(desc.size());
    if constexpr (anyRank2) checkNamed(fn, n, names, perm, inv, map);
    bytes.push_back(coveredBytes(perm));
    bytes.push_back(coveredBytes(inv));
    bytes.push_back(coveredBytes(map));
    stride.push_back(strideBytes(perm));
    stride.push_back(strideBytes(inv));
    stride.push_back(strideBytes(map));
  }

 private:
  template <class V>
  void add(const V& v, std::size_t k, std::vector<std::string>* names) {
    const bool many = v.extent(0) > 1;
    forWordPlanes(v, [&](const WordPlane& w) {
      desc.push_back(ReorderPlane{w.data, w.elem});
      bytes.push_back(w.bytes);
      stride.push_back(w.stride);
      contiguous = contiguous && (!many || w.stride == w.elem);
      maxElem = w.elem > maxElem ? w.elem : maxElem;
      if (names)
        names->push_back("plane " + std::to_string(k) +
                         (w.column >= 0 ? " (column " + std::to_string(w.column) + ")" : ""));
    });
  }

  /// With rank-2 planes the word planes are not the caller's planes: check
  /// alignment and overlaps first by the caller's names (what the core
  /// checks after this then finds nothing).
  template <class Perm, class Inv, class Map>
  void checkNamed(const char* fn, std::int64_t n, const std::vector<std::string>& names,
                  const Perm& perm, const Inv& inv, const Map& map) const {
    if (n == 0) return;
    std::vector<ArrayBytes> arrays;
    for (std::size_t w = 0; w < desc.size(); ++w) {
      checkPtr(fn, desc[w].data, names[w].c_str(), desc[w].elemBytes);
      if (n > 1 && stride[w] < desc[w].elemBytes)
        fail(fn, names[w] + " has samples " + std::to_string(stride[w]) +
                     " bytes apart, fewer than the " + std::to_string(desc[w].elemBytes) +
                     " bytes each moves: its rows overlap (a rank-2 plane's extent(0) must be "
                     "its samples, stride(0) at least a whole row)");
      arrays.push_back(ArrayBytes{names[w], reinterpret_cast<std::uintptr_t>(desc[w].data),
                                  bytes[w], stride[w], desc[w].elemBytes});
    }
    const auto add = [&](const char* name, const auto& v) {
      arrays.push_back(ArrayBytes{name, reinterpret_cast<std::uintptr_t>(v.data()), coveredBytes(v),
                                  strideBytes(v), sizeof(std::int32_t)});
    };
    add("perm", perm);
    add("inv", inv);
    if (static_cast<const void*>(map.data()) != static_cast<const void*>(perm.data()))
      add("index_map", map); // (restore passes perm here: no map)
    checkApart(fn, arrays, 1, true, "planes must not overlap");
  }
};

/// Whether P can be a plane of a reorder on Exec: a plane moved by bytes
/// (bytePlaneOk: writable, rank 1 or 2, trivially copyable, accessible) of 1,
/// 2, 4, 8 or 16-byte elements.
template <class Exec, class P>
constexpr bool planeOk() {
  if constexpr (bytePlaneOk<Exec, P>()) {
    constexpr std::size_t b = sizeof(typename Safe<P>::value);
    return b == 1 || b == 2 || b == 4 || b == 8 || b == 16;
  } else {
    return false;
  }
}

/// The index of the first plane that is not one (-1: all are).
template <class Exec, class... Planes>
constexpr int firstBadPlane() {
  const bool ok[] = {planeOk<Exec, Planes>()..., true};
  return firstFalse(ok);
}

/// firstBadPlane over the elements [From, From + sizeof Is) of a tuple type.
template <class Exec, std::size_t From, class Tuple, std::size_t... Is>
constexpr int firstBadTail(std::index_sequence<Is...>) {
  return firstBadPlane<Exec, std::tuple_element_t<From + Is, Tuple>...>();
}

#define SIEVE_PLANE_ASSERT(call, bad, k)                                                    \
  static_assert(bad != k, call ": plane " #k                                                \
                               " (counting from 0 after 'scratch') must be a "              \
                               "writable rank-1 View of trivially-copyable 1, 2, 4, 8 or "  \
                               "16-byte elements, or a rank-2 View of them (extent(0) the " \
                               "samples, one row each), accessible from the execution "     \
                               "space (on Kokkos < 4.4 a View of Kokkos::Array must be "    \
                               "rank 1 and LayoutRight)")
#define SIEVE_PLANES_ASSERT(call, bad)                                              \
  SIEVE_PLANE_ASSERT(call, bad, 0);                                                 \
  SIEVE_PLANE_ASSERT(call, bad, 1);                                                 \
  SIEVE_PLANE_ASSERT(call, bad, 2);                                                 \
  SIEVE_PLANE_ASSERT(call, bad, 3);                                                 \
  SIEVE_PLANE_ASSERT(call, bad, 4);                                                 \
  SIEVE_PLANE_ASSERT(call, bad, 5);                                                 \
  SIEVE_PLANE_ASSERT(call, bad, 6);                                                 \
  SIEVE_PLANE_ASSERT(call, bad, 7);                                                 \
  static_assert(bad < 8, call                                                       \
                ": a plane after the 8th (counting after 'scratch') must be a "     \
                "writable rank-1 View of trivially-copyable 1, 2, 4, 8 or 16-byte " \
                "elements, or a rank-2 View of them (extent(0) the samples), "      \
                "accessible from the execution space")

template <class Exec, class Perm, class Inv>
void checkPermutation(const char* fn, const Names& names, const Exec& exec, std::int64_t n,
                      const Perm& perm, const Inv& inv) {
  if (extent64(perm) < n || extent64(inv) < n)
    fail(fn, "perm.extent(0) = " + std::to_string(perm.extent(0)) + " and inv.extent(0) = " +
                 std::to_string(inv.extent(0)) + " must both be at least n = " + std::to_string(n));
  if (!debug_checks() || n == 0) return;
  // inv(perm(i)) == i for every i makes perm one-to-one on [0, n), so a
  // permutation, and inv its inverse there. Blocks (a reduction read back).
  std::int64_t bad = n;
  Kokkos::parallel_reduce(
      names("check_permutation"), Kokkos::RangePolicy<Exec>(exec, 0, n),
      KOKKOS_LAMBDA(const std::int64_t i, std::int64_t& first) {
        const std::int32_t p = perm(i);
        if ((!slotInRange(p, n) || inv(p) != i) && i < first) first = i;
      },
      Kokkos::Min<std::int64_t>(bad));
  if (bad >= n) return;
  std::int32_t p = 0, back = -1;
  Kokkos::deep_copy(p, Kokkos::subview(perm, bad));
  if (slotInRange(p, n)) Kokkos::deep_copy(back, Kokkos::subview(inv, p));
  fail(fn, "perm and inv are not inverse permutations of [0, " + std::to_string(n) + "): perm(" +
               std::to_string(bad) + ") = " + std::to_string(p) +
               (slotInRange(p, n) ? ", inv(" + std::to_string(p) + ") = " + std::to_string(back)
                                  : std::string(", outside [0, n)")) +
               " (debug check; pass the perm and inv that reorder maintains, in that order)");
}

/// The trigger's record of what its reorders moved (trigger.hpp): `check`
/// throws when perm, inv, n or the plane set (in any order) differ from what
/// the reorders through it moved since its last restore; `remember` records
/// them; `forget` (a restore) clears the record. Empty batches are not
/// recorded (their Views have no address).
struct Record {
  template <class M, class Perm, class Inv, class... Planes>
  static void check(const char* fn, const Trigger<M>& t, std::int64_t n, const Perm& perm,
                    const Inv& inv, const Planes&... planes) {
    if (!t.record || n == 0) return;
    PlaneRecord& r = *t.record;
    const std::lock_guard<std::mutex> lock(r.m);
    if (!r.set) return;
    std::string what;
    if (r.n != n)
      what = "n = " + std::to_string(n) + " (the reorders had " + std::to_string(r.n) + ")";
    else if (r.perm != perm.data() || r.inv != inv.data()) what = "another perm or inv";
    else if (sorted(list(planes...)) != sorted(r.planes))
      what = "another set of planes (" + std::to_string(sizeof...(Planes)) + " given, " +
             std::to_string(r.planes.size()) + " moved by the reorders)";
    if (!what.empty())
      fail(fn, "the call has " + what +
                   " than the reorders through this trigger since its last restore; every "
                   "reorder and the restore must move the same perm, inv and planes, or a plane "
                   "left out falls out of step with the others (sample ids lost)");
  }
  template <class M, class Perm, class Inv, class... Planes>
  static void remember(const Trigger<M>& t, std::int64_t n, const Perm& perm, const Inv& inv,
                       const Planes&... planes) {
    if (!t.record || n == 0) return;
    PlaneRecord& r = *t.record;
    const std::lock_guard<std::mutex> lock(r.m);
    r.set = true;
    r.n = n;
    r.perm = perm.data();
    r.inv = inv.data();
    r.planes = list(planes...);
  }
  template <class M>
  static void forget(const Trigger<M>& t) {
    if (!t.record) return;
    const std::lock_guard<std::mutex> lock(t.record->m);
    t.record->set = false;
    t.record->planes.clear();
  }

 private:
  template <class... Planes>
  static std::vector<PlaneRecord::Plane> list(const Planes&... planes) {
    return {PlaneRecord::Plane{static_cast<const void*>(planes.data()), rowBytes(planes)}...};
  }
  static std::vector<PlaneRecord::Plane> sorted(std::vector<PlaneRecord::Plane> v) {
    std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) {
      return std::less<const void*>()(a.data, b.data) || (a.data == b.data && a.elem < b.elem);
    });
    return v;
  }
};

template <class Exec, class Mask, class Perm, class Inv, class Map, class Count, class Span,
          class Fire, class Scratch, class... Planes>
void reorderBody(const Names& names, const Exec& exec, const Mask& mask, std::uint32_t flags,
                 const Perm& perm, const Inv& inv, const Map& map, const Count& count,
                 const Span& span, const Fire& fire, const Scratch& scratch,
                 const Planes&... planes) {
  constexpr const char* fn = "sieve::reorder";
  const std::int64_t n = extent64(mask);
  checkSamples(fn, n, "mask.extent(0)");
  checkWord(fn, count, "count");
  checkWord(fn, span, "span");
  checkPermutation(fn, names, exec, n, perm, inv);
  if (extent64(map) < n)
    fail(fn, "index_map.extent(0) = " + std::to_string(map.extent(0)) +
                 " is smaller than mask.extent(0) = " + std::to_string(n));
  const PlaneSet<Planes...> set(fn, n, perm, inv, map, planes...);
  checkScratch(fn, scratch, n == 0 ? 0 : reorderScratchBytes(n, set.maxElem),
               "reorder_scratch_bytes(n, widest plane)");
  std::uint32_t* firePtr = fire.data(); // an empty View: unconditional
  checkReorder(fn, set.desc.data(), set.count, mask.data(), flags, perm.data(), inv.data(),
               map.data(), count.data(), span.data(), firePtr, scratch.data(), n, set.bytes.data(),
               set.stride.data());
  const bool contiguousViews =
      set.contiguous && contiguous(mask) && contiguous(perm) && contiguous(inv) && contiguous(map);
  const CallClaims claims(fn, {perm.data(), map.data(), scratch.data()},
                          {"perm", "index_map", "scratch"});
  const CallRegion region(names, faceFor<Exec, Primitive::Reorder>(contiguousViews));
  // The faces take the word planes (the native ones ignore the strides:
  // they run only when every word plane is contiguous).
  dispatch<Exec, Primitive::Reorder>(contiguousViews, [&](auto face) {
    Faces<decltype(face)::value>::reorder(exec, names, mask, flags, perm, inv, map, count.data(),
                                          span.data(), firePtr, scratch.data(), n, set.desc.data(),
                                          set.count, set.stride.data());
  });
}

/// Every sieve::reorder overload ends here: compile-time checks of the whole
/// argument list (readable assertions, then nothing else), then the body.
template <class Exec, class Mask, class... Args>
void reorderEntry(const Names& names, const Exec& exec, const Mask& mask, const Args&... args) {
  constexpr std::size_t p = kLeadingPolarity<Args...> ? 1 : 0;
  using Perm = Nth<p, Args...>;
  using Inv = Nth<p + 1, Args...>;
  using Map = Nth<p + 2, Args...>;
  using Count = Nth<p + 3, Args...>;
  constexpr bool withTrigger = IsTrigger<Nth<p + 4, Args...>>::value;
  using Span = std::conditional_t<withTrigger, Absent, Nth<p + 4, Args...>>;
  using Fire = std::conditional_t<withTrigger, Absent, Nth<p + 5, Args...>>;
  constexpr std::size_t s = withTrigger ? p + 5 : p + 6; // scratch
  using Scratch = Nth<s, Args...>;
  constexpr std::size_t planes0 = s + 1;
  constexpr bool shape = sizeof...(Args) > planes0;
  static_assert(
      !std::is_integral_v<Nth<0, Args...>>,
      "sieve::reorder: the argument after 'mask' is an integer; the mask polarity is a "
      "sieve::MaskPolarity (keep, the default, or drop), not the native layer's flag word");
  static_assert(shape,
                "sieve::reorder: the arguments are reorder([label,] exec, mask[, polarity], "
                "perm, inv, index_map, count, trigger | span, fire, scratch, planes...) "
                "with at least one plane (the mask among them)");
  static_assert(kViewOf<Exec, Mask, 1, std::uint8_t, true>,
                "sieve::reorder: 'mask' must be a writable rank-1 View of std::uint8_t "
                "accessible from the execution space (it moves with the planes)");
  static_assert(kViewOf<Exec, Perm, 1, std::int32_t, true>,
                "sieve::reorder: 'perm' must be a writable rank-1 View of std::int32_t accessible "
                "from the execution space");
  static_assert(kViewOf<Exec, Inv, 1, std::int32_t, true>,
                "sieve::reorder: 'inv' must be a writable rank-1 View of std::int32_t accessible "
                "from the execution space");
  static_assert(kViewOf<Exec, Map, 1, std::int32_t, true>,
                "sieve::reorder: 'index_map' must be a writable rank-1 View of std::int32_t "
                "accessible from the execution space");
  static_assert(kViewOf<Exec, Count, 0, std::uint32_t, true>,
                "sieve::reorder: 'count' must be a writable rank-0 View of std::uint32_t "
                "accessible from the execution space");
  static_assert(!withTrigger || kTriggerFor<Exec, Nth<p + 4, Args...>>,
                "sieve::reorder: the trigger's words are not accessible from the execution space");
  static_assert(withTrigger || kViewOf<Exec, Span, 0, std::uint32_t, true>,
                "sieve::reorder: the argument after 'count' must be a sieve::Trigger, or the "
                "'span' word (a writable rank-0 View of std::uint32_t) followed by 'fire'");
  static_assert(withTrigger || kViewOf<Exec, Fire, 0, std::uint32_t, true>,
                "sieve::reorder: 'fire' must be a writable rank-0 View of std::uint32_t "
                "accessible from the execution space (an empty View: unconditional)");
  static_assert(kByteScratch<Exec, Scratch>,
                "sieve::reorder: 'scratch' must be a writable rank-1 View of bytes accessible "
                "from the execution space");
  constexpr int bad = firstBadTail<Exec, planes0, std::tuple<std::decay_t<Args>...>>(
      std::make_index_sequence<(shape ? sizeof...(Args) - planes0 : 0)>());
  SIEVE_PLANES_ASSERT("sieve::reorder", bad);
  constexpr bool ok =
      shape && bad < 0 && kViewOf<Exec, Mask, 1, std::uint8_t, true> &&
      kViewOf<Exec, Perm, 1, std::int32_t, true> && kViewOf<Exec, Inv, 1, std::int32_t, true> &&
      kViewOf<Exec, Map, 1, std::int32_t, true> && kViewOf<Exec, Count, 0, std::uint32_t, true> &&
      (withTrigger ? kTriggerFor<Exec, Nth<p + 4, Args...>>
                   : kViewOf<Exec, Span, 0, std::uint32_t, true> &&
                         kViewOf<Exec, Fire, 0, std::uint32_t, true>)&&kByteScratch<Exec, Scratch>;
  if constexpr (ok) {
    const std::uint32_t flags = flagsOf(polarityOf(args...));
    const auto& perm = nth<p>(args...);
    const auto& inv = nth<p + 1>(args...);
    const auto& map = nth<p + 2>(args...);
    const auto& count = nth<p + 3>(args...);
    const auto& scratch = nth<s>(args...);
    applyTail<planes0>(
        [&](const auto&... planes) {
          if constexpr (withTrigger) {
            const auto& trigger = nth<p + 4>(args...);
            // A trigger's fire word gates the reorder: it must exist (an
            // empty View would silently mean "unconditional").
            checkWord("sieve::reorder", trigger.fire, "trigger.fire");
            checkWord("sieve::reorder", trigger.span, "trigger.span");
            const std::int64_t n = extent64(mask);
            Record::check("sieve::reorder", trigger, n, perm, inv, planes...);
            reorderBody(names, exec, mask, flags, perm, inv, map, count, trigger.span, trigger.fire,
                        scratch, planes...);
            Record::remember(trigger, n, perm, inv, planes...);
          } else {
            reorderBody(names, exec, mask, flags, perm, inv, map, count, nth<p + 4>(args...),
                        nth<p + 5>(args...), scratch, planes...);
          }
        },
        args...);
  }
}

template <class Exec, class Perm, class Inv, class Scratch, class... Planes>
void restoreEntry(const Names& names, const Exec& exec, const Perm& perm, const Inv& inv,
                  const Scratch& scratch, const Planes&... planes) {
  constexpr const char* fn = "sieve::restore";
  static_assert(sizeof...(Planes) >= 1,
                "sieve::restore: give the planes to move back: restore([label,] exec, perm, inv, "
                "scratch, planes...) (without them perm and inv would be reset and the order "
                "lost)");
  static_assert(kViewOf<Exec, Perm, 1, std::int32_t, true>,
                "sieve::restore: 'perm' must be a writable rank-1 View of std::int32_t accessible "
                "from the execution space");
  static_assert(kViewOf<Exec, Inv, 1, std::int32_t, true>,
                "sieve::restore: 'inv' must be a writable rank-1 View of std::int32_t accessible "
                "from the execution space");
  static_assert(kByteScratch<Exec, Scratch>,
                "sieve::restore: 'scratch' must be a writable rank-1 View of bytes accessible "
                "from the execution space");
  constexpr int bad = firstBadPlane<Exec, Planes...>();
  SIEVE_PLANES_ASSERT("sieve::restore", bad);
  constexpr bool ok = sizeof...(Planes) >= 1 && bad < 0 &&
                      kViewOf<Exec, Perm, 1, std::int32_t, true> &&
                      kViewOf<Exec, Inv, 1, std::int32_t, true> && kByteScratch<Exec, Scratch>;
  if constexpr (ok) {
    // n: the planes' extent (perm / inv may be longer, as in reorder).
    const std::int64_t n = extent64(nth<0>(planes...));
    checkSamples(fn, n, "planes' extent");
    checkPermutation(fn, names, exec, n, perm, inv);
    const PlaneSet<Planes...> set(fn, n, perm, inv, perm, planes...); // (no map: its entry unused)
    checkScratch(fn, scratch, n == 0 ? 0 : reorderScratchBytes(n, set.maxElem),
                 "reorder_scratch_bytes(n, widest plane)");
    checkRestore(fn, set.desc.data(), set.count, perm.data(), inv.data(), scratch.data(), n,
                 set.bytes.data(), set.stride.data());
    const bool contiguousViews = set.contiguous && contiguous(perm) && contiguous(inv);
    const CallClaims claims(fn, {perm.data(), scratch.data()}, {"perm", "scratch"});
    const CallRegion region(names, faceFor<Exec, Primitive::Restore>(contiguousViews));
    dispatch<Exec, Primitive::Restore>(contiguousViews, [&](auto face) {
      Faces<decltype(face)::value>::restore(exec, names, perm, inv, scratch.data(), n,
                                            set.desc.data(), set.count, set.stride.data());
    });
  }
}

/// restore([label,] exec, [trigger,] perm, inv, scratch, planes...): with a
/// trigger, the plane set is checked against its record first, and after the
/// restore span = n and fire = 0 (asynchronously on exec) and the record is
/// cleared.
template <class Exec, class First, class... Rest>
void restoreDispatch(const Names& names, const Exec& exec, const First& first,
                     const Rest&... rest) {
  if constexpr (IsTrigger<First>::value) {
    static_assert(sizeof...(Rest) >= 4 && kTriggerFor<Exec, First>,
                  "sieve::restore: the arguments are restore([label,] exec, trigger, perm, inv, "
                  "scratch, planes...), the trigger's words accessible from the execution space");
    if constexpr (sizeof...(Rest) >= 4 && kTriggerFor<Exec, First>) {
      applyTail<3>(
          [&](const auto&... planes) {
            const auto& perm = nth<0>(rest...);
            const auto& inv = nth<1>(rest...);
            checkWord("sieve::restore", first.span, "trigger.span");
            checkWord("sieve::restore", first.fire, "trigger.fire");
            const std::int64_t n = extent64(nth<0>(planes...));
            Record::check("sieve::restore", first, n, perm, inv, planes...);
            restoreEntry(names, exec, perm, inv, nth<2>(rest...), planes...);
            Kokkos::deep_copy(exec, first.span, static_cast<std::uint32_t>(n));
            Kokkos::deep_copy(exec, first.fire, std::uint32_t(0));
            Record::forget(first);
          },
          rest...);
    }
  } else {
    restoreEntry(names, exec, first, rest...);
  }
}

/// The execution space of the restore forms without an instance: perm's.
template <class First, class Second, bool = IsTrigger<First>::value>
struct RestoreSpace {
  using type = typename First::execution_space;
};
template <class First, class Second>
struct RestoreSpace<First, Second, true> {
  using type = typename Second::execution_space;
};
template <class T>
inline constexpr bool kRestoreFirst = IsView<T>::value || IsTrigger<T>::value;

#undef SIEVE_PLANES_ASSERT
#undef SIEVE_PLANE_ASSERT

} // namespace Impl

/// Physically reorder per-sample planes in place, asynchronously on `exec`:
/// `reorder([label,] exec, mask[, polarity], perm, inv, index_map, count,
/// trigger, scratch, planes...)`, or with the `span` and `fire` words in place
/// of the trigger.
///
/// A stable partition of the slots [0, min(span, n)), the samples `mask`
/// keeps first (n = mask.extent(0); polarity as sieve::compact). Kept slot i
/// goes to incl(i) - 1, dropped slot i to cnt + (i - incl(i)); slots at or
/// past the span never move. `perm` (slot -> sample id) moves like a plane,
/// then inv(perm(s)) = s over the moved slots; `index_map` becomes the
/// identity over [0, cnt); finally count = span = cnt and fire = 0.
///
/// `planes...` are rank-1 Views of n elements of any trivially-copyable type of
/// 1, 2, 4, 8 or 16 bytes (double, int, Kokkos::Array<float, 4>, ...), or
/// rank-2 Views of such elements with extent(0) = n (View<double* [3]>
/// positions, View<int**>; LayoutRight, LayoutLeft or LayoutStride), whose
/// rows move whole with their sample; all moved bit for bit, each aligned to
/// its element size; the mask View must be one of them (it moves with them).
/// A rank-2 plane moves as its rows when they are contiguous and of 1, 2, 4,
/// 8 or 16 bytes (View<double* [2]>), else as its columns: on Kokkos::OpenMP
/// and Cuda the native face takes the call when every row and column plane is
/// contiguous (LayoutLeft columns, such rows), the portable face otherwise
/// (e.g. the interleaved columns of a LayoutRight View<double* [3]>). The
/// scratch rule is unchanged: the widest plane is the widest row or element
/// moved (at most 16 bytes). `perm` and `inv` start as the identity (they are
/// after a restore) and must not be modified in between. With a trigger (or a
/// non-empty `fire`) the whole call is a no-op on the device while fire == 0;
/// an empty `fire` View means unconditional. `scratch`: a View of at least
/// reorder_scratch_bytes(n, widest plane) bytes; nothing is allocated.
/// O(n * planes) (a rank-2 plane moved as columns counts one per column).
/// Blocks on Kokkos::OpenMP; asynchronous elsewhere. Throws
/// std::invalid_argument for bad extents (a plane whose extent(0) is not n,
/// named), a short scratch, overlapping arrays or a mask not among the planes.
template <class ExecSpace, class MaskView, class... Args>
std::enable_if_t<Impl::kIsExec<ExecSpace>> reorder(const ExecSpace& exec, const MaskView& mask,
                                                   const Args&... args) {
  Impl::reorderEntry(Impl::Names("", "sieve::reorder"), exec, mask, args...);
}

/// sieve::reorder with a label naming its profiling region and prefixing its
/// kernel labels.
template <class ExecSpace, class MaskView, class... Args>
std::enable_if_t<Impl::kIsExec<ExecSpace>> reorder(const std::string& label, const ExecSpace& exec,
                                                   const MaskView& mask, const Args&... args) {
  Impl::reorderEntry(Impl::Names(label, "sieve::reorder"), exec, mask, args...);
}

/// sieve::reorder on a default instance of the mask's execution space; fences
/// it. Blocking.
template <class MaskView, class... Args>
std::enable_if_t<Impl::IsView<MaskView>::value> reorder(const MaskView& mask, const Args&... args) {
  const typename MaskView::execution_space exec{};
  Impl::reorderEntry(Impl::Names("", "sieve::reorder"), exec, mask, args...);
  Impl::fence(exec, "reorder: the call without an instance");
}

/// The fencing sieve::reorder with a label.
template <class MaskView, class... Args>
std::enable_if_t<Impl::IsView<MaskView>::value> reorder(const std::string& label,
                                                        const MaskView& mask, const Args&... args) {
  const typename MaskView::execution_space exec{};
  Impl::reorderEntry(Impl::Names(label, "sieve::reorder"), exec, mask, args...);
  Impl::fence(exec, "reorder: the call without an instance");
}

/// Undo every reorder since the last restore, asynchronously on `exec`:
/// `restore([label,] exec, [trigger,] perm, inv, scratch, planes...)`. Sample
/// i goes back to slot i in every plane (a gather through `inv` over all n
/// slots, n = the planes' extent), then perm = inv = identity over [0, n). The
/// index map and count are not touched. With the trigger the reorders used,
/// perm, inv and the planes must be those its reorders moved (else
/// std::invalid_argument, nothing moved), and the trigger's span is reset to n
/// and fire to 0 (asynchronously); without it, span and fire are not touched. At least one plane (a
/// compile error otherwise); `perm` / `inv` must be as the reorders left them (or the identity).
/// Scratch and planes as sieve::reorder. O(n * planes). Blocks on Kokkos::OpenMP; asynchronous
/// elsewhere. Throws std::invalid_argument as sieve::reorder.
template <class ExecSpace, class PermView, class InvView, class ScratchView, class... Planes>
std::enable_if_t<Impl::kIsExec<ExecSpace>> restore(const ExecSpace& exec, const PermView& perm,
                                                   const InvView& inv, const ScratchView& scratch,
                                                   const Planes&... planes) {
  Impl::restoreDispatch(Impl::Names("", "sieve::restore"), exec, perm, inv, scratch, planes...);
}

/// sieve::restore with a label.
template <class ExecSpace, class PermView, class InvView, class ScratchView, class... Planes>
std::enable_if_t<Impl::kIsExec<ExecSpace>> restore(const std::string& label, const ExecSpace& exec,
                                                   const PermView& perm, const InvView& inv,
                                                   const ScratchView& scratch,
                                                   const Planes&... planes) {
  Impl::restoreDispatch(Impl::Names(label, "sieve::restore"), exec, perm, inv, scratch, planes...);
}

/// sieve::restore on a default instance of perm's execution space; fences it.
template <class PermView, class InvView, class ScratchView, class... Planes>
std::enable_if_t<Impl::kRestoreFirst<PermView>> restore(const PermView& perm, const InvView& inv,
                                                        const ScratchView& scratch,
                                                        const Planes&... planes) {
  const typename Impl::RestoreSpace<PermView, InvView>::type exec{};
  Impl::restoreDispatch(Impl::Names("", "sieve::restore"), exec, perm, inv, scratch, planes...);
  Impl::fence(exec, "restore: the call without an instance");
}

/// The fencing sieve::restore with a label.
template <class PermView, class InvView, class ScratchView, class... Planes>
std::enable_if_t<Impl::kRestoreFirst<PermView>> restore(const std::string& label,
                                                        const PermView& perm, const InvView& inv,
                                                        const ScratchView& scratch,
                                                        const Planes&... planes) {
  const typename Impl::RestoreSpace<PermView, InvView>::type exec{};
  Impl::restoreDispatch(Impl::Names(label, "sieve::restore"), exec, perm, inv, scratch, planes...);
  Impl::fence(exec, "restore: the call without an instance");
}

} // namespace sieve
