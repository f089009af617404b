// SPDX-License-Identifier: Apache-2.0
// Sieve tests — the CUDA emulator's pool of OS threads (see
// include/sieve_cuda_emulator.hpp): the blocks of a launch run at once on
// SIEVE_EMU_WORKERS threads (default 4, the caller included), each on its
// thread's fiber scheduler (emu_fibers.cpp). The k-th block to start is
// block k (index order) or the launch's permutation of k (random order): a
// thread takes the next k when its block has ended, so every started block
// holds a thread until it ends (CUDA's one promise about blocks: one that
// has started runs on).
#include "emu_internal.hpp"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <vector>

namespace sieve_emu {
namespace {

void work(Job& j) {
  for (;;) {
    const std::uint64_t k = j.next.fetch_add(1);
    if (k >= j.blocks) return;
    const std::uint64_t b = j.how.ordered ? k : j.order(k);
    std::uint64_t s = j.seed ^ (b * 0xD1B54A32D192ED03ull); // the block's, whenever it starts
    runBlock(j, b, splitmix(s));
    j.finished.fetch_add(1);
  }
}

class Pool {
 public:
  Pool() {
    long workers = 4;
    if (const char* w = std::getenv("SIEVE_EMU_WORKERS")) workers = std::strtol(w, nullptr, 10);
    workers = workers < 1 ? 1 : workers > 64 ? 64 : workers;
    for (long k = 1; k < workers; ++k) threads_.emplace_back([this] { loop(); });
  }
  ~Pool() {
    {
      std::lock_guard<std::mutex> lk(m_);
      stop_ = true;
    }
    cv_.notify_all();
    for (auto& t : threads_) t.join();
  }
  void run(Job& j) {
    if (j.blocks == 1 || threads_.empty()) {
      work(j);
      return;
    }
    {
      std::lock_guard<std::mutex> lk(m_);
      job_ = &j;
      ++generation_;
      busy_ = static_cast<unsigned>(threads_.size());
    }
    cv_.notify_all();
    work(j);
    std::unique_lock<std::mutex> lk(m_);
    done_.wait(lk, [&] { return busy_ == 0; });
    job_ = nullptr;
  }

 private:
  void loop() {
    std::uint64_t seen = 0;
    for (;;) {
      Job* j = nullptr;
      {
        std::unique_lock<std::mutex> lk(m_);
        cv_.wait(lk, [&] { return stop_ || generation_ != seen; });
        if (stop_) return;
        seen = generation_;
        j = job_;
      }
      work(*j);
      std::lock_guard<std::mutex> lk(m_);
      if (--busy_ == 0) done_.notify_all();
    }
  }
  std::mutex m_;
  std::condition_variable cv_, done_;
  std::vector<std::thread> threads_;
  Job* job_ = nullptr;
  std::uint64_t generation_ = 0;
  unsigned busy_ = 0;
  bool stop_ = false;
};

Pool& pool() {
  static Pool p;
  return p;
}

} // namespace

void runOnPool(Job& j) { pool().run(j); }

} // namespace sieve_emu
