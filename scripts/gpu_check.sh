#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Sieve — the GPU check, in one call on a machine with an NVIDIA GPU: build the
# native CUDA face and its tests, run them (device output against the host
# twins, byte for byte; graph capture/replay), run small cases under
# compute-sanitizer (memcheck, racecheck, synccheck), run the benchmark against
# CUB and a device-to-device copy, and print one table of it all.
#
#   scripts/gpu_check.sh [--rehearse] [OUT_DIR]
#
# What the machine needs: nvcc, cmake (3.18+), ninja or make, a C++ compiler,
# nvidia-smi (compute-sanitizer is optional), and two folders that
# scripts/setup.sh leaves under .deps/ — carry them to a machine without
# network:
#   .deps/kokkos      a Kokkos install (the build's find_package; any other:
#                     Kokkos_ROOT=...)
#   .deps/googletest  GoogleTest's sources, built here (any other:
#                     SIEVE_GTEST_SOURCE_DIR=...; or a GoogleTest install
#                     found by CMake)
# A preflight names whatever is missing before anything is built.
#
# The CUDA architectures are Kokkos' (a CUDA-enabled Kokkos), else the GPU's
# own (nvidia-smi), else CMake's default of the build (90); SIEVE_CUDA_ARCHS
# overrides. A device below every architecture built makes the CUDA tests
# skip, saying so, instead of failing.
#
# --rehearse: on a machine without a GPU (e.g. with PATH stripped to what the
# GPU machine has: scripts/rehearse_gpu_check.sh): the preflight, configure
# and build for real, then every run with the CUDA cases skipping, and the
# table; exits 0 when the preflight and the build passed.
#
# With SIEVE_KOKKOS_CUDA_ROOT set to a CUDA-enabled Kokkos install, the public
# API's Kokkos::Cuda dispatch is also built and tested. Logs, gtest XML and
# the table go to OUT_DIR (default: $OUT, else ./gpu-check).
# SIEVE_SANITIZER_TIMEOUT bounds each compute-sanitizer tool's run in seconds
# (default 900; a lease of a few minutes wants ~60). Exit status: 0
# all passed, 1 a test or the benchmark failed, 2 the preflight or the build
# failed.
set -uo pipefail
rehearse=0
if [ "${1:-}" = "--rehearse" ]; then
  rehearse=1
  shift
fi
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:-${OUT:-$root/gpu-check}}"
mkdir -p "$out"
: >"$out/summary.txt"
jobs="$(nproc 2>/dev/null || echo 4)"
kokkos="${Kokkos_ROOT:-$root/.deps/kokkos}"
gtest_src="${SIEVE_GTEST_SOURCE_DIR:-$root/.deps/googletest}"
status=0
log() { echo "[gpu_check] $*" | tee -a "$out/summary.txt"; }
rows=()
row() { rows+=("$(printf '%-34s %s' "$1" "$2")"); }

