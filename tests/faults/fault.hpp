// SPDX-License-Identifier: Apache-2.0
// Sieve fault tests — the harness: arm Sieve's allocation point
// (core/fault.hpp) so that the k-th allocation of one call throws
// std::bad_alloc, for every k the call reaches, and compare what the caller
// sees before and after the failed call. This binary also replaces the
// global operator new, so every heap allocation on the calling thread (the
// native twins' host buffers, std::vector, Kokkos' own records and labels)
// is an allocation point too.
#pragma once

#include <sieve/core/fault.hpp>

#include <gtest/gtest.h>
#include <Kokkos_Core.hpp>

#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace sieve_fault {

/// Whether every heap allocation (this binary's operator new) is an
/// allocation point, or only Sieve's own buffers (its Views, the native
/// twins' host buffers: the allocations that grow with the problem).
inline bool& everyAllocation() {
  static bool every = false;
  return every;
}

/// Arms the allocation point on the calling thread: the allocation after
/// `k` others throws (k = -1: none throws, the allocations are counted).
class Armed {
 public:
  explicit Armed(std::int64_t k) {
    auto& f = sieve::Impl::faultInjection();
    f.seen.store(0);
    f.countdown.store(k < 0 ? std::numeric_limits<std::int64_t>::max() : k);
    f.thread.store(sieve::Impl::faultThreadId());
    f.armed.store(true);
  }
  ~Armed() { sieve::Impl::faultInjection().armed.store(false); }
  Armed(const Armed&) = delete;
  Armed& operator=(const Armed&) = delete;
  std::int64_t seen() const { return sieve::Impl::faultInjection().seen.load(); }
};

/// What a caller can see, part by part: the bytes of Views, and any value
/// turned into bytes.
class Snapshot {
 public:
  template <class V>
  Snapshot& view(const std::string& name, const V& v) {
    static_assert(Kokkos::is_view<V>::value, "Snapshot::view: a Kokkos::View");
    Kokkos::fence();
    std::vector<unsigned char> b;
    if (v.data() != nullptr) {
      using T = typename V::non_const_value_type;
      static_assert(std::is_trivially_copyable_v<T>, "Snapshot::view: trivially copyable elements");
      static_assert(V::rank <= 2, "Snapshot::view: rank 0 to 2");
      auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
      auto put = [&](const T& x) {
        const auto* p = reinterpret_cast<const unsigned char*>(&x);
        b.insert(b.end(), p, p + sizeof(T));
      };
      if constexpr (V::rank == 0) {
        put(h());
      } else if constexpr (V::rank == 1) {
        for (std::size_t i = 0; i < h.extent(0); ++i) put(h(i));
      } else {
        for (std::size_t i = 0; i < h.extent(0); ++i)
          for (std::size_t j = 0; j < h.extent(1); ++j) put(h(i, j));
      }
    }
    parts_[name] = std::move(b);
    return *this;
  }
  Snapshot& value(const std::string& name, std::int64_t x) {
    std::vector<unsigned char> b(sizeof x);
    std::memcpy(b.data(), &x, sizeof x);
    parts_[name] = std::move(b);
    return *this;
  }
  /// The parts that differ from `other` (one name each), `except` left out.
  std::vector<std::string> changed(const Snapshot& other,
                                   const std::set<std::string>& except = {}) const {
    std::vector<std::string> out;
    for (const auto& [name, bytes] : parts_) {
      if (except.count(name)) continue;
      const auto it = other.parts_.find(name);
      if (it == other.parts_.end() || it->second != bytes) out.push_back(name);
    }
    for (const auto& [name, bytes] : other.parts_)
      if (!except.count(name) && !parts_.count(name)) out.push_back(name);
    return out;
  }

 private:
  std::map<std::string, std::vector<unsigned char>> parts_;
};

inline std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

/// How many allocations each call was failed at, per mode (printed at the
/// end of the run).
inline std::map<std::string, std::pair<std::int64_t, std::int64_t>>& tally() {
  static std::map<std::string, std::pair<std::int64_t, std::int64_t>> t;
  return t;
}

/// A call under test on a fresh world W: make() builds it, call(w) runs the
/// public call (and fences), see(w) is everything its caller can observe.
/// `outputs` names the parts of see(w) that a failed call may leave changed
/// (what its doc comment calls its outputs); every other part must be as
/// before. `every`: the parts that may also change when any heap allocation
/// fails, not only a buffer of Sieve's (a Kokkos label between two kernels).
template <class W>
struct Case {
  std::string name;
  std::function<W()> make;
  std::function<void(W&)> call;
  std::function<Snapshot(W&)> see;
  std::set<std::string> outputs = {};
  std::set<std::string> every = {};
};

/// Fails each allocation of the call in turn, first each of Sieve's own
/// buffers, then each heap allocation. After each failure: the call threw
/// std::bad_alloc (never another exception, never nothing); what the caller
/// sees is as before, but the parts the case allows; the same call on the
/// same world then succeeds and leaves exactly what a call that never failed
/// leaves.
template <class W>
void failEachAllocation(const Case<W>& c) {
  SCOPED_TRACE(c.name);
  for (const bool every : {false, true}) {
    SCOPED_TRACE(every ? "every heap allocation" : "Sieve's buffers");
    everyAllocation() = every;
    std::set<std::string> may = c.outputs;
    if (every) may.insert(c.every.begin(), c.every.end());
    W golden = c.make();
    std::int64_t points = 0;
    {
      Armed counting(-1);
      c.call(golden);
      points = counting.seen();
    }
    const Snapshot want = c.see(golden);
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    const std::string key =
        c.name + (info->type_param() ? std::string(" [") + info->type_param() + "]" : "");
    (every ? tally()[key].second : tally()[key].first) = points;
    const auto* result = info->result();
    for (std::int64_t k = 0; k < points; ++k) {
      const int partsBefore = result->total_part_count();
      W w = c.make();
      const Snapshot before = c.see(w);
      std::string what = "nothing";
      {
        Armed fail(k);
        try {
          c.call(w);
        } catch (const std::bad_alloc&) {
          what = "bad_alloc";
        } catch (const std::exception& e) {
          what = std::string("another exception: ") + e.what();
        }
      }
      Kokkos::fence();
      EXPECT_EQ(what, "bad_alloc") << "allocation " << k << " of " << points;
      const auto changed = c.see(w).changed(before, may);
      EXPECT_TRUE(changed.empty()) << "allocation " << k << " of " << points
                                   << " failed, and these changed: " << joined(changed);
      try {
        c.call(w);
        const auto wrong = c.see(w).changed(want);
        EXPECT_TRUE(wrong.empty()) << "after allocation " << k << " of " << points
                                   << " failed, the next call left wrong: " << joined(wrong);
      } catch (const std::exception& e) {
        ADD_FAILURE() << "after allocation " << k << " of " << points
                      << " failed, the next call threw: " << e.what();
      }
      // One failing k tells it; the later ones mostly repeat it.
      if (result->total_part_count() > partsBefore) break;
    }
  }
  everyAllocation() = false;
}

} // namespace sieve_fault
