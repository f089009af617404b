#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Sieve — set up a Debian 12 machine and build Sieve.
#
#   scripts/setup.sh [--tests] [--build-dir DIR] [--cuda | --no-cuda] [--no-build]
#                    [--plot] [--fuzz | --fuzz-fast]
#
# 1. Installs what is missing: cmake, g++, make, GoogleTest, tar, gzip, Open MPI
#    (Debian packages; sudo when not root). With --plot also python3-matplotlib,
#    which only scripts/plot_bench.py (the benchmark pictures) needs.
# 2. Finds Kokkos: $Kokkos_ROOT if set; else the Kokkos this script built before
#    (.deps/kokkos in the checkout); else builds Kokkos (OpenMP + Serial) from
#    Debian's `trilinos` source package into .deps/kokkos. The source comes from
#    a private apt sources list whose deb-src line uses the mirror this machine's
#    own apt sources use; the system's apt configuration is never edited.
# 3. Configures Sieve in DIR (default: build/), asking for the native CUDA face
#    (-DSIEVE_ENABLE_CUDA=ON) when nvcc is found and nvidia-smi lists a GPU,
#    or with --cuda; otherwise CMake's default, which follows Kokkos. (Without
#    a GPU the native CUDA tests could only skip: CI compiles them, and runs
#    what needs no GPU, in scripts/rehearse_gpu_check.sh.) Builds the library
#    and the demo (build/perf/sieve_demo) only: the first command of the
#    README shows the demo in minutes.
# --tests: builds everything instead (every test binary, the benchmarks, the
#   examples): what `ctest --test-dir DIR` runs (the README's second command),
#   with the sanitized test binaries (-DSIEVE_TEST_SANITIZERS=ON: every suite
#   on the Serial backend, the MPI face on it and the fault suite under
#   AddressSanitizer + UndefinedBehaviorSanitizer, and sanitized twins of the
#   host, core and emulated CUDA tests, ctest asan.*: docs/testing.md).
# --fuzz: the differential fuzzer (default dir build-fuzz/): installs clang and
#   libomp-dev, builds Kokkos with clang into .deps/kokkos-clang (same source),
#   and builds build-fuzz/tests/fuzz/sieve_fuzz_api; scripts/fuzz.sh runs it.
# --fuzz-fast: the same fuzzer without the sanitizers, at -O2 (default dir
#   build-fuzz-fast/), for throughput: scripts/fuzz_campaign.sh runs it.
# Idempotent: a second run reuses what the first one installed and built.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="$root/build"
use_cuda=auto
do_build=1
everything=0
plot=0
variant=default
while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir) build_dir="$(realpath -m "$2")"; shift 2 ;;
    --cuda) use_cuda=on; shift ;;
    --no-cuda) use_cuda=off; shift ;;
    --no-build) do_build=0; shift ;;
    --tests) everything=1; shift ;;
    --plot) plot=1; shift ;;
    --fuzz) variant=fuzz; shift ;;
    --fuzz-fast) variant=fuzz-fast; shift ;;
    -h|--help) sed -n '3,/^[^#]/{/^#/p}' "$0"; exit 0 ;;
    *) echo "setup.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done

# Bold only on a terminal: a log file or a CI console gets plain text.
if [ -t 1 ]; then bold=$'\033[1m' plain=$'\033[0m'; else bold="" plain=""; fi
say() { printf '%s[sieve setup]%s %s\n' "$bold" "$plain" "$*"; }
die() { printf '[sieve setup] error: %s\n' "$*" >&2; exit 1; }

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"
  elif command -v sudo >/dev/null 2>&1; then sudo -n "$@" || die "'$*' needs root (sudo -n failed)"
  else die "'$*' needs root and there is no sudo"
  fi
}

