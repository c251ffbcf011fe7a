#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Arm's ML SDK (scenario-runner + ML emulation layer) and openvgf side by side on a GPU machine,
# from two folders carried there: openvgf's bundle (benchmarks/bundle.sh) and the peer's
# already-built binaries (layout in README.md of this folder). Builds nothing.
#
#   benchmarks/peers/arm-mlsdk/run-h200.sh --bundle build/bundle --peer /path/armpeer [--out DIR]
#
# Writes DIR/arm-mlsdk-<slug>.{json,md}: every zoo model and operator-sweep case converted with
# `openvgf convert --format arm-graph`, plus Arm's model-converter fixture, run through both
# stacks (compare.py: outputs compared, GPU and host time per inference).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
BUNDLE="" PEER="" OUT="$PWD/arm-mlsdk-results" WORK="${TMPDIR:-/tmp}/arm-mlsdk-work" SLUG=h200
MODELS=mobilenet_v2,mobilenet_v2_int8,resnet50,resnet50_int8,bert_layer
SWEEP="" REPEAT=20 DEVICE="" JOBS=1 PYTHON="${PYTHON:-python3}"

usage() {
  cat <<EOF
usage: run-h200.sh --bundle DIR --peer DIR [options]
  --bundle DIR    openvgf bundle (benchmarks/bundle.sh BUILD DIR): openvgf, openvgf-zoo, openvgf-op-sweep
  --peer DIR      the peer: bin/scenario-runner, lib/libVkLayer_{Graph,Tensor}.so (+ the libraries they
                  need), share/vulkan/explicit_layer.d/VkLayer_{Graph,Tensor}.json
  --out DIR       results folder (default ./arm-mlsdk-results)
  --work DIR      scratch folder (default \$TMPDIR/arm-mlsdk-work)
  --models LIST   zoo models (default $MODELS; "none" for none)
  --sweep LIST    operator-sweep case-name substrings (default: every case; "none" for none)
  --repeat N      submissions timed per case and stack (default $REPEAT)
  --device D      openvgf --device (scenario-runner picks a discrete GPU first)
  --slug NAME     result file names arm-mlsdk-NAME.* (default $SLUG)
  --jobs N        sweep cases (untimed) run N at a time (default 1); timed cases always run alone
Needs Python 3 with NumPy (\$PYTHON, default python3).
EOF
}

while [ $# -gt 0 ]; do
  case "$1" in
    --bundle) BUNDLE="$2"; shift 2 ;;
    --peer) PEER="$2"; shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    --work) WORK="$2"; shift 2 ;;
    --models) MODELS="$2"; shift 2 ;;
    --sweep) SWEEP="$2"; shift 2 ;;
    --repeat) REPEAT="$2"; shift 2 ;;
    --device) DEVICE="$2"; shift 2 ;;
    --slug) SLUG="$2"; shift 2 ;;
    --jobs) JOBS="$2"; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    *) echo "run-h200.sh: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
  esac
done
[ -n "$BUNDLE" ] && [ -n "$PEER" ] || { usage >&2; exit 2; }
BUNDLE="$(cd "$BUNDLE" && pwd)" PEER="$(cd "$PEER" && pwd)"
for f in "$BUNDLE/openvgf" "$BUNDLE/openvgf-zoo" "$BUNDLE/openvgf-op-sweep" "$PEER/bin/scenario-runner"; do
  [ -x "$f" ] || { echo "run-h200.sh: $f not found or not executable" >&2; exit 2; }
done
"$PYTHON" -c "import numpy" 2>/dev/null || { echo "run-h200.sh: $PYTHON has no NumPy" >&2; exit 2; }
mkdir -p "$OUT" "$WORK/vgf"

# scenario-runner and the layers find their own libraries in the peer's lib/ (compare.py adds it
# to LD_LIBRARY_PATH for scenario-runner; this check shows what is missing before any run).
missing="$(LD_LIBRARY_PATH="$PEER/lib" ldd "$PEER/bin/scenario-runner" "$PEER"/lib/libVkLayer_*.so | grep 'not found' || true)"
[ -z "$missing" ] || { echo "run-h200.sh: libraries missing for the peer:" >&2; echo "$missing" >&2; exit 2; }
"$BUNDLE/openvgf" devices >"$OUT/arm-mlsdk-$SLUG-devices.txt"

cases=("name=simple_conv2d_rescale_graph,vgf=$repo/tests/data/vgf-graph/simple_conv2d_rescale_graph.vgf")
[ "$MODELS" = none ] || "$BUNDLE/openvgf-zoo" --out "$WORK/zoo" --models "$MODELS" >/dev/null
for m in $([ "$MODELS" = none ] || echo "${MODELS//,/ }"); do
  "$BUNDLE/openvgf" -q convert "$WORK/zoo/$m.tosa" --format arm-graph -o "$WORK/vgf/$m.vgf"
  cases+=("name=$m,vgf=$WORK/vgf/$m.vgf,inputs=$WORK/zoo/$m/inputs,tosa=$WORK/zoo/$m.tosa")
done
if [ "$SWEEP" != none ]; then
  "$BUNDLE/openvgf-op-sweep" --out "$WORK/sweep" ${SWEEP:+--cases "$SWEEP"} >/dev/null
  for t in "$WORK"/sweep/*.tosa; do
    n="$(basename "$t" .tosa)"
    "$BUNDLE/openvgf" -q convert "$t" --format arm-graph -o "$WORK/vgf/sweep_$n.vgf"
    cases+=("name=sweep_$n,vgf=$WORK/vgf/sweep_$n.vgf,inputs=$WORK/sweep/$n/inputs,tosa=$t,time=0")
  done
fi

"$PYTHON" "$here/compare.py" --scenario-runner "$PEER/bin/scenario-runner" --layers "$PEER" \
  --openvgf "$BUNDLE/openvgf" --work "$WORK/cmp" --repeat "$REPEAT" --jobs "$JOBS" ${DEVICE:+--device "$DEVICE"} \
  --json "$OUT/arm-mlsdk-$SLUG.json" "${cases[@]}" | tee "$OUT/arm-mlsdk-$SLUG.txt" || status=$?
{
  echo "# Arm ML SDK (scenario-runner + emulation layer) and openvgf: $SLUG"
  echo
  echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "- devices (openvgf): $(grep -E '^[0-9]+:' "$OUT/arm-mlsdk-$SLUG-devices.txt" | tr '\n' ' ')"
  echo "- host: $(uname -srm), $(nproc) CPUs"
  echo "- command: \`benchmarks/peers/arm-mlsdk/run-h200.sh --bundle $BUNDLE --peer $PEER --repeat $REPEAT --jobs $JOBS --models $MODELS${SWEEP:+ --sweep $SWEEP}\`"
  echo
  sed -n '/^$/,$p' "$OUT/arm-mlsdk-$SLUG.txt" | sed '1d'
} >"$OUT/arm-mlsdk-$SLUG.md"
echo "run-h200.sh: $OUT/arm-mlsdk-$SLUG.md"
exit "${status:-0}"
