// SPDX-License-Identifier: Apache-2.0
// Sieve — portable filtering primitives for Kokkos codes (umbrella header).
//
//   sieve::inclusive_scan / exclusive_scan (+ scan_scratch_size)
//                                             prefix scans
//   sieve::compact (+ compact_scratch_bytes)  stream compaction to an index map
//   sieve::Trigger                            the locality trigger
//   sieve::reorder / restore (+ reorder_scratch_bytes)
//                                             physical reorder of SoA planes
//   sieve::Population, sieve::planes          the filtering state, owned (compact /
//                                             reorder / restore without the bookkeeping)
//   sieve::Graph, sieve::ScratchArena         a step built once, launched many times;
//                                             scratch sized to the peak of its nodes
//   sieve::Scanner                            a scan owning its buffers and host mirrors
//   sieve::findall (+ FindallWorkspace)       compaction to indices or values, any rank
//   sieve::keys::scatter_dense / scatter_sparse / reduce / group / compact
//                                             scatter by key, then per-key work
//   sieve::keys::DenseKeys / SparseKeys / ReducedKeys / Grouping (+ DenseWorkspace)
//                                             their results (<sieve/keys_results.hpp>)
//   sieve::keys::permute / unpermute (+ permute_scratch_bytes)
//                                             apply a permutation to planes in place
//   sieve::set_debug_checks                   costly validations on (perm / inv)
//   sieve::reserve                            Kokkos' lazily allocated buffers, at setup
//
// Not included here (it needs MPI): <sieve/mpi.hpp>, the distributed face
// (sieve::mpi::compact / findall / rebalance; CMake target Sieve::mpi).
//
// Every entry point takes an optional label (naming its Kokkos Tools region
// and prefixing its kernel and allocation labels), then an execution-space
// instance, and is asynchronous on it; the overload without an instance runs
// on a default instance, fences, and returns the count or the scan total.
// Kokkos::OpenMP runs the OpenMP twins, Kokkos::Cuda the native CUDA kernels,
// every other space a portable Kokkos implementation (impl/faces.hpp is the
// one dispatch point); integer results are bit-identical on all of them.
#pragma once

#include <sieve/config.hpp>

#include <sieve/arena.hpp>
#include <sieve/compact.hpp>
#include <sieve/debug.hpp>
#include <sieve/findall.hpp>
#include <sieve/graph.hpp>
#include <sieve/keys.hpp>
#include <sieve/keys_results.hpp>
#include <sieve/permute.hpp>
#include <sieve/population.hpp>
#include <sieve/reorder.hpp>
#include <sieve/reserve.hpp>
#include <sieve/scan.hpp>
#include <sieve/scanner.hpp>
#include <sieve/trigger.hpp>
