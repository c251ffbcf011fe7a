# SPDX-License-Identifier: Apache-2.0
"""Run openvgf models on a Dask cluster (distributed.Client): one task at a time per device.

    from distributed import Client
    import openvgf.dask
    client = Client("tcp://scheduler:8786")
    outputs = openvgf.dask.run_many(client, "/shared/model.vgf", inputs)   # in input order
    outputs = openvgf.dask.run_pairs(client, [(path, inputs), ...])        # many models

An item of `inputs` is what Session.run takes (a list of arrays in input order, or a dict
{name: array}; a bare array for a one-input model); its output is what Session.run returns for it.
A numpy array given as `inputs` is a stack of items (x[i] feeds the one input) and the outputs
come back stacked the same way. run_bag() does the same over a dask.bag.Bag.

What travels between processes is model paths, options and numpy arrays, never openvgf objects:
each worker process opens a model once per (path, options) and keeps the Session (the
`cache_size` most recently used ones). Model paths are opened on the workers, so they must
name the same file there (shared storage, or the same copy on each host).

Tasks ask for one unit of the worker resource `resource` ("VK" unless told): start one worker
per device with `dask worker ADDRESS --nthreads 1 --resources "VK=1"` so that each device runs
one task at a time. A worker opens the device named by `options["device"]`, else by its
OPENVGF_DASK_DEVICE environment variable (index or name; set one per worker), else the
default device. `batch_size` items travel in one task (fewer, larger tasks keep the
scheduler's overhead low); within a task the worker keeps IN_FLIGHT runs submitted
(Session.run_async), so one item's upload and download overlap another's compute. A task that raises is retried `retries` times, and a task whose
worker died is run again elsewhere by Dask itself. Errors raise openvgf.Error naming the
worker, the model path and the item. docs/cluster.md has a multi-host recipe.

batch_files() runs items of .npy files and writes their outputs (what `openvgf batch
--scheduler` does through batch_main()).
"""

import collections
import os
import socket
import threading
import uuid

import numpy as np

import openvgf

RESOURCE = "VK"
BATCH_SIZE = 8
RETRIES = 2
CACHE_SIZE = 4
IN_FLIGHT = 2  # runs a worker keeps submitted within a task
DEVICE_VARIABLE = "OPENVGF_DASK_DEVICE"

# The worker side: Sessions this process opened, by (path, options), most recently used last.
_sessions = collections.OrderedDict()
_sessions_lock = threading.Lock()


def _worker_name():
    """Which worker this is, for error messages: its name and address, else the host and pid."""
    try:
        from distributed import get_worker

        worker = get_worker()
        return f"{worker.name} ({worker.address})" if str(worker.name) != worker.address else worker.address
    except (ImportError, ValueError):
        return f"{socket.gethostname()} pid {os.getpid()}"


def _open(path, options, cache_size):
    """The Session of `path` with `options` in this worker process, opened on first use."""
    key = (path, tuple(sorted(options.items())))
    with _sessions_lock:
        if key in _sessions:
            _sessions.move_to_end(key)
            _trim(cache_size)  # a call may give a smaller cache_size than the last
            return _sessions[key]
        if not os.access(path, os.R_OK):
            reason = "no such file" if not os.path.exists(path) else "not readable"
            raise openvgf.Error(f"{path}: {reason} on Dask worker {_worker_name()} (model paths are opened by the "
                                "workers: give a path every worker can read)", "InvalidInput", 2)
        model_options = dict(options)
        if "device" not in model_options and os.environ.get(DEVICE_VARIABLE):
            model_options["device"] = os.environ[DEVICE_VARIABLE]
        try:
            session = openvgf.Session(path, in_flight=IN_FLIGHT, **model_options)
        except openvgf.Error as error:
            raise openvgf.Error(f"on Dask worker {_worker_name()}: {error}", error.code, error.exit_code) from None
        _sessions[key] = session
        _trim(cache_size)
        return session


def _trim(cache_size):
    """Closes the least recently used Sessions past cache_size (runs in progress keep theirs)."""
    while len(_sessions) > cache_size:
        _sessions.popitem(last=False)


def _as_run_input(item):
    return [item] if isinstance(item, np.ndarray) else item


