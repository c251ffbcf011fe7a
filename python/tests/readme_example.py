# SPDX-License-Identifier: Apache-2.0
# The "Use it from Python" example of README.md and docs/library.md (test_openvgf.py runs it).
import os
import pathlib

import numpy as np

import openvgf

checkout = pathlib.Path(__file__).resolve().parents[2]  # runs from any folder
path = os.environ.get("OPENVGF_EXAMPLE_MODEL", str(checkout / "tests/data/tosa/test_add_1x4x4x4_f32/model.tosa"))
session = openvgf.Session(path)  # a .tosa is converted once, then taken from the cache
for t in session.inputs:
    print(t["name"], t["dtype"], t["shape"])
y = session.run({t["name"]: np.full(t["shape"], 1.5, t["dtype"]) for t in session.inputs})
for name, array in y.items():  # {output name: numpy array}
    print(name, array.dtype, array.shape, array.ravel()[:4])
