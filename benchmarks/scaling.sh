#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Scaling over the GPUs of one host (issue 34): for each model, `openvgf bench --devices`
# (a DevicePool in one process: each device alone, then all together) and, when a Python with
# openvgf's package and Dask is given, benchmarks/dask_scaling.py (one Dask worker per device).
# Efficiency = throughput together / the sum of each device alone (N equal devices: thr(N) / (N x thr(1))).
#
#   benchmarks/scaling.sh --bundle DIR --out OUT [--models resnet50,mobilenet_v2] [--batch 32]
#       [--devices all] [--jobs 2] [--iterations 100] [--target native] [--precision fp32]
#       [--python PY --pythonpath DIR]
#
# Writes OUT/<stem>.pool.json (bench --devices --json), OUT/<stem>.dask.json (dask_scaling.py)
# and OUT/scaling.log (everything printed).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUNDLE="" OUTDIR="" MODELS="resnet50,mobilenet_v2" BATCH=32 DEVICES=all JOBS=2 ITERATIONS=100
TARGET=native PRECISION=fp32 PY="" PYPATH="" WORK="${TMPDIR:-/tmp}/openvgf-scaling"
usage() { sed -n '3,13p' "$0" | sed 's/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
  case "$1" in
    --bundle) BUNDLE="$2"; shift 2 ;;
    --out) OUTDIR="$2"; shift 2 ;;
    --models) MODELS="$2"; shift 2 ;;
    --batch) BATCH="$2"; shift 2 ;;
    --devices) DEVICES="$2"; shift 2 ;;
    --jobs) JOBS="$2"; shift 2 ;;
    --iterations) ITERATIONS="$2"; shift 2 ;;
    --target) TARGET="$2"; shift 2 ;;
    --precision) PRECISION="$2"; shift 2 ;;
    --python) PY="$2"; shift 2 ;;
    --pythonpath) PYPATH="$2"; shift 2 ;;
    --work) WORK="$2"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "scaling.sh: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
  esac
done
[ -n "$BUNDLE" ] && [ -n "$OUTDIR" ] || { echo "scaling.sh: --bundle and --out are required" >&2; usage >&2; exit 2; }
OPENVGF="$BUNDLE/openvgf"
ZOO="$BUNDLE/openvgf-zoo"
mkdir -p "$OUTDIR" "$WORK"
exec > >(tee -a "$OUTDIR/scaling.log") 2>&1

"$OPENVGF" devices | grep -E '^[0-9]+:' || true
"$ZOO" --out "$WORK/zoo" --models "$MODELS" --batch "$BATCH" | grep -- '->'
for model in ${MODELS//,/ }; do
  stem="${model}_b${BATCH}"
  vgf="$WORK/$stem.$PRECISION.vgf"
  "$OPENVGF" convert "$WORK/zoo/$stem.tosa" -o "$vgf" --target "$TARGET" --precision "$PRECISION"
  echo "== $stem ($PRECISION, --target $TARGET): one process, DevicePool"
  "$OPENVGF" bench "$vgf" --devices "$DEVICES" --jobs "$JOBS" --iterations "$ITERATIONS" --json \
    >"$OUTDIR/$stem.pool.json"
  cat "$OUTDIR/$stem.pool.json"
  if [ -n "$PY" ]; then
    echo "== $stem ($PRECISION): Dask, one worker per device"
    PYTHONPATH="$PYPATH" "$PY" "$ROOT/benchmarks/dask_scaling.py" "$vgf" --devices "$DEVICES" \
      --json "$OUTDIR/$stem.dask.json"
  fi
done