def _run_chunk(options, cache_size, start, pairs):
    """Runs (path, item) pairs in order in this worker, IN_FLIGHT at a time; pairs[i] is item
    start + i of the call (start None: of a bag partition)."""
    def failed(offset, error):
        which = f"item {offset} of a bag partition" if start is None else f"item {start + offset}"
        return openvgf.Error(f"on Dask worker {_worker_name()}, {which}: {error}", error.code, error.exit_code)

    outputs = []
    pending = collections.deque()  # (offset, RunHandle), oldest first

    def finish_oldest():
        offset, handle = pending.popleft()
        try:
            outputs.append(handle.wait())
        except openvgf.Error as error:
            raise failed(offset, error) from None

    for offset, (path, item) in enumerate(pairs):
        session = _open(path, options, cache_size)
        try:
            pending.append((offset, session.run_async(_as_run_input(item))))
        except openvgf.Error as error:
            raise failed(offset, error) from None
        if len(pending) >= IN_FLIGHT:
            finish_oldest()
    while pending:
        finish_oldest()
    return outputs


def cached_sessions():
    """The Sessions this process holds, least recently used first, as dicts of path, options and
    device (the name of the device it runs on): client.run(openvgf.dask.cached_sessions) shows
    what each worker has open."""
    with _sessions_lock:
        return [dict(path=path, options=dict(options), device=session.model.device)
                for (path, options), session in _sessions.items()]


def _check(batch_size, cache_size):
    if batch_size < 1:
        raise ValueError(f"openvgf.dask: batch_size must be at least 1, got {batch_size}")
    if cache_size < 1:
        raise ValueError(f"openvgf.dask: cache_size must be at least 1, got {cache_size}")


def submit_pairs(client, pairs, *, options=None, batch_size=BATCH_SIZE, resource=RESOURCE, retries=RETRIES,
                 cache_size=CACHE_SIZE):
    """Submits (model path, item) pairs in tasks of batch_size consecutive pairs; returns the
    list of futures, each resolving to the outputs of its pairs in order. Task keys are
    "openvgf-<first>-<end>-<call id>" (items first..end-1). resource=None asks for no resource."""
    _check(batch_size, cache_size)
    pairs = [(os.fspath(path), item) for path, item in pairs]
    options = dict(options or {})
    call = uuid.uuid4().hex
    futures = []
    for start in range(0, len(pairs), batch_size):
        end = min(start + batch_size, len(pairs))
        futures.append(client.submit(_run_chunk, options, cache_size, start, pairs[start:end],
                                     key=f"openvgf-{start}-{end}-{call}", pure=False, retries=retries,
                                     resources={resource: 1} if resource else None))
    return futures


def run_pairs(client, pairs, *, options=None, batch_size=BATCH_SIZE, resource=RESOURCE, retries=RETRIES,
              cache_size=CACHE_SIZE):
    """The outputs of each (model path, item) pair, in order. options: Model keywords (device,
    target, plan, validate, pipeline_cache, model_cache, cache_dir) used on every worker."""
    futures = submit_pairs(client, pairs, options=options, batch_size=batch_size, resource=resource,
                           retries=retries, cache_size=cache_size)
    return [output for chunk in client.gather(futures) for output in chunk]


def run_many(client, model, inputs, *, options=None, batch_size=BATCH_SIZE, resource=RESOURCE, retries=RETRIES,
             cache_size=CACHE_SIZE):
    """The outputs of `model` (a path) for each item of `inputs`, in order. A numpy array as
    `inputs` is a stack of one-input items and gives the stack of the one output (a model with
    one input and one output)."""
    path = os.fspath(model)
    stacked = isinstance(inputs, np.ndarray)
    outputs = run_pairs(client, [(path, item) for item in inputs], options=options, batch_size=batch_size,
                        resource=resource, retries=retries, cache_size=cache_size)
    if not stacked:
        return outputs
    if outputs and len(outputs[0]) != 1:
        raise openvgf.Error(f"{path}: openvgf.dask.run_many stacks one output, the model has {len(outputs[0])}",
                            "InvalidInput", 2)
    return np.stack([output[0] for output in outputs]) if outputs else np.empty((0,))


def _run_partition(partition, path, options, cache_size):
    return _run_chunk(options, cache_size, None, [(path, item) for item in partition])


