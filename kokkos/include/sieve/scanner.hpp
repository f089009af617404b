// SPDX-License-Identifier: Apache-2.0
// Sieve — sieve::Scanner: a prefix scan that owns its buffers (inputs,
// results, block sums, total; host mirrors of the inputs and results).
//
//   sieve::Scanner<int> scan("offsets", n);          // inclusive sum
//   fill(scan.host_inputs()); scan.upload(exec);
//   scan.run(exec);                                   // asynchronous, allocation-free
//   int total = scan.total(exec);                     // fences, reads the total
//   scan.download(exec);                              // results -> host_results()
#pragma once

#include <sieve/scan.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>

namespace sieve {

/// A prefix scan of `n` values of T with `Op` (sieve::Sum, Min, Max, or any
/// operator sieve::inclusive_scan takes), inclusive or exclusive (then from
/// `init`, by default Op's identity), on `ExecSpace`, owning its buffers.
/// Copies are handles to the same buffers; clone() deep-copies.
template <class T, class Op = Sum, bool Inclusive = true,
          class ExecSpace = Kokkos::DefaultExecutionSpace>
class Scanner {
 public:
  using execution_space = ExecSpace;
  using memory_space = typename ExecSpace::memory_space;
  using view = Kokkos::View<T*, memory_space>;
  using host_view = decltype(Kokkos::create_mirror_view(std::declval<view>()));

  /// Allocates inputs and results (zero), their host mirrors, the block
  /// sums and the total. Throws std::invalid_argument for n outside [0,
  /// INT32_MAX].
  Scanner(const std::string& label, std::int64_t n, Op op = {}, T init = Op::template identity<T>())
      : s_(std::make_shared<State>()) {
    Impl::checkSamples("sieve::Scanner", n);
    State& s = *s_;
    const std::string pre = "sieve::" + label + "::";
    s.label = label;
    s.op = op;
    s.init = init;
    s.in = Impl::allocate<view>(pre + "inputs", n);
    s.out = Impl::allocate<view>(pre + "results", n);
    s.sums = Impl::allocate<view>(pre + "block_sums", scan_scratch_size<T>(n));
    s.total = Impl::allocate<Kokkos::View<T, memory_space>>(pre + "total");
    s.hin = Impl::hostMirror(s.in);
    s.hout = Impl::hostMirror(s.out);
  }

  std::int64_t size() const { return static_cast<std::int64_t>(s_->in.extent(0)); }
  /// The device inputs and results; the host mirrors (the same Views on host spaces).
  view inputs() const { return s_->in; }
  view results() const { return s_->out; }
  host_view host_inputs() const { return s_->hin; }
  host_view host_results() const { return s_->hout; }

  /// host_inputs() -> inputs(), asynchronous on `exec`.
  void upload(const ExecSpace& exec) const { Kokkos::deep_copy(exec, s_->in, s_->hin); }
  /// results() -> host_results(), asynchronous on `exec` (fence before reading).
  void download(const ExecSpace& exec) const { Kokkos::deep_copy(exec, s_->hout, s_->out); }

  /// Scan inputs() into results() and the total: asynchronous on `exec`
  /// (blocks on Kokkos::OpenMP), allocation-free, capture-safe on Cuda. O(n).
  void run(const ExecSpace& exec) const {
    const State& s = *s_;
    if constexpr (Inclusive)
      sieve::inclusive_scan(s.label, exec, s.in, s.out, s.op, s.init, s.sums, s.total);
    else sieve::exclusive_scan(s.label, exec, s.in, s.out, s.init, s.op, s.sums, s.total);
  }

  /// The total of the last run (the reduction of every input, from init).
  /// Blocking: fences `exec`.
  T total(const ExecSpace& exec) const {
    T t{};
    Kokkos::deep_copy(exec, t, s_->total);
    exec.fence();
    return t;
  }

  /// A deep copy (inputs, results and their mirrors, the total), on `exec`, fenced.
  Scanner clone(const ExecSpace& exec) const {
    Scanner c(s_->label, size(), s_->op, s_->init);
    Kokkos::deep_copy(exec, c.s_->in, s_->in);
    Kokkos::deep_copy(exec, c.s_->out, s_->out);
    Kokkos::deep_copy(exec, c.s_->total, s_->total);
    Kokkos::deep_copy(exec, c.s_->hin, s_->hin);
    Kokkos::deep_copy(exec, c.s_->hout, s_->hout);
    exec.fence();
    return c;
  }

 private:
  struct State {
    std::string label;
    Op op;
    T init;
    view in, out, sums;
    Kokkos::View<T, memory_space> total;
    host_view hin, hout;
  };
  std::shared_ptr<State> s_;
};

} // namespace sieve
