#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Times the same zoo models through two or more openvgf builds side by side, in one call on one
machine, and optionally PyTorch beside them.

Each build is a folder made by benchmarks/bundle.sh (or any folder with `openvgf` and
`openvgf-zoo` in it). The zoo is written once (by the last bundle's openvgf-zoo), each bundle
converts every model itself, then `openvgf bench --json` runs in rounds that alternate between
the bundles (A B A B ...), so drift on the machine hits every build alike. The figures are the
medians over rounds of each round's median.

  benchmarks/compare_bundles.py --bundle before=.gpu/base --bundle after=.gpu/new \\
      --models bert_layer,mobilenet_v2 --target native --pipelined 1 --torch-python python3 \\
      --out benchmarks/results/batch1-latency-h200

writes OUT.json (every bench record) and OUT.md (the table, with the command).

`--bench-args NAME='--upload-chunk 2'` adds bench arguments to one bundle's runs; several names
may point at one folder (`--bundle whole=.gpu/new --bundle chunked=.gpu/new`) to time options
of one build side by side (its models are converted once).
"""
import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile


def run(cmd, **kw):
    print("+ " + " ".join(shlex.quote(c) for c in cmd), flush=True)
    return subprocess.run(cmd, check=True, **kw)


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def bench_figures(records):
    """Medians over rounds of what one bundle measured on one model."""
    def field(get):
        out = []
        for r in records:
            try:
                out.append(get(r))
            except (KeyError, TypeError):
                out.append(None)
        return median(out)
    return {
        "host_to_host_ms": field(lambda r: r["median_ms"]),
        "gpu_ms": field(lambda r: r["gpu_median_ms"]),
        "host_overhead_us": field(lambda r: 1000.0 * (r["median_ms"] - r["gpu_median_ms"])),
        "pinned_host_to_host_ms": field(lambda r: r["serial_pinned"]["latency_median_ms"]),
        "pinned_host_overhead_us": field(lambda r: 1000.0 * (r["serial_pinned"]["latency_median_ms"] -
                                                             r["gpu_median_ms"])),
        "session_create_cold_ms": field(lambda r: r["session_create_cold_ms"]),
        "session_create_warm_ms": field(lambda r: r["session_create_warm_ms"]),
        "first_inference_ms": field(lambda r: r["first_inference_ms"]),
    }


def fmt(value, digits=3):
    return "-" if value is None else ("%.*f" % (digits, value))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bundle", action="append", required=True, metavar="NAME=DIR",
                        help="a build to time (give two or more; the first is the baseline of the ratio)")
    parser.add_argument("--models", required=True, help="zoo stems, comma-separated (openvgf-zoo --list)")
    parser.add_argument("--zoo-args", default="", help="extra openvgf-zoo arguments, e.g. '--batch 32'")
    parser.add_argument("--target", default="portable", help="openvgf convert --target")
    parser.add_argument("--precision", default="fp32", help="openvgf convert --precision")
    parser.add_argument("--device", default="", help="Vulkan device index or name for bench")
    parser.add_argument("--rounds", type=int, default=3, help="bench runs per bundle and model, alternating")
    parser.add_argument("--iterations", type=int, default=50)
    parser.add_argument("--min-time", type=float, default=2.0)
    parser.add_argument("--pipelined", type=int, default=0, help="bench --pipelined N (adds the pinned serial run)")
    parser.add_argument("--bench-args", action="append", default=[], metavar="NAME=ARGS",
                        help="extra `openvgf bench` arguments for the bundle NAME")
    parser.add_argument("--torch-python", default="", help="python with torch: time PyTorch on the same models")
    parser.add_argument("--work", default="", help="scratch folder (default: a temporary one)")
    parser.add_argument("--out", required=True, help="results path without extension (.json and .md are written)")
    args = parser.parse_args()

    bundles = []
    for spec in args.bundle:
        name, sep, folder = spec.partition("=")
        if not sep or not name or not os.path.isfile(os.path.join(folder, "openvgf")):
            parser.error("--bundle %r: expected NAME=DIR with DIR/openvgf" % spec)
        bundles.append((name, os.path.abspath(folder)))
    if len(bundles) < 2 and not args.torch_python:
        parser.error("give two --bundle (or one and --torch-python): there is nothing to compare")
    bench_args = {}
    for spec in args.bench_args:
        name, sep, extra = spec.partition("=")
        if not sep or name not in dict(bundles):
            parser.error("--bench-args %r: expected NAME=ARGS with NAME one of the --bundle names" % spec)
        bench_args[name] = shlex.split(extra)
    stems = [s for s in args.models.split(",") if s]
    work = args.work or tempfile.mkdtemp(prefix="compare-bundles-")
    zoo = os.path.join(work, "zoo")
    device = ["--device", args.device] if args.device else []

    run([os.path.join(bundles[-1][1], "openvgf-zoo"), "--out", zoo, "--models", ",".join(
        s.split("_b")[0] if "_b" in s and s.rsplit("_b", 1)[1].isdigit() else s for s in stems)] +
        shlex.split(args.zoo_args))
    converted = {}  # bundle folder -> the work folder of its converted models
    for name, folder in bundles:
        if folder in converted:
            continue
        converted[folder] = os.path.join(work, name)
        os.makedirs(converted[folder], exist_ok=True)
        for stem in stems:
            run([os.path.join(folder, "openvgf"), "convert", os.path.join(zoo, stem + ".tosa"), "--target",
                 args.target, "--precision", args.precision, "-o", os.path.join(converted[folder], stem + ".vgf")])

    records = {(name, stem): [] for name, _ in bundles for stem in stems}
    for round_index in range(args.rounds):
        for stem in stems:
            for name, folder in bundles:
                cmd = [os.path.join(folder, "openvgf"), "bench", os.path.join(converted[folder], stem + ".vgf"), "--json",
                       "--iterations", str(args.iterations), "--min-time", str(args.min_time)] + device
                cmd += bench_args.get(name, [])
                if args.pipelined:
                    cmd += ["--pipelined", str(args.pipelined)]
                out = run(cmd, stdout=subprocess.PIPE, text=True).stdout
                records[(name, stem)].append(json.loads(out))

    torch = {}
    if args.torch_python:
        torch_json = os.path.join(work, "torch.json")
        cmd = [args.torch_python, os.path.join(os.path.dirname(os.path.abspath(__file__)), "torch_compare.py"),
               "--zoo", zoo, "--models", ",".join(stems), "--iterations", str(args.iterations), "--min-time",
               str(args.min_time), "--json", torch_json]
        if args.precision == "fp16":
            cmd.append("--half")
        subprocess.run(cmd, check=False)
        if os.path.exists(torch_json):
            with open(torch_json) as f:
                torch = json.load(f)

    summary = {"command": " ".join(shlex.quote(a) for a in sys.argv), "bundles": dict(bundles),
               "bench_args": {name: " ".join(extra) for name, extra in bench_args.items()},
               "target": args.target, "precision": args.precision, "rounds": args.rounds, "models": {}}
    lines = ["# openvgf builds side by side", "", "Command: `%s`" % summary["command"], "",
             "Medians over %d alternating rounds; host overhead = host-to-host minus GPU time (both medians)."
             % args.rounds, ""]
    device_name = next(iter(records.values()))[0].get("device", "?") if records else "?"
    lines.append("Device: %s; target %s, precision %s." % (device_name, args.target, args.precision))
    for name, extra in bench_args.items():
        lines.append("Build %s: `openvgf bench ... %s`." % (name, " ".join(shlex.quote(a) for a in extra)))
    if torch:
        lines.append("PyTorch %s on %s (CUDA graph; 'pinned' adds its own H2D/D2H copies from pinned memory)."
                     % (torch.get("torch_version"), torch.get("device_name")))
    lines += ["", "| model | build | host-to-host ms | GPU ms | host overhead µs | pinned host-to-host ms | "
              "pinned overhead µs | session cold / warm ms | vs %s |" % bundles[0][0],
              "|---|---|---|---|---|---|---|---|---|"]
    for stem in stems:
        base = bench_figures(records[(bundles[0][0], stem)])
        entry = {}
        for name, _ in bundles:
            f = bench_figures(records[(name, stem)])
            entry[name] = {"figures": f, "records": records[(name, stem)]}
            ratio = (f["host_to_host_ms"] / base["host_to_host_ms"]) if base["host_to_host_ms"] else None
            lines.append("| %s | %s | %s | %s | %s | %s | %s | %s / %s | %s |" % (
                stem, name, fmt(f["host_to_host_ms"]), fmt(f["gpu_ms"]), fmt(f["host_overhead_us"], 1),
                fmt(f["pinned_host_to_host_ms"]), fmt(f["pinned_host_overhead_us"], 1),
                fmt(f["session_create_cold_ms"], 1), fmt(f["session_create_warm_ms"], 1),
                fmt(ratio, 2) + "×" if ratio else "-"))
        t = torch.get("models", {}).get(stem, {})
        if t:
            graph = t.get("cuda_graph", {}).get("median_ms")
            pinned = t.get("cuda_graph_with_copies_pinned", {}).get("median_ms")
            eager = t.get("eager", {}).get("median_ms")
            entry["pytorch"] = {"cuda_graph_ms": graph, "cuda_graph_with_pinned_copies_ms": pinned, "eager_ms": eager}
            lines.append("| %s | PyTorch | %s (graph + pinned copies) | %s (graph) | | | | eager %s | |" % (
                stem, fmt(pinned), fmt(graph), fmt(eager)))
        summary["models"][stem] = entry
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out + ".json", "w") as f:
        json.dump(summary, f, indent=1)
    with open(args.out + ".md", "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    print("wrote %s.json and %s.md" % (args.out, args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
