#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The openvgf benchmark suite: writes the model zoo, times `openvgf convert` (cold and with a
# warm shader cache), runs `openvgf bench` on every model, checks each model once with
# `openvgf run --check` against the reference interpreter, optionally compares with PyTorch
# (benchmarks/torch_compare.py), and writes benchmarks/results/<device-slug>.json and .md.
#
# It never builds anything when the binaries exist, so it runs on a machine that only has a
# copied build folder (pass --build DIR, or --openvgf / --zoo-bin for the binaries).
#
#   benchmarks/run.sh                                   # every model, default device
#   benchmarks/run.sh --device 0 --models mobilenet_v2,resnet50 --batch-models mobilenet_v2
#   benchmarks/run.sh --build build/release --quick     # short timing, small models only
#   benchmarks/run.sh --models mobilenet_v2,resnet50 --arm-graph --slug h100-arm-graph
#                                                       # the same models through Arm-style GRAPH VGFs
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${ROOT}/build/release"
OPENVGF=""
ZOO_BIN=""
DEVICE=""
MODELS=""
BATCH_MODELS="mobilenet_v2,resnet50"
BATCH=32
WORK=""
RESULTS="${ROOT}/benchmarks/results"
SLUG=""
WARMUP=5
ITERATIONS=50
MIN_TIME=2
CHECK_MAX_GMAC=20
TORCH_PY=""
NO_TORCH=0
PREVIOUS=""
QUICK=0
TARGET=portable
PRECISION=fp32
ARM_GRAPH=0
ORIGINAL_ARGS="$*"

usage() {
  sed -n '2,14p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
  cat <<EOF

Options:
  --build DIR          build folder with cli/openvgf and benchmarks/models/openvgf-zoo ($BUILD)
  --openvgf PATH       openvgf binary (default DIR/cli/openvgf)
  --zoo-bin PATH       openvgf-zoo binary (default DIR/benchmarks/models/openvgf-zoo)
  --bundle DIR         use DIR/openvgf and DIR/openvgf-zoo (a folder made by benchmarks/bundle.sh)
  --device D           Vulkan device index or name substring (passed to openvgf)
  --target T           conversion target passed to openvgf convert: portable (default) or native
                       (fast paths of the converting machine's device; pair it with --slug)
  --precision P        passed to openvgf convert: fp32 (default), fp16 or bf16 (fp32 GEMM operands on
                       fp16 / bf16 cooperative matrices, needs --target native); then PyTorch runs the
                       models in fp16 / bf16 too (torch_compare.py --half / --bf16) and the reference
                       --check is skipped (it applies fp32 rules); fp16x3, bf16x3 and fp32-bf16 (fp32
                       GEMM operands as fp16 pairs / bf16 parts) keep PyTorch in fp32 and the --check
  --arm-graph          write each model as an Arm-style GRAPH VGF (openvgf convert --format arm-graph),
                       time lowering it to compute shaders (openvgf convert arm.vgf), bench the lowered
                       VGF and run --check on the GRAPH VGF itself; compare with a run without it
  --models a,b         zoo models at batch 1 (default: all; see openvgf-zoo --list)
  --batch-models a,b   CNNs also measured at --batch (default $BATCH_MODELS; "" for none)
  --batch N            batch size of --batch-models (default $BATCH)
  --work DIR           scratch folder for models, VGFs and outputs (default: a temp dir)
  --results DIR        where <slug>.json/.md go (default benchmarks/results)
  --slug NAME          result file name (default: from the device name openvgf reports)
  --warmup N --iterations N --min-time S    passed to openvgf bench ($WARMUP, $ITERATIONS, $MIN_TIME)
  --check-max-gmac G   skip the reference --check for models above G GMAC (default $CHECK_MAX_GMAC)
  --torch-python PY    python with torch for torch_compare.py (default: the first of python3,
                       /usr/bin/python3 that imports torch)
  --no-torch           skip the PyTorch comparison
  --previous FILE      results JSON of an earlier run on this device: models not measured
                       now are kept (to split the suite over several commands)
  --quick              warmup 2, iterations 5, min-time 0, small models only (a smoke run)
EOF
}

while [ $# -gt 0 ]; do
  case "$1" in
    --build) BUILD="$2"; shift 2 ;;
    --openvgf) OPENVGF="$2"; shift 2 ;;
    --zoo-bin) ZOO_BIN="$2"; shift 2 ;;
    --bundle) OPENVGF="$2/openvgf"; ZOO_BIN="$2/openvgf-zoo"; shift 2 ;;
    --device) DEVICE="$2"; shift 2 ;;
    --target) TARGET="$2"; shift 2 ;;
    --precision) PRECISION="$2"; shift 2 ;;
    --arm-graph) ARM_GRAPH=1; shift ;;
    --models) MODELS="$2"; shift 2 ;;
    --batch-models) BATCH_MODELS="$2"; shift 2 ;;
    --batch) BATCH="$2"; shift 2 ;;
    --work) WORK="$2"; shift 2 ;;
    --results) RESULTS="$2"; shift 2 ;;
    --slug) SLUG="$2"; shift 2 ;;
    --warmup) WARMUP="$2"; shift 2 ;;
    --iterations) ITERATIONS="$2"; shift 2 ;;
    --min-time) MIN_TIME="$2"; shift 2 ;;
    --check-max-gmac) CHECK_MAX_GMAC="$2"; shift 2 ;;
    --torch-python) TORCH_PY="$2"; shift 2 ;;
    --no-torch) NO_TORCH=1; shift ;;
    --previous) PREVIOUS="$2"; shift 2 ;;
    --quick) QUICK=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "run.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done

