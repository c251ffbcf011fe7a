# SPDX-License-Identifier: Apache-2.0
"""Ethos-U command streams through the Python package: openvgf.Model('x.ethosu') runs Arm
Vela's keyword-spotting stream (tests/data/ethosu, repackaged by tflite_to_ethosu.py) in the
simulator and reproduces the output recorded beside it; options that need a Vulkan device are
refused by name."""

import pathlib
import subprocess
import sys

import numpy as np

import openvgf
from support import DATA, OpenvgfTestCase

KWS = DATA / "ethosu" / "kws_cnn_small_int8" / "u55"
SCRIPT = pathlib.Path(__file__).resolve().parents[2] / "tests" / "ethosu" / "tflite_to_ethosu.py"


class EthosUTest(OpenvgfTestCase):
    def setUp(self):
        super().setUp()
        self.stream = str(self.dir / "kws.ethosu")
        subprocess.run([sys.executable, str(SCRIPT), str(KWS / "model_u55_128.tflite"), self.stream], check=True)
        self.x = np.fromfile(KWS / "input.bin", dtype=np.int8).reshape(1, 490)
        self.recorded = np.fromfile(KWS / "output.bin", dtype=np.int8)

    def test_stream_runs_in_the_simulator_like_vela_recorded(self):
        model = openvgf.Model(self.stream)
        self.assertEqual(model.format, "ethosu")
        self.assertEqual(model.device, "Ethos-U55 simulator (ethos-u55-128)")
        self.assertEqual([(t["name"], t["shape"]) for t in model.inputs], [("input_0", (1, 1, 1, 490))])
        self.assertEqual(model.inputs[0]["dtype"], np.int8)
        self.assertEqual([(t["name"], t["shape"]) for t in model.outputs], [("output_0", (1, 1, 1, 12))])
        (y,) = model.session().run([self.x])
        self.assertEqual(y.dtype, np.int8)
        self.assertEqual(y.shape, (1, 1, 1, 12))
        np.testing.assert_array_equal(y.reshape(-1), self.recorded)
        by_name = openvgf.Session(self.stream).run({"input_0": self.x.reshape(1, 1, 1, 490)})
        np.testing.assert_array_equal(by_name["output_0"].reshape(-1), self.recorded)

    def test_device_options_are_refused_by_name(self):
        self.assertError("Unsupported", "device 'llvmpipe': expected a model that runs on a Vulkan device",
                         openvgf.Model, self.stream, device="llvmpipe")
        self.assertError("Unsupported", "SessionOptions::profile", openvgf.Model(self.stream).session, profile=True)
        self.assertError("InvalidInput", "input 'input_0': expected INT8 [1,1,1,490] (490 elements), got INT8 [1,491]",
                         openvgf.Model(self.stream).session().run, [np.zeros((1, 491), np.int8)])


if __name__ == "__main__":
    import unittest

    unittest.main()
