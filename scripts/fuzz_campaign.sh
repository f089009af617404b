#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Sieve — a fuzz campaign: the differential fuzzer (tests/fuzz) for hours, built
# for throughput (scripts/setup.sh --fuzz-fast: no sanitizer, -O2), on the
# Serial face with small sample counts by default.
#
#   scripts/fuzz_campaign.sh [SECONDS] [--jobs J] [--save] [-- libFuzzer options...]
#
# SECONDS (default 3600) of J processes (default 1) sharing one working corpus
# (build-fuzz-fast/corpus, seeded from the committed tests/fuzz/corpus); each
# picks up what the others find. Settings (environment): SIEVE_FUZZ_FACES
# (default serial; `both` or `openmp` for the OpenMP twins too) and
# SIEVE_FUZZ_MAX_N (default 4097: every word, block and tile edge up to the
# reorder's smallest span), as tests/fuzz/fuzz_api.cpp reads them.
# At the end it prints the campaign's figures (executions, executions a
# second, coverage as libFuzzer counts it, new inputs, findings) and, with
# --save, merges the new inputs into tests/fuzz/corpus (libFuzzer's -merge:
# only inputs that add coverage). A finding (a wrong result, a crash, a hang
# past 20 s) leaves its input in build-fuzz-fast/ as crash-*, timeout-* or
# oom-* and makes the exit status non-zero; replay it under the sanitizers with
# scripts/fuzz.sh's build: build-fuzz/tests/fuzz/sieve_fuzz_api <file>.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
secs=3600
jobs=1
save=0
extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --jobs) jobs="$2"; shift 2 ;;
    --save) save=1; shift ;;
    --) shift; extra=("$@"); break ;;
    -h|--help) sed -n '3,/^[^#]/{/^#/p}' "$0"; exit 0 ;;
    [0-9]*) secs="$1"; shift ;;
    *) echo "fuzz_campaign.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || { echo "fuzz_campaign.sh: --jobs needs a positive count" >&2; exit 2; }
build="$root/build-fuzz-fast"
bin="$build/tests/fuzz/sieve_fuzz_api"
"$root/scripts/setup.sh" --fuzz-fast --build-dir "$build"
mkdir -p "$build/corpus" "$build/logs"
cp -n "$root"/tests/fuzz/corpus/* "$build/corpus/" 2>/dev/null || true
rm -f "$build"/logs/job-*.log
before=$(ls "$build/corpus" | wc -l)
export SIEVE_FUZZ_FACES="${SIEVE_FUZZ_FACES:-serial}" SIEVE_FUZZ_MAX_N="${SIEVE_FUZZ_MAX_N:-4097}"
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}" OMP_PROC_BIND=false OMP_WAIT_POLICY=passive
echo "[sieve campaign] $jobs job(s) for $secs s: faces $SIEVE_FUZZ_FACES, n <= $SIEVE_FUZZ_MAX_N, corpus of $before inputs"
start=$SECONDS
pids=()
cd "$build"
for ((j = 0; j < jobs; ++j)); do
  "$bin" -max_total_time="$secs" -max_len=1024 -timeout=20 -rss_limit_mb=4096 \
    -seed=$((start * 7919 + j + 1)) -print_final_stats=1 -reload=30 "${extra[@]}" corpus \
    >"logs/job-$j.log" 2>&1 &
  pids+=($!)
done
status=0
for p in "${pids[@]}"; do wait "$p" || status=$?; done
took=$((SECONDS - start))
execs=0
for f in logs/job-*.log; do
  e=$(sed -n 's/^stat::number_of_executed_units: *//p' "$f" | tail -1)
  execs=$((execs + ${e:-0}))
done
cov=$(grep -ho 'cov: [0-9]* ft: [0-9]*' logs/job-*.log | sort -t' ' -k2,2n | tail -1 || true)
after=$(ls corpus | wc -l)
findings=$( (ls crash-* timeout-* oom-* leak-* 2>/dev/null || true) | wc -l)
echo "[sieve campaign] $execs executions in $took s ($((execs / (took > 0 ? took : 1))) a second, $jobs job(s));" \
  "coverage ${cov:-unknown} (libFuzzer's edges and features); corpus $before -> $after inputs;" \
  "findings: $findings"
if [ "$findings" -gt 0 ]; then
  ls crash-* timeout-* oom-* leak-* 2>/dev/null | sed 's/^/[sieve campaign] finding: build-fuzz-fast\//'
  grep -h "sieve fuzz:" logs/job-*.log | sort -u | head -20 || true
fi
if [ "$save" -eq 1 ]; then
  kept=$(ls "$root/tests/fuzz/corpus" | wc -l)
  # (the first directory gains the inputs of the others that add coverage)
  "$bin" -merge=1 -max_len=1024 "$root/tests/fuzz/corpus" corpus >logs/merge.log 2>&1
  n_new=$(($(ls "$root/tests/fuzz/corpus" | wc -l) - kept))
  echo "[sieve campaign] --save: $n_new inputs that add coverage merged into tests/fuzz/corpus"
fi
[ "$findings" -eq 0 ] || exit 1
exit "$status"
