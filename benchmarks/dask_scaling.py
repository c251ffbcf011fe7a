#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Scaling of one model over the devices of one host through Dask (openvgf.dask), and in one
process (openvgf.DevicePool) for reference.

For each device count k of --counts (default: 1 and all of --devices) it starts a `dask
scheduler` and k `dask worker`s on 127.0.0.1 (one thread and the resource VK=1 each, worker i
with OPENVGF_DASK_DEVICE set to the i-th entry of --devices), opens the model on every worker
(untimed), then times --repeats runs of k x --items-per-device items through
openvgf.dask.run_bag and takes the median. Each item is one input set of the model (samples per
item: the first dimension of its first input). Inputs are made on the workers (a deterministic
array per process, made once: this module is imported there), so nothing but an item index
travels to a worker and the model's outputs come back. Then, unless --no-single-process, the
same counts and item numbers through one DevicePool in this process. Efficiency for k devices
is throughput(k) / (k x throughput(1)).

    benchmarks/dask_scaling.py MODEL.vgf --devices 0,1 --json dask.json
    /tmp/pykit/python3 benchmarks/dask_scaling.py --bundle .gpu/scal MODEL.vgf --devices 0,1,2,3 --counts 1,2,4

Runs with the Python openvgf's module is built for (Debian 12's python3 with
python3-distributed; benchmarks/python_kit.sh carries it to other hosts). --bundle DIR takes
openvgf's package and libraries from a benchmarks/bundle.sh folder (as does PYTHONPATH=DIR/python). Every process it starts is
stopped before it exits; only 127.0.0.1 is used. Exit code 0 when every measurement ran.
"""

import os
import sys
import uuid

DEVICE_VARIABLE = "OPENVGF_DASK_DEVICE"  # openvgf.dask.DEVICE_VARIABLE (not imported: see below)
BUNDLE_VARIABLE = "OPENVGF_SCALING_BUNDLE"  # set once this process runs with --bundle's paths

# ---- the worker side: imported by the Dask workers as module `dask_scaling` (numpy only) ----

_inputs = {}
_items = [0]  # input sets handed out by this process (a list: the count survives re-imports' bindings)


def items_made():
    """How many items this process has made inputs for (client.run shows each worker's share)."""
    return _items[0]


def input_item(index, specs, seed, run):
    """The input set of item `index`: one array per (shape, dtype) of specs, U(-1,1) for floats
    and integers in [-100, 100] otherwise, from `seed`. Every item gets the same arrays, made once
    per process, so timing a run measures the device, not making or shipping inputs. `run` is
    unique per timed run: Dask names a task by its function and arguments and hands back a result
    it still holds under that name instead of computing it again, so without it every repeat
    after the first timed nothing."""
    del index, run  # items differ only by their place in the bag
    _items[0] += 1
    key = (specs, seed)
    if key not in _inputs:
        import numpy as np

        generator = np.random.default_rng(seed)
        arrays = []
        for shape, dtype in specs:
            if np.issubdtype(np.dtype(dtype), np.floating):
                arrays.append(generator.uniform(-1, 1, shape).astype(dtype))
            else:
                arrays.append(generator.integers(-100, 101, shape).astype(dtype))
        _inputs[key] = arrays
    return _inputs[key]


# ---- the client side ----

# VGF resource formats of model inputs (openvgf inspect) and the numpy dtype fed to them.
VK_FORMAT_DTYPES = {
    "VK_FORMAT_R32_SFLOAT": "float32", "VK_FORMAT_R16_SFLOAT": "float16", "VK_FORMAT_R8_SINT": "int8",
    "VK_FORMAT_R8_UINT": "uint8", "VK_FORMAT_R16_SINT": "int16", "VK_FORMAT_R32_SINT": "int32",
    "VK_FORMAT_R64_SINT": "int64",
}


def parse_arguments(argv):
    import argparse

    parser = argparse.ArgumentParser(
        prog="dask_scaling.py", formatter_class=argparse.RawDescriptionHelpFormatter,
        description=__doc__.split("\n\n    ")[0],
        epilog="Example (a GPU host, with benchmarks/python_kit.sh and benchmarks/bundle.sh folders):\n"
               "  /tmp/pykit/python3 benchmarks/dask_scaling.py --bundle .gpu/scal zoo/resnet50_b32.vgf "
               "--devices 0,1 --json dask.json\n"
               "On one device, --devices 0,0 runs two workers on it (a functional check, not a scaling number).")
    parser.add_argument("model", metavar="MODEL", help="a .vgf (openvgf convert); every worker opens this path")
    parser.add_argument("--devices", required=True, metavar="LIST",
                        help="device per worker, comma-separated indices (`openvgf devices`), e.g. 0,1; names and "
                             "'all' (every device of the best kind) are resolved to indices as openvgf.DevicePool "
                             "does")
    parser.add_argument("--counts", metavar="LIST",
                        help="device counts to measure, each using the first k of --devices (default: 1 and all)")
    parser.add_argument("--items-per-device", type=int, default=32, metavar="N",
                        help="items timed per device in each repeat (default 32)")
    parser.add_argument("--items-per-task", type=int, default=8, metavar="N",
                        help="items per Dask task, i.e. per bag partition (default 8, as openvgf.dask.run_many)")
    parser.add_argument("--repeats", type=int, default=5, metavar="N", help="timed repeats, median taken (default 5)")
    parser.add_argument("--in-flight", type=int, default=2, metavar="N",
                        help="runs in flight per device in the single-process DevicePool (default 2)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the input values (default 1)")
    parser.add_argument("--no-single-process", action="store_true",
                        help="skip the single-process reference (openvgf.DevicePool)")
    parser.add_argument("--bundle", metavar="DIR",
                        help="a benchmarks/bundle.sh folder: use its openvgf package (DIR/python) and libraries (DIR/lib)")
    parser.add_argument("--json", metavar="PATH", help="also write the results as JSON to PATH")
    parser.add_argument("--startup-timeout", type=float, default=120, metavar="S",
                        help="seconds to wait for the scheduler, then for the workers (default 120)")
    parser.add_argument("--time-limit", type=float, default=1200, metavar="S",
                        help="stop everything and fail after S seconds in all (default 1200)")
    args = parser.parse_args(argv)
    args.model = os.path.abspath(args.model)  # the workers run in a scratch folder
    args.device_list = [d.strip() for d in args.devices.split(",") if d.strip()]
    if not args.device_list:
        parser.error("--devices: expected at least one device")
    try:
        args.count_list = [int(c) for c in args.counts.split(",")] if args.counts else None
    except ValueError:
        parser.error(f"--counts: expected comma-separated integers, got {args.counts!r}")
    for name in ("items_per_device", "items_per_task", "repeats", "in_flight"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')}: expected at least 1, got {getattr(args, name)}")
    return args


def resolve_devices(args):
    """--devices as one device index per worker, and the counts to measure. A selector that is
    not all indices ("all", a name) is resolved by openvgf.DevicePool (which opens the model on
    those devices once) so that it means what it means everywhere else."""
    import openvgf

    if not all(device.isdigit() for device in args.device_list):
        pool = openvgf.DevicePool(args.model, devices=",".join(args.device_list), in_flight=1)
        args.device_list = [str(index) for index in pool.device_indices]
        del pool
    n = len(args.device_list)
    args.count_list = args.count_list or sorted({1, n})
    if any(not 1 <= count <= n for count in args.count_list):
        raise SystemExit(f"dask_scaling.py: --counts: each count must be 1..{n} (the devices of --devices "
                         f"{args.devices}), got {args.counts}")


def bundle_of_package():
    """The benchmarks/bundle.sh folder that the importable openvgf package lies in (FOLDER/python/
    openvgf, found without importing it), or None: its libraries in FOLDER/lib are then needed
    also when only PYTHONPATH names the package."""
    import importlib.util

    spec = importlib.util.find_spec("openvgf")
    if spec is None or not spec.origin:
        return None
    folder = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(spec.origin))))
    bundled = os.path.isfile(os.path.join(folder, "python3")) and os.path.isdir(os.path.join(folder, "lib"))
    return folder if bundled else None


