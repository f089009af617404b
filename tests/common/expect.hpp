// SPDX-License-Identifier: Apache-2.0
// Sieve tests — rejection checks: the call throws std::invalid_argument and
// the message names what was wrong.
#pragma once

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace sieve_test {

template <class F>
void expectInvalid(F&& f, const std::string& needle) {
  try {
    f();
    ADD_FAILURE() << "no std::invalid_argument, expected one mentioning: " << needle;
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

} // namespace sieve_test
