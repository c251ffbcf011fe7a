#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Turns benchmarks/run.sh records (one JSON object per model) and, optionally, the
torch_compare.py JSON into benchmarks/results/<slug>.json and a markdown table <slug>.md.
Standard library only, so it runs with any python3."""

import argparse
import datetime
import json
import os
import platform
import re
import sys


def slugify(name):
    """"NVIDIA H100 80GB HBM3" -> "nvidia-h100-80gb-hbm3"; "llvmpipe (LLVM 15.0.6, 256 bits)" -> "llvmpipe"."""
    name = re.sub(r"\(.*?\)", "", name)
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "unknown-device"


def fmt(value, digits=3):
    if value is None:
        return "-"
    if isinstance(value, float):
        if value != 0 and abs(value) < 10 ** -digits:
            return "%.2g" % value  # small rates (CPU TFLOP/s) keep two significant digits
        return ("%." + str(digits) + "f") % value
    return str(value)


def bench_field(rec, key):
    bench = rec.get("bench") or {}
    return bench.get(key)


def check_text(rec):
    c = rec.get("check")
    if rec.get("convert_rc"):
        return "convert failed"
    if c is None:
        return "-"
    if c == "skipped":
        return "run ok (check skipped: large)"
    if isinstance(c, str):
        return "run ok (%s)" % c
    return "pass" if c == 0 else ("FAIL" if c == 1 else "error (rc %s)" % c)


def torch_entry(torch_report, stem):
    return ((torch_report or {}).get("models") or {}).get(stem) or {}


def torch_check_text(entry):
    checks = entry.get("check") or {}
    passes = [c.get("pass") for c in checks.values() if "pass" in c]
    if "error" in entry:
        return "error"
    if not passes:
        return "-"
    verdict = "agree" if all(passes) else "DIFFER"
    # fp16/bf16 runs: both errors against PyTorch fp32 (torch_compare.judge_reduced).
    judged = [c for c in checks.values() if "openvgf_vs_torch_fp32_rel_l2" in c]
    if judged:
        own = max(c["openvgf_vs_torch_fp32_rel_l2"] for c in judged)
        theirs = max(c["torch_reduced_vs_torch_fp32_rel_l2"] for c in judged)
        verdict += " (vs fp32: openvgf %.2e, PyTorch %.2e)" % (own, theirs)
    return verdict


def markdown(report):
    lines = []
    device = report.get("device") or "unknown device"
    lines.append("# openvgf benchmarks: %s" % device)
    lines.append("")
    lines.append("- date: %s" % report["date"])
    lines.append("- host: %s" % report["host"])
    lines.append("- openvgf: %s" % report.get("openvgf_version", "-"))
    lines.append("- command: `%s`" % report["command"])
    torch_report = report.get("torch")
    if torch_report:
        lines.append("- PyTorch: %s on %s" % (torch_report.get("torch_version"), torch_report.get("device_name")))
    lines.append("")
    lines.append("Latencies are wall-clock per inference (submit to results on the host); GPU time is the "
                 "median of the timestamp-query interval of the recorded command buffer. Session times: "
                 "cold = empty pipeline cache, warm = cache filled by the cold run.")
    lines.append("")
    lines.append("| model | batch | GMAC | convert cold / cached (s) | session cold / warm (ms) | first (ms) "
                 "| min / median / p90 (ms) | GPU median (ms) | inferences/s | images/s | peak device MiB "
                 "| check | PyTorch check | PyTorch eager / CUDA graph (ms) | openvgf / PyTorch |")
    lines.append("|" + "---|" * 15)
    for rec in report["models"]:
        stem = rec["stem"]
        t = torch_entry(torch_report, stem)
        peak = bench_field(rec, "peak_device_memory_bytes")
        batch = rec.get("batch", 1)
        lines.append("| %s | %s | %s | %s / %s | %s / %s | %s | %s / %s / %s | %s | %s | %s | %s | %s | %s | %s / %s | %s |" % (
            stem, batch, fmt(rec["macs"] / 1e9, 2), fmt(rec.get("convert_cold_s"), 2),
            fmt(rec.get("convert_cached_s"), 2),
            fmt(bench_field(rec, "session_create_cold_ms"), 1), fmt(bench_field(rec, "session_create_warm_ms"), 1),
            fmt(bench_field(rec, "first_inference_ms"), 2), fmt(bench_field(rec, "min_ms")),
            fmt(bench_field(rec, "median_ms")), fmt(bench_field(rec, "p90_ms")),
            fmt(bench_field(rec, "gpu_median_ms")), fmt(bench_field(rec, "inferences_per_s"), 1),
            fmt(bench_field(rec, "images_per_s"), 1) if batch > 1 else "-",
            fmt(peak / 2**20, 1) if peak is not None else "-", check_text(rec), torch_check_text(t),
            fmt((t.get("eager") or {}).get("median_ms")), fmt((t.get("cuda_graph") or {}).get("median_ms")),
            fmt(t.get("ratio_openvgf_over_torch"), 2)))
    matmuls = [r for r in report["models"] if r.get("family") == "matmul"]
    if matmuls:
        lines.append("")
        lines.append("MATMUL 1xNxNxN (2N^3 flops), TFLOP/s from the median wall latency and from GPU time; "
                     "torch.matmul timed the same way (fp32 without and with TF32).")
        lines.append("")
        lines.append("| model | openvgf median (ms) | openvgf TFLOP/s (wall) | openvgf TFLOP/s (GPU) "
                     "| torch.matmul TFLOP/s | torch TF32 TFLOP/s |")
        lines.append("|---|---|---|---|---|---|")
        for rec in matmuls:
            flops = 2.0 * rec["macs"]
            wall = bench_field(rec, "median_ms")
            gpu = bench_field(rec, "gpu_median_ms")
            t = torch_entry(torch_report, rec["stem"])
            lines.append("| %s | %s | %s | %s | %s | %s |" % (
                rec["stem"], fmt(wall), fmt(flops / wall / 1e9, 2) if wall else "-",
                fmt(flops / gpu / 1e9, 2) if gpu else "-", fmt(t.get("torch_matmul_tflops"), 2),
                fmt(t.get("torch_matmul_tf32_tflops"), 2)))
    adds = [r for r in report["models"] if r.get("family") == "elementwise"]
    if adds:
        lines.append("")
        lines.append("ADD of 64 Mi fp32 elements: bytes moved = 3 x 256 MiB (two reads, one write).")
        lines.append("")
        lines.append("| model | openvgf median (ms) | openvgf GB/s (wall) | openvgf GB/s (GPU) | torch add GB/s "
                     "| device copy GB/s (torch) |")
        lines.append("|---|---|---|---|---|---|")
        for rec in adds:
            t = torch_entry(torch_report, rec["stem"])
            moved = 3 * 4 * 64 * 2**20
            wall = bench_field(rec, "median_ms")
            gpu = bench_field(rec, "gpu_median_ms")
            lines.append("| %s | %s | %s | %s | %s | %s |" % (
                rec["stem"], fmt(wall), fmt(moved / wall / 1e6, 1) if wall else "-",
                fmt(moved / gpu / 1e6, 1) if gpu else "-", fmt(t.get("torch_add_gbps"), 1),
                fmt(t.get("copy_gbps"), 1)))
    failures = [r for r in report["models"] if r.get("log_tail")]
    if failures:
        lines.append("")
        lines.append("## Failures")
        for rec in failures:
            lines.append("")
            lines.append("`%s`:" % rec["stem"])
            lines.append("```")
            lines.extend(rec["log_tail"])
            lines.append("```")
    return "\n".join(lines) + "\n"


def write_atomic(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--records", required=True)
    parser.add_argument("--results", required=True)
    parser.add_argument("--slug", default="")
    parser.add_argument("--command", default="benchmarks/run.sh")
    parser.add_argument("--torch", default="")
    parser.add_argument("--device-name", default="", help="used when no bench result names the device")
    parser.add_argument("--openvgf-version", default="")
    parser.add_argument("--previous", default="",
                        help="an earlier <slug>.json of the same device: its models not measured now are kept")
    parser.add_argument("--host", default="",
                        help="the measuring machine, when the report is assembled elsewhere (default: this one)")
    parser.add_argument("--write-json-only", action="store_true")
    args = parser.parse_args()

    with open(args.records) as f:
        records = [json.loads(line) for line in f if line.strip()]
    device = next((r["bench"].get("device") for r in records if r.get("bench") and r["bench"].get("device")),
                  args.device_name or None)
    version = next((r["bench"].get("openvgf_version") for r in records
                    if r.get("bench") and r["bench"].get("openvgf_version")), args.openvgf_version or None)
    slug = args.slug or slugify(device or "unknown-device")
    report = {"device": device, "slug": slug, "openvgf_version": version,
              "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
              "host": args.host or "%s, %d cpus, %s" % (platform.node(), os.cpu_count() or 0, platform.platform()),
              "command": args.command, "models": records}
    for r in records:
        r.setdefault("command", args.command)
    if args.torch and os.path.exists(args.torch):
        with open(args.torch) as f:
            report["torch"] = json.load(f)
    if args.previous:
        # A suite split over several runs (e.g. a 10-minute limit per command on a borrowed
        # GPU): keep what the earlier run measured and this one did not.
        with open(args.previous) as f:
            previous = json.load(f)
        # Rows keep the earlier run's order; a model measured now replaces its old row, and
        # models new to the suite follow.
        now = {r["stem"]: r for r in records}
        merged = []
        for r in previous.get("models", []):
            if r["stem"] in now:
                merged.append(now.pop(r["stem"]))
            else:
                r.setdefault("command", previous.get("command", ""))
                merged.append(r)
        report["models"] = merged + [r for r in records if r["stem"] in now]
        # The commands that measured what is kept, each once, in order.
        report["command"] = " ; ".join(dict.fromkeys(r["command"] for r in report["models"] if r["command"]))
        old_torch = (previous.get("torch") or {}).get("models") or {}
        if old_torch:
            torch_report = report.setdefault("torch", {k: v for k, v in previous["torch"].items() if k != "models"})
            models = torch_report.setdefault("models", {})
            for stem, entry in old_torch.items():
                models.setdefault(stem, entry)
    os.makedirs(args.results, exist_ok=True)
    write_atomic(os.path.join(args.results, slug + ".json"), json.dumps(report, indent=1) + "\n")
    if args.write_json_only:
        write_atomic(os.path.join(args.results, ".last-slug"), slug)
        return 0
    write_atomic(os.path.join(args.results, slug + ".md"), markdown(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