# --- 1. packages --------------------------------------------------------------------
need=()
pkgs=(cmake g++ make libgtest-dev tar gzip)
# MPI for the distributed face (Sieve::mpi) and its tests (mpiexec): Open MPI.
[[ "$variant" == fuzz* ]] || pkgs+=(libopenmpi-dev openmpi-bin)
[ "$plot" -eq 0 ] || pkgs+=(python3-matplotlib)
[[ "$variant" != fuzz* ]] || pkgs+=(clang libomp-dev)
# Where nvcc is, ninja too: scripts/gpu_check.sh builds with it (its rehearsal,
# scripts/rehearse_gpu_check.sh, has no make on PATH, as the GPU machine).
if command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then pkgs+=(ninja-build); fi
if [ "$variant" != default ]; then
  [ "$build_dir" != "$root/build" ] || build_dir="$root/build-$variant"
  use_cuda=off
fi
for p in "${pkgs[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
  say "installing ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  as_root apt-get update -q
  as_root apt-get install -y -q --no-install-recommends "${need[@]}"
else
  say "packages present"
fi

# --- 2. Kokkos ------------------------------------------------------------------------
deps="$root/.deps"
kokkos_prefix="$deps/kokkos"
have_kokkos() { ls "$1"/lib*/cmake/Kokkos/KokkosConfig.cmake >/dev/null 2>&1; }

# The deb-src line for the Debian archive this machine uses: the URI (and
# signing key) of its own `main` source for its release, from sources.list or
# sources.list.d (one-line and deb822 formats).
debian_src_line() {
  local codename uri="" key=""
  codename="$(. /etc/os-release && echo "${VERSION_CODENAME:-}")"
  [ -n "$codename" ] || die "cannot read the release codename from /etc/os-release"
  local f
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] || continue
    while read -r type rest; do
      [ "$type" = deb ] || continue
      local opts="" words
      if [[ "$rest" == \[* ]]; then opts="${rest%%]*}"; rest="${rest#*] }"; fi
      read -r -a words <<<"$rest"
      [ "${words[1]:-}" = "$codename" ] || continue
      [[ " ${words[*]:2} " == *" main "* ]] || continue
      uri="${words[0]}"
      [[ "$opts" == *signed-by=* ]] && key="${opts#*signed-by=}" && key="${key%% *}"
      break 2
    done < <(sed 's/#.*//' "$f")
  done
  if [ -z "$uri" ]; then
    # deb822 (.sources): stanzas of "Field: value" lines separated by blank lines.
    for f in /etc/apt/sources.list.d/*.sources; do
      [ -f "$f" ] || continue
      local types="" uris="" suites="" comps="" signed="" line
      while IFS= read -r line; do
        [[ "$line" =~ ^[[:space:]]*# ]] && continue # a comment line is no separator
        if [ -z "${line//[[:space:]]/}" ]; then
          if [[ " $types " == *" deb "* && " $suites " == *" $codename "* &&
                " $comps " == *" main "* && -n "$uris" ]]; then
            uri="${uris%% *}"; key="$signed"; break 2
          fi
          types="" uris="" suites="" comps="" signed=""
          [ -n "$line" ] || continue
        fi
        case "$line" in
          Types:*) types="$(echo ${line#Types:})" ;;
          URIs:*) uris="$(echo ${line#URIs:})" ;;
          Suites:*) suites="$(echo ${line#Suites:})" ;;
          Components:*) comps="$(echo ${line#Components:})" ;;
          Signed-By:*) signed="$(echo ${line#Signed-By:})" ;;
        esac
      done < <(cat "$f"; echo)
    done
  fi
  [ -n "$uri" ] || die "no Debian '$codename main' source in /etc/apt; set Kokkos_ROOT to an installed Kokkos"
  if [ -n "$key" ]; then echo "deb-src [signed-by=$key] $uri $codename main"
  else echo "deb-src $uri $codename main"; fi
}

# build_kokkos PREFIX [CMake args...]: Kokkos (OpenMP + Serial) into PREFIX.
build_kokkos() {
  local prefix="$1"; shift
  local apt="$deps/apt" src="$deps/src"
  mkdir -p "$src"
  local orig
  orig="$(ls "$src"/trilinos_*.orig.tar.* 2>/dev/null | head -n1 || true)"
  if [ -n "$orig" ]; then
    say "reusing Debian's trilinos source $(basename "$orig") (downloaded before)"
  else
    mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial"
    debian_src_line >"$apt/sources.list"
    say "fetching Debian's trilinos source ($(cat "$apt/sources.list"))"
    local o=(-o "Dir::Etc::SourceList=$apt/sources.list" -o "Dir::Etc::SourceParts=/dev/null"
             -o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt/cache"
             -o "APT::Sandbox::User=$(id -un)")
    apt-get "${o[@]}" -q update >/dev/null
    (cd "$src" && apt-get "${o[@]}" -q source --download-only trilinos >/dev/null)
    orig="$(ls "$src"/trilinos_*.orig.tar.* | head -n1)"
  fi
  [ -f "$orig" ] || die "apt-get source did not download the trilinos tarball"
  say "unpacking Kokkos from $(basename "$orig")"
  rm -rf "$src/tree" && mkdir -p "$src/tree"
  tar -xf "$orig" -C "$src/tree" --wildcards '*/packages/kokkos/*'
  local ksrc
  ksrc="$(ls -d "$src"/tree/*/packages/kokkos)"
  say "building Kokkos $(sed -n 's/^tag: *\([0-9.]*\).*/\1/p' "$ksrc/master_history.txt" | tail -n1) (OpenMP + Serial)"
  cmake -S "$ksrc" -B "$deps/kokkos-build" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_INSTALL_PREFIX="$prefix" -DCMAKE_CXX_STANDARD=17 \
    -DKokkos_ENABLE_SERIAL=ON -DKokkos_ENABLE_OPENMP=ON -DKokkos_ENABLE_TESTS=OFF "$@" >/dev/null
  cmake --build "$deps/kokkos-build" -j "$(nproc)" >/dev/null
  cmake --install "$deps/kokkos-build" >/dev/null
  # Keep the source tarball (a second Kokkos, the fuzzer's clang build, reuses it).
  rm -rf "$src/tree" "$apt" "$deps/kokkos-build"
  find "$src" -maxdepth 1 -type f ! -name 'trilinos_*.orig.tar.*' -delete
}