# --- preflight -------------------------------------------------------------------
missing=()
# A tool's path with links followed while they keep its name (g++ found
# through a folder of links is /usr/bin/g++), never to another name (clang++
# -> clang would change the compiler driver).
realdir() {
  local p t
  p="$(cd "$(dirname "$1")" && pwd -P)/$(basename "$1")"
  while [ -L "$p" ]; do
    t="$(readlink "$p")"
    case "$t" in /*) ;; *) t="$(dirname "$p")/$t" ;; esac
    [ "$(basename "$t")" = "$(basename "$p")" ] || break
    p="$(cd "$(dirname "$t")" && pwd -P)/$(basename "$t")"
  done
  echo "$p"
}
find_tool() { # variable, what it is, then candidates: sets the variable to the first found
  local var="$1" name="$2" c
  shift 2
  for c in "$@"; do
    if command -v "$c" >/dev/null 2>&1; then
      printf -v "$var" '%s' "$(realdir "$(command -v "$c")")"
      return 0
    fi
  done
  printf -v "$var" '%s' ""
  missing+=("$name")
  return 1
}
find_tool nvcc nvcc nvcc /usr/local/cuda/bin/nvcc
find_tool cmake_bin cmake cmake
find_tool cxx 'a C++ compiler (g++ / c++)' "${CXX:-g++}" g++ c++ clang++
generator=()
if command -v ninja >/dev/null 2>&1; then
  generator=(-G Ninja -DCMAKE_MAKE_PROGRAM="$(realdir "$(command -v ninja)")")
elif ! command -v make >/dev/null 2>&1; then
  missing+=("ninja or make")
fi
smi="$(command -v nvidia-smi || true)"
[ -z "$smi" ] && [ "$rehearse" = 0 ] && missing+=("nvidia-smi (is this the GPU machine?)")
if ! ls "$kokkos"/lib*/cmake/Kokkos/KokkosConfig.cmake >/dev/null 2>&1; then
  missing+=("Kokkos at $kokkos (carry .deps/kokkos, or set Kokkos_ROOT)")
fi
gtest_args=()
if [ -f "$gtest_src/CMakeLists.txt" ]; then
  gtest_args=(-DSIEVE_GTEST_SOURCE_DIR="$gtest_src")
else
  installed=0
  for f in /usr/lib*/cmake/GTest/GTestConfig.cmake /usr/lib/*/cmake/GTest/GTestConfig.cmake \
    /usr/local/lib*/cmake/GTest/GTestConfig.cmake; do
    [ -f "$f" ] && installed=1
  done
  [ "$installed" = 1 ] ||
    missing+=("GoogleTest: neither its sources at $gtest_src (carry .deps/googletest) nor an install")
fi
sanitizer="$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null || true)"
if [ "${#missing[@]}" -gt 0 ]; then
  log "preflight: missing:"
  for m in "${missing[@]}"; do log "  - $m"; done
  exit 2
fi
log "preflight: nvcc $("$nvcc" --version | sed -n 's/.*release \([0-9.]*\).*/\1/p'), $("$cmake_bin" --version | head -n1), $([ ${#generator[@]} -gt 0 ] && echo ninja || echo make), $cxx, Kokkos $kokkos, GoogleTest ${gtest_args[*]:-installed}${sanitizer:+, compute-sanitizer}"

gpu=""
cc=""
if [ -n "$smi" ]; then
  gpu="$("$smi" --query-gpu=name --format=csv,noheader 2>/dev/null | head -n1)"
  cc="$("$smi" --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n1 | tr -d ' .')"
fi
{
  [ -n "$smi" ] && "$smi"
  "$nvcc" --version
  "$cmake_bin" --version
} >"$out/machine.txt" 2>&1
log "GPU: ${gpu:-none found}${cc:+ (sm_$cc)}"

arch_args=()
if [ -n "${SIEVE_CUDA_ARCHS:-}" ]; then
  arch_args=(-DCMAKE_CUDA_ARCHITECTURES="$SIEVE_CUDA_ARCHS")
elif [ -n "$cc" ] && ! grep -qsi '^set(Kokkos_DEVICES.*CUDA' \
  "$kokkos"/lib*/cmake/Kokkos/KokkosConfigCommon.cmake; then
  arch_args=(-DCMAKE_CUDA_ARCHITECTURES="$cc")
fi

# --- build -----------------------------------------------------------------------
build="$root/build-gpu"
# A fresh configure every time (the objects stay): a cache from another PATH
# or compiler would be wiped by CMake along with this call's settings.
rm -f "$build/CMakeCache.txt"
start=$SECONDS
if ! "$cmake_bin" ${generator[@]+"${generator[@]}"} -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CXX_COMPILER="$cxx" -DKokkos_ROOT="$kokkos" -DSIEVE_ENABLE_CUDA=ON \
  -DSIEVE_ENABLE_MPI=OFF -DCMAKE_CUDA_COMPILER="$nvcc" -DCMAKE_CUDA_HOST_COMPILER="$cxx" ${arch_args[@]+"${arch_args[@]}"} ${gtest_args[@]+"${gtest_args[@]}"} \
  >"$out/configure.log" 2>&1; then
  log "configure FAILED (configure.log):"
  tail -n 30 "$out/configure.log"
  exit 2
fi
log "configured: $(grep -E 'Sieve: native CUDA face' "$out/configure.log" | sed 's/^-- //')"
# (A rehearsal leaves the host twins out: the machine rehearsing has built
# and run the same suites in its own test build.)
host_target=(sieve_test_host)
[ "$rehearse" = 1 ] && host_target=()
if ! "$cmake_bin" --build "$build" -j "$jobs" --target sieve_test_cuda_native sieve_bench_cuda \
  ${host_target[@]+"${host_target[@]}"} >"$out/build.log" 2>&1; then
  log "build FAILED (build.log):"
  grep -E 'error' "$out/build.log" | head -n 20
  tail -n 20 "$out/build.log"
  exit 2
fi
log "built in $((SECONDS - start)) s"
if [ -z "$gpu" ] && [ "$rehearse" = 0 ]; then
  log "no GPU: nothing to run (use --rehearse on a machine without one)"
  exit 2
fi
# A rehearsal goes on through the runs: without a GPU the CUDA suites skip and
# the benchmark says so, which tries every step of the script but the GPU's.
[ "$rehearse" = 1 ] && log "rehearsal: preflight, configure and build passed; the runs follow (no GPU: the CUDA cases skip)"

# --- runs --------------------------------------------------------------------------
# A gtest log's verdict: "N passed, M failed, K skipped".
verdict() {
  local f="$1" p fl sk
  p="$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$f" | tail -n1)"
  fl="$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$f" | tail -n1)"
  sk="$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' "$f" | tail -n1)"
  if [ -z "$p$fl$sk" ]; then
    echo "did not finish (see $(basename "$f"))"
  else
    echo "${p:-0} passed, ${fl:-0} failed, ${sk:-0} skipped"
  fi
}
suites="$("$build/tests/sieve_test_cuda_native" --gtest_list_tests 2>/dev/null |
  sed -n 's/^\([A-Za-z0-9_/]*\)\.\(  *#.*\)\{0,1\}$/\1/p')"
