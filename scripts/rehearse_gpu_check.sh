#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Sieve — rehearse scripts/gpu_check.sh on a machine without a GPU: run it
# with --rehearse (preflight, configure and build for real, then every run
# with the CUDA cases skipping) with PATH stripped to what the GPU machine
# has — the CUDA toolkit, cmake, ninja, a compiler and the base system, but no
# make, no MPI, no nvidia-smi, no clang, no python — and GoogleTest from the
# sources under .deps/ only.
#
#   scripts/rehearse_gpu_check.sh [OUT_DIR]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:-$root/gpu-check-rehearsal}"
bin="$(mktemp -d)"
trap 'rm -rf "$bin"' EXIT
cuda_bin="$(dirname "$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)")"
[ -x "$cuda_bin/nvcc" ] || { echo "rehearsal: no nvcc here: nothing to rehearse" >&2; exit 2; }
for d in /usr/local/bin /usr/bin /bin; do
  for f in "$d"/*; do
    name="$(basename "$f")"
    case "$name" in
      make | gmake | mpi* | orte* | ompi* | oshrun | nvidia-smi | clang* | python* | pip*) continue ;;
    esac
    [ -e "$bin/$name" ] || ln -s "$f" "$bin/$name"
  done
done
path="$bin"
case "$cuda_bin" in
  /usr/bin | /bin | /usr/local/bin) ;; # a distribution's CUDA: its nvcc is linked above
  *) path="$bin:$cuda_bin" ;;
esac
echo "rehearsal: PATH=$path (no make, MPI, nvidia-smi, clang, python)"
env PATH="$path" "$root/scripts/gpu_check.sh" --rehearse "$out"
