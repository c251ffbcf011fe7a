#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Instructions per inference of a model on a CPU Vulkan device (lavapipe), counted by valgrind:
# a deterministic figure for comparing kernel variants on a machine whose timings are noisy
# (a shared 2-core VM ran the same build 40 % slower in some phases than in others). It is the
# difference between a process that runs the model three times and one that runs it once, so
# start-up, conversion and the driver's compiles cancel. Under valgrind LLVM compiles for the
# CPU valgrind presents (AVX2, no AVX-512), so the counts are a proxy for time, not a
# prediction of it: confirm a result with alternating timed runs.
#
#   benchmarks/instructions.sh OPENVGF_BINARY CACHE_DIR MODEL [openvgf run options]
#
# CACHE_DIR: a folder for the model cache and Mesa's shader cache, one per build compared
# (a first, uncounted run fills it). Run options default to --random-inputs. Needs valgrind
# (Debian package valgrind). Prints "N M instructions per inference".
set -euo pipefail
if [ $# -lt 3 ] || [ "$1" = "-h" ] || [ "$1" = "--help" ]; then
  sed -n '3,15p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
BIN=$1 CACHE=$2 MODEL=$3
shift 3
ARGS=("$@")
[ ${#ARGS[@]} -eq 0 ] && ARGS=(--random-inputs)
command -v valgrind >/dev/null || { echo "instructions.sh: valgrind not found (apt install valgrind)" >&2; exit 2; }
mkdir -p "$CACHE"
export XDG_CACHE_HOME="$CACHE" MESA_SHADER_CACHE_DIR="$CACHE/mesa"
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
# JIT code: valgrind must see the driver's freshly compiled shaders as new code.
valgrind --tool=none --smc-check=all-non-file "$BIN" run "$MODEL" "${ARGS[@]}" -o "$OUT/y.npy" -q >/dev/null 2>&1
count() {
  valgrind --tool=callgrind --smc-check=all-non-file --callgrind-out-file=/dev/null \
    "$BIN" run "$MODEL" "${ARGS[@]}" -o "$OUT/y.npy" --repeat "$1" -q 2>&1 | sed -n 's/.*Collected : //p'
}
one=$(count 1)
three=$(count 3)
if [ -z "$one" ] || [ -z "$three" ]; then
  echo "instructions.sh: valgrind counted nothing (does '$BIN run $MODEL ${ARGS[*]}' work?)" >&2
  exit 1
fi
echo "$(((three - one) / 2 / 1000000)) M instructions per inference"