def run_bag(client, bag, model, *, options=None, resource=RESOURCE, retries=RETRIES, cache_size=CACHE_SIZE):
    """The outputs of `model` for each item of a dask.bag.Bag, in the bag's order. A partition is
    a task (the bag's partitioning is the batch size). Every task of the computation, the bag's
    own included, asks for `resource` and is retried `retries` times (Dask's Client.compute
    applies them to the whole graph)."""
    _check(1, cache_size)
    outputs = bag.map_partitions(_run_partition, os.fspath(model), dict(options or {}), cache_size)
    return client.compute(outputs, resources={resource: 1} if resource else None, retries=retries).result()


# ---- `openvgf batch --scheduler ADDRESS`: the command's pending items on a cluster ----
#
# The openvgf command finds the items, leaves out those already written and prints progress
# and the summary (cli/batch.cpp); this process runs the rest on the cluster. The command
# writes a manifest (fields separated by NUL: paths are bytes) and reads one record per item
# from file descriptor 3 (fields separated by NUL, records ended by NUL and newline):
#   done   INDEX WORKER             outputs written
#   failed INDEX EXIT_CODE MESSAGE  the item's error (2 bad input, 1 otherwise)
#   fatal  MESSAGE                  nothing ran (no cluster, no worker with the resource)
# Inputs are read here with numpy and travel to the workers as arrays; outputs come back
# and are written here (temporary file, then rename), so only the model path must be the
# same on every worker.

MANIFEST_MAGIC = "openvgf-batch-manifest-1"
WAIT_S = 30  # how long a batch waits for the scheduler, then for a worker declaring the resource
WAIT_VARIABLE = "OPENVGF_DASK_TIMEOUT"  # seconds, instead of WAIT_S


def _run_batch_chunk(options, cache_size, pairs):
    """Worker side of a batch: each (model path, input list) pair's outputs, or its error.
    Returns a list of (True, outputs, worker) or (False, message, exit_code): a bad item
    fails alone (openvgf errors are not retried); other exceptions fail the task, which
    Dask retries."""
    results = []
    for path, arrays in pairs:
        try:
            session = _open(path, options, cache_size)
            results.append((True, session.run(arrays), _worker_name()))
        except openvgf.Error as error:
            message = str(error) if "on Dask worker" in str(error) else f"on Dask worker {_worker_name()}: {error}"
            results.append((False, message, error.exit_code))
    return results


def _load_inputs(files):
    """The arrays of one item's input files (in input order; "" ends the list: the remaining
    inputs keep their initial values, the command checked that only trailing ones do)."""
    arrays = []
    for file in files:
        if not file:
            break
        try:
            arrays.append(np.load(file, allow_pickle=False))
        except (OSError, ValueError, EOFError) as error:
            raise openvgf.Error(f"{os.fsdecode(file)}: expected a whole .npy file: {error}", "InvalidInput", 2) \
                from None
    return arrays


def _save_atomically(path, array):
    """Writes path as a temporary file in its folder and renames it: a reader never sees a
    partial output, and an interrupted batch leaves no file that looks written."""
    folder = os.path.dirname(path) or "."
    os.makedirs(folder, exist_ok=True)
    temporary = os.path.join(folder, f".{os.path.basename(path)}.{uuid.uuid4().hex}.tmp")
    try:
        with open(temporary, "wb") as file:
            np.save(file, array, allow_pickle=False)
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.remove(temporary)
        raise