def use_bundle(folder):
    """Runs this script again with the bundle's package on PYTHONPATH and its libraries on
    LD_LIBRARY_PATH (the dynamic loader reads that only when a process starts); the processes
    it starts inherit both."""
    folder = os.path.abspath(folder)
    if os.environ.get(BUNDLE_VARIABLE) == folder:
        return
    if not os.path.isdir(os.path.join(folder, "python", "openvgf")):
        sys.exit(f"dask_scaling.py: --bundle {folder}: no python/openvgf in it (expected a benchmarks/bundle.sh folder)")
    environment = dict(os.environ)
    for variable, path in (("PYTHONPATH", os.path.join(folder, "python")), ("LD_LIBRARY_PATH", os.path.join(folder, "lib"))):
        environment[variable] = path + (os.pathsep + environment[variable] if environment.get(variable) else "")
    environment[BUNDLE_VARIABLE] = folder
    os.execve(sys.executable, [sys.executable] + sys.argv, environment)


def input_specs(model):
    """((shape, dtype), ...) of the model's inputs in input order, from the VGF's resource table
    (read here without opening a device)."""
    import openvgf

    if not model.endswith(".vgf"):
        raise SystemExit(f"dask_scaling.py: {model}: expected a .vgf (openvgf convert MODEL -o MODEL.vgf)")
    description = openvgf.inspect(model)
    resources = description["resources"]
    specs = []
    for binding in description["model_sequence"]["inputs"]:
        resource = resources[binding["mrt_index"]]
        dtype = VK_FORMAT_DTYPES.get(resource["vk_format"])
        if dtype is None:
            raise SystemExit(f"dask_scaling.py: {model}: input {binding['name']!r} has the format "
                             f"{resource['vk_format']}; expected one of {', '.join(VK_FORMAT_DTYPES)}")
        specs.append((tuple(resource["shape"]), dtype))
    return tuple(specs)


