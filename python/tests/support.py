# SPDX-License-Identifier: Apache-2.0
"""What the Python tests share: the test data, the ADD fixture, the test device with the
validation layer on, a scratch folder per test, assertError, and running a README example."""

import os
import pathlib
import runpy
import shutil
import tempfile
import unittest

import numpy as np

import openvgf

DATA = pathlib.Path(os.environ["OPENVGF_TEST_DATA"])
ADD = DATA / "tosa" / "test_add_1x4x4x4_f32"
DEVICE = os.environ.get("OPENVGF_TEST_DEVICE", "llvmpipe")


class OpenvgfTestCase(unittest.TestCase):
    """self.dir: a scratch folder; self.options: Model/Session keywords for the test device;
    self.a, self.b: TensorFlow's inputs of the ADD fixture."""

    def setUp(self):
        self.dir = pathlib.Path(tempfile.mkdtemp(prefix="openvgf-python-"))
        self.options = dict(device=DEVICE, validate=True, cache_dir=str(self.dir / "cache"))
        self.a = np.load(ADD / "placeholder_0.npy")
        self.b = np.load(ADD / "placeholder_1.npy")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def assertError(self, code, text, call, *args, **kwargs):
        with self.assertRaises(openvgf.Error) as caught:
            call(*args, **kwargs)
        self.assertEqual(caught.exception.code, code, str(caught.exception))
        self.assertIn(text, str(caught.exception))
        self.assertEqual(caught.exception.exit_code, 2 if code in ("InvalidInput", "Unsupported") else 1)

    def run_example(self, name):
        """Runs python/tests/<name> on the ADD fixture, caches in the scratch folder; returns its globals."""
        saved = dict(os.environ)
        os.environ["OPENVGF_EXAMPLE_MODEL"] = str(ADD / "model.tosa")
        os.environ["XDG_CACHE_HOME"] = str(self.dir / "xdg")
        try:
            return runpy.run_path(str(pathlib.Path(__file__).with_name(name)))
        finally:
            os.environ.clear()
            os.environ.update(saved)
