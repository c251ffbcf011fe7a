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
scheduler's overhead low); a task that raises is retried `retries` times, and a task whose
worker died is run again elsewhere by Dask itself. Errors raise openvgf.Error naming the
worker, the model path and the item. docs/cluster.md has a multi-host recipe.
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
            session = openvgf.Session(path, **model_options)
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
    """Runs (path, item) pairs in order in this worker; pairs[i] is item start + i of the call
    (start None: of a bag partition)."""
    outputs = []
    for offset, (path, item) in enumerate(pairs):
        session = _open(path, options, cache_size)
        try:
            outputs.append(session.run(_as_run_input(item)))
        except openvgf.Error as error:
            which = f"item {offset} of a bag partition" if start is None else f"item {start + offset}"
            raise openvgf.Error(f"on Dask worker {_worker_name()}, {which}: {error}", error.code,
                                error.exit_code) from None
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