class LoopbackCluster:
    """A `dask scheduler` and one `dask worker` per device on 127.0.0.1, each in its own session
    with its output in FOLDER/<name>.log; stop() ends them all (SIGTERM, SIGKILL after 20 s).
    When one of them ends by itself, the main thread gets a KeyboardInterrupt and `ended` names
    it: a client waiting for a dead worker's tasks would otherwise wait forever."""

    def __init__(self, folder, devices, timeout_s):
        import json
        import threading
        import time

        self.folder, self.processes, self.ended, self.stopping = folder, [], None, threading.Event()
        scheduler_file = os.path.join(folder, "scheduler.json")
        self.start("scheduler", ["distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port", "0",
                                 "--no-dashboard", "--scheduler-file", scheduler_file], {})
        deadline = time.monotonic() + timeout_s
        while not os.path.exists(scheduler_file):
            if self.processes[0][1].poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the Dask scheduler did not start within {timeout_s:g} s:\n{self.log_tail()}")
            time.sleep(0.1)
        time.sleep(0.2)  # the file is written whole, but give its writer the moment it may need
        with open(scheduler_file) as file:
            self.address = json.load(file)["address"]
        # Workers import this module (input_item) and openvgf; they run in `folder`.
        path = os.pathsep.join([os.path.dirname(os.path.abspath(__file__))] +
                               [os.path.abspath(p) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])
        for index, device in enumerate(devices):
            self.start(f"worker{index}", ["distributed.cli.dask_worker", self.address, "--nthreads", "1",
                                          "--resources", "VK=1", "--name", f"gpu{index}", "--no-dashboard",
                                          "--local-directory", os.path.join(folder, "dask")],
                       {DEVICE_VARIABLE: device, "PYTHONPATH": path})
        threading.Thread(target=self.watch, daemon=True).start()

    def watch(self):
        import _thread

        while not self.stopping.wait(0.5):
            for name, process in self.processes:
                if process.poll() is not None and not self.stopping.is_set():
                    self.ended = f"{name} (exit code {process.returncode})"
                    _thread.interrupt_main()
                    return

    def start(self, name, arguments, variables):
        import subprocess

        with open(os.path.join(self.folder, f"{name}.log"), "w") as log:
            process = subprocess.Popen([sys.executable, "-m"] + arguments, stdout=log, stderr=subprocess.STDOUT,
                                       stdin=subprocess.DEVNULL, start_new_session=True, cwd=self.folder,
                                       env={**os.environ, **variables})
        self.processes.append((name, process))

    def log_tail(self, lines=15):
        """The last lines of each process's log, less Dask's INFO lines."""
        text = []
        for name, _ in self.processes:
            with open(os.path.join(self.folder, f"{name}.log"), errors="replace") as log:
                kept = [line for line in log if " - INFO - " not in line]
            text.append(f"--- {name}.log (last {lines} lines but INFO)\n" + "".join(kept[-lines:]))
        return "\n".join(text)

    def stop(self):
        import signal
        import subprocess

        self.stopping.set()
        for _, process in reversed(self.processes):
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for _, process in self.processes:
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        self.processes = []


