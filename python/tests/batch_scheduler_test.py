# SPDX-License-Identifier: Apache-2.0
"""`openvgf batch ... --scheduler ADDRESS` (issue 34 item 2) as a user runs it: `dask scheduler`
and two `dask worker --nthreads 1 --resources VK=1` on 127.0.0.1 (lavapipe), the openvgf
command started as a process. The oracle is numpy: the ADD fixture's model is a broadcast
float32 addition, exact in IEEE arithmetic, so every output must equal a + b bit for bit.
Run by CTest (python/CMakeLists.txt): python3 -m unittest -v batch_scheduler_test
"""

import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import unittest

import numpy as np

import openvgf.dask
from distributed import Client
from loopback_cluster import LoopbackProcesses

CLI = os.environ.get("OPENVGF_CLI", "openvgf")
ADD = pathlib.Path(os.environ.get("OPENVGF_TEST_DATA", "/nonexistent")) / "tosa" / "test_add_1x4x4x4_f32" / "model.tosa"
DEVICE = os.environ.get("OPENVGF_TEST_DEVICE", "llvmpipe")
TIMEOUT_S = 120  # any one wait or command; CTest's TIMEOUT bounds the whole test
ITEMS = 12
BAD = 5  # the item whose second input is cut short


class BatchSchedulerTest(LoopbackProcesses, unittest.TestCase):
    def setUp(self):
        self.dir = pathlib.Path(tempfile.mkdtemp(prefix="openvgf-batch-dask-"))
        self.addCleanup(shutil.rmtree, self.dir, True)
        self.start_processes()
        # One model cache for the command and the workers (the command converts, they read).
        self.environment = dict(os.environ, XDG_CACHE_HOME=str(self.dir / "xdg"), OPENVGF_DASK_DEVICE=DEVICE)
        self.model = self.dir / "add.tosa"  # a copy the workers open by this path
        shutil.copy(ADD, self.model)

    def start_cluster(self):
        """A scheduler on a free port of 127.0.0.1 and two one-thread workers with VK=1; returns its address."""
        address = self.start_scheduler(TIMEOUT_S, self.environment)
        self.start_workers(address, 2, self.environment)
        return address

    def batch(self, *arguments, **environment):
        result = subprocess.run([CLI, "batch", str(self.model), *arguments], capture_output=True, text=True,
                                timeout=TIMEOUT_S, env=dict(self.environment, **environment), cwd=self.dir)
        return result.returncode, result.stdout + result.stderr

    def write_items(self):
        """in/itemNN/TosaInput_{0,1}.npy; returns the expected output of each item."""
        rng = np.random.default_rng(34)
        expected = []
        for index in range(ITEMS):
            folder = self.dir / "in" / f"item{index:02}"
            folder.mkdir(parents=True)
            a = rng.standard_normal((1, 4, 4, 1)).astype(np.float32)
            b = rng.standard_normal((1, 4, 4, 4)).astype(np.float32)
            np.save(folder / "TosaInput_0.npy", a)
            np.save(folder / "TosaInput_1.npy", b)
            expected.append(a + b)
        bad = self.dir / "in" / f"item{BAD:02}" / "TosaInput_1.npy"
        os.truncate(bad, bad.stat().st_size - 4)
        return expected, bad

    def test_batch_on_the_cluster_names_the_bad_item_and_resumes(self):
        expected, bad = self.write_items()
        address = self.start_cluster()
        with Client(address, timeout=TIMEOUT_S) as client:
            client.wait_for_workers(2, timeout=TIMEOUT_S)
            command = ["in", "-o", "out", "--scheduler", address]
            code, output = self.batch(*command)
            self.assertEqual(code, 2, output)
            self.assertIn(f"batch: {ITEMS} items (0 already written) on the Dask cluster at {address}", output)
            self.assertIn(f"batch: item 'item{BAD:02}' (in/item{BAD:02}) failed: in/item{BAD:02}/TosaInput_1.npy: "
                          "expected a whole .npy file",
                          output)
            self.assertIn(f"batch: {ITEMS - 1} done, 1 failed, 0 skipped (", output)
            written = {}
            for index in range(ITEMS):
                out = self.dir / "out" / f"item{index:02}.npy"
                if index == BAD:
                    self.assertFalse(out.exists())
                    continue
                got = np.load(out)
                self.assertEqual((got.dtype, got.shape), (expected[index].dtype, expected[index].shape))
                self.assertEqual(got.tobytes(), expected[index].tobytes(), out)
                written[index] = out.stat().st_ino
            # Nothing else in OUTDIR: no temporary file of an atomic write is left behind.
            self.assertEqual(len(os.listdir(self.dir / "out")), ITEMS - 1)
            # The workers ran the items: they hold the model open (this process never opened it).
            held = [entry["path"] for entries in client.run(openvgf.dask.cached_sessions).values() for entry in entries]
            self.assertIn(str(self.model), held)

            code, output = self.batch(*command)
            self.assertEqual(code, 2, output)
            self.assertIn(f"batch: 0 done, 1 failed, {ITEMS - 1} skipped (", output)
            for index, inode in written.items():
                self.assertEqual((self.dir / "out" / f"item{index:02}.npy").stat().st_ino, inode, f"rewritten: {index}")

            # Repaired, the one item left runs and the batch succeeds.
            a = np.load(self.dir / "in" / f"item{BAD:02}" / "TosaInput_0.npy")
            b = np.ones((1, 4, 4, 4), np.float32)
            np.save(bad, b)
            code, output = self.batch(*command)
            self.assertEqual(code, 0, output)
            self.assertIn(f"batch: 1 done, 0 failed, {ITEMS - 1} skipped (", output)
            self.assertEqual(np.load(self.dir / "out" / f"item{BAD:02}.npy").tobytes(), (a + b).tobytes())

            # A wrong shape is the worker's Session's error, named with the worker and the input.
            shutil.rmtree(self.dir / "out")
            np.save(bad, np.ones((1, 3), np.float32))
            code, output = self.batch("in", "-o", "out", "--scheduler", address, "-q")
            self.assertEqual(code, 2, output)
            self.assertRegex(output, f"batch: item 'item{BAD:02}' \\(in/item{BAD:02}\\) failed: on Dask worker "
                                     f"gpu[01] \\(tcp://127.0.0.1:\\d+\\): .*input 'TosaInput_1'")
            self.assertIn(f"batch: {ITEMS - 1} done, 1 failed, 0 skipped (", output)

    def test_what_is_missing_is_named(self):
        expected, _ = self.write_items()
        # No interpreter there.
        code, output = self.batch("in", "-o", "out", "--scheduler", "tcp://127.0.0.1:9", OPENVGF_PYTHON="/nonexistent/python3")
        self.assertEqual(code, 1, output)
        self.assertIn("--scheduler: cannot start the Python interpreter /nonexistent/python3: No such file or directory",
                      output)
        # A Python without distributed (an importable package that refuses, ahead of Debian's).
        fake = self.dir / "no-distributed" / "distributed"
        fake.mkdir(parents=True)
        (fake / "__init__.py").write_text("raise ImportError('No module named distributed (test)')\n")
        code, output = self.batch("in", "-o", "out", "--scheduler", "tcp://127.0.0.1:9",
                                  PYTHONPATH=str(fake.parent), OPENVGF_PYTHON=sys.executable)
        self.assertEqual(code, 1, output)
        self.assertIn(f"--scheduler: {sys.executable} cannot import the Python module 'distributed' (No module named "
                      "distributed (test)): install python3-distributed", output)
        # No scheduler at the address (port 9, discard, has no listener on 127.0.0.1).
        code, output = self.batch("in", "-o", "out", "--scheduler", "tcp://127.0.0.1:9", OPENVGF_DASK_TIMEOUT="2")
        self.assertEqual(code, 1, output)
        self.assertIn("--scheduler tcp://127.0.0.1:9: cannot reach a Dask scheduler there within 2s", output)
        # A cluster without a worker declaring VK.
        address = self.start_scheduler(TIMEOUT_S, self.environment)
        code, output = self.batch("in", "-o", "out", "--scheduler", address, OPENVGF_DASK_TIMEOUT="1")
        self.assertEqual(code, 1, output)
        self.assertIn(f"--scheduler {address}: no worker declares the resource VK", output)
        self.assertFalse((self.dir / "out").exists() and os.listdir(self.dir / "out"))
        # Devices are the workers' business.
        code, output = self.batch("in", "-o", "out", "--scheduler", address, "--devices", "all")
        self.assertEqual(code, 2, output)
        self.assertIn("--devices excludes --scheduler", output)


if __name__ == "__main__":
    unittest.main()