if [ -n "${Kokkos_ROOT:-}" ]; then
  have_kokkos "$Kokkos_ROOT" || [ -f "$Kokkos_ROOT/KokkosConfig.cmake" ] ||
    die "Kokkos_ROOT=$Kokkos_ROOT holds no KokkosConfig.cmake"
  kokkos_root="$Kokkos_ROOT"
  say "using Kokkos from Kokkos_ROOT=$kokkos_root"
elif have_kokkos "$kokkos_prefix"; then
  kokkos_root="$kokkos_prefix"
  say "using the Kokkos built before in $kokkos_root"
else
  build_kokkos "$kokkos_prefix"
  kokkos_root="$kokkos_prefix"
fi
variant_args=()
case "$variant" in
  fuzz | fuzz-fast)
    # libFuzzer instruments the code under test, so everything is clang-built:
    # Kokkos too (one OpenMP runtime in the process, clang's libomp). Coverage
    # is edge counters only: comparison tracing would double the cost of the
    # element loops and guides nothing here (the inputs pick sizes and ops).
    if [ -n "${Kokkos_ROOT:-}" ]; then
      say "fuzz: using Kokkos_ROOT=$Kokkos_ROOT (it must be built with clang)"
    elif have_kokkos "$deps/kokkos-clang"; then
      kokkos_root="$deps/kokkos-clang"
      say "using the clang-built Kokkos in $kokkos_root"
    else
      build_kokkos "$deps/kokkos-clang" -DCMAKE_CXX_COMPILER=clang++
      kokkos_root="$deps/kokkos-clang"
    fi
    san="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
    # -O1 with line tables (libFuzzer's advice; -O2 -g compiles 1.5x longer).
    opt="-O1"
    # The campaign's build: no sanitizer, -O2 (a finding there is a wrong
    # result, a crash or a hang; scripts/fuzz.sh replays it under ASan + UBSan).
    [ "$variant" = fuzz ] || { san=""; opt="-O2"; }
    variant_args=(-DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo
                  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=$opt -gline-tables-only -DNDEBUG"
                  "-DCMAKE_CXX_FLAGS=$san -fsanitize-coverage=inline-8bit-counters,pc-table"
                  "-DCMAKE_EXE_LINKER_FLAGS=$san"
                  -DSIEVE_ENABLE_FUZZER=ON -DSIEVE_ENABLE_TESTS=OFF -DSIEVE_ENABLE_BENCHMARKS=OFF) ;;
