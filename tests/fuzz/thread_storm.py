#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Thread storms on one shared openvgf Session (the mutation campaign's `threads` class).

  PYTHONPATH=<build>/python thread_storm.py MODEL.tosa SEED STORMS

MODEL is an fp32 ADD of two inputs (the second may broadcast). Each storm shares one Session (in_flight 1 to
4) between 2 to 12 threads; every thread makes 5 to 30 calls with inputs of its own: `run`,
`run_async` then `wait`, or `run_async` whose handle is dropped unwaited. Every result must be
numpy's a + b of that call's inputs, bit for bit; the only error allowed is openvgf's documented
refusal ("in flight"). Prints one JSON line per storm: {"storm", "calls", "ok", "refused",
"dropped", "wrong", "errors"}. A crash of the process is the campaign's to see."""
import json
import random
import sys
import threading

import numpy as np

import openvgf


def storm(model, rng, k):
    session = model.session(in_flight=rng.randint(1, 4))
    names = [t["name"] for t in model.inputs]
    shape_a, shape_b = (tuple(t["shape"]) for t in model.inputs[:2])
    out = model.outputs[0]["name"]
    counts = {"storm": k, "calls": 0, "ok": 0, "refused": 0, "dropped": 0, "wrong": [], "errors": []}
    lock = threading.Lock()

    def worker(t, calls, seed):
        local = random.Random(seed)
        for c in range(calls):
            a = np.arange(np.prod(shape_a), dtype=np.float32).reshape(shape_a) + np.float32(t * 1000 + c)
            b = np.full(shape_b, float(local.randint(-50, 50)), np.float32)
            how = local.choice(("run", "async", "drop"))
            try:
                if how == "run":
                    y = session.run({names[0]: a, names[1]: b})[out]
                elif how == "async":
                    y = session.run_async({names[0]: a, names[1]: b}).wait()[out]
                else:
                    session.run_async({names[0]: a, names[1]: b})  # dropped unwaited
                    with lock:
                        counts["calls"] += 1
                        counts["dropped"] += 1
                    continue
            except openvgf.Error as e:
                with lock:
                    counts["calls"] += 1
                    if "in flight" in str(e):
                        counts["refused"] += 1
                    else:
                        counts["errors"].append(f"thread {t} call {c} ({how}): {e}")
                continue
            good = np.array_equal(y, a + b)
            with lock:
                counts["calls"] += 1
                if good:
                    counts["ok"] += 1
                else:
                    counts["wrong"].append(f"thread {t} call {c} ({how}): not a + b of its own inputs")

    threads = [threading.Thread(target=worker, args=(t, rng.randint(5, 30), rng.getrandbits(32)))
               for t in range(rng.randint(2, 12))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return counts


def main():
    model_path, seed, storms = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    rng = random.Random(seed)
    model = openvgf.Model(model_path)
    for k in range(storms):
        counts = storm(model, rng, k)
        counts["wrong"], counts["errors"] = counts["wrong"][:5], counts["errors"][:5]  # the first few tell
        print(json.dumps(counts), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