BUILD="$(cd "$BUILD" 2>/dev/null && pwd || echo "$BUILD")"
OPENVGF="${OPENVGF:-$BUILD/cli/openvgf}"
ZOO_BIN="${ZOO_BIN:-$BUILD/benchmarks/models/openvgf-zoo}"
for bin in "$OPENVGF" "$ZOO_BIN"; do
  if [ ! -x "$bin" ]; then
    echo "run.sh: $bin not found; build first (cmake --build $BUILD) or pass --build/--openvgf/--zoo-bin" >&2
    exit 2
  fi
done
if [ "$QUICK" = 1 ]; then
  WARMUP=2; ITERATIONS=5; MIN_TIME=0
  [ -n "$MODELS" ] || MODELS="mobilenet_v2,mobilenet_v2_int8,bert_layer,matmul_512_fp32,matmul_512_fp16,conv3x3_56x56x64,conv1x1_56x56x256x64"
  BATCH_MODELS=""
fi

# Python for the report (json only) and for torch_compare.py (needs torch + numpy).
REPORT_PY=""
for py in python3 /usr/bin/python3; do
  if command -v "$py" >/dev/null 2>&1; then REPORT_PY="$py"; break; fi
done
[ -n "$REPORT_PY" ] || { echo "run.sh: python3 is needed for the report" >&2; exit 2; }
if [ "$NO_TORCH" = 0 ] && [ -z "$TORCH_PY" ]; then
  for py in python3 /usr/bin/python3; do
    if command -v "$py" >/dev/null 2>&1 && "$py" -c "import torch, numpy" >/dev/null 2>&1; then
      TORCH_PY="$py"; break
    fi
  done
  [ -n "$TORCH_PY" ] || echo "run.sh: no python with torch found; skipping the PyTorch comparison"
fi

CLEANUP_WORK=0
if [ -z "$WORK" ]; then
  WORK="$(mktemp -d -t openvgf-bench.XXXXXX)"
  CLEANUP_WORK=1
fi
mkdir -p "$WORK"/{zoo,vgf,bench,outputs,logs}
trap '[ "$CLEANUP_WORK" = 1 ] && rm -rf "$WORK"' EXIT
# Shader (converter) and pipeline (runner) caches live under XDG_CACHE_HOME, Mesa's shader
# cache too, NVIDIA's under __GL_SHADER_DISK_CACHE_PATH: a private folder per run, emptied
# before each model's cold measurements.
CACHE="$WORK/cache"
export XDG_CACHE_HOME="$CACHE"
export __GL_SHADER_DISK_CACHE_PATH="$CACHE/nvidia"
DEVICE_ARGS=()
[ -n "$DEVICE" ] && DEVICE_ARGS=(--device "$DEVICE")

now() { echo "${EPOCHREALTIME}"; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }

echo "== openvgf benchmark suite"
echo "openvgf: $OPENVGF ($("$OPENVGF" --version 2>/dev/null || echo unknown version))"
echo "work:    $WORK"