def batch_files(client, model, items, report, *, options=None, batch_size=BATCH_SIZE, resource=RESOURCE,
                retries=RETRIES, cache_size=CACHE_SIZE):
    """Runs `model` (a path every worker can read) on items [(input files, output files)] and
    writes each item's outputs atomically as its task finishes; report(index, ok, detail) is
    called once per item: detail is the worker's name, or (message, exit_code) for a failure.
    Inputs are read in this process, batch_size items per task, with at most two tasks per
    worker in flight (so a long batch holds few inputs in memory)."""
    from distributed import as_completed

    _check(batch_size, cache_size)
    path = os.fspath(model)
    options = dict(options or {})
    call = uuid.uuid4().hex
    chunks = iter(range(0, len(items), batch_size))
    indices_of = {}

    def submit_next():
        for start in chunks:
            indices, pairs = [], []
            for index in range(start, min(start + batch_size, len(items))):
                try:
                    pairs.append((path, _load_inputs(items[index][0])))
                    indices.append(index)
                except openvgf.Error as error:
                    report(index, False, (str(error), error.exit_code))
            if pairs:
                future = client.submit(_run_batch_chunk, options, cache_size, pairs, pure=False, retries=retries,
                                       key=f"openvgf-batch-{start}-{start + len(pairs)}-{call}",
                                       resources={resource: 1} if resource else None)
                indices_of[future.key] = indices
                return future
        return None

    window = max(2, 2 * len(client.scheduler_info()["workers"]))
    running = as_completed()
    for _ in range(window):
        future = submit_next()
        if future is None:
            break
        running.add(future)
    for future in running:
        indices = indices_of.pop(future.key)
        try:
            results = future.result()
        except Exception as error:  # the task failed past its retries (e.g. KilledWorker)
            results = [(False, f"on the Dask cluster: {type(error).__name__}: {error}", 1)] * len(indices)
        for index, (ok, value, detail) in zip(indices, results):
            if ok:
                try:
                    for output_path, array in zip(items[index][1], value):
                        _save_atomically(output_path, array)
                except OSError as error:
                    report(index, False, (f"{error.filename}: cannot write the output: {error.strerror}", 1))
                    continue
            report(index, ok, detail if ok else (value, detail))
        future.release()
        following = submit_next()
        if following is not None:
            running.add(following)


def _read_manifest(data):
    fields = data.split(b"\0")
    if fields[-1] == b"":
        fields.pop()
    position = 0

    def take():
        nonlocal position
        position += 1
        return fields[position - 1]

    if take().decode() != MANIFEST_MAGIC:
        raise ValueError("not an openvgf batch manifest")
    scheduler, model = take().decode(), os.fsdecode(take())
    options = {}
    for _ in range(int(take())):
        key, value = take().decode(), os.fsdecode(take())
        options[key] = bool(int(value)) if key in ("validate", "pipeline_cache") else value
    items = []
    for _ in range(int(take())):
        inputs = [os.fsdecode(take()) for _ in range(int(take()))]
        outputs = [os.fsdecode(take()) for _ in range(int(take()))]
        items.append((inputs, outputs))
    return scheduler, model, options, items


def _wait_for_resource(client, resource, timeout_s):
    """Waits until a worker declares `resource`; False if none does within timeout_s."""
    import time

    deadline = time.monotonic() + timeout_s
    while True:
        workers = client.scheduler_info()["workers"].values()
        if any(resource in worker.get("resources", {}) for worker in workers):
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.2)


def batch_main(manifest_path, records_fd=3):
    """The process `openvgf batch --scheduler` starts: runs the manifest's items and writes the
    records the command reads (see above). Returns the process exit code (0 when the records
    were all written, whatever the items' outcome)."""
    with open(manifest_path, "rb") as file:
        scheduler, model, options, items = _read_manifest(file.read())
    records = os.fdopen(records_fd, "wb", buffering=0)
    lock = threading.Lock()

    def record(*fields):
        with lock:
            records.write(b"\0".join(f if isinstance(f, bytes) else str(f).encode() for f in fields) + b"\0\n")

    from distributed import Client

    wait_s = float(os.environ.get(WAIT_VARIABLE) or WAIT_S)
    try:
        client = Client(scheduler, timeout=wait_s)
    except (OSError, TimeoutError, ValueError) as error:
        record("fatal", f"--scheduler {scheduler}: cannot reach a Dask scheduler there within {wait_s:g}s "
                        f"({WAIT_VARIABLE}): {error}")
        return 0
    with client:
        if not _wait_for_resource(client, RESOURCE, wait_s):
            record("fatal", f"--scheduler {scheduler}: no worker declares the resource {RESOURCE} (waited "
                            f"{wait_s:g}s, {WAIT_VARIABLE}): start one worker per device with `dask worker "
                            f"{scheduler} --nthreads 1 --resources {RESOURCE}=1` (docs/cluster.md)")
            return 0

        def report(index, ok, detail):
            if ok:
                record("done", index, detail)
            else:
                record("failed", index, detail[1], detail[0])

        batch_files(client, model, items, report, options=options)
    return 0
