#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Batch-32 fp16 host-to-host on the H200 with the first layers run a piece of the batch at a
# time (bench --overlap): off, default, fewer and more dispatches; PyTorch in the same call.
set -u
G=$PWD/.gpu/ov; B=/tmp/ov/bundle
mkdir -p /tmp/ov && tar -xJf $G/bundle.tar.xz -C /tmp/ov
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
# Correctness of the transfer-queue path: pieces against whole, bytes and the reference.
LD_LIBRARY_PATH=$B/lib timeout 120 $G/converter_batch_pieces_test 2>&1 | grep -v "RUN" | tail -8
mkdir -p /tmp/z && $B/openvgf-zoo --out /tmp/z --models mobilenet_v2_b32 --batch 32 > /dev/null
# The default (pieces on) against the reference interpreter, portable and native fp32.
for t in portable native; do timeout 240 $B/openvgf run /tmp/z/mobilenet_v2_b32.tosa --target $t --check -v 2>&1 | grep -i "pieces\|PASS\|FAIL\|error" | tail -3; done
PYTHONUNBUFFERED=1 python3 benchmarks/compare_bundles.py --bundle off=$B --bench-args 'off=--overlap 0' \
  --bundle on=$B --bundle on6=$B --bench-args 'on6=--overlap 6' --bundle on24=$B --bench-args 'on24=--overlap 24' \
  --models resnet50_b32,mobilenet_v2_b32 --zoo-args '--batch 32' --target native --precision fp16 --pipelined 1 \
  --rounds 2 --iterations 100 --min-time 0.3 --torch-python python3 --out "$OUT/h200-b32-overlap" --work /tmp/cb 2>&1 | grep -v '^+ '
