# SPDX-License-Identifier: Apache-2.0
# The host I/O example of docs/library.md (test_host_io.py runs it): pinned arrays, runs in flight,
# and an output kept on the device as the last input of a second model on the same device.
import os

import numpy as np

import openvgf

path = os.environ.get("OPENVGF_EXAMPLE_MODEL", "tests/data/tosa/test_add_1x4x4x4_f32/model.tosa")
first = openvgf.Model(path)
second = openvgf.Model(path, share_device_with=first)  # device tensors pass between them
session = first.session(in_flight=2)
inputs = []
for t in first.inputs:
    x = first.pinned_empty(t["shape"], t["dtype"])  # a numpy array the device reads by DMA
    x[...] = 1.5
    inputs.append(x)
one, two = session.run_async(inputs), session.run_async(inputs)
print("second run", two.wait()[0].ravel()[:4])  # handles are waited for in any order
print("first run", one.wait()[0].ravel()[:4])
(kept,) = session.run(inputs, keep_on_device=True)  # an openvgf.DeviceTensor
(chained,) = second.session().run(inputs[:-1] + [kept])  # no host round trip
print("chained", chained.ravel()[:4])
