# SPDX-License-Identifier: Apache-2.0
# The Python side of docs/cluster.md (dask_cluster_test.CommandLineClusterTest runs it).
import glob
import os

import numpy as np
from distributed import Client

import openvgf.dask

scheduler = os.environ.get("OPENVGF_EXAMPLE_SCHEDULER", "tcp://scheduler-host:8786")
model = os.environ.get("OPENVGF_EXAMPLE_MODEL", "/shared/models/mobilenet_v2.vgf")  # same path on every worker
folder = os.environ.get("OPENVGF_EXAMPLE_INPUTS", "/shared/inputs")
files = sorted(glob.glob(f"{folder}/*.npy"))
with Client(scheduler) as client:
    # One task per 8 inputs, on a worker with a free "VK" unit; outputs come back in input order.
    outputs = openvgf.dask.run_many(client, model, [np.load(f) for f in files], batch_size=8)
for file, (y,) in zip(files, outputs):  # each output: the list Session.run returns
    np.save(file.replace(".npy", ".out.npy"), y)
