// Sieve host tests — the configurations every host case runs under: thread
// counts 1, 2 and 4, and every instruction set this CPU supports.
#pragma once

#include <sieve/native/host/isa.hpp>
#include <sieve/native/host/team.hpp>

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace sieve_test {

struct HostConfig {
  int threads;
  sieve::HostIsa isa;
  std::string label() const {
    return std::string(sieve::hostIsaName(isa)) + "/t" + std::to_string(threads);
  }
};

inline std::vector<HostConfig> hostConfigs() {
  std::vector<HostConfig> out;
  for (auto isa : {sieve::HostIsa::Portable, sieve::HostIsa::Avx2, sieve::HostIsa::Avx512})
    if (sieve::hostIsaSupported(isa))
      for (int t : {1, 2, 4}) out.push_back({t, isa});
  return out;
}

/// Runs `f(config)` under every configuration, restoring the ISA afterwards.
template <class F>
void forEachHostConfig(F&& f) {
  const auto saved = sieve::hostIsa();
  for (const auto& c : hostConfigs()) {
    ASSERT_TRUE(sieve::setHostIsa(c.isa));
    SCOPED_TRACE(c.label());
    f(c);
    if (::testing::Test::HasFatalFailure()) break;
  }
  sieve::setHostIsa(saved);
}

/// Runs `f(config)` at 1, 2 and 4 threads, for twins whose loops do not depend
/// on the instruction set (reorder, restore).
template <class F>
void forEachThreadCount(F&& f) {
  for (int t : {1, 2, 4}) {
    const HostConfig c{t, sieve::hostIsa()};
    SCOPED_TRACE(c.label());
    f(c);
    if (::testing::Test::HasFatalFailure()) break;
  }
}

} // namespace sieve_test