# 1. The zoo.
ZOO_ARGS=()
[ -n "$MODELS" ] && ZOO_ARGS=(--models "$MODELS")
"$ZOO_BIN" --out "$WORK/zoo" "${ZOO_ARGS[@]}" | tee "$WORK/logs/zoo.txt"
if [ -n "$BATCH_MODELS" ]; then
  "$ZOO_BIN" --out "$WORK/zoo" --models "$BATCH_MODELS" --batch "$BATCH" | tee -a "$WORK/logs/zoo.txt"
fi
STEMS=()
while read -r stem _; do STEMS+=("$stem"); done < <(grep -- '->' "$WORK/logs/zoo.txt")

# 2..4. Per model: convert (cold, cached), bench, run + check.
RECORDS="$WORK/records.jsonl"
: > "$RECORDS"
rm -f "$WORK/torch.json"
for stem in "${STEMS[@]}"; do
  tosa="$WORK/zoo/$stem.tosa"
  vgf="$WORK/vgf/$stem.vgf"
  log="$WORK/logs/$stem.txt"
  echo "-- $stem"
  rm -rf "$CACHE" && mkdir -p "$CACHE/nvidia"
  convert_rc=0
  # What `convert` reads and what `run --check` runs: the .tosa and its VGF, or (--arm-graph)
  # the Arm-style GRAPH VGF, whose lowering is then what the convert times measure.
  source="$tosa"
  runnable="$vgf"
  : >"$log"
  if [ "$ARM_GRAPH" = 1 ]; then
    source="$WORK/vgf/$stem.arm.vgf"
    runnable="$source"
    "$OPENVGF" convert "$tosa" --format arm-graph -o "$source" >>"$log" 2>&1 || convert_rc=$?
  fi
  t0=$(now)
  [ "$convert_rc" = 0 ] && { "$OPENVGF" convert "$source" --target "$TARGET" --precision "$PRECISION" -o "$vgf" >>"$log" 2>&1 || convert_rc=$?; }
  t1=$(now)
  cold=$(elapsed "$t0" "$t1")
  cached=null
  if [ "$convert_rc" = 0 ]; then
    t0=$(now)
    "$OPENVGF" convert "$source" --target "$TARGET" --precision "$PRECISION" -o "$vgf" >>"$log" 2>&1 || convert_rc=$?
    t1=$(now)
    cached=$(elapsed "$t0" "$t1")
  fi
  bench_rc=null; check_rc=null
  if [ "$convert_rc" = 0 ]; then
    # The pipeline cache is empty here (cold); openvgf bench measures the warm case itself.
    bench_rc=0
    "$OPENVGF" bench "$vgf" "${DEVICE_ARGS[@]}" --warmup "$WARMUP" --iterations "$ITERATIONS" \
      --min-time "$MIN_TIME" --json >"$WORK/bench/$stem.json" 2>>"$log" || bench_rc=$?
    inputs=()
    while read -r name file; do inputs+=(-i "$name=$WORK/zoo/$stem/$file"); done < <(
      "$REPORT_PY" -c 'import json,sys; d=json.load(open(sys.argv[1]))
for i, f in zip(d["inputs"], d["input_files"]): print(i["name"], f)' "$WORK/zoo/$stem/model.json")
    gmac=$("$REPORT_PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["macs"] / 1e9)' "$WORK/zoo/$stem/model.json")
    check_args=()
    if { [ "$PRECISION" = fp32 ] || [ "$PRECISION" = fp16x3 ] || [ "$PRECISION" = bf16x3 ] || [ "$PRECISION" = fp32-bf16 ]; } && awk -v g="$gmac" -v m="$CHECK_MAX_GMAC" 'BEGIN { exit !(g <= m) }'; then
      check_args=(--check "$tosa")
    fi
    mkdir -p "$WORK/outputs/$stem"
    echo "-- run" >>"$log"
    check_rc=0
    "$OPENVGF" run "$runnable" "${inputs[@]}" "${DEVICE_ARGS[@]}" --target "$TARGET" --output-dir "$WORK/outputs/$stem" \
      "${check_args[@]}" >>"$log" 2>&1 || check_rc=$?
    [ ${#check_args[@]} -eq 0 ] && [ "$check_rc" = 0 ] && check_rc='"skipped"'
    # Exit status 0 counts as a pass only when openvgf printed a verdict for the check.
    if [ ${#check_args[@]} -gt 0 ] && [ "$check_rc" = 0 ] &&
       ! grep -qiE 'check|complian|verdict' <(sed -n '/^-- run$/,$p' "$log"); then
      check_rc='"no verdict printed"'
    fi
  fi
  echo "   convert ${cold} s cold, ${cached/null/-} s cached; bench rc ${bench_rc/null/-}; run/check rc ${check_rc/null/-}"
  "$REPORT_PY" - "$stem" "$cold" "$cached" "$convert_rc" "$bench_rc" "$check_rc" "$WORK" >>"$RECORDS" <<'PY'
import json, os, sys
stem, cold, cached, convert_rc, bench_rc, check_rc, work = sys.argv[1:]
rec = {"stem": stem, "convert_cold_s": json.loads(cold), "convert_cached_s": json.loads(cached),
       "convert_rc": int(convert_rc), "bench_rc": json.loads(bench_rc), "check": json.loads(check_rc)}
desc = json.load(open(os.path.join(work, "zoo", stem, "model.json")))
rec.update({"family": desc["family"], "macs": desc["macs"], "parameters": desc["parameters"],
            "batch": desc.get("batch", 1)})
try:
    rec["bench"] = json.load(open(os.path.join(work, "bench", stem + ".json")))
except (OSError, ValueError):
    rec["bench"] = None
log = open(os.path.join(work, "logs", stem + ".txt"), errors="replace").read().strip().splitlines()
if rec["convert_rc"] or rec["bench_rc"] or not (rec["check"] == 0 or isinstance(rec["check"], str)):
    rec["log_tail"] = log[-5:]
print(json.dumps(rec))
PY
done

# 5. The report (and the PyTorch comparison, which reads the report for its ratio column).
# The device name comes from the bench results, else from `openvgf devices --json`.
DEVICE_NAME="$("$OPENVGF" devices --json 2>/dev/null | "$REPORT_PY" -c '
import json, sys
want = sys.argv[1]
try:
    devices = json.load(sys.stdin)["devices"]
except (ValueError, KeyError):
    sys.exit(0)
for d in devices:
    if (want == "" and d.get("default")) or (want.isdigit() and str(d.get("index")) == want) or \
       (want and not want.isdigit() and want.lower() in d.get("name", "").lower()):
        print(d.get("name", "")); break
' "$DEVICE" || true)"
mkdir -p "$RESULTS"
"$REPORT_PY" "$ROOT/benchmarks/report.py" --records "$RECORDS" --results "$RESULTS" --slug "$SLUG" \
  --device-name "$DEVICE_NAME" --openvgf-version "$("$OPENVGF" --version 2>/dev/null || true)" --command "benchmarks/run.sh $ORIGINAL_ARGS" --write-json-only
SLUG_FILE="$RESULTS/.last-slug"
SLUG="$(cat "$SLUG_FILE")"
if [ -n "$TORCH_PY" ]; then
  TORCH_DEVICE=cpu
  "$TORCH_PY" -c "import torch,sys; sys.exit(0 if torch.cuda.is_available() else 1)" 2>/dev/null && TORCH_DEVICE=cuda
  echo "== PyTorch comparison ($TORCH_PY, $TORCH_DEVICE)"
  "$TORCH_PY" "$ROOT/benchmarks/torch_compare.py" --zoo "$WORK/zoo" --models "$(IFS=,; echo "${STEMS[*]}")" \
    --outputs "$WORK/outputs" --device "$TORCH_DEVICE" --openvgf "$RESULTS/$SLUG.json" \
    --warmup "$WARMUP" --iterations "$ITERATIONS" --min-time "$MIN_TIME" --json "$WORK/torch.json" \
    $([ "$PRECISION" = fp16 ] && echo --half) $([ "$PRECISION" = bf16 ] && echo --bf16) ||
    echo "run.sh: torch_compare.py reported failures (see above)"
fi
"$REPORT_PY" "$ROOT/benchmarks/report.py" --records "$RECORDS" --results "$RESULTS" --slug "$SLUG" \
  --device-name "$DEVICE_NAME" --openvgf-version "$("$OPENVGF" --version 2>/dev/null || true)" --command "benchmarks/run.sh $ORIGINAL_ARGS" --torch "$WORK/torch.json" \
  ${PREVIOUS:+--previous "$PREVIOUS"}
rm -f "$SLUG_FILE"
echo "== wrote $RESULTS/$SLUG.json and $RESULTS/$SLUG.md"
