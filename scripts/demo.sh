#!/usr/bin/env bash
# The main job on a bundled model (see README): inspect a TOSA graph and run it on the CPU
# reference interpreter. Argument: the build folder.
set -euo pipefail
BUILD=${1:-build/release}
BIN="$BUILD/cli/openvgf"
MODEL=tests/data/tosa/test_add_1x4x4x4_f32
OUT="$BUILD/demo"
"$BIN" --version
echo "== openvgf inspect $MODEL/model.tosa"
"$BIN" inspect "$MODEL/model.tosa"
echo "== openvgf reference $MODEL/model.tosa"
"$BIN" reference "$MODEL/model.tosa" --input "$MODEL/placeholder_0.npy" --input "$MODEL/placeholder_1.npy" \
  --output-dir "$OUT"
echo "== outputs written to $OUT/"
ls "$OUT"