def measure_dask(args, specs, count, folder):
    """Median seconds of the timed repeats on the first `count` devices through Dask, and what
    each worker ran on."""
    import statistics
    import time

    import dask.bag
    from distributed import Client

    import dask_scaling  # this file as the workers import it, so input_item travels by name
    import openvgf.dask

    devices = args.device_list[:count]
    cluster = LoopbackCluster(folder, devices, args.startup_timeout)
    try:
        with Client(cluster.address, timeout=args.startup_timeout) as client:
            try:
                client.wait_for_workers(count, timeout=args.startup_timeout)
            except Exception as error:
                raise RuntimeError(f"{count} Dask worker(s) did not start: {error}\n{cluster.log_tail()}") from None
            items = args.items_per_device * count

            def run(n, per_task=args.items_per_task):
                bag = dask.bag.from_sequence(range(n), npartitions=-(-n // per_task))
                return openvgf.dask.run_bag(client, bag.map(dask_scaling.input_item, specs, args.seed, uuid.uuid4().hex),
                                            args.model)

            # Untimed: until every worker has opened the model (a task goes to any free worker; a worker
            # that has just registered may get none), then one whole repeat.
            deadline = time.monotonic() + args.startup_timeout
            while True:
                run(2 * count, 1)
                opened = client.run(openvgf.dask.cached_sessions)
                if all(opened.values()):
                    break
                if time.monotonic() > deadline:
                    raise RuntimeError(f"not every worker opened {args.model} within {args.startup_timeout:g} s: "
                                       f"{opened}\n{cluster.log_tail()}")
                time.sleep(0.2)
            run(items)
            before = client.run(dask_scaling.items_made)
            seconds = []
            for _ in range(args.repeats):
                start = time.perf_counter()
                outputs = run(items)
                seconds.append(time.perf_counter() - start)
            after = client.run(dask_scaling.items_made)
            sessions = client.run(openvgf.dask.cached_sessions)
            workers = {info["name"]: dict(devices=[s["device"] for s in sessions[address]],
                                          timed_items=after[address] - before[address])
                       for address, info in client.scheduler_info()["workers"].items()}
            made = sum(worker["timed_items"] for worker in workers.values())
            if made != args.repeats * items:
                raise RuntimeError(f"the workers made inputs for {made} items in the timed repeats, expected "
                                   f"{args.repeats} x {items}: some results were not computed again")
            return statistics.median(seconds), seconds, outputs[0], dict(sorted(workers.items()))
    except KeyboardInterrupt:
        if cluster.ended is None:
            raise
        raise RuntimeError(f"the Dask process {cluster.ended} ended while measuring:\n{cluster.log_tail()}") from None
    finally:
        cluster.stop()


def measure_single_process(args, specs, count):
    """Median seconds of the timed repeats on the first `count` devices through one DevicePool."""
    import statistics
    import time

    import openvgf

    pool = openvgf.DevicePool(args.model, devices=",".join(args.device_list[:count]), in_flight=args.in_flight)
    item = input_item(0, specs, args.seed, None)
    items = [item] * (args.items_per_device * count)
    pool.run_many(items)  # untimed: pipelines built, memory allocated on every device
    seconds = []
    for _ in range(args.repeats):
        start = time.perf_counter()
        outputs = pool.run_many(items)
        seconds.append(time.perf_counter() - start)
    return statistics.median(seconds), seconds, outputs[0], pool.devices


def rows_with_efficiency(rows):
    """Adds items/s, samples/s and efficiency = throughput(k) / (k x throughput(1)) to each row."""
    one = next((row for row in rows if row["devices"] == 1), None)
    for row in rows:
        row["items_per_s"] = row["items"] / row["seconds"]
        row["samples_per_s"] = row["items_per_s"] * row["samples_per_item"]
        row["efficiency"] = row["items_per_s"] / (row["devices"] * one["items_per_s"]) if one else None
    return rows


def print_table(title, rows):
    print(f"\n{title}")
    print(f"{'devices':>7} {'items':>6} {'seconds':>8} {'items/s':>9} {'samples/s':>10} {'efficiency':>10}")
    for row in rows:
        efficiency = f"{row['efficiency']:.3f}" if row["efficiency"] is not None else "-"
        print(f"{row['devices']:>7} {row['items']:>6} {row['seconds']:>8.3f} {row['items_per_s']:>9.2f} "
              f"{row['samples_per_s']:>10.1f} {efficiency:>10}")


def same_outputs(reference, outputs):
    """Whether two Session.run results (lists of arrays) are bit-identical."""
    import numpy as np

    return len(reference) == len(outputs) and all(
        a.shape == b.shape and a.dtype == b.dtype and np.array_equal(a, b, equal_nan=True)
        for a, b in zip(reference, outputs))


def measure(args, folder):
    import platform

    import distributed
    import numpy as np

    import openvgf

    specs = input_specs(args.model)
    resolve_devices(args)
    samples = int(specs[0][0][0]) if specs[0][0] else 1
    print(f"{args.model}: inputs {', '.join(f'{list(shape)} {dtype}' for shape, dtype in specs)}; "
          f"{samples} samples per item; devices {','.join(args.device_list)}; counts {args.count_list}")
    result = dict(model=os.path.abspath(args.model), inputs=[dict(shape=list(s), dtype=d) for s, d in specs],
                  samples_per_item=samples, devices=args.device_list, items_per_device=args.items_per_device,
                  items_per_task=args.items_per_task, repeats=args.repeats, seed=args.seed,
                  command=" ".join([os.path.basename(sys.executable)] + sys.argv), host=platform.node(),
                  python=sys.version.split()[0], python_executable=sys.executable, numpy=np.__version__, distributed=distributed.__version__,
                  openvgf=openvgf.__version__, dask=[], single_process=[])
    reference = None
    identical = True
    for count in args.count_list:
        cluster_folder = os.path.join(folder, f"cluster-{count}")
        os.makedirs(cluster_folder)
        median, seconds, output, workers = measure_dask(args, specs, count, cluster_folder)
        reference = output if reference is None else reference
        identical &= same_outputs(reference, output)
        result["dask"].append(dict(devices=count, items=args.items_per_device * count, seconds=median,
                                   seconds_each=seconds, samples_per_item=samples, workers=workers))
        print(f"  dask, {count} device(s): {median:.3f} s median of {args.repeats}; workers {workers}", flush=True)
    if not args.no_single_process:
        for count in args.count_list:
            median, seconds, output, names = measure_single_process(args, specs, count)
            identical &= same_outputs(reference, output)
            result["single_process"].append(dict(devices=count, items=args.items_per_device * count, seconds=median,
                                                 seconds_each=seconds, samples_per_item=samples, device_names=names))
            print(f"  one process, {count} device(s): {median:.3f} s median of {args.repeats}", flush=True)
    result["outputs_identical"] = bool(identical)
    return result


def main(argv):
    args = parse_arguments(argv)
    bundle = args.bundle or bundle_of_package()
    if bundle:
        use_bundle(bundle)
    import json
    import shutil
    import signal
    import tempfile

    def out_of_time(*_):
        raise TimeoutError(f"dask_scaling.py: over --time-limit {args.time_limit:g} s")

    def terminated(*_):
        raise SystemExit("dask_scaling.py: terminated")

    signal.signal(signal.SIGALRM, out_of_time)
    signal.signal(signal.SIGTERM, terminated)
    signal.setitimer(signal.ITIMER_REAL, args.time_limit)
    folder = tempfile.mkdtemp(prefix="dask-scaling-")
    try:
        result = measure(args, folder)
    except BaseException:
        print(f"dask_scaling.py: failed; the processes' logs are in {folder}", file=sys.stderr)
        raise
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    shutil.rmtree(folder, ignore_errors=True)
    rows_with_efficiency(result["dask"])
    rows_with_efficiency(result["single_process"])
    print_table("Through Dask (one worker per device, 127.0.0.1):", result["dask"])
    if result["single_process"]:
        print_table("In one process (openvgf.DevicePool):", result["single_process"])
    print(f"\noutputs of all runs bit-identical: {result['outputs_identical']}")
    if args.json:
        with open(args.json, "w") as file:
            json.dump(result, file, indent=1)
            file.write("\n")
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
