#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Rebuilds openvgf-zoo models in PyTorch from their .npy weights and model.json, checks
openvgf's outputs against PyTorch's (an independent second correctness check), and times
PyTorch on the same device: CPU, or CUDA eager and CUDA graphs on an NVIDIA GPU.

The network is rebuilt from the layer list of model.json (one TOSA operator per entry) with
ordinary PyTorch operators (conv2d, matmul, softmax pieces, ...): nothing of openvgf runs here.
CNN activations are kept as NCHW tensors in channels_last memory, the layout PyTorch users
run CNNs in; the NHWC graph input is converted once, outside the timed region.

Also measures, for the micro models, torch.matmul TFLOP/s (fp32 with and without TF32, fp16)
and the device's copy bandwidth (GB/s) beside torch's own ADD.

  torch_compare.py --zoo ZOO --models mobilenet_v2,resnet50 [--outputs OUT] [--device cuda]
                   [--openvgf RESULTS.json] [--json torch.json]

--outputs OUT: folder where `openvgf run` wrote <OUT>/<stem>/<output>.npy (run.sh's layout).
--openvgf RESULTS.json: benchmarks/run.sh results; prints the openvgf/PyTorch ratio per model.
fp16/bf16 (--half, --bf16, fp16 models on CUDA): openvgf's output and PyTorch's, both in that
precision, are each compared with PyTorch in fp32; openvgf passes when its error is at most twice
PyTorch's own (judge_reduced). The direct openvgf-vs-PyTorch-fp16 figures stay in the record.
int8 models are checked with an exact integer emulation of TOSA semantics on the CPU (no
timing: PyTorch has no comparable int8 GPU path); it also reports how many int8 values sit at
the clamp limits, which tells whether the zoo's quantisation scales are realistic.
"""

import argparse
import json
import math
import os
import statistics
import sys
import time

import numpy as np

try:
    import torch
    import torch.nn.functional as F
except ImportError:  # pragma: no cover - reported to the caller
    print("torch_compare: PyTorch is not importable with this python (%s); nothing to do" % sys.executable,
          file=sys.stderr)
    sys.exit(3)

NHWC_TO_NCHW = [0, 3, 1, 2]
NCHW_TO_NHWC = [0, 2, 3, 1]
SPATIAL_OPS = {"CONV2D", "DEPTHWISE_CONV2D", "AVG_POOL2D", "MAX_POOL2D"}
TORCH_DTYPES = {"FP32": torch.float32, "FP16": torch.float16, "INT8": torch.int8, "INT32": torch.int32,
                "INT16": torch.int16, "SHAPE": torch.int64, "BOOL": torch.bool}


def load_npy(path):
    return np.load(path, allow_pickle=False)


class Model:
    """A zoo model as a list of closures over a value table; `run(inputs)` returns outputs."""

    def __init__(self, folder, device, exact_int=False, half=False, bf16=False, fp32=False):
        self.folder = folder
        with open(os.path.join(folder, "model.json")) as f:
            self.desc = json.load(f)
        self.device = device
        self.exact_int = exact_int  # int8 models: emulate in int64/float64 on the CPU
        self.consts = {}
        self.layout = {}  # tensor name -> "nchw" or "plain"
        for name, t in self.desc["tensors"].items():
            if t["kind"] == "weight":
                value = torch.from_numpy(np.ascontiguousarray(load_npy(os.path.join(folder, t["file"]))))
            else:
                value = torch.tensor(t["values"], dtype=torch.float64).reshape(t["shape"])
            self.consts[name] = value
        consumers = {}
        for layer in self.desc["layers"]:
            for i in layer["inputs"]:
                consumers.setdefault(i, []).append(layer["op"])
        self.nchw_inputs = [len(i["shape"]) == 4 and any(op in SPATIAL_OPS for op in consumers.get(i["name"], []))
                            for i in self.desc["inputs"]]
        self.quantized = any(i["dtype"] == "INT8" for i in self.desc["inputs"])
        fp16 = any(i["dtype"] == "FP16" for i in self.desc["inputs"])
        # PyTorch's CPU kernels lack fp16 matmul/conv: there an fp16 model runs in fp32 (a
        # tighter reference); timing it would not be a like-for-like comparison anyway.
        # `half`: an fp32 model runs in fp16 (the fp16 CUDA-graph baseline for ResNet-50 b32 and BERT);
        # `bf16`: in bf16 (the baseline for openvgf convert --precision bf16).
        cuda = str(device).startswith("cuda")
        # `fp32`: always fp32 (the yardstick a reduced-precision run is judged against).
        self.float_type = (torch.float32 if fp32 else
                           torch.float16 if (fp16 or half) and cuda else
                           torch.bfloat16 if bf16 and cuda else torch.float32)
        self._prepare()

    # -- constants ---------------------------------------------------------------------
    def _weight(self, name, dtype=None):
        t = self.consts[name]
        if self.exact_int:
            return t.to(torch.float64) if t.dtype not in (torch.int64,) else t
        return t.to(device=self.device, dtype=dtype or self.float_type)

    def _scalar(self, name):
        return float(self.consts[name].flatten()[0])

    # -- graph ---------------------------------------------------------------------------
    def _prepare(self):
        self.steps = []
        for i, inp in enumerate(self.desc["inputs"]):
            self.layout[inp["name"]] = "nchw" if self.nchw_inputs[i] else "plain"
        for layer in self.desc["layers"]:
            self.steps.append(self._compile(layer))

    def _compile(self, layer):
        op, attrs, ins, out = layer["op"], layer["attrs"], layer["inputs"], layer["output"]
        layout = self.layout
        data = [i for i in ins if i not in self.consts]
        in_nchw = any(layout.get(i) == "nchw" for i in data)
        layout[out] = "nchw" if (op in SPATIAL_OPS or in_nchw) and len(layer["shape"]) == 4 else "plain"
        if op == "RESHAPE":
            layout[out] = "plain"
        exact = self.exact_int

        def operand(name, channel_dim_nchw=False):
            """A getter for an operand: constants are converted and moved to the device once,
            here, so timed runs (and CUDA graph capture) never copy from the host."""
            if name not in self.consts:
                return lambda env: env[name]
            c = self.consts[name]
            c = c.to(torch.float64) if exact else c.to(device=self.device, dtype=self.float_type)
            if channel_dim_nchw and c.dim() == 4:
                c = c.permute(NHWC_TO_NCHW).contiguous()
            return lambda env: c

        if op in ("CONV2D", "DEPTHWISE_CONV2D"):
            x_name, w_name, b_name = ins[0], ins[1], ins[2]
            w = self.consts[w_name]
            if op == "CONV2D":
                weight = w.permute(0, 3, 1, 2)  # OHWI -> OIHW
                groups = 1
            else:
                kh, kw, c, m = w.shape
                weight = w.permute(2, 3, 0, 1).reshape(c * m, 1, kh, kw)  # HWCM -> (C*M)1HW
                groups = c
            bias = self.consts[b_name]
            pad = attrs["pad"]
            stride = attrs["stride"]
            in_zp, w_zp = attrs.get("input_zp", 0), attrs.get("weight_zp", 0)
            if exact:
                weight = weight.to(torch.float64) - w_zp
                bias = bias.to(torch.float64)
            else:
                weight = weight.to(device=self.device, dtype=self.float_type).contiguous(
                    memory_format=torch.channels_last)
                bias = bias.to(device=self.device, dtype=self.float_type)
            symmetric = pad[0] == pad[1] and pad[2] == pad[3]

            def conv(env):
                x = env[x_name]
                if exact:
                    x = x - in_zp
                    # TOSA pads with the zero point, i.e. zero after subtracting it.
                if symmetric:
                    y = F.conv2d(x, weight, bias, stride=stride, padding=(pad[0], pad[2]), groups=groups)
                else:
                    y = F.conv2d(F.pad(x, (pad[2], pad[3], pad[0], pad[1])), weight, bias, stride=stride,
                                 groups=groups)
                return y
            return out, conv
        if op == "MATMUL":
            a, b = operand(ins[0]), operand(ins[1])
            return out, lambda env: torch.matmul(a(env), b(env))
        if op in ("AVG_POOL2D", "MAX_POOL2D"):
            x_name = ins[0]
            k, s, p = attrs["kernel"], attrs["stride"], attrs["pad"]
            if op == "MAX_POOL2D":
                def pool(env):
                    x = env[x_name]
                    if any(p):
                        x = F.pad(x, (p[2], p[3], p[0], p[1]), value=-math.inf)
                    return F.max_pool2d(x, k, s)
                return out, pool

            def avg(env):
                x = env[x_name]
                if any(p):
                    raise ValueError("padded AVG_POOL2D is not used by the zoo")
                if exact:
                    total = F.avg_pool2d(x, k, s, divisor_override=1)
                    return torch.from_numpy(tosa_avg_int(total.numpy(), k[0] * k[1])).to(torch.float64)
                return F.avg_pool2d(x, k, s)
            return out, avg
        if op == "CLAMP":
            x_name, lo, hi = ins[0], attrs["min"], attrs["max"]
            return out, lambda env: torch.clamp(env[x_name], lo, hi)
        if op in ("ADD", "SUB", "MUL", "MAXIMUM"):
            fn = {"ADD": torch.add, "SUB": torch.sub, "MUL": torch.mul, "MAXIMUM": torch.maximum}[op]
            a, b = operand(ins[0], True), operand(ins[1], True)
            return out, lambda env: fn(a(env), b(env))
        if op in ("EXP", "RECIPROCAL", "RSQRT", "TANH", "ERF", "SIGMOID"):
            fn = {"EXP": torch.exp, "RECIPROCAL": torch.reciprocal, "RSQRT": torch.rsqrt, "TANH": torch.tanh,
                  "ERF": torch.erf, "SIGMOID": torch.sigmoid}[op]
            x_name = ins[0]
            return out, lambda env: fn(env[x_name])
        if op in ("REDUCE_SUM", "REDUCE_MAX"):
            axis = attrs["axis"]
            x_name = ins[0]
            if layout.get(x_name) == "nchw":
                axis = NHWC_TO_NCHW.index(axis)
            if op == "REDUCE_SUM":
                return out, lambda env: torch.sum(env[x_name], dim=axis, keepdim=True)
            return out, lambda env: torch.amax(env[x_name], dim=axis, keepdim=True)
        if op == "RESHAPE":
            x_name, shape = ins[0], attrs["shape"]
            was_nchw = layout.get(x_name) == "nchw"

            def reshape(env):
                x = env[x_name]
                if was_nchw:
                    x = x.permute(NCHW_TO_NHWC)
                return x.reshape(shape)
            return out, reshape
        if op == "TRANSPOSE":
            x_name, perms = ins[0], attrs["perms"]
            return out, lambda env: env[x_name].permute(perms)
        if op == "SLICE":
            x_name, start, size = ins[0], attrs["start"], attrs["size"]
            if layout.get(x_name) == "nchw":
                start = [start[i] for i in NHWC_TO_NCHW]
                size = [size[i] for i in NHWC_TO_NCHW]
            index = tuple(slice(b, b + n) for b, n in zip(start, size))
            return out, lambda env: env[x_name][index]
        if op == "RESCALE":
            x_name = ins[0]
            mult = self.consts[ins[1]].to(torch.int64).flatten()
            shift = self.consts[ins[2]].to(torch.int64).flatten()
            in_zp, out_zp = attrs["input_zp"], attrs["output_zp"]
            lo, hi = {"INT8": (-128, 127), "INT16": (-32768, 32767), "INT32": (-2**31, 2**31 - 1)}[layer["dtype"]]
            nchw = layout.get(x_name) == "nchw"

            def rescale(env):
                v = env[x_name].to(torch.int64) - in_zp
                shape = [1] * v.dim()
                if mult.numel() > 1:
                    shape[1 if nchw else v.dim() - 1] = -1
                m, s = mult.reshape(shape), shift.reshape(shape)
                r = (v * m + (1 << (s - 1))) >> s
                r = torch.clamp(r + out_zp, lo, hi)
                self.rescale_stats.append((int((r == lo).sum() + (r == hi).sum()), r.numel()))
                return r.to(torch.float64)
            return out, rescale
        raise ValueError("%s: op %s is not supported by torch_compare" % (self.desc["name"], op))

    def prepare_inputs(self, arrays):
        """npy arrays (graph layout) -> device tensors in the interpreter's layout."""
        tensors = []
        for a, nchw in zip(arrays, self.nchw_inputs):
            t = torch.from_numpy(np.ascontiguousarray(a))
            if self.exact_int:
                t = t.to(torch.float64)
            else:
                t = t.to(device=self.device, dtype=self.float_type)
            if nchw:
                t = t.permute(NHWC_TO_NCHW)
                if not self.exact_int:
                    t = t.contiguous(memory_format=torch.channels_last)
            tensors.append(t)
        return tensors

    def run(self, inputs):
        self.rescale_stats = []
        env = {i["name"]: t for i, t in zip(self.desc["inputs"], inputs)}
        for name, fn in self.steps:
            env[name] = fn(env)
        outs = []
        for o in self.desc["outputs"]:
            t = env[o["name"]]
            if self.layout.get(o["name"]) == "nchw":
                t = t.permute(NCHW_TO_NHWC)
            outs.append(t)
        return outs


def tosa_avg_int(total, count):
    """TOSA AVG_POOL2D integer division: reciprocal_scale(count) + apply_scale_32."""
    k = int(count - 1).bit_length()  # 32 - clz(count - 1)
    multiplier = (((1 << 30) + 1) << k) // count
    shift = 30 + k
    v = total.astype(np.int64)
    r = (v * multiplier + (1 << (shift - 1))) >> shift
    return np.clip(r, -128, 127).astype(np.float64)


def sync(device):
    if device.startswith("cuda"):
        torch.cuda.synchronize()


def time_callable(fn, device, warmup, iterations, min_time):
    for _ in range(warmup):
        fn()
    sync(device)
    times = []
    start_all = time.perf_counter()
    while len(times) < iterations or (time.perf_counter() - start_all) < min_time:
        t0 = time.perf_counter()
        fn()
        sync(device)
        times.append(time.perf_counter() - t0)
        if len(times) >= 10000:
            break
    times.sort()
    return {"min_ms": times[0] * 1e3, "median_ms": statistics.median(times) * 1e3,
            "p90_ms": times[min(len(times) - 1, int(0.9 * len(times)))] * 1e3, "iterations": len(times)}


def cuda_graph_callable(fn):
    """Captures fn (static inputs) into a CUDA graph; returns replay()."""
    return cuda_graph_capture(fn)[0]


def cuda_graph_capture(fn):
    """Captures fn (static inputs) into a CUDA graph; returns (replay, the graph's output tensors)."""
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        outs = fn()
    return graph.replay, outs


def with_host_copies(replay, device_inputs, static_outputs, arrays, nchw_flags, pinned):
    """One host-to-host inference around a captured graph, as an application does it: H2D copies
    of the host inputs into the graph's input tensors, replay, D2H copies of the outputs into
    host tensors. `pinned`: page-locked host tensors and non_blocking copies; else ordinary
    (pageable) host memory and blocking copies."""
    hosts = []
    for a, t, nchw in zip(arrays, device_inputs, nchw_flags):
        h = torch.from_numpy(np.ascontiguousarray(a)).to(t.dtype)
        if pinned:
            h = h.pin_memory()
        if nchw:
            h = h.permute(NHWC_TO_NCHW)  # NHWC bytes = the channels_last layout of the device tensor
        hosts.append(h)
    outs = [torch.empty_like(o, device="cpu", pin_memory=pinned) for o in static_outputs]

    def step():
        for h, t in zip(hosts, device_inputs):
            t.copy_(h, non_blocking=pinned)
        replay()
        for h, o in zip(outs, static_outputs):
            h.copy_(o, non_blocking=pinned)
    return step


def compare(ours, ref, float_type):
    ours = ours.astype(np.float64).reshape(-1)
    ref = ref.astype(np.float64).reshape(-1)
    diff = ours - ref
    norm = np.linalg.norm(ref)
    rel = float(np.linalg.norm(diff) / norm) if norm > 0 else float(np.linalg.norm(diff))
    result = {"max_abs_err": float(np.max(np.abs(diff))) if diff.size else 0.0, "rel_l2_err": rel,
              "ref_rms": float(np.sqrt(np.mean(ref * ref))) if ref.size else 0.0}
    # bf16 keeps 3 significant bits fewer than fp16: 8 times its tolerance.
    tol = 2e-2 if float_type == "FP16" else 1.6e-1 if float_type == "BF16" else 1e-3
    result["tolerance_rel_l2"] = tol
    result["pass"] = bool(rel <= tol and np.all(np.isfinite(ours)))
    return result


def top5(a):
    return np.argsort(-a.astype(np.float64), axis=-1)[..., :5]


def rel_l2(a, ref):
    a = a.astype(np.float64).reshape(-1)
    ref = ref.astype(np.float64).reshape(-1)
    norm = np.linalg.norm(ref)
    return float(np.linalg.norm(a - ref) / norm) if norm > 0 else float(np.linalg.norm(a - ref))


def judge_reduced(ours, torch_reduced, fp32, openvgf_fp32=None):
    """A reduced-precision (fp16/bf16) openvgf output judged the way its users judge one: each
    of openvgf and PyTorch in the same precision against PyTorch in fp32. It passes when
    openvgf's error is at most twice PyTorch's own (or within fp32's 1e-3, whichever is larger):
    agreeing with PyTorch's fp16 rounding is not the aim, staying as close to fp32 is."""
    own = rel_l2(ours, fp32)
    theirs = rel_l2(torch_reduced, fp32)
    result = {"openvgf_vs_torch_fp32_rel_l2": own, "torch_reduced_vs_torch_fp32_rel_l2": theirs,
              "error_ratio_openvgf_over_torch": own / theirs if theirs > 0 else None,
              "pass_rule": "openvgf error <= max(2 x PyTorch's own error, 1e-3), both against PyTorch fp32",
              "pass": bool(own <= max(2.0 * theirs, 1e-3) and np.all(np.isfinite(ours)))}
    if openvgf_fp32 is not None:
        result["openvgf_vs_openvgf_fp32_rel_l2"] = rel_l2(ours, openvgf_fp32)
        result["torch_reduced_vs_openvgf_fp32_rel_l2"] = rel_l2(torch_reduced, openvgf_fp32)
    return result


def check_model(model, args, stem, ref_outputs, fp32_outputs=None):
    """Compares openvgf outputs (if present) with the PyTorch/emulated reference. With
    `fp32_outputs` (the model ran in fp16/bf16 in PyTorch), judges by judge_reduced()."""
    result = {}
    out_dir = os.path.join(args.outputs, stem) if args.outputs else None
    fp32_dir = os.path.join(args.outputs_fp32, stem) if args.outputs_fp32 else None
    for index, (o, ref) in enumerate(zip(model.desc["outputs"], ref_outputs)):
        ref_np = ref.detach().to("cpu").to(torch.float64).numpy()
        entry = {"ref_rms": float(np.sqrt(np.mean(ref_np ** 2)))}
        path = os.path.join(out_dir, o["name"] + ".npy") if out_dir else None
        if path and os.path.exists(path):
            ours = load_npy(path)
            if model.quantized:
                diff = np.abs(ours.astype(np.int64) - ref_np.astype(np.int64))
                entry.update({"max_abs_err": int(diff.max()), "mismatches": int((diff != 0).sum()),
                              "pass": bool(diff.max() == 0)})
            else:
                # A model PyTorch ran in fp16 (--half) or bf16 (--bf16) is judged at that tolerance.
                computed = {torch.float16: "FP16", torch.bfloat16: "BF16"}.get(model.float_type, o["dtype"])
                entry.update(compare(ours, ref_np, computed))
                if fp32_outputs is not None:
                    fp32 = fp32_outputs[index].detach().to("cpu").to(torch.float64).numpy()
                    path32 = os.path.join(fp32_dir, o["name"] + ".npy") if fp32_dir else None
                    ours32 = load_npy(path32) if path32 and os.path.exists(path32) else None
                    entry["direct_pass"] = entry.pop("pass")  # against PyTorch's reduced-precision output
                    entry.update(judge_reduced(ours, ref_np, fp32, ours32))
            if len(o["shape"]) == 2 and o["shape"][1] == 1000:
                entry["top5_openvgf"] = top5(ours)[0].tolist()
                entry["top5_torch"] = top5(ref_np)[0].tolist()
                entry["top1_agree"] = bool(entry["top5_openvgf"][0] == entry["top5_torch"][0])
        else:
            entry["openvgf_output"] = "missing (%s)" % path if path else "not given (--outputs)"
        result[o["name"]] = entry
    return result


def micro_extras(model, args, stem):
    """TFLOP/s of torch.matmul for MATMUL models; copy bandwidth for the ADD model."""
    extras = {}
    desc = model.desc
    layers = desc["layers"]
    if len(layers) == 1 and layers[0]["op"] == "MATMUL":
        n = desc["inputs"][0]["shape"][1]
        flops = 2.0 * n * n * n
        dtype = torch.float16 if desc["inputs"][0]["dtype"] == "FP16" else torch.float32
        if dtype == torch.float16 and not args.device.startswith("cuda"):
            return extras  # PyTorch's CPU matmul has no fp16 kernel (the model itself ran in fp32)
        a = torch.randn(1, n, n, device=args.device, dtype=dtype)
        b = torch.randn(1, n, n, device=args.device, dtype=dtype)
        variants = [("", None)]
        if args.device.startswith("cuda") and dtype == torch.float32:
            variants = [("", False), ("_tf32", True)]
        for suffix, tf32 in variants:
            if tf32 is not None:
                torch.backends.cuda.matmul.allow_tf32 = tf32
            t = time_callable(lambda: torch.matmul(a, b), args.device, args.warmup, args.iterations, args.min_time)
            extras["torch_matmul%s_ms" % suffix] = t["median_ms"]
            extras["torch_matmul%s_tflops" % suffix] = flops / (t["median_ms"] * 1e-3) / 1e12
        if args.device.startswith("cuda"):
            torch.backends.cuda.matmul.allow_tf32 = False
        extras["flops"] = flops
    elif len(layers) == 1 and layers[0]["op"] == "ADD":
        count = int(np.prod(desc["inputs"][0]["shape"]))
        src = torch.empty(count, device=args.device, dtype=torch.float32).uniform_()
        dst = torch.empty_like(src)
        t = time_callable(lambda: dst.copy_(src), args.device, args.warmup, args.iterations, args.min_time)
        extras["copy_gbps"] = 2.0 * 4 * count / (t["median_ms"] * 1e-3) / 1e9
        b = torch.empty_like(src).uniform_()
        t = time_callable(lambda: torch.add(src, b, out=dst), args.device, args.warmup, args.iterations,
                          args.min_time)
        extras["torch_add_gbps"] = 3.0 * 4 * count / (t["median_ms"] * 1e-3) / 1e9
        extras["bytes"] = 3 * 4 * count
    return extras


def openvgf_median_ms(openvgf, stem):
    for entry in (openvgf or {}).get("models", []):
        if entry.get("stem") == stem and entry.get("bench"):
            return entry["bench"].get("median_ms")
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--zoo", required=True, help="folder written by openvgf-zoo")
    parser.add_argument("--models", default="", help="comma-separated stems (default: every model in --zoo)")
    parser.add_argument("--outputs", default="", help="folder with <stem>/<output>.npy written by openvgf run")
    parser.add_argument("--outputs-fp32", default="",
                        help="with --half/--bf16 or fp16 models: openvgf's fp32 outputs (same layout), reported "
                             "beside the errors against PyTorch fp32")
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--iterations", type=int, default=10)
    parser.add_argument("--min-time", type=float, default=1.0, help="seconds of timed runs at least")
    parser.add_argument("--no-timing", action="store_true", help="only check correctness")
    parser.add_argument("--half", action="store_true",
                        help="on CUDA, run fp32 models in fp16 instead (an fp16 baseline for fp32 zoo models)")
    parser.add_argument("--bf16", action="store_true", help="on CUDA, run fp32 models in bf16 instead")
    parser.add_argument("--openvgf", default="", help="run.sh results JSON, for the ratio column")
    parser.add_argument("--json", default="", help="write results here")
    parser.add_argument("--threads", type=int, default=0,
                        help="torch CPU threads (0: every core this process may use, as lavapipe does)")
    args = parser.parse_args()
    # Some torch builds start with one thread (Debian's 1.13 on a 2-core VM does); lavapipe
    # uses every core, so the CPU comparison does too unless told otherwise.
    torch.set_num_threads(args.threads or len(os.sched_getaffinity(0)))
    torch.backends.cudnn.benchmark = True
    if args.device.startswith("cuda"):
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False

    stems = [s for s in args.models.split(",") if s] or sorted(
        d for d in os.listdir(args.zoo) if os.path.exists(os.path.join(args.zoo, d, "model.json")))
    openvgf = None
    if args.openvgf and os.path.exists(args.openvgf):
        with open(args.openvgf) as f:
            openvgf = json.load(f)

    device_name = torch.cuda.get_device_name() if args.device.startswith("cuda") else "cpu (%d threads)" % \
        torch.get_num_threads()
    report = {"torch_version": torch.__version__, "device": args.device, "device_name": device_name,
              "models": {}}
    print("torch %s on %s" % (torch.__version__, device_name))
    header = "%-28s %-6s %12s %12s %12s %10s" % ("model", "check", "eager ms", "graph ms", "openvgf ms", "ratio")
    print(header)
    failures = 0
    for stem in stems:
        folder = os.path.join(args.zoo, stem)
        entry = {}
        try:
            probe = Model(folder, "cpu", exact_int=False)
            exact = probe.quantized
            model = probe if (exact or args.device == "cpu") else Model(folder, args.device, half=args.half, bf16=args.bf16)
            if exact:
                model = Model(folder, "cpu", exact_int=True)
            arrays = [load_npy(os.path.join(folder, f)) for f in model.desc["input_files"]]
            inputs = model.prepare_inputs(arrays)
            with torch.no_grad():
                ref = model.run(inputs)
                fp32_ref = None
                if not exact and model.float_type != torch.float32 and args.outputs:
                    model32 = Model(folder, args.device, fp32=True)
                    fp32_ref = model32.run(model32.prepare_inputs(arrays))
                entry["check"] = check_model(model, args, stem, ref, fp32_ref)
                if exact:
                    clipped = sum(c for c, _ in model.rescale_stats)
                    total = sum(n for _, n in model.rescale_stats)
                    entry["int8_rescale_clipped_fraction"] = clipped / max(total, 1)
                if not args.no_timing and not exact:
                    entry["eager"] = time_callable(lambda: model.run(inputs), args.device, args.warmup,
                                                   args.iterations, args.min_time)
                    if args.device.startswith("cuda"):
                        replay, static_outputs = cuda_graph_capture(lambda: model.run(inputs))
                        entry["cuda_graph"] = time_callable(replay, args.device, args.warmup, args.iterations,
                                                            args.min_time)
                        # Host-to-host: the same graph with PyTorch's own H2D/D2H copies.
                        for kind, pinned in (("pinned", True), ("pageable", False)):
                            step = with_host_copies(replay, inputs, static_outputs, arrays, model.nchw_inputs,
                                                    pinned)
                            entry["cuda_graph_with_copies_" + kind] = time_callable(
                                step, args.device, args.warmup, args.iterations, args.min_time)
                            print("  %s: CUDA graph with %s H2D/D2H copies: median %.3f ms" % (
                                stem, kind, entry["cuda_graph_with_copies_" + kind]["median_ms"]))
                    entry.update(micro_extras(model, args, stem))
        except (ValueError, RuntimeError, OSError, KeyError) as e:
            entry["error"] = "%s: %s" % (type(e).__name__, e)
        passes = [c.get("pass") for c in entry.get("check", {}).values() if "pass" in c]
        verdict = "error" if "error" in entry else ("-" if not passes else ("ok" if all(passes) else "FAIL"))
        failures += verdict in ("FAIL", "error")
        eager = entry.get("eager", {}).get("median_ms")
        graph = entry.get("cuda_graph", {}).get("median_ms")
        ours = openvgf_median_ms(openvgf, stem)
        best = min(x for x in (eager, graph) if x is not None) if (eager or graph) else None
        if ours and best:
            entry["ratio_openvgf_over_torch"] = ours / best
        fmt = lambda v: ("%.3f" % v) if v is not None else "-"
        print("%-28s %-6s %12s %12s %12s %10s" % (stem, verdict, fmt(eager), fmt(graph), fmt(ours),
                                                  fmt(entry.get("ratio_openvgf_over_torch"))))
        if "error" in entry:
            print("  " + entry["error"])
        for name, c in entry.get("check", {}).items():
            if "openvgf_vs_torch_fp32_rel_l2" in c:
                print("  %s: against PyTorch fp32, openvgf rel-L2 %.3e, PyTorch %s %.3e (%s)" % (
                    name, c["openvgf_vs_torch_fp32_rel_l2"], str(model.float_type).replace("torch.", ""),
                    c["torch_reduced_vs_torch_fp32_rel_l2"], "pass" if c["pass"] else "FAIL"))
        report["models"][stem] = entry
        sys.stdout.flush()
    if args.json:
        tmp = args.json + ".tmp"
        with open(tmp, "w") as f:
            json.dump(report, f, indent=1)
        os.replace(tmp, args.json)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
