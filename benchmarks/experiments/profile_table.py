#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Median GPU time (µs) per dispatch of `openvgf run --profile` traces, one column per trace,
in the first trace's dispatch order, after a row of totals; a split-K GEMM's row is its
partial pass plus its reduction. Usage: profile_table.py TRACE.json...
"""
import collections
import json
import statistics
import sys


def medians(path):
    """Dispatch name -> median duration, and the names in first-seen order."""
    durations = collections.defaultdict(list)
    order = []
    for event in json.load(open(path))["traceEvents"]:
        if event.get("ph") != "X":
            continue
        if event["name"] not in durations:
            order.append(event["name"])
        durations[event["name"]].append(event["dur"])
    times = {name: statistics.median(d) for name, d in durations.items()}
    # A split-K GEMM's partial pass counts towards its reduction kernel, so that split and
    # whole GEMMs compare row by row.
    for name in [n for n in times if n.endswith("_partial")]:
        base = name[: -len("_partial")]
        times[base] = times.get(base, 0) + times.pop(name)
        if base not in order:
            order[order.index(name)] = base
        else:
            order.remove(name)
    return times, order


def main():
    traces = [medians(path) for path in sys.argv[1:]]
    if not traces:
        sys.exit(__doc__)
    print(f"{'total':22s}", " ".join(f"{sum(t.values()):8.1f}" for t, _ in traces))
    for name in traces[0][1]:
        print(f"{name:22s}", " ".join(f"{t.get(name, 0):8.1f}" for t, _ in traces))


if __name__ == "__main__":
    main()
