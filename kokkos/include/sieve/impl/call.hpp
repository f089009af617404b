// SPDX-License-Identifier: Apache-2.0
// Sieve (internal) — what every public call does around its work: it claims
// its outputs and scratch for its lifetime (CallClaims), opens one profiling
// region (CallRegion, the only region type), and on a native face shows its
// work to Kokkos Tools as one kernel (NativeKernel). `dispatch` (impl/faces.hpp)
// puts them in order for the primitives with faces: compile-time checks →
// run-time checks → claims → region → the face's kernels.
#pragma once

#include <sieve/impl/common.hpp>
#include <sieve/impl/faces/table.hpp>

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <mutex>
#include <string>
#include <vector>

namespace sieve {
namespace Impl {

/// The outputs (and scratch) of the Sieve calls running right now, process
/// wide. Two calls that write the same output or share a scratch at the same
/// time race and corrupt both (every thread of an OpenMP parallel region
/// calling sieve::compact on the same Views is the usual way to get there);
/// a call whose Views are in use by another one throws instead. Two calls that
/// merely follow each other are fine, so a call made from `omp single` /
/// `omp master`, or from every thread on its own Views, is never refused.
/// One array a call claims: its address and the argument's name.
struct Claim {
  const void* ptr;
  const char* name;
};

class CallClaims {
 public:
  /// Claims the arrays (null addresses ignored) for the caller's lifetime, or
  /// throws std::invalid_argument naming the first one in use.
  CallClaims(const char* fn, std::initializer_list<Claim> claims) {
    std::lock_guard<std::mutex> lock(registry().m);
    auto& live = registry().live;
    for (const Claim& c : claims) {
      const void* p = c.ptr;
      const char* what = c.name;
      if (p == nullptr) continue;
      if (std::find(live.begin(), live.end(), p) != live.end()) {
        release(live);
        fail(fn, std::string(what) +
                     " is in use by another Sieve call running at the same time (every thread of "
                     "an OpenMP parallel region calling it?): concurrent calls must not share "
                     "outputs or scratch; call it once (omp single / master) or give each "
                     "concurrent call its own Views");
      }
      if (count_ == kMax) break;
      live.push_back(p);
      mine_[count_++] = p;
    }
  }
  ~CallClaims() {
    std::lock_guard<std::mutex> lock(registry().m);
    release(registry().live);
  }
  CallClaims(const CallClaims&) = delete;
  CallClaims& operator=(const CallClaims&) = delete;

 private:
  struct Registry {
    std::mutex m;
    std::vector<const void*> live;
  };
  static Registry& registry() {
    static Registry r;
    return r;
  }
  void release(std::vector<const void*>& live) {
    for (std::size_t k = 0; k < count_; ++k) {
      const auto it = std::find(live.begin(), live.end(), mine_[k]);
      if (it != live.end()) live.erase(it);
    }
    count_ = 0;
  }
  static constexpr std::size_t kMax = 4;
  const void* mine_[kMax] = {};
  std::size_t count_ = 0;
};

/// The profiling region of one public call: "<prefix>[<face>]" for a call
/// that runs on one face, the name itself for a call made of other calls
/// (Graph replays, the MPI calls). The only region type of the library.
class CallRegion {
 public:
  CallRegion(const Names& names, Face f) : CallRegion(names.prefix + "[" + faceName(f) + "]") {}
  /// A call that chose one of its paths (keys): "<prefix>[<face>:<path>]".
  CallRegion(const Names& names, Face f, const char* path)
      : CallRegion(names.prefix + "[" + faceName(f) + ":" + path + "]") {}
  explicit CallRegion(const std::string& name) { Kokkos::Profiling::pushRegion(name); }
  ~CallRegion() { Kokkos::Profiling::popRegion(); }
  CallRegion(const CallRegion&) = delete;
  CallRegion& operator=(const CallRegion&) = delete;
};

/// The native faces run no Kokkos kernel: each of their calls is shown to
/// Kokkos Tools as one kernel "<prefix>[<face>]" (a parallel_for event on the
/// instance's device id), so they appear in timelines and kernel timers like
/// the portable kernels. Free when no tool is loaded.
template <class Exec>
class NativeKernel {
 public:
  NativeKernel(const Exec& exec, const Names& names, Face f) {
    if (Kokkos::Tools::profileLibraryLoaded()) {
      active_ = true;
      Kokkos::Tools::beginParallelFor(names.prefix + "[" + faceName(f) + "]",
                                      Kokkos::Tools::Experimental::device_id(exec), &id_);
    }
  }
  ~NativeKernel() {
    if (active_) Kokkos::Tools::endParallelFor(id_);
  }
  NativeKernel(const NativeKernel&) = delete;
  NativeKernel& operator=(const NativeKernel&) = delete;

 private:
  bool active_ = false;
  std::uint64_t id_ = 0;
};

} // namespace Impl
} // namespace sieve
