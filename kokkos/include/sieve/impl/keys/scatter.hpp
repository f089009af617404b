// SPDX-License-Identifier: Apache-2.0
// Sieve (internal) — the keys' scatters: scatter_dense and sort_permutation
// (dense.hpp), scatter_sparse and count_elements (sparse.hpp, its paths in
// sparse/). Each call chooses its path once (core/keys_plan.hpp).
#pragma once

#include <sieve/impl/keys/dense.hpp>
#include <sieve/impl/keys/sparse.hpp>