start=$SECONDS
if [ -z "$suites" ]; then
  status=1
  row "native CUDA tests" "FAILED: the binary listed no test (see cuda_list.log)"
  "$build/tests/sieve_test_cuda_native" --gtest_list_tests >"$out/cuda_list.log" 2>&1
fi
for s in $suites; do
  name="${s//\//_}"
  timeout 600 "$build/tests/sieve_test_cuda_native" --gtest_filter="$s.*" \
    --gtest_output="xml:$out/cuda_$name.xml" >"$out/cuda_$name.log" 2>&1
  rc=$?
  [ "$rc" = 0 ] || [ "$rc" = 77 ] || status=1
  row "$s" "$(verdict "$out/cuda_$name.log")"
done
log "native CUDA tests: $((SECONDS - start)) s"
# compute-sanitizer over small cases (the tools slow kernels 10-100x):
# out-of-bounds / misaligned accesses, shared-memory races, barriers not
# reached by every thread.
small="${SIEVE_SANITIZER_FILTER:-*/n1_*:*/n33_*:*/n4097_*:*_n1_*:*_n33_*:*_n4097_*:*/elem1:*/elem16:CudaCompactTrigger.*:CudaReorderFire.*:CudaReorderRestore.*:CudaReorderNative.*:CudaScanMisc.*:CudaScanNative.*:CudaCompactNative.GraphCapture*:*CudaSelect.*/n8193_p50:*CudaSelectCap.*/n100_p50:*CudaSelectAlign.*/mask5_values3_out1:CudaSelectNative.GraphCapture*:CudaDenseScatter.*:CudaRadixOrder.*:-*Largest*}"
for tool in memcheck racecheck synccheck; do
  if [ -z "$sanitizer" ]; then
    row "compute-sanitizer $tool" "not run (no compute-sanitizer)"
    continue
  fi
  start=$SECONDS
  timeout -k 30 "${SIEVE_SANITIZER_TIMEOUT:-900}" "$sanitizer" --tool "$tool" --error-exitcode 3 \
    "$build/tests/sieve_test_cuda_native" --gtest_filter="$small" \
    >"$out/sanitizer_$tool.log" 2>&1
  rc=$?
  [ "$rc" = 0 ] || status=1
  # (racecheck sums up as "RACECHECK SUMMARY: N hazards displayed (E errors,
  # W warnings)"; its warnings are intra-warp hazards, real since Volta.)
  errors="$(grep -E '(ERROR|RACECHECK) SUMMARY' "$out/sanitizer_$tool.log" | tail -n1 | sed 's/=* *//')"
  # Warnings fail the check too, whatever the exit code says.
  warned="$(printf '%s' "$errors" | sed -n 's/.* \([0-9][0-9]*\) warnings.*/\1/p')"
  [ "${warned:-0}" = 0 ] || status=1
  [ "$rc" = 124 ] && errors="stopped at ${SIEVE_SANITIZER_TIMEOUT:-900} s; ${errors:-no summary}"
  row "compute-sanitizer $tool" "$(verdict "$out/sanitizer_$tool.log"); ${errors:-no summary} ($((SECONDS - start)) s)"
done
if [ "$rehearse" = 1 ]; then
  row "host twins (this machine)" "not rehearsed (the test build ran them)"
