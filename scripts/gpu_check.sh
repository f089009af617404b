#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Sieve — the GPU check, in one call on a machine with an NVIDIA GPU (sm_90+):
# build the native CUDA face, run its tests (device output against the host
# twins, byte for byte; graph capture/replay), the same tests under
# compute-sanitizer (memcheck, racecheck, synccheck) and the benchmark against
# CUB.
#
#   Kokkos_ROOT=<any Kokkos install> scripts/gpu_check.sh [OUT_DIR]
#
# Kokkos_ROOT defaults to .deps/kokkos (what scripts/setup.sh builds; carry it
# to a machine without network). With SIEVE_KOKKOS_CUDA_ROOT set to a
# CUDA-enabled Kokkos install, the public API's Kokkos::Cuda dispatch is also
# built and tested (the Kokkos "test category" binary for Cuda and the
# cross-backend comparison). Results (logs, gtest XML, the benchmark table) go
# to OUT_DIR (default: $OUT, else ./gpu-check). Exits non-zero if a test fails.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:-${OUT:-$root/gpu-check}}"
mkdir -p "$out"
jobs="$(nproc)"
nvcc="$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)"
kokkos="${Kokkos_ROOT:-$root/.deps/kokkos}"
status=0
log() { echo "[gpu_check] $*" | tee -a "$out/summary.txt"; }

{ nvidia-smi; "$nvcc" --version; cmake --version; } >"$out/machine.txt" 2>&1
log "GPU: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n1)"

build="$root/build-gpu"
if ! cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DKokkos_ROOT="$kokkos" \
      -DSIEVE_ENABLE_CUDA=ON -DCMAKE_CUDA_COMPILER="$nvcc" -DCMAKE_CUDA_ARCHITECTURES=90 \
      >"$out/configure.log" 2>&1 ||
   ! cmake --build "$build" -j "$jobs" --target sieve_test_cuda_native sieve_bench_cuda \
      sieve_test_host >"$out/build.log" 2>&1; then
  log "native build FAILED (see configure.log / build.log)"
  tail -n 40 "$out/build.log" "$out/configure.log" 2>/dev/null
  exit 1
fi
log "native CUDA face built"

"$build/tests/sieve_test_cuda_native" --gtest_output="xml:$out/cuda_native.xml" \
  >"$out/cuda_native.log" 2>&1 || status=1
log "native CUDA tests: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$out/cuda_native.log" | tr '\n' ' ')"
# compute-sanitizer over the native CUDA tests (the largest cases left out:
# the tools slow kernels down 10-100x): out-of-bounds / misaligned accesses,
# shared-memory races, and barriers not reached by every thread.
sanitizer="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
for tool in memcheck racecheck synccheck; do
  timeout 600 "$sanitizer" --tool "$tool" --error-exitcode 3 \
    "$build/tests/sieve_test_cuda_native" --gtest_filter="${SIEVE_SANITIZER_FILTER:--*Largest*}" \
    >"$out/sanitizer_$tool.log" 2>&1 || status=1
  log "compute-sanitizer $tool: $(grep -E 'ERROR SUMMARY|^\[  (PASSED|FAILED) ' "$out/sanitizer_$tool.log" | tr '\n' ' ')"
done
OMP_NUM_THREADS="$jobs" OMP_PROC_BIND=false "$build/tests/sieve_test_host" \
  --gtest_filter='*HostCompact*:*HostScan*:-HostScanOpenMP.*' >"$out/host.log" 2>&1 || status=1
log "host twins on this machine: $(grep -E '^\[  (PASSED|FAILED) ' "$out/host.log" | tr '\n' ' ')"
"$build/perf/sieve_bench_cuda" >"$out/bench_cuda.txt" 2>&1 || status=1
log "benchmark: bench_cuda.txt"
cat "$out/bench_cuda.txt"

if [ -n "${SIEVE_KOKKOS_CUDA_ROOT:-}" ]; then
  kbuild="$root/build-gpu-kokkos"
  wrapper="$(ls "$SIEVE_KOKKOS_CUDA_ROOT"/bin/nvcc_wrapper 2>/dev/null || true)"
  if cmake -S "$root" -B "$kbuild" -DCMAKE_BUILD_TYPE=Release -DKokkos_ROOT="$SIEVE_KOKKOS_CUDA_ROOT" \
        ${wrapper:+-DCMAKE_CXX_COMPILER="$wrapper"} -DCMAKE_CUDA_COMPILER="$nvcc" \
        -DCMAKE_CUDA_ARCHITECTURES=90 >"$out/kokkos_configure.log" 2>&1 &&
     cmake --build "$kbuild" -j "$jobs" --target sieve_test_cuda sieve_test_crossbackend \
        >"$out/kokkos_build.log" 2>&1; then
    "$kbuild/tests/sieve_test_cuda" --gtest_output="xml:$out/kokkos_cuda.xml" \
      >"$out/kokkos_cuda.log" 2>&1 || status=1
    log "Kokkos::Cuda API tests: $(grep -E '^\[  (PASSED|FAILED) ' "$out/kokkos_cuda.log" | tr '\n' ' ')"
    OMP_PROC_BIND=false "$kbuild/tests/sieve_test_crossbackend" >"$out/crossbackend.log" 2>&1 || status=1
    log "cross-backend (with Cuda): $(grep -E '^\[  (PASSED|FAILED) ' "$out/crossbackend.log" | tr '\n' ' ')"
  else
    log "Kokkos::Cuda build FAILED (see kokkos_build.log)"
    status=1
  fi
fi
log "done: status $status"
exit "$status"
