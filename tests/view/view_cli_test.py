#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""`openvgf view` through the command line on real files (no browser needed):

- `--format json` of Arm's GRAPH VGF fixture is Model Explorer's graph collection with one node per
  TOSA operator that `openvgf inspect` lists, in the segment's namespace, every edge naming an
  existing node;
- `--format dot` is a digraph with the segment as a cluster and one edge per tensor;
- `run --profile` then `view --profile` puts the GPU time of the run on the operator that ran;
- an Ethos-U stream's operation is joined to the model input and output through the addresses
  its registers name;
- refusals exit 2 naming the file: a file that is no model, a profile that is no trace, an output
  folder that does not exist (and nothing is written).

    view_cli_test.py OPENVGF SOURCE_DIR WORK_DIR
"""
import json
import os
import re
import subprocess
import sys


def run(*args, check=True):
    result = subprocess.run(list(args), capture_output=True, text=True)
    if check and result.returncode != 0:
        sys.exit(f"{' '.join(args)}: exit {result.returncode}: {result.stderr}")
    return result


def main():
    openvgf, source, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    fixture = os.path.join(source, "tests/data/vgf-graph/simple_conv2d_rescale_graph.vgf")
    listing = run(openvgf, "-q", "inspect", fixture).stdout
    operators = re.findall(r"^\s+\[\d+\] %\d+ = ([A-Z_0-9]+)\(", listing, re.M)
    assert operators == ["RESCALE", "CONV2D", "RESCALE", "RESCALE"], operators

    collection = json.loads(run(openvgf, "view", fixture, "--format", "json").stdout)
    nodes = collection["graphs"][0]["nodes"]
    ops = [n for n in nodes if n["label"] not in ("input", "output")]
    assert sorted(n["label"] for n in ops) == sorted(operators), [n["label"] for n in ops]
    assert all(n["namespace"] == "segment 0 'graph_segment_0' (GRAPH)" for n in ops), ops[0]["namespace"]
    ids = {n["id"] for n in nodes}
    edges = [e for n in nodes for e in n["incomingEdges"]]
    assert len(edges) == 5 and all(e["sourceNodeId"] in ids for e in edges), edges
    assert all("key" in a and "value" in a for n in nodes for a in n["attrs"])

    dot = run(openvgf, "view", fixture, "--format", "dot").stdout
    assert dot.startswith("digraph ") and "subgraph cluster_0" in dot, dot[:200]
    assert len(re.findall(r"^\s*n\d+ -> n\d+ ", dot, re.M)) == 5, dot

    # A profile from a real run on the device (lavapipe in CI): the ADD dispatch's time lands on ADD.
    add = os.path.join(source, "tests/data/tosa/test_add_1x4x4x4_f32")
    trace = os.path.join(work, "add_trace.json")
    run(openvgf, "-q", "run", os.path.join(add, "model.tosa"), "-i", "TosaInput_0=" + os.path.join(add, "placeholder_0.npy"),
        "-i", "TosaInput_1=" + os.path.join(add, "placeholder_1.npy"), "--repeat", "3", "--profile", trace)
    durations = sorted(e["dur"] / 1000 for e in json.load(open(trace))["traceEvents"] if e.get("name") == "ADD_0")
    assert len(durations) == 3, durations
    profiled = json.loads(run(openvgf, "view", os.path.join(add, "model.tosa"), "--profile", trace,
                              "--format", "json").stdout)
    add_node = next(n for n in profiled["graphs"][0]["nodes"] if n["label"] == "ADD")
    gpu = {a["key"]: a["value"] for a in add_node["attrs"]}["gpu_ms"]
    assert abs(float(gpu) - durations[1]) < 1e-3, (gpu, durations)  # the median of the three runs
    page = os.path.join(work, "add_profiled.html")
    run(openvgf, "-q", "view", os.path.join(add, "model.tosa"), "--profile", trace, "-o", page)
    assert '"gpuMs":' in open(page).read()

    # An Ethos-U stream: the MAX_POOL2D becomes one NPU_OP_POOL that reads where the input is placed
    # (region 1, offset 0) and writes where the output is (offset 4096), as `inspect` lists them.
    stream = os.path.join(work, "maxpool.ethosu")
    run(openvgf, "-q", "convert", os.path.join(source, "tests/data/tosa/simple_maxpool2d/model.tosa"),
        "--target", "ethos-u55-128", "-o", stream)
    placement = run(openvgf, "-q", "inspect", stream).stdout
    assert "input 0: shape 1x1x1x16x16x16 elem_size 1 offset 0 region 1" in placement, placement
    assert "output 0: shape 1x1x1x8x8x16 elem_size 1 offset 4096 region 1" in placement, placement
    npu = json.loads(run(openvgf, "view", stream, "--format", "json").stdout)["graphs"][0]["nodes"]
    assert [n["label"] for n in npu] == ["input", "POOL", "output"], [n["label"] for n in npu]
    assert [e["sourceNodeId"] for e in npu[1]["incomingEdges"]] == [npu[0]["id"]]
    assert [e["sourceNodeId"] for e in npu[2]["incomingEdges"]] == [npu[1]["id"]]
    assert npu[1]["outputsMetadata"][0]["attrs"][0]["value"] == "region 1 @ 0x1000", npu[1]["outputsMetadata"]

    not_a_model = os.path.join(work, "notes.txt")
    with open(not_a_model, "w") as f:
        f.write("not a model\n")
    refused = run(openvgf, "view", not_a_model, check=False)
    assert refused.returncode == 2 and not_a_model in refused.stderr and "expected a .tosa" in refused.stderr, refused
    refused = run(openvgf, "view", fixture, "--profile", not_a_model, check=False)
    assert refused.returncode == 2 and "expected a Chrome trace" in refused.stderr, refused
    missing = os.path.join(work, "no_such_folder", "page.html")
    refused = run(openvgf, "view", fixture, "-o", missing, check=False)
    assert refused.returncode == 2 and "no_such_folder" in refused.stderr, refused
    assert not os.path.exists(missing)
    refused = run(openvgf, "view", fixture, "--format", "svg", check=False)
    assert refused.returncode == 2 and "html" in refused.stderr, refused
    print("view CLI: json, dot, profile, Ethos-U and refusals as expected")
    return 0


if __name__ == "__main__":
    sys.exit(main())