else
  OMP_NUM_THREADS="$jobs" OMP_PROC_BIND=false "$build/tests/sieve_test_host" \
    --gtest_filter='*HostCompact*:*HostScan*:*HostSelect*:-HostScanOpenMP.*' >"$out/host.log" 2>&1 || status=1
  row "host twins (this machine)" "$(verdict "$out/host.log")"
fi
start=$SECONDS
"$build/perf/sieve_bench_cuda" >"$out/bench_cuda.txt" 2>&1 || status=1
log "benchmark: $((SECONDS - start)) s"

if [ -n "${SIEVE_KOKKOS_CUDA_ROOT:-}" ]; then
  kbuild="$root/build-gpu-kokkos"
  wrapper="$(ls "$SIEVE_KOKKOS_CUDA_ROOT"/bin/nvcc_wrapper 2>/dev/null || true)"
  if "$cmake_bin" ${generator[@]+"${generator[@]}"} -S "$root" -B "$kbuild" -DCMAKE_BUILD_TYPE=Release \
    -DKokkos_ROOT="$SIEVE_KOKKOS_CUDA_ROOT" ${wrapper:+-DCMAKE_CXX_COMPILER="$wrapper"} \
    -DCMAKE_CUDA_COMPILER="$nvcc" -DSIEVE_ENABLE_MPI=OFF ${gtest_args[@]+"${gtest_args[@]}"} \
    >"$out/kokkos_configure.log" 2>&1 &&
    "$cmake_bin" --build "$kbuild" -j "$jobs" --target sieve_test_cuda sieve_test_crossbackend \
      sieve_demo sieve_bench_faces >"$out/kokkos_build.log" 2>&1; then
    "$kbuild/tests/sieve_test_cuda" --gtest_output="xml:$out/kokkos_cuda.xml" \
      >"$out/kokkos_cuda.log" 2>&1 || status=1
    row "Kokkos::Cuda API tests" "$(verdict "$out/kokkos_cuda.log")"
    OMP_PROC_BIND=false "$kbuild/tests/sieve_test_crossbackend" >"$out/crossbackend.log" 2>&1 ||
      status=1
    row "cross-backend (with Cuda)" "$(verdict "$out/crossbackend.log")"
    # The demo on Kokkos::Cuda, step by step and as one sieve::Graph a step:
    # it checks its own restore against the particles' history (exit 1 if not).
    for mode in "" --graph; do
      timeout 120 "$kbuild/perf/sieve_demo" $mode >"$out/demo_cuda${mode:+_graph}.log" 2>&1
      rc=$?
      [ "$rc" = 0 ] || status=1
      row "demo on Kokkos::Cuda${mode:+ $mode}" "$([ "$rc" = 0 ] && echo passed || echo "FAILED (exit $rc)")"
    done
    # The portable face on the GPU (what Kokkos::HIP and Kokkos::SYCL run)
    # against the native face, same calls and data, outputs compared.
    timeout 300 "$kbuild/perf/sieve_bench_faces" --reps 20 >"$out/bench_faces.txt" 2>&1
    rc=$?
    [ "$rc" = 0 ] || status=1
    row "faces benchmark (Kokkos::Cuda)" "$([ "$rc" = 0 ] && echo "outputs identical" || echo "FAILED (exit $rc)")"
  else
    row "Kokkos::Cuda API tests" "build FAILED (kokkos_build.log)"
    status=1
  fi
fi

# --- the table ---------------------------------------------------------------------
{
  echo
  echo "Sieve GPU check on ${gpu} (sm_${cc}), $(date -u '+%Y-%m-%d %H:%M UTC')"
  printf '%-34s %s\n' "suite" "result"
  printf '%s\n' "$(printf '%.0s-' {1..90})"
  [ "${#rows[@]}" -gt 0 ] && printf '%s\n' "${rows[@]}"
  echo
  echo "benchmark (time / CUB's, time / a device-to-device copy of the same bytes):"
  grep -E '^(case|compact|select|inclusive|reorder|scatter_dense|radix|-)' "$out/bench_cuda.txt" || cat "$out/bench_cuda.txt"
  if [ -s "$out/bench_faces.txt" ]; then
    echo
    echo "the portable face on Kokkos::Cuda (time / the native face's, same calls and data):"
    grep -E '^faces' "$out/bench_faces.txt" || cat "$out/bench_faces.txt"
  fi
  echo
  echo "status: $status (0: all passed)"
} | tee "$out/table.txt"
if [ "$rehearse" = 1 ]; then
  log "rehearsal done (the run statuses above mean nothing without a GPU)"
  exit 0
fi
exit "$status"
