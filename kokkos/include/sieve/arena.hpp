// SPDX-License-Identifier: Apache-2.0
// Sieve — sieve::ScratchArena: named scratch slots reserved in a first phase
// and backed, at commit, by ONE allocation sized to the peak of the slots
// live at the same time, not their sum.
//
//   sieve::ScratchArena<Mem> arena("step");
//   int a = arena.reserve("compact 1", bytes, /*first=*/0, /*last=*/0);
//   int b = arena.reserve("compact 2", bytes, 1, 1);   // never live with a: shares its bytes
//   arena.commit();                                   // one allocation
//   auto sa = arena.slot(a);                          // a View of its bytes
#pragma once

#include <sieve/impl/common.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace sieve {

/// Scratch slots with lifetimes, committed to one allocation in
/// `MemorySpace`. A slot's lifetime is a closed range of steps [first, last]
/// (a graph's node indices, for instance); two slots whose ranges intersect
/// never share a byte, others may. Placement: widest slot first, each at the
/// lowest offset clear of the slots placed before whose lifetimes it meets,
/// every slot aligned to 128 bytes (in memory, not only in the allocation); for slots that are
/// never live together (a chain of nodes, each using its scratch only while it runs) the allocation
/// is the widest slot. Copies are handles to the same arena.
template <class MemorySpace = Kokkos::DefaultExecutionSpace::memory_space>
class ScratchArena {
 public:
  using memory_space = MemorySpace;
  using view = Kokkos::View<unsigned char*, MemorySpace>;
  static constexpr std::size_t alignment = 128;

  /// An empty arena; `label` names its allocation ("sieve::<label>::arena").
  explicit ScratchArena(const std::string& label = "arena") : s_(std::make_shared<State>()) {
    s_->label = label;
  }

  /// Phase 1: reserve `bytes` live over steps [first, last]; returns the
  /// slot's id. O(1). Throws std::invalid_argument after commit() or for
  /// first > last or a negative step.
  int reserve(const std::string& name, std::size_t bytes, int first, int last) {
    constexpr const char* fn = "sieve::ScratchArena::reserve";
    if (s_->committed) Impl::fail(fn, "the arena is committed; reserve every slot before commit()");
    if (first < 0 || last < first)
      Impl::fail(fn, "slot '" + name + "': steps [" + std::to_string(first) + ", " +
                         std::to_string(last) + "] must satisfy 0 <= first <= last");
    s_->slots.push_back(Slot{name, roundUp(bytes), first, last, 0});
    return static_cast<int>(s_->slots.size()) - 1;
  }

  /// Phase 2: place the slots and make the one allocation. Blocks only in
  /// Kokkos' allocation. Throws std::invalid_argument when called twice.
  void commit() {
    if (s_->committed) Impl::fail("sieve::ScratchArena::commit", "the arena is committed already");
    std::vector<std::size_t> order(s_->slots.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return s_->slots[a].bytes > s_->slots[b].bytes;
    });
    std::vector<std::size_t> placed;
    std::size_t total = 0;
    for (const std::size_t i : order) {
      Slot& s = s_->slots[i];
      std::vector<std::pair<std::size_t, std::size_t>> busy; // [offset, end) of slots live with s
      for (const std::size_t j : placed) {
        const Slot& o = s_->slots[j];
        if (o.first <= s.last && s.first <= o.last) busy.emplace_back(o.offset, o.offset + o.bytes);
      }
      std::sort(busy.begin(), busy.end());
      std::size_t at = 0;
      for (const auto& b : busy) {
        if (at + s.bytes <= b.first) break; // fits before this one
        at = std::max(at, b.second);
      }
      s.offset = at;
      total = std::max(total, at + s.bytes);
      placed.push_back(i);
    }
    // Kokkos aligns an allocation to 64 bytes: take `alignment` more and start
    // the slots at the first multiple of it.
    s_->data = Impl::allocate<view>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "sieve::" + s_->label + "::arena"),
        total + alignment);
    const auto at = reinterpret_cast<std::uintptr_t>(s_->data.data());
    s_->base = static_cast<std::size_t>((alignment - at % alignment) % alignment);
    s_->total = total;
    s_->committed = true;
  }

  bool committed() const { return s_->committed; }

  /// The bytes of slot `id` (after commit). O(1). Throws
  /// std::invalid_argument before commit or for an unknown id.
  view slot(int id) const {
    constexpr const char* fn = "sieve::ScratchArena::slot";
    if (!s_->committed) Impl::fail(fn, "commit() the arena before asking for its slots");
    if (id < 0 || id >= static_cast<int>(s_->slots.size()))
      Impl::fail(fn, "no slot " + std::to_string(id));
    const Slot& s = s_->slots[id];
    return Kokkos::subview(s_->data,
                           std::make_pair(s_->base + s.offset, s_->base + s.offset + s.bytes));
  }

  /// The bytes the slots take in the committed allocation (0 before
  /// commit; the allocation holds `alignment` more, for the alignment).
  std::size_t bytes() const { return s_->committed ? s_->total : 0; }
  /// The most bytes live at one step: the least any placement needs.
  std::size_t peak_bytes() const {
    std::size_t peak = 0;
    for (const Slot& s : s_->slots) {
      std::size_t live = 0;
      for (const Slot& o : s_->slots)
        if (o.first <= s.first && s.first <= o.last) live += o.bytes;
      peak = std::max(peak, live);
    }
    return peak;
  }
  /// Every slot's bytes added up: what separate allocations would take.
  std::size_t sum_bytes() const {
    std::size_t sum = 0;
    for (const Slot& s : s_->slots) sum += s.bytes;
    return sum;
  }
  std::size_t slots() const { return s_->slots.size(); }

 private:
  struct Slot {
    std::string name;
    std::size_t bytes;
    int first, last;
    std::size_t offset;
  };
  struct State {
    std::string label;
    std::vector<Slot> slots;
    view data;
    std::size_t base = 0, total = 0; // where the slots start in data, their extent
    bool committed = false;
  };
  std::shared_ptr<State> s_;

  static std::size_t roundUp(std::size_t b) {
    return (std::max<std::size_t>(b, 1) + alignment - 1) / alignment * alignment;
  }
};

} // namespace sieve
