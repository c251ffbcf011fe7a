#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Side by side: the same VGFs (or scenario files) through Arm's ML SDK for Vulkan (scenario-runner
with the ML emulation layer) and through openvgf, on one device; outputs compared, times per
inference measured. Nothing of Arm's is built or fetched here: pass the paths of an already-built
scenario-runner and emulation layer (README.md in this folder names the versions used).

  compare.py --scenario-runner PATH --layers PATH --openvgf PATH [--work DIR] CASE...
  compare.py ... --scenario-dir DIR          # an existing scenario folder, run unchanged by both
  compare.py ... --arm-examples tests/data/scenario/arm   # scenario-runner's own examples, staged

CASE is MODEL.vgf or key=value pairs joined by commas:
  vgf=MODEL.vgf[,name=NAME][,inputs=DIR][,tosa=MODEL.tosa][,time=0]
time=0 compares outputs only (no timing runs). inputs=DIR holds <input name>.npy per VGF input (e.g. the zoo's <stem>/inputs/); without it the
inputs are deterministic pseudo-random values of each input's type. tosa=MODEL.tosa adds the
fp64 reference (`openvgf reference --precise`) so float outputs show each stack's own error.

Per case the script writes one scenario file (a tensor per VGF input with `src`, one per output with
`dst`, one `dispatch_graph` binding them by the VGF's binding ids) and runs it, unchanged, with
`scenario-runner --scenario` and with `openvgf scenario`. Outputs: integers must be equal bit for
bit; floats agree when max|arm - openvgf| <= rtol * max(1, max|openvgf|) (rtol 1e-4 for fp32, 1e-2
for fp16/bf16: an engineering threshold for whole networks, whose per-operator TOSA bounds
openvgf's own `run --check` verifies).

Times per inference (ms), both from Vulkan timestamps and from the host:
- arm gpu: median of scenario-runner's `--profiling-dump-path` "Time for command" of the
  DataGraphDispatch over `--repeat N` submissions of the recorded command buffer;
- arm host: (wall(--repeat N) - wall(--repeat 1)) / (N - 1) of the whole scenario-runner process:
  a resubmission with the data staying on the device; "-" where it comes out below the GPU time
  (the variation of process start-up then outweighs N - 1 inferences; the JSON keeps the value
  as arm_host_ms_unresolved);
- openvgf gpu / host: `openvgf bench --json` gpu_median_ms / median_ms (host: inputs in, outputs
  out).
Requires Python 3 with NumPy.
"""
import argparse
import concurrent.futures
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

# VkFormat of a VGF / scenario tensor -> NumPy dtype (the subset openvgf and the zoo produce).
FORMATS = {
    "VK_FORMAT_R8_BOOL_ARM": np.bool_,
    "VK_FORMAT_R8_SINT": np.int8,
    "VK_FORMAT_R8_UINT": np.uint8,
    "VK_FORMAT_R16_SINT": np.int16,
    "VK_FORMAT_R16_UINT": np.uint16,
    "VK_FORMAT_R32_SINT": np.int32,
    "VK_FORMAT_R32_UINT": np.uint32,
    "VK_FORMAT_R64_SINT": np.int64,
    "VK_FORMAT_R16_SFLOAT": np.float16,
    "VK_FORMAT_R32_SFLOAT": np.float32,
}
FLOAT_RTOL = {np.dtype(np.float32): 1e-4, np.dtype(np.float16): 1e-2}


def fail(message):
    print(f"compare.py: {message}", file=sys.stderr)
    sys.exit(2)


def layer_environment(layers, work):
    """The environment that enables the emulation layer: each manifest in its own folder of
    VK_LAYER_PATH, Graph's first (Debian's loader 1.3.239 orders layers by manifest discovery,
    not by VK_INSTANCE_LAYERS; Graph must sit above Tensor), library paths made absolute."""
    layers = Path(layers).resolve()
    found = {}
    for name in ("Graph", "Tensor"):
        manifest = next((p for p in [layers / f"VkLayer_{name}.json",
                                     layers / "share/vulkan/explicit_layer.d" / f"VkLayer_{name}.json",
                                     layers / "bin" / f"VkLayer_{name}.json"] if p.is_file()), None)
        library = next((p for p in [layers / f"libVkLayer_{name}.so", layers / "lib" / f"libVkLayer_{name}.so",
                                    layers / "lib64" / f"libVkLayer_{name}.so"] if p.is_file()), None)
        if manifest is None or library is None:
            fail(f"--layers {layers}: no VkLayer_{name}.json and libVkLayer_{name}.so "
                 "(give the emulation layer's install prefix, or a folder holding both files)")
        data = json.loads(manifest.read_text())
        data["layer"]["library_path"] = str(library)
        folder = work / "layers" / name.lower()
        folder.mkdir(parents=True, exist_ok=True)
        (folder / manifest.name).write_text(json.dumps(data, indent=2))
        found[name] = (folder, library.parent)
    env = dict(os.environ)
    env["VK_LAYER_PATH"] = f"{found['Graph'][0]}:{found['Tensor'][0]}"
    env["VK_INSTANCE_LAYERS"] = "VK_LAYER_ML_Graph_Emulation:VK_LAYER_ML_Tensor_Emulation"
    libs = [str(found["Graph"][1])] + ([env["LD_LIBRARY_PATH"]] if env.get("LD_LIBRARY_PATH") else [])
    env["LD_LIBRARY_PATH"] = ":".join(libs)
    return env


def run(cmd, env=None, timeout=None, cwd=None):
    start = time.perf_counter()
    p = subprocess.run([str(c) for c in cmd], env=env, cwd=cwd, timeout=timeout,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace")
    return p.returncode, p.stdout, time.perf_counter() - start


def vgf_io(openvgf, vgf):
    """Inputs and outputs of a VGF's model sequence: name, binding, set, shape, VkFormat."""
    rc, out, _ = run([openvgf, "-q", "inspect", "--json", vgf])
    if rc != 0:
        fail(f"openvgf inspect {vgf} failed:\n{out}")
    info = json.loads(out)
    resources = {r["index"]: r for r in info["resources"]}
    sets = {}
    for segment in info["model_sequence"]["segments"]:
        for ds in segment.get("descriptor_set_infos", []):
            for b in ds["bindings"]:
                sets[b["mrt_index"]] = ds["set_index"]
    io = {}
    for kind in ("inputs", "outputs"):
        io[kind] = [{"name": e["name"] or f"{kind[:-1]}{i}", "binding": e["binding"],
                     "set": sets.get(e["mrt_index"], 0), "shape": resources[e["mrt_index"]]["shape"],
                     "format": resources[e["mrt_index"]]["vk_format"]}
                    for i, e in enumerate(info["model_sequence"][kind])]
    return io


def make_input(name, shape, fmt, seed):
    dtype = FORMATS.get(fmt)
    if dtype is None:
        fail(f"input {name}: format {fmt} has no NumPy type here")
    rng = np.random.default_rng(seed)
    if dtype == np.bool_:
        return rng.integers(0, 2, size=shape).astype(np.bool_)
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        lo, hi = max(info.min, -128), min(info.max, 127)
        return rng.integers(lo, hi + 1, size=shape).astype(dtype)
    return rng.uniform(-1.0, 1.0, size=shape).astype(dtype)


def write_scenario(folder, vgf, io, input_files):
    resources = [{"graph": {"uid": "graph", "src": str(vgf)}}]
    bindings = []
    for i, e in enumerate(io["inputs"]):
        resources.append({"tensor": {"uid": f"in{i}", "dims": e["shape"], "format": e["format"],
                                     "shader_access": "readonly", "src": str(input_files[e["name"]])}})
        bindings.append({"set": e["set"], "id": e["binding"], "resource_ref": f"in{i}"})
    for i, e in enumerate(io["outputs"]):
        resources.append({"tensor": {"uid": f"out{i}", "dims": e["shape"], "format": e["format"],
                                     "shader_access": "writeonly", "dst": f"out{i}.npy"}})
        bindings.append({"set": e["set"], "id": e["binding"], "resource_ref": f"out{i}"})
    scenario = {"resources": resources, "commands": [{"dispatch_graph": {"graph_ref": "graph", "bindings": bindings}}]}
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "scenario.json").write_text(json.dumps(scenario, indent=2) + "\n")
    return folder / "scenario.json"


def compare_arrays(arm, ours, ref=None, rtol=None):
    """One verdict line's fields for two output arrays (and the fp64 reference if given)."""
    r = {"dtype": str(ours.dtype), "shape": list(ours.shape), "elements": int(ours.size)}
    if arm.shape != ours.shape or arm.dtype != ours.dtype:
        r.update(agree=False, detail=f"arm {arm.dtype}{list(arm.shape)} vs openvgf {ours.dtype}{list(ours.shape)}")
        return r
    if not np.issubdtype(ours.dtype, np.floating):
        diff = np.flatnonzero(arm.reshape(-1) != ours.reshape(-1))
        r.update(agree=diff.size == 0, differing=int(diff.size), rule="bit-exact")
        if diff.size:
            k = int(diff[0])
            r["detail"] = (f"{diff.size} elements differ, first at flat index {k}: "
                           f"arm {arm.reshape(-1)[k]} openvgf {ours.reshape(-1)[k]}")
        return r
    a, o = arm.astype(np.float64), ours.astype(np.float64)
    scale = max(1.0, float(np.nanmax(np.abs(o)))) if o.size else 1.0
    rtol = rtol or FLOAT_RTOL.get(ours.dtype, 1e-2)
    maxdiff = float(np.nanmax(np.abs(a - o))) if o.size else 0.0
    nan_mismatch = int(np.sum(np.isnan(a) != np.isnan(o)))
    r.update(agree=maxdiff <= rtol * scale and nan_mismatch == 0, rule=f"max|diff| <= {rtol:g}*max(1,max|openvgf|)",
             max_abs_diff=maxdiff, scale=scale, nan_mismatch=nan_mismatch)
    if ref is not None and ref.shape == ours.shape:
        denom = max(float(np.max(np.abs(ref))), 1e-30)
        r["arm_rel_err_vs_fp64"] = float(np.max(np.abs(a - ref))) / denom
        r["openvgf_rel_err_vs_fp64"] = float(np.max(np.abs(o - ref))) / denom
    return r


def compare_files(arm, ours, ref=None):
    missing = [str(f) for f in (arm, ours) if not f.is_file()]
    if missing:
        return {"dtype": "-", "shape": [], "elements": 0, "agree": False, "detail": f"not written: {', '.join(missing)}"}
    a, o = np.load(arm), np.load(ours)
    label = None
    if o.dtype == np.dtype("V2") and a.dtype == o.dtype:  # bfloat16, written as raw 2-byte values
        a, o = [(x.view(np.uint16).astype(np.uint32) << 16).view(np.float32) for x in (a, o)]
        label = "bfloat16"
    elif o.dtype.kind == "V" and a.dtype == o.dtype:  # float8 E4M3 (V1): raw bytes, compared exactly
        a, o, label = a.view(np.uint8), o.view(np.uint8), f"raw {o.dtype.itemsize}-byte floats"
    r = compare_arrays(a, o, ref)
    if label:
        r["dtype"] = label
        if label == "bfloat16":
            r = {**compare_arrays(a, o, ref, rtol=1e-2), "dtype": label}
    return r


def arm_times(args, env, scenario, folder, wall1):
    """Per-inference GPU (timestamps) and host (differential wall) times of scenario-runner."""
    if args.repeat < 2:
        return {}
    profile = folder / "profile.json"
    rc, out, wall = run([args.scenario_runner, "--scenario", scenario, "--output", folder / "repeat",
                         "--profiling-dump-path", profile, "--repeat", args.repeat], env, args.timeout)
    (folder / "repeat.log").write_text(out)
    if rc != 0:
        return {"arm_repeat_error": out[-2000:]}
    stamps = json.loads(profile.read_text()).get("Timestamps", []) if profile.is_file() else []
    ms = [t["Time for command [ms]"] for t in stamps if t.get("Command type") == "DataGraphDispatch"]
    gpu = float(np.median(ms)) if ms else None
    host = 1000.0 * (wall - wall1) / (args.repeat - 1)
    # The difference of two process walls carries the variation of everything else the process
    # does (start-up, pipeline creation); below the GPU time of one inference it is that noise,
    # not a time per inference (an H200 gave -18.7 ms for MobileNetV2 at --repeat 20).
    if gpu is not None and host < gpu:
        return {"arm_gpu_ms": gpu, "arm_host_ms": None, "arm_host_ms_unresolved": host}
    return {"arm_gpu_ms": gpu, "arm_host_ms": host}


def openvgf_times(args, vgf):
    cmd = [args.openvgf, "-q", "bench", vgf, "--json", "--warmup", "1", "--iterations", args.repeat,
           "--gpu-iterations", args.repeat] + (["--device", args.device] if args.device else [])
    rc, out, _ = run(cmd, timeout=args.timeout)
    if rc != 0:
        return {"openvgf_bench_error": out[-2000:]}
    b = json.loads(out[out.index("{"):])
    return {"openvgf_gpu_ms": b.get("gpu_median_ms"), "openvgf_host_ms": b.get("median_ms"),
            "openvgf_device": b.get("device")}


def parse_case(text):
    if "=" not in text:
        text = f"vgf={text}"
    case = dict(kv.split("=", 1) for kv in text.split(","))
    if "vgf" not in case:
        fail(f"case '{text}': no vgf=")
    case["vgf"] = Path(case["vgf"]).resolve()
    case.setdefault("name", case["vgf"].stem)
    return case


def run_case(args, env, case):
    work = args.work / case["name"]
    shutil.rmtree(work, ignore_errors=True)
    io = vgf_io(args.openvgf, case["vgf"])
    inputs_dir = work / "inputs"
    inputs_dir.mkdir(parents=True)
    files = {}
    for i, e in enumerate(io["inputs"]):
        given = Path(case["inputs"]) / f"{e['name']}.npy" if "inputs" in case else None
        if given is not None and given.is_file():
            files[e["name"]] = given.resolve()
        else:
            files[e["name"]] = inputs_dir / f"{e['name']}.npy"
            np.save(files[e["name"]], make_input(e["name"], e["shape"], e["format"], seed=1000 + i))
    record = {"case": case["name"], "vgf": str(case["vgf"])}
    arm_scenario = write_scenario(work / "arm", case["vgf"], io, files)
    ours_scenario = write_scenario(work / "openvgf", case["vgf"], io, files)
    rc, out, wall1 = run([args.scenario_runner, "--scenario", arm_scenario], env, args.timeout)
    (work / "arm" / "run.log").write_text(out)
    record["arm_rc"], record["arm_wall_s"] = rc, wall1
    if rc != 0:
        record["arm_error"] = out[-2000:]
    dev = ["--device", args.device] if args.device else []
    rc2, out2, wall2 = run([args.openvgf, "scenario", ours_scenario] + dev, timeout=args.timeout)
    (work / "openvgf" / "run.log").write_text(out2)
    record["openvgf_rc"], record["openvgf_wall_s"] = rc2, wall2
    if rc2 != 0:
        record["openvgf_error"] = out2[-2000:]
    refs = {}
    if "tosa" in case and rc2 == 0:
        ref_dir = work / "ref"
        named = [f"{e['name']}={files[e['name']]}" for e in io["inputs"]]
        rc3, out3, _ = run([args.openvgf, "-q", "reference", case["tosa"], "--precise", "--output-dir", ref_dir, "-i"] + named,
                           timeout=args.timeout)
        if rc3 == 0:
            refs = {e["name"]: np.load(ref_dir / f"{e['name']}.npy") for e in io["outputs"]
                    if (ref_dir / f"{e['name']}.npy").is_file()}
        else:
            record["reference_error"] = out3[-2000:]
    record["outputs"] = []
    if rc == 0 and rc2 == 0:
        for i, e in enumerate(io["outputs"]):
            record["outputs"].append({"name": e["name"], **compare_files(work / "arm" / f"out{i}.npy",
                                                                        work / "openvgf" / f"out{i}.npy", refs.get(e["name"]))})
        record["agree"] = all(o["agree"] for o in record["outputs"])
        if case.get("time", "1") != "0":
            record.update(arm_times(args, env, arm_scenario, work / "arm", wall1))
            record.update(openvgf_times(args, case["vgf"]))
    else:
        record["agree"] = False
    return record


def npy_dsts(scenario):
    data = json.loads(scenario.read_text())
    return [next(iter(r.values()))["dst"] for r in data.get("resources", []) if "dst" in next(iter(r.values()))]


def run_scenario_dir(args, env, src):
    """An existing scenario folder (scenario JSONs with their shaders, VGFs and .npy sources),
    copied twice and run by each tool unchanged; every dst compared."""
    records = []
    for scenario in sorted(Path(src).glob("*.json")):
        name = f"{Path(src).name}/{scenario.stem}"
        work = args.work / Path(src).name / scenario.stem
        shutil.rmtree(work, ignore_errors=True)
        shutil.copytree(src, work / "arm")
        shutil.copytree(src, work / "openvgf")
        rc, out, _ = run([args.scenario_runner, "--scenario", work / "arm" / scenario.name], env, args.timeout)
        (work / "arm.log").write_text(out)
        rc2, out2, _ = run([args.openvgf, "scenario", work / "openvgf" / scenario.name], timeout=args.timeout)
        (work / "openvgf.log").write_text(out2)
        record = {"case": name, "arm_rc": rc, "openvgf_rc": rc2, "outputs": []}
        if rc != 0:
            record["arm_error"] = out[-2000:]
        if rc2 != 0:
            record["openvgf_error"] = out2[-2000:]
        if rc == 0 and rc2 == 0:
            for dst in npy_dsts(scenario):
                record["outputs"].append({"name": dst, **compare_files(work / "arm" / dst, work / "openvgf" / dst)})
        record["agree"] = rc == 0 and rc2 == 0 and all(o["agree"] for o in record["outputs"])
        records.append(record)
    return records


# scenario-runner's own example scenarios kept in tests/data/scenario/arm/: the shaders each one
# dispatches (GLSL, glslangValidator flags as tests/scenario/CMakeLists.txt compiles them) and
# its .npy sources (NumPy type, element count), filled with seeded random values.
ARM_EXAMPLES = {
    "mark_boundary.json": ({"add_shader.spv": ("add_shader.comp", ["-DTestType=float"])},
                           {"inBufferA.npy": (np.float32, 10), "inBufferB.npy": (np.float32, 10)}),
    "shader_push_constants.json": ({"add_shader_with_push_constants.spv": ("add_shader_with_push_constants.comp", [])},
                                   {"inBufferAA.npy": (np.float32, 10), "data.npy": (np.float32, 10)}),
    "buffer_barrier_explicit.json": ({"addOne.spv": ("add_one.comp", [])}, {"input.npy": (np.uint8, 256)}),
}


def stage_arm_examples(source, out, glslang):
    """One folder per example scenario with its compiled shaders and inputs; returns them."""
    folders = []
    for k, (scenario, (shaders, inputs)) in enumerate(sorted(ARM_EXAMPLES.items())):
        folder = out / Path(scenario).stem
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        shutil.copy(source / scenario, folder / scenario)
        for spv, (comp, flags) in shaders.items():
            rc, log, _ = run([glslang, "-V", "--target-env", "vulkan1.3", "--glsl-version", "450", *flags,
                              "-o", folder / spv, source / comp])
            if rc != 0:
                fail(f"{glslang} {comp}:\n{log}")
        rng = np.random.default_rng(2000 + k)
        for name, (dtype, n) in inputs.items():
            values = rng.integers(0, 120, n) if dtype == np.uint8 else rng.uniform(-4, 4, n)
            np.save(folder / name, values.astype(dtype))
        folders.append(folder)
    return folders


def fmt_ms(v):
    return "-" if v is None else f"{v:.3f}" if v < 10 else f"{v:.1f}"


def table(records):
    lines = ["| case | output | dtype | rule | agree | detail | arm gpu / host (ms) | openvgf gpu / host (ms) |",
             "|---|---|---|---|---|---|---|---|"]
    for r in records:
        times = (f"{fmt_ms(r.get('arm_gpu_ms'))} / {fmt_ms(r.get('arm_host_ms'))}",
                 f"{fmt_ms(r.get('openvgf_gpu_ms'))} / {fmt_ms(r.get('openvgf_host_ms'))}")
        if not r["outputs"]:
            why = r.get("arm_error") or r.get("openvgf_error") or "no outputs"
            lines.append(f"| {r['case']} | - | - | - | **no** | {why.strip().splitlines()[-1][:160]} | {times[0]} | {times[1]} |")
        for o in r["outputs"]:
            if "max_abs_diff" in o:
                detail = f"max\\|diff\\| {o['max_abs_diff']:.3g}"
                if "arm_rel_err_vs_fp64" in o:
                    detail += f"; rel. err vs fp64: arm {o['arm_rel_err_vs_fp64']:.2g}, openvgf {o['openvgf_rel_err_vs_fp64']:.2g}"
            else:
                detail = o.get("detail", f"{o['elements']} elements equal")
            lines.append(f"| {r['case']} | {o['name']} | {o['dtype']} | {o.get('rule', '-').replace('|', chr(92) + '|')} | "
                         f"{'yes' if o['agree'] else '**no**'} | {detail} | {times[0]} | {times[1]} |")
    return "\n".join(lines)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--scenario-runner", required=True, type=Path, help="Arm's scenario-runner executable")
    p.add_argument("--layers", required=True, type=Path,
                   help="the emulation layer: install prefix, or a folder with VkLayer_{Graph,Tensor}.json and their .so")
    p.add_argument("--openvgf", default="openvgf", help="openvgf executable (default: from PATH)")
    p.add_argument("--work", type=Path, default=Path("arm-mlsdk-work"), help="scratch folder (default ./arm-mlsdk-work)")
    p.add_argument("--repeat", type=int, default=5, help="submissions timed per case, each tool (default 5; 1 = no timing)")
    p.add_argument("--timeout", type=float, default=3600, help="seconds per tool invocation (default 3600)")
    p.add_argument("--device", help="openvgf --device (scenario-runner takes the loader's first device)")
    p.add_argument("--scenario-dir", action="append", default=[], type=Path,
                   help="a folder of scenario JSONs and their files, run unchanged by both (repeatable)")
    p.add_argument("--arm-examples", type=Path, metavar="DIR",
                   help="stage and run scenario-runner's example scenarios kept in DIR (tests/data/scenario/arm)")
    p.add_argument("--glslang", default="glslangValidator", help="for --arm-examples (default: from PATH)")
    p.add_argument("--json", type=Path, help="write the records here")
    p.add_argument("--jobs", type=int, default=1,
                   help="cases without timing (time=0) run this many at a time (default 1)")
    p.add_argument("cases", nargs="*", help="MODEL.vgf or vgf=MODEL.vgf,name=N,inputs=DIR,tosa=MODEL.tosa")
    args = p.parse_args()
    args.work = args.work.resolve()
    args.work.mkdir(parents=True, exist_ok=True)
    args.scenario_runner = args.scenario_runner.resolve()
    if not os.access(args.scenario_runner, os.X_OK):
        fail(f"--scenario-runner {args.scenario_runner}: not an executable")
    if args.arm_examples:
        args.scenario_dir += stage_arm_examples(args.arm_examples.resolve(), args.work / "arm-examples", args.glslang)
    if not args.cases and not args.scenario_dir:
        fail("nothing to run: give CASEs and/or --scenario-dir")
    env = layer_environment(args.layers, args.work)
    records = []
    for src in args.scenario_dir:
        records += run_scenario_dir(args, env, src)
        print(table(records[-1:]), flush=True)
    cases = [parse_case(text) for text in args.cases]
    untimed = [c for c in cases if c.get("time", "1") == "0"] if args.jobs > 1 else []
    # Cases without timing (time=0) run --jobs at a time, before the timed ones, which run one
    # at a time so that nothing else shares the device while they are measured.
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for record in pool.map(lambda c: run_case(args, env, c), untimed):
            records.append(record)
            print(table(records[-1:]), flush=True)
    for case in cases:
        if any(case is c for c in untimed):
            continue
        records.append(run_case(args, env, case))
        print(table(records[-1:]), flush=True)
    print("\n" + table(records))
    if args.json:
        args.json.write_text(json.dumps(records, indent=1) + "\n")
    return 0 if all(r["agree"] for r in records) else 1


if __name__ == "__main__":
    sys.exit(main())
