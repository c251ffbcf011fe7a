#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Where a network's GPU time goes, layer by layer, in openvgf and in PyTorch.

Runs torch_compare.py's PyTorch rebuild of a zoo model eagerly under torch.profiler, sums the
CUDA kernels each model.json layer launches, and lines them up with an `openvgf run --profile`
trace of the same model. The two sides fuse differently (openvgf folds CLAMP and residual ADDs
into the convolution before them; PyTorch runs them as kernels of their own), so each side's
time is grouped by "anchor" layer: a CONV2D, pool, MATMUL, ... together with the element-wise
layers after it. Anchors are matched by their ordinal (the k-th CONV2D of both). Medians over
the profiled runs.

  layer_compare.py --zoo ZOO --model resnet50_b32 [--half] [--runs 20] --openvgf TRACE.json
                   [--json OUT.json] [--trace-out torch_trace.json]
"""
import argparse
import collections
import json
import os
import re
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # torch_compare.py
import torch  # noqa: E402
from profile_table import medians  # noqa: E402  (this folder)
from torch_compare import Model, load_npy  # noqa: E402

ANCHORS = {"CONV2D", "DEPTHWISE_CONV2D", "TRANSPOSE_CONV2D", "CONV3D", "MATMUL", "MAX_POOL2D", "AVG_POOL2D",
           "FULLY_CONNECTED"}


def torch_layer_times(model, inputs, runs, trace_out=""):
    """Layer index -> median µs of the CUDA kernels launched while that layer ran."""
    steps = model.steps

    def annotated_run():
        env = {i["name"]: t for i, t in zip(model.desc["inputs"], inputs)}
        for index, (name, fn) in enumerate(steps):
            with torch.profiler.record_function("layer:%d" % index):
                env[name] = fn(env)

    with torch.no_grad():
        for _ in range(5):  # cudnn.benchmark picks its algorithms here, outside the profile
            annotated_run()
        torch.cuda.synchronize()
        activities = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
        with torch.profiler.profile(activities=activities) as prof:
            for run in range(runs):
                with torch.profiler.record_function("run:%d" % run):
                    annotated_run()
            torch.cuda.synchronize()
    path = trace_out or tempfile.mktemp(suffix=".json")
    prof.export_chrome_trace(path)
    with open(path) as f:
        events = json.load(f)["traceEvents"]
    if not trace_out:
        os.unlink(path)

    # A kernel belongs to the layer whose CPU range holds the launch call with its correlation id
    # (a runtime call, or a driver call for libraries such as cuDNN that launch through it).
    launches = {}
    ranges = {"layer": [], "run": []}
    kernels = []
    for e in events:
        if e.get("ph") != "X":
            continue
        cat = e.get("cat", "")
        name = e.get("name", "")
        if cat == "user_annotation" and name.split(":")[0] in ranges:
            kind, number = name.split(":")
            ranges[kind].append((e["ts"], e["ts"] + e["dur"], int(number)))
        elif cat in ("cuda_runtime", "cuda_driver") and "correlation" in e.get("args", {}):
            launches[e["args"]["correlation"]] = e["ts"]
        elif cat in ("kernel", "gpu_memcpy", "gpu_memset"):
            kernels.append(e)

    def enclosing(kind, ts):
        for begin, end, number in ranges[kind]:
            if begin <= ts <= end:
                return number
        return None

    per_run = collections.defaultdict(float)  # (run, layer) -> µs
    unassigned = 0.0
    for k in kernels:
        ts = launches.get(k.get("args", {}).get("correlation"))
        layer = enclosing("layer", ts) if ts is not None else None
        run = enclosing("run", ts) if ts is not None else None
        if layer is None or run is None:
            unassigned += k["dur"]
            continue
        per_run[(run, layer)] += k["dur"]
    if unassigned or not per_run:
        print("layer_compare: %.1f µs of %d kernels outside any layer; event categories: %s" % (
            unassigned, len(kernels), dict(collections.Counter(e.get("cat") for e in events))), file=sys.stderr)
    times = {}
    for layer in range(len(steps)):
        times[layer] = statistics.median(per_run.get((run, layer), 0.0) for run in range(runs))
    return times


def group(entries):
    """[(op, label, µs)] in execution order -> [(anchor label, op, µs including followers)]."""
    groups = []
    for op, label, us in entries:
        if op in ANCHORS or not groups:
            groups.append([label, op, us])
        else:
            groups[-1][2] += us
    return groups


def openvgf_entries(trace_path):
    """[(op, dispatch name, median µs)] of an openvgf trace, a split GEMM's passes as one."""
    times, order = medians(trace_path)
    return [(re.sub(r"_\d+$", "", name), name, times[name]) for name in order]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--zoo", required=True)
    p.add_argument("--model", required=True)
    p.add_argument("--half", action="store_true", help="run PyTorch in fp16 (baseline of --precision fp16)")
    p.add_argument("--runs", type=int, default=20)
    p.add_argument("--openvgf", required=True, help="trace written by openvgf run --profile")
    p.add_argument("--json", default="", help="write both columns here")
    p.add_argument("--trace-out", default="", help="keep PyTorch's profiler trace here")
    args = p.parse_args()
    torch.backends.cudnn.benchmark = True
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False

    folder = os.path.join(args.zoo, args.model)
    model = Model(folder, "cuda", half=args.half)
    arrays = [load_npy(os.path.join(folder, f)) for f in model.desc["input_files"]]
    inputs = model.prepare_inputs(arrays)
    times = torch_layer_times(model, inputs, args.runs, args.trace_out)
    layers = model.desc["layers"]
    theirs = group([(layers[i]["op"], "%s %s" % (layers[i]["op"], layers[i]["output"]), times[i])
                    for i in range(len(layers))])
    ours = group(openvgf_entries(args.openvgf))

    # Anchors matched by op and ordinal.
    def keyed(groups):
        seen = collections.Counter()
        out = collections.OrderedDict()
        for label, op, us in groups:
            out[(op, seen[op])] = (label, us)
            seen[op] += 1
        return out

    t, o = keyed(theirs), keyed(ours)
    print("%-24s %-28s %9s %9s %9s" % ("openvgf", "pytorch", "openvgf", "pytorch", "diff µs"))
    rows = []
    for key in o:
        label, us = o[key]
        tl, tus = t.get(key, ("-", 0.0))
        rows.append({"openvgf": label, "pytorch": tl, "openvgf_us": us, "pytorch_us": tus})
        print("%-24s %-28s %9.1f %9.1f %+9.1f" % (label, tl, us, tus, us - tus))
    for key in t:
        if key not in o:
            print("%-24s %-28s %9s %9.1f" % ("-", t[key][0], "-", t[key][1]))
    total_o = sum(us for _, _, us in ours)
    total_t = sum(us for _, _, us in theirs)
    print("%-53s %9.1f %9.1f %+9.1f" % ("total (kernel time, no gaps)", total_o, total_t, total_o - total_t))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"model": args.model, "half": args.half, "rows": rows, "openvgf_total_us": total_o,
                       "pytorch_total_us": total_t}, f, indent=1)


if __name__ == "__main__":
    main()