esac

# GoogleTest's sources (from the googletest package), for scripts/gpu_check.sh:
# the GPU machine has no GoogleTest, so the check builds it from this copy
# (carry .deps/googletest there, with .deps/kokkos).
if [ -f /usr/src/googletest/CMakeLists.txt ] && [ ! -f "$deps/googletest/CMakeLists.txt" ]; then
  mkdir -p "$deps"
  cp -r /usr/src/googletest "$deps/googletest.tmp" && mv "$deps/googletest.tmp" "$deps/googletest"
  say "GoogleTest sources copied to $deps/googletest (for the GPU check)"
fi

# --- 3. Sieve ---------------------------------------------------------------------------
[ "$do_build" -eq 1 ] || { say "done (not building Sieve)"; exit 0; }
# The developers' build asks for the native CUDA face explicitly when nvcc and
# a GPU are here (even next to an OpenMP-only Kokkos), or with --cuda. CMake's
# own default (AUTO) follows Kokkos: a plain `cmake` build, or this script
# without them or with --no-cuda, builds it only for a CUDA Kokkos.
cuda_args=(-DSIEVE_ENABLE_CUDA=AUTO) # also resets an ON left in a reused build dir
if [ "$use_cuda" != off ]; then
  nvcc="$(command -v nvcc || true)"
  [ -z "$nvcc" ] && [ -x /usr/local/cuda/bin/nvcc ] && nvcc=/usr/local/cuda/bin/nvcc
  if [ -z "$nvcc" ]; then
    [ "$use_cuda" = auto ] || die "--cuda: no nvcc on PATH or in /usr/local/cuda/bin"
  elif [ "$use_cuda" = on ] || nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
    cuda_args=(-DSIEVE_ENABLE_CUDA=ON "-DCMAKE_CUDA_COMPILER=$nvcc")
    say "nvcc ($nvcc)$([ "$use_cuda" = on ] && echo ' and --cuda' || echo ' and a GPU') found: building the native CUDA face too"
  else
    say "nvcc found, no GPU: no native CUDA face here (--cuda builds it; scripts/rehearse_gpu_check.sh compiles it as CI does)"
  fi
fi
test_args=()
[ "$everything" -eq 0 ] || test_args=(-DSIEVE_TEST_SANITIZERS=ON)
say "configuring Sieve in $build_dir"
mkdir -p "$build_dir"
cmake -S "$root" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release "-DKokkos_ROOT=$kokkos_root" \
  "${cuda_args[@]}" ${variant_args[@]+"${variant_args[@]}"} ${test_args[@]+"${test_args[@]}"} >"$build_dir/configure.log" 2>&1 || { cat "$build_dir/configure.log"; die "configure failed"; }
say "building Sieve ($(nproc) jobs)"
if [[ "$variant" == fuzz* ]] || [ "$everything" -eq 1 ]; then
  cmake --build "$build_dir" -j "$(nproc)"
else
  cmake --build "$build_dir" -j "$(nproc)" --target sieve_demo
fi
rel="$(realpath --relative-to="$PWD" "$build_dir")"
case "$variant" in
  fuzz) say "done: fuzz with 'scripts/fuzz.sh [SECONDS]'" ;;
  fuzz-fast) say "done: a campaign with 'scripts/fuzz_campaign.sh [SECONDS]'" ;;
  *) if [ "$everything" -eq 1 ]; then
       say "done: tests with 'ctest --test-dir $rel --output-on-failure -j 2'"
     else
       say "done: the demo is $rel/perf/sieve_demo; './scripts/setup.sh --tests' builds the tests"
     fi ;;
esac
