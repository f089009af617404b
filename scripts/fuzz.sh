#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Sieve — run the differential fuzzer over the public API (tests/fuzz).
#
#   scripts/fuzz.sh [SECONDS] [-- libFuzzer options...]
#
# Builds it first when needed (scripts/setup.sh --fuzz: clang, a clang-built
# Kokkos, ASan + UBSan + libFuzzer), then fuzzes for SECONDS (default 90)
# starting from the committed seed corpus (tests/fuzz/corpus, copied to
# build-fuzz/corpus so the checkout is not modified). A finding stops the run
# with a non-zero exit; the input that found it is left in build-fuzz/ as
# crash-* (reproduce: build-fuzz/tests/fuzz/sieve_fuzz_api <file>).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
secs="${1:-90}"
[ $# -gt 0 ] && shift
[ "${1:-}" = "--" ] && shift
build="$root/build-fuzz"
bin="$build/tests/fuzz/sieve_fuzz_api"
"$root/scripts/setup.sh" --fuzz --build-dir "$build"
mkdir -p "$build/corpus"
cp -n "$root"/tests/fuzz/corpus/* "$build/corpus/" 2>/dev/null || true
echo "[sieve fuzz] fuzzing for ${secs} s (OpenMP: 2 threads)"
cd "$build"
OMP_NUM_THREADS=2 OMP_PROC_BIND=false OMP_WAIT_POLICY=passive \
  ASAN_OPTIONS="detect_leaks=0:abort_on_error=1" UBSAN_OPTIONS="print_stacktrace=1" \
  "$bin" -max_total_time="$secs" -max_len=4096 -timeout=60 -rss_limit_mb=6144 \
  -print_final_stats=1 "$@" corpus 2>&1 | tee "$build/fuzz.log" | grep -E "^#[0-9]+ *(INITED|DONE|pulse)|stat::|ERROR|sieve fuzz|SUMMARY" || true
status=${PIPESTATUS[0]}
echo "[sieve fuzz] exit $status; $(grep -E '^stat::number_of_executed_units' "$build/fuzz.log" || true)"
exit "$status"
