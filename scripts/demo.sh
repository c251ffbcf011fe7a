#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `make demo`: the main job end to end on MobileNetV2.
#   1. openvgf-zoo writes mobilenet_v2.tosa (seeded weights) and a deterministic input image;
#   2. openvgf convert turns it into a VGF;
#   3. openvgf run executes it on the default Vulkan device (lavapipe when there is no GPU),
#      ten times, with --check against the built-in TOSA reference interpreter;
#   4. the top-5 classes of the output, the latency and the verdict are printed, then where
#      the openvgf command is and what to try next.
# Usage: scripts/demo.sh [BUILD_DIR]   (default build/release; OPENVGF_DEVICE picks a device)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${1:-$ROOT/build/release}"
OPENVGF="$BUILD/cli/openvgf"
ZOO="$BUILD/benchmarks/models/openvgf-zoo"
WORK="$BUILD/demo"
MODEL=mobilenet_v2

say() { printf '\n== %s\n' "$*"; }
fail() { printf '\ndemo: %s\n' "$*" >&2; exit 1; }

[ -x "$OPENVGF" ] || fail "$OPENVGF is missing: build first (make build)"
[ -x "$ZOO" ] || fail "$ZOO is missing: configure with -DOPENVGF_BUILD_BENCHMARKS=ON and build"
subcommands="$("$OPENVGF" --help 2>&1 | awk '/^Subcommands:/ { on = 1; next } on { print $1 }')"
for command in convert run devices; do
  echo "$subcommands" | grep -qx "$command" ||
    fail "this openvgf has no '$command' subcommand (built without the converter/runner?)"
done
PY=""
for candidate in python3 /usr/bin/python3; do
  if command -v "$candidate" >/dev/null 2>&1 && "$candidate" -c "import numpy" >/dev/null 2>&1; then
    PY="$candidate"; break
  fi
done
mkdir -p "$WORK"

say "1. model: $MODEL from the zoo (seeded weights, batch 1, 224x224x3 NHWC)"
"$ZOO" --out "$WORK" --models "$MODEL" --no-weights
TOSA="$WORK/$MODEL.tosa"
INPUT="$WORK/$MODEL/inputs/input.npy"

say "2. convert: $TOSA -> $MODEL.vgf"
start=${EPOCHREALTIME}
"$OPENVGF" convert "$TOSA" -o "$WORK/$MODEL.vgf"
awk -v a="$start" -v b="${EPOCHREALTIME}" 'BEGIN { printf "converted in %.2f s\n", b - a }'

say "3. device"
DEVICE_ARGS=()
[ -n "${OPENVGF_DEVICE:-}" ] && DEVICE_ARGS=(--device "$OPENVGF_DEVICE")
"$OPENVGF" devices | grep -E '^\s*[0-9]+:' || true
device_line="$("$OPENVGF" devices | grep -E '^\s*[0-9]+:.*\[default\]' || true)"
if [ -n "${OPENVGF_DEVICE:-}" ]; then
  echo "using device '$OPENVGF_DEVICE' (OPENVGF_DEVICE)"
elif echo "$device_line" | grep -qiE 'llvmpipe|lavapipe|\(cpu\)'; then
  echo "no GPU found: running on lavapipe (Mesa's Vulkan on the CPU); expect CPU speed, not GPU speed"
else
  echo "running on: ${device_line#*: }"
fi

say "4. run 10x with --check against the TOSA reference interpreter"
set +e
"$OPENVGF" run "$WORK/$MODEL.vgf" -i "input=$INPUT" -o "$WORK/logits.npy" --repeat 10 --check "$TOSA" \
  "${DEVICE_ARGS[@]}" 2>&1 | tee "$WORK/run.log"
rc=${PIPESTATUS[0]}
set -e

if [ -f "$WORK/logits.npy" ] && [ -n "$PY" ]; then
  say "top-5 classes of the deterministic input (random weights: class indices, no labels)"
  "$PY" - "$WORK/logits.npy" <<'PY'
import sys
import numpy as np
logits = np.load(sys.argv[1]).astype(np.float64).reshape(-1)
p = np.exp(logits - logits.max()); p /= p.sum()
for rank, k in enumerate(np.argsort(-logits)[:5], 1):
    print("  %d. class %4d  logit %8.4f  p %.4f" % (rank, k, logits[k], p[k]))
PY
fi

say "verdict"
latency="$(grep -E 'runs on .*median' "$WORK/run.log" | tail -1 || true)"
[ -n "$latency" ] && echo "latency: ${latency#*: }"
if [ "$rc" = 0 ] && ! grep -qiE 'check|complian|verdict' "$WORK/run.log"; then
  echo "RAN: the model ran, but this openvgf printed no --check verdict, so nothing was compared"
  exit 1
fi
case "$rc" in
  0) echo "PASS: every output matches the TOSA reference within TOSA's compliance rules" ;;
  1) echo "FAIL: outputs differ from the TOSA reference, or the run failed (see above)" ;;
  3) echo "INCONCLUSIVE: the tolerance TOSA's per-operator rules give this deep model's output is wider than the output" \
       "(docs/running.md#judging-deep-graphs); judge it operator by operator with: openvgf compare $TOSA -i $INPUT" ;;
  *) echo "ERROR: openvgf run exited with $rc (see above)" ;;
esac

# Where the tool is and what to try next, whatever the verdict.
bin="$(cd "$(dirname "$OPENVGF")" && pwd)"
say "next steps"
echo "the openvgf command: $bin/openvgf"
echo "  export PATH=$bin:\$PATH"
echo "  openvgf inspect $WORK/$MODEL.vgf                 # what the VGF holds"
echo "  openvgf run $WORK/$MODEL.vgf -i input=$INPUT       # run it, preview the output"
echo "  openvgf --help, README.md (\"A first model run\"), docs/commands.md"
exit "$rc"
