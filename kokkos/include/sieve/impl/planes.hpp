// SPDX-License-Identifier: Apache-2.0
// Sieve (internal) — the planes a reorder or restore moves, as the faces see
// them: each caller's plane expanded into "word planes" (PlaneSet, with what
// the run-time checks need), and a trigger's record of the plane set its
// reorders moved (Record).
#pragma once

#include <sieve/impl/common.hpp>
#include <sieve/impl/trigger.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

namespace sieve {
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

/// The trigger's record of what its reorders moved (trigger.hpp): `check`
/// throws when perm, inv, n or the plane set (in any order) differ from what
/// the reorders through it moved since its last restore; `remember` records
/// them (made by `pending` before the reorder); `forget` (a restore) clears the record. Empty batches are not
/// recorded (their Views have no address).
struct Record {
  template <class Trig, class Perm, class Inv, class... Planes>
  static void check(const char* fn, const Trig& t, std::int64_t n, const Perm& perm, const Inv& inv,
                    const Planes&... planes) {
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
  /// What a reorder will record, made before it moves anything (the
  /// record's one allocation): remember() then cannot fail after the move.
  struct Pending {
    std::int64_t n = 0;
    const void* perm = nullptr;
    const void* inv = nullptr;
    std::vector<PlaneRecord::Plane> planes;
  };
  template <class Perm, class Inv, class... Planes>
  static Pending pending(std::int64_t n, const Perm& perm, const Inv& inv, const Planes&... planes) {
    return Pending{n, perm.data(), inv.data(), list(planes...)};
  }
  template <class Trig>
  static void remember(const Trig& t, Pending&& p) noexcept {
    if (!t.record || p.n == 0) return;
    PlaneRecord& r = *t.record;
    const std::lock_guard<std::mutex> lock(r.m);
    r.planes = std::move(p.planes);
    r.set = true;
    r.n = p.n;
    r.perm = p.perm;
    r.inv = p.inv;
  }
  template <class Trig>
  static void forget(const Trig& t) {
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

} // namespace Impl
} // namespace sieve
