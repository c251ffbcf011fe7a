# SPDX-License-Identifier: Apache-2.0
"""openvgf: run TOSA (.tosa), VGF (.vgf) and ExecuTorch (.pte) models on Vulkan devices, and
Ethos-U command streams (.ethosu, or a .pte of Ethos-U delegates) in the bit-exact simulator.

    import numpy as np, openvgf
    s = openvgf.Session("model.tosa")             # .tosa is converted once, then cached
    y = s.run({"input": np.ones((1, 8), np.float32)})   # {output name: array}

Model(path, device=, target=, plan=, validate=, pipeline_cache=, model_cache=, cache_dir=,
share_device_with=, reference=, check=, keep_intermediates=) opens a model on a device (or on another Model's device);
Model.session() and Session(model_or_path, profile=, in_flight=, ...) make sessions.
Session.run_async(inputs) returns a RunHandle whose wait() gives the outputs (up to in_flight
runs at once, waited for in any order); run(..., keep_on_device=True) returns DeviceTensors,
inputs of any Session on the same device with no host round trip; Model.pinned_empty(shape,
dtype) is a numpy array in pinned memory, moved by DMA. Models and Sessions may be shared by
threads: calls of one Session (and of its RunHandles) take turns, each gets its own answer, and
a RunHandle dropped unwaited finishes its run first.
Session(..., check=True, reference=) then check(inputs, outputs) judges a run's outputs as
`openvgf run --check` does; Session(tosa, keep_intermediates=True) then check_operators(inputs,
outputs) judges every operator alone on the device's own values (`compare --per-operator`).
DevicePool(path, devices="all", in_flight=2, ...) opens a model on several devices;
run_many(items) runs a list of input sets over them, results in order (docs/multi-device.md).
devices(), convert(), reference(), inspect() and extract() mirror the openvgf command.
Model("x.ethosu") runs in the Ethos-U simulator (format "ethosu", no device options).
Errors raise openvgf.Error with the message the command prints, .code and .exit_code.
set_log_level("info"|"debug"|...) sets what the library writes to stderr (default "warn", or
the environment variable OPENVGF_LOG_LEVEL). A uint8 array given for an INT8 input (or int8 for
an input the model stores unsigned, whose dtype is uint8) is taken byte for byte, with a
warning when values change (docs/limits.md, "uint8 and int8").
"""

import json as _json


class Error(RuntimeError):
    """An openvgf failure. code: InvalidInput, Unsupported, Environment, Runtime or Internal;
    exit_code: what the openvgf command would exit with (2 for bad input, else 1)."""

    def __init__(self, message, code="Internal", exit_code=1):
        super().__init__(message)
        self.code = code
        self.exit_code = exit_code

    def __reduce__(self):  # pickled whole (code and exit_code too), e.g. from a Dask worker
        return (Error, (str(self), self.code, self.exit_code))


from ._openvgf import (  # noqa: E402  (Error must exist before the module translates errors)
    DevicePool,
    DeviceTensor,
    Model,
    RunHandle,
    Session,
    __version__,
    convert,
    devices,
    extract,
    log_level,
    reference,
    set_log_level,
)
from . import _openvgf


def inspect(path, text=False):
    """What a .tosa, .vgf or .pte holds: a dict (the JSON of `openvgf inspect --json`), or
    with text=True the summary `openvgf inspect` prints."""
    if text:
        return _openvgf.inspect_text(path)
    return _json.loads(_openvgf.inspect_json(path))


__all__ = ["DevicePool", "DeviceTensor", "Error", "Model", "RunHandle", "Session", "convert", "devices", "extract", "inspect",
           "log_level", "reference", "set_log_level", "__version__"]
