// SPDX-License-Identifier: Apache-2.0
// Sieve compile-fail tests — each SIEVE_CASE is a misuse of the public API
// that must not compile, and whose FIRST compiler error must be Sieve's
// static_assert naming the argument and the rule (first_error.cmake checks).
#include <sieve/sieve.hpp>

void misuse() {
  using Exec = Kokkos::DefaultHostExecutionSpace;
  Kokkos::View<std::uint8_t*> mask("mask", 1);
  Kokkos::View<double*> x("x", 1);
  Kokkos::View<std::int32_t*> map("map", 1), perm("perm", 1), inv("inv", 1);
  Kokkos::View<std::uint32_t> count("count");
  Kokkos::View<unsigned char*> scratch("scratch", 1);
  Kokkos::View<int*> a("a", 1);
  Exec exec;
  (void)exec;
#if SIEVE_CASE == 1 // the init of an inclusive scan before its operator
  sieve::inclusive_scan(exec, a, a, 0);
#elif SIEVE_CASE == 2  // the old order: operator before init
  sieve::exclusive_scan(exec, a, a, sieve::Max{}, -1);
#elif SIEVE_CASE == 3  // the native layer's flag word instead of a MaskPolarity
  sieve::compact(exec, mask, 0u, map, count, scratch);
#elif SIEVE_CASE == 4  // a const plane (plane 2)
  float buffer[1] = {0.0f};
  Kokkos::View<const float*, Kokkos::MemoryTraits<Kokkos::Unmanaged>> constPlane(buffer, 1);
  sieve::reorder(exec, mask, perm, inv, map, count, count, count, scratch, mask, x, constPlane);
#elif SIEVE_CASE == 5  // restore without planes would lose the permutation
  sieve::restore(exec, perm, inv, scratch);
#elif SIEVE_CASE == 6  // a mask of doubles
  sieve::compact(exec, x, map, count, scratch);
#elif SIEVE_CASE == 7  // an index map of the wrong type
  Kokkos::View<std::int64_t*> map64("map64", 1);
  sieve::compact(exec, mask, map64, count, scratch);
#elif SIEVE_CASE == 8  // spawn slots of the wrong type
  sieve::Population<Exec> pop("p", exec, 1);
  Kokkos::View<std::int64_t*> slots64("slots64", 1);
  pop.spawn(exec, 1, slots64);
#elif SIEVE_CASE == 9  // a Population's mask of doubles
  sieve::Population<Exec> pop("p", exec, 1);
  pop.compact(exec, x);
#elif SIEVE_CASE == 10 // a const plane in a Population's plane set
  float buffer[1] = {0.0f};
  Kokkos::View<const float*, Kokkos::MemoryTraits<Kokkos::Unmanaged>> constPlane(buffer, 1);
  sieve::Population<Exec> pop("p", exec, 1);
  pop.reorder(exec, sieve::planes(mask, x, constPlane));
#elif SIEVE_CASE == 11 // a Graph's compaction of a mask of doubles
  sieve::Population<Exec> pop("p", exec, 1);
  sieve::Graph<Exec> g;
  g.compact(pop, x);
#elif SIEVE_CASE == 12 // a Graph's restore of a plane set with a const plane
  float buffer[1] = {0.0f};
  Kokkos::View<const float*, Kokkos::MemoryTraits<Kokkos::Unmanaged>> constPlane(buffer, 1);
  sieve::Population<Exec> pop("p", exec, 1);
  sieve::Graph<Exec> g;
  g.restore(pop, sieve::planes(mask, constPlane));
#elif SIEVE_CASE == 13 // findall's index form with a predicate of an element, not an index
  sieve::findall(
      exec, 10, KOKKOS_LAMBDA(const Kokkos::Array<int, 2>& e) { return e[0] > 0; });
#elif SIEVE_CASE == 14 // sort_permutation by a key that is not an integer
  Kokkos::View<std::int64_t*> order("order", 1);
  sieve::keys::sort_permutation(
      exec, 1, KOKKOS_LAMBDA(const std::int64_t i) { return x(i); }, 0, 1, order);
#elif SIEVE_CASE == 15 // sort_permutation into a perm of doubles
  sieve::keys::sort_permutation(
      exec, 1, KOKKOS_LAMBDA(const std::int64_t i) { return int(i); }, 0, 1, x);
#elif SIEVE_CASE == 16 // reduce_by_key with a value where the operator goes
  Kokkos::View<int*> out("out", 1);
  const auto keys = sieve::keys::scatter_dense(exec, a, 0, 1, out);
  sieve::keys::reduce_by_key(exec, keys, x, 0.0, 5, x);
#elif SIEVE_CASE == 17 // permute of a rank-3 plane
  Kokkos::View<double***> cube("cube", 1, 2, 2);
  sieve::keys::permute(exec, perm, scratch, cube);
#elif SIEVE_CASE == 18 // reorder of a rank-3 plane (rank 1, or rank 2: a row per sample)
  Kokkos::View<double* [3][2]> cube("cube", 1);
  sieve::reorder(exec, mask, perm, inv, map, count, count, count, scratch, mask, cube);
#elif SIEVE_CASE == 19 // an exclusive scan without init, its operator without identity
  // (an inclusive scan starts from in(0) then; an exclusive one has no value for out(0))
  struct NoIdentity {
    KOKKOS_INLINE_FUNCTION int operator()(int p, int q) const { return p ^ q; }
  };
  sieve::exclusive_scan(exec, a, a, NoIdentity{});
#elif SIEVE_CASE == 20 // a const plane in a Population's restore
  float buffer[1] = {0.0f};
  Kokkos::View<const float*, Kokkos::MemoryTraits<Kokkos::Unmanaged>> constPlane(buffer, 1);
  sieve::Population<Exec> pop("p", exec, 1);
  pop.restore(exec, sieve::planes(mask, constPlane));
#elif SIEVE_CASE == 21 // a Population's asynchronous compaction of a mask of doubles
  sieve::Population<Exec> pop("p", exec, 1);
  pop.compact_async(exec, x);
#elif SIEVE_CASE == 22 // a Population's asynchronous spawn into int64 slots
  sieve::Population<Exec> pop("p", exec, 1);
  Kokkos::View<std::int64_t*> slots64("slots64", 1);
  pop.spawn_async(exec, pop.count(), slots64);
#elif SIEVE_CASE == 23 // a Graph's reorder of a plane set with a const plane
  float buffer[1] = {0.0f};
  Kokkos::View<const float*, Kokkos::MemoryTraits<Kokkos::Unmanaged>> constPlane(buffer, 1);
  sieve::Population<Exec> pop("p", exec, 1);
  sieve::Graph<Exec> g;
  g.reorder(pop, sieve::planes(mask, constPlane));
#elif SIEVE_CASE == 24 // a Graph's spawn into int64 slots
  sieve::Population<Exec> pop("p", exec, 1);
  sieve::Graph<Exec> g;
  Kokkos::View<std::int64_t*> slots64("slots64", 1);
  g.spawn(pop, pop.count(), slots64);
#elif SIEVE_CASE == 25 // scatter_sparse of int64 keys with a workspace of int32 keys
  Kokkos::View<std::int64_t*> in("in", 1), out("out", 1);
  sieve::keys::SparseWorkspace<std::int32_t, Exec> ws;
  sieve::keys::scatter_sparse(exec, in, out, ws);
#elif SIEVE_CASE == 26 // scatter_dense without an output
  sieve::keys::scatter_dense(exec, mask);
#elif SIEVE_CASE == 27 // sort_permutation without a perm
  sieve::keys::sort_permutation(
      exec, 1, KOKKOS_LAMBDA(const std::int64_t i) { return int(i); });
#elif SIEVE_CASE == 28 // compact without its scratch
  sieve::compact(exec, mask, map, count);
#elif SIEVE_CASE == 29 // a labelled reorder cut short
  sieve::reorder(std::string("step"), exec, mask, perm);
#elif SIEVE_CASE == 30 // restore of a permutation alone
  sieve::restore(exec, perm);
#elif SIEVE_CASE == 31 // reduce_by_key into doubles with a workspace of floats
  Kokkos::View<int*> out("out", 1);
  const auto keys = sieve::keys::scatter_dense(exec, a, 0, 1, out);
  const sieve::keys::ReduceWorkspace<float, Exec> ws(exec, 1);
  sieve::keys::reduce_by_key(exec, keys, x, 0.0, sieve::Sum{}, x, ws);
#endif
}
