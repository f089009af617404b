// SPDX-License-Identifier: Apache-2.0
// Sieve Kokkos tests — a Kokkos Tools recorder: the regions, kernel starts and
// allocations that happen while one is alive, as "region <name>", "kernel
// <name>" and "alloc <label>"; and how many reductions, deep copies and
// fences (where the Kokkos reports them: 3.6 on) began.
#pragma once

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace sieve_test {

/// Records regions, kernel starts and allocations while alive.
class ToolsLog {
 public:
  ToolsLog() {
    events().clear();
    counts() = Counts{};
    namespace X = Kokkos::Tools::Experimental;
    X::set_push_region_callback(&onRegion);
    X::set_begin_parallel_for_callback(&onFor);
    X::set_begin_parallel_scan_callback(&onScan);
    X::set_begin_parallel_reduce_callback(&onReduce);
    X::set_allocate_data_callback(&onAlloc);
    X::set_begin_deep_copy_callback(&onDeepCopy);
    X::set_begin_fence_callback(&onFence);
  }
  ~ToolsLog() {
    namespace X = Kokkos::Tools::Experimental;
    X::set_push_region_callback(nullptr);
    X::set_begin_parallel_for_callback(nullptr);
    X::set_begin_parallel_scan_callback(nullptr);
    X::set_begin_parallel_reduce_callback(nullptr);
    X::set_allocate_data_callback(nullptr);
    X::set_begin_deep_copy_callback(nullptr);
    X::set_begin_fence_callback(nullptr);
  }
  ToolsLog(const ToolsLog&) = delete;
  ToolsLog& operator=(const ToolsLog&) = delete;

  static std::vector<std::string>& events() {
    static std::vector<std::string> e;
    return e;
  }
  /// Whether an event equal to `e` was recorded.
  static bool has(const std::string& e) {
    const auto& v = events();
    return std::find(v.begin(), v.end(), e) != v.end();
  }
  /// Whether an event starting with `prefix` was recorded.
  static bool hasPrefix(const std::string& prefix) {
    for (const auto& e : events())
      if (e.rfind(prefix, 0) == 0) return true;
    return false;
  }
  /// How many allocations were recorded.
  static int allocations() {
    int c = 0;
    for (const auto& e : events()) c += e.rfind("alloc ", 0) == 0 ? 1 : 0;
    return c;
  }
  /// Reductions, deep copies and fences begun (the ways a call reads back or
  /// waits; fences only where the Kokkos reports them).
  static int reductions() { return counts().reductions; }
  static int deepCopies() { return counts().deepCopies; }
  static int fences() { return counts().fences; }
  static std::string dump() {
    std::string s;
    for (const auto& e : events()) s += "  " + e + "\n";
    return s;
  }

 private:
  struct Counts {
    int reductions = 0, deepCopies = 0, fences = 0;
  };
  static Counts& counts() {
    static Counts c;
    return c;
  }
  static void onRegion(const char* name) { events().push_back(std::string("region ") + name); }
  static void onFor(const char* name, std::uint32_t, std::uint64_t* id) {
    events().push_back(std::string("kernel ") + name);
    *id = 0;
  }
  static void onScan(const char* name, std::uint32_t d, std::uint64_t* id) { onFor(name, d, id); }
  static void onReduce(const char* name, std::uint32_t d, std::uint64_t* id) {
    ++counts().reductions;
    onFor(name, d, id);
  }
  static void onDeepCopy(Kokkos::Profiling::SpaceHandle, const char*, const void*,
                         Kokkos::Profiling::SpaceHandle, const char*, const void*, std::uint64_t) {
    ++counts().deepCopies;
  }
  static void onFence(const char*, std::uint32_t, std::uint64_t* id) {
    ++counts().fences;
    *id = 0;
  }
  static void onAlloc(Kokkos::Profiling::SpaceHandle, const char* label, const void*,
                      std::uint64_t) {
    events().push_back(std::string("alloc ") + label);
  }
};

} // namespace sieve_test
