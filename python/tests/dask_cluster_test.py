# SPDX-License-Identifier: Apache-2.0
"""openvgf.dask on a cluster on 127.0.0.1 with two worker processes of one thread, each
declaring one "VK" resource, on lavapipe: MobileNetV2 at 32x32 from the zoo (converted to a
VGF by the CTest fixture python_dask_model), 40 inputs.

The oracle is the plain Python API in this process: every output must have the same bytes.
Which tasks ran, and where, comes from Dask's own task stream (what the workers report),
not from openvgf.dask. Run by CTest (python/CMakeLists.txt), one test case per CTest test:
    python3 -m unittest dask_cluster_test.LocalClusterTest
"""

import os
import pathlib
import re
import runpy
import shutil
import signal
import tempfile
import time
import unittest

import dask.bag
import numpy as np

import openvgf
import openvgf.dask
from distributed import Client, LocalCluster, get_task_stream, wait
from loopback_cluster import LoopbackProcesses

MODEL = pathlib.Path(os.environ.get("OPENVGF_DASK_MODEL", "/nonexistent"))
ADD = pathlib.Path(os.environ.get("OPENVGF_TEST_DATA", "/nonexistent")) / "tosa" / "test_add_1x4x4x4_f32"
DEVICE = os.environ.get("OPENVGF_TEST_DEVICE", "llvmpipe")
SHARDS = 40
TIMEOUT_S = 90  # any one wait; CTest's TIMEOUT bounds the whole test


class ClusterTestCase(unittest.TestCase):
    """self.dir: a scratch folder; self.options: Model keywords shared by this process and the
    workers (one pipeline cache); self.inputs: 40 seeded inputs; self.expected: their outputs
    from one Session in this process."""

    shards = SHARDS

    @classmethod
    def setUpClass(cls):
        cls.dir = pathlib.Path(tempfile.mkdtemp(prefix="openvgf-dask-"))
        cls.options = dict(device=DEVICE, cache_dir=str(cls.dir / "xdg" / "openvgf"))
        session = openvgf.Session(str(MODEL), **cls.options)
        rng = np.random.default_rng(34)
        shape = session.inputs[0]["shape"]
        cls.inputs = [rng.standard_normal(shape).astype(np.float32) for _ in range(cls.shards)]
        cls.expected = [session.run([x]) for x in cls.inputs]

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    def assertSameOutputs(self, outputs, expected=None):
        expected = self.expected if expected is None else expected
        self.assertEqual(len(outputs), len(expected))
        for index, (got, want) in enumerate(zip(outputs, expected)):
            self.assertEqual(len(got), len(want))
            for a, b in zip(got, want):
                self.assertEqual((a.dtype, a.shape), (b.dtype, b.shape))
                self.assertEqual(a.tobytes(), b.tobytes(), f"item {index} differs from the single-process run")

    def assertEachShardOnce(self, records, batch_size):
        """The task stream's openvgf tasks cover items 0..SHARDS-1, each exactly once."""
        covered = []
        for record in records:
            match = re.fullmatch(r"openvgf-(\d+)-(\d+)-[0-9a-f]+", str(record["key"]))
            if match:
                covered += range(int(match.group(1)), int(match.group(2)))
        self.assertEqual(sorted(covered), list(range(SHARDS)))
        self.assertEqual(len([r for r in records if str(r["key"]).startswith("openvgf-")]), SHARDS // batch_size)

    @classmethod
    def local_cluster(cls):
        return LocalCluster(n_workers=2, processes=True, threads_per_worker=1, host="127.0.0.1",
                            dashboard_address=":0", resources={"VK": 1}, local_directory=str(cls.dir / "dask"))


class LocalClusterTest(ClusterTestCase):
    """One cluster for the class (starting one costs seconds)."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.cluster = cls.local_cluster()
        cls.client = Client(cls.cluster, timeout=TIMEOUT_S)

    @classmethod
    def tearDownClass(cls):
        cls.client.close()
        cls.cluster.close()
        super().tearDownClass()

    def test_forty_shards_bit_identical_each_once(self):
        client = self.client
        with get_task_stream(client) as stream:
            outputs = openvgf.dask.run_many(client, MODEL, self.inputs, options=self.options, batch_size=4)
        self.assertSameOutputs(outputs)
        self.assertEachShardOnce(stream.data, batch_size=4)
        # Both workers took part, each with the one VK unit it declared.
        self.assertEqual({r["worker"] for r in stream.data}, set(client.scheduler_info()["workers"]))
        # A stack of inputs gives the stack of outputs.
        stacked = openvgf.dask.run_many(client, MODEL, np.stack(self.inputs[:10]), options=self.options,
                                        batch_size=5)
        self.assertEqual(stacked.shape, (10,) + self.expected[0][0].shape)
        self.assertSameOutputs([[y] for y in stacked], self.expected[:10])

    def test_pairs_of_two_models_and_a_bag(self):
        add = ADD / "model.tosa"
        a, b = np.load(ADD / "placeholder_0.npy"), np.load(ADD / "placeholder_1.npy")
        add_session = openvgf.Session(str(add), **self.options)  # converts once; workers find it in the cache
        pairs, expected = [], []
        for i in range(10):
            pairs.append((MODEL, self.inputs[i]))
            expected.append(self.expected[i])
            pairs.append((add, [a + i, b]))
            expected.append(add_session.run([a + i, b]))
        outputs = openvgf.dask.run_pairs(self.client, pairs, options=self.options, batch_size=3)
        self.assertSameOutputs(outputs, expected)
        # Each worker opened each model once and keeps it open.
        for worker, held in self.client.run(openvgf.dask.cached_sessions).items():
            paths = [entry["path"] for entry in held]
            self.assertEqual(len(paths), len(set(paths)), worker)
            self.assertLessEqual(set(paths), {str(MODEL), str(add)}, worker)
            self.assertIn(str(add), paths, worker)
        # cache_size=1: a worker keeps only the model it used last, and still gives the same bytes.
        outputs = openvgf.dask.run_pairs(self.client, pairs[:6], options=self.options, batch_size=3, cache_size=1)
        self.assertSameOutputs(outputs, expected[:6])
        for worker, held in self.client.run(openvgf.dask.cached_sessions).items():
            self.assertLessEqual(len(held), 1, worker)
        bag = dask.bag.from_sequence(self.inputs[:10], npartitions=3)
        self.assertSameOutputs(openvgf.dask.run_bag(self.client, bag, MODEL, options=self.options), self.expected[:10])

    def test_errors_name_the_worker_path_and_item(self):
        client = self.client
        missing = self.dir / "elsewhere" / "model.vgf"
        with self.assertRaises(openvgf.Error) as caught:
            openvgf.dask.run_many(client, missing, self.inputs[:2], options=self.options, retries=0)
        message = str(caught.exception)
        self.assertRegex(message, f"^{re.escape(str(missing))}: no such file on Dask worker \\S+ \\(tcp://127.0.0.1:\\d+\\)")
        self.assertEqual((caught.exception.code, caught.exception.exit_code), ("InvalidInput", 2))
        wrong = [self.inputs[0], np.zeros((1, 3), np.float32)]
        with self.assertRaises(openvgf.Error) as caught:
            openvgf.dask.run_many(client, MODEL, wrong, options=self.options, retries=0)
        self.assertRegex(str(caught.exception), f"^on Dask worker \\S+ \\(tcp://127.0.0.1:\\d+\\), item 1: {re.escape(str(MODEL))}: input 'input': ")
        self.assertEqual(caught.exception.code, "InvalidInput")
        for keyword in ("batch_size", "cache_size"):
            with self.assertRaisesRegex(ValueError, f"^openvgf.dask: {keyword} must be at least 1, got 0$"):
                openvgf.dask.run_many(client, MODEL, self.inputs[:1], **{keyword: 0})


class KilledWorkerTest(ClusterTestCase):
    def test_batch_completes_when_a_worker_dies_mid_run(self):
        with self.local_cluster() as cluster, Client(cluster, timeout=TIMEOUT_S) as client:
            pids = client.run(os.getpid)
            with get_task_stream(client) as stream:
                futures = openvgf.dask.submit_pairs(client, [(MODEL, x) for x in self.inputs], options=self.options,
                                                    batch_size=2)
                wait(futures, timeout=TIMEOUT_S, return_when="FIRST_COMPLETED")
                busy = self.busy_worker(client)
                held = set(client.processing()[busy])
                killed_at = time.time()
                os.kill(pids[busy], signal.SIGKILL)
                wait(futures, timeout=TIMEOUT_S)
                recovery_s = time.time() - killed_at
                outputs = [output for chunk in client.gather(futures) for output in chunk]
            self.assertSameOutputs(outputs)
            self.assertLess(recovery_s, TIMEOUT_S)
            # Nothing finished on the dead worker after it died, and what it held when it died
            # (one task running, maybe more assigned) finished elsewhere.
            records = [r for r in stream.data if str(r["key"]).startswith("openvgf-")]
            finished_on = {r["key"]: r["worker"] for r in records}
            for r in records:
                if r["worker"] == busy:
                    self.assertLess(max(s["stop"] for s in r["startstops"]), killed_at + 0.5, r["key"])
            self.assertTrue([key for key in held if finished_on[key] != busy], (held, finished_on))
            self.assertNotIn(pids[busy], client.run(os.getpid).values())

    def busy_worker(self, client):
        """A worker holding openvgf tasks (waits until one does)."""
        deadline = time.monotonic() + TIMEOUT_S
        while time.monotonic() < deadline:
            for worker, keys in client.processing().items():
                if any(str(key).startswith("openvgf-") for key in keys):
                    return worker
            time.sleep(0.05)
        self.fail("no worker was running an openvgf task")


class CommandLineClusterTest(LoopbackProcesses, ClusterTestCase):
    """docs/cluster.md's recipe as written there: `dask scheduler`, then one `dask worker` per
    device with --nthreads 1 --resources "VK=1" and OPENVGF_DASK_DEVICE naming the device (on
    127.0.0.1, a free port instead of 8786)."""

    shards = 10

    def setUp(self):
        self.start_processes()

    def test_documented_commands(self):
        address = self.start_scheduler(TIMEOUT_S)
        # Each worker's default cache is the one setUpClass filled (options["cache_dir"]).
        self.start_workers(address, 2, dict(os.environ, OPENVGF_DASK_DEVICE=DEVICE, XDG_CACHE_HOME=str(self.dir / "xdg")))
        with Client(address, timeout=TIMEOUT_S) as client:
            client.wait_for_workers(2, timeout=TIMEOUT_S)
            workers = client.scheduler_info()["workers"].values()
            self.assertEqual(sorted((w["name"], w["nthreads"], w["resources"]) for w in workers),
                             [("gpu0", 1, {"VK": 1}), ("gpu1", 1, {"VK": 1})])
            inputs = self.dir / "inputs"
            inputs.mkdir()
            for index, x in enumerate(self.inputs[:10]):
                np.save(inputs / f"{index:02}.npy", x)
            self.run_example(address, inputs)
            outputs = [[np.load(inputs / f"{index:02}.out.npy")] for index in range(10)]
            self.assertSameOutputs(outputs, self.expected[:10])
            # Each worker opened the model once, on the device its environment named.
            device = openvgf.Session(str(MODEL), **self.options).model.device
            for worker, held in client.run(openvgf.dask.cached_sessions).items():
                self.assertEqual([(e["path"], e["device"]) for e in held], [(str(MODEL), device)], worker)

    def run_example(self, address, inputs):
        saved = dict(os.environ)
        os.environ.update(OPENVGF_EXAMPLE_SCHEDULER=address, OPENVGF_EXAMPLE_MODEL=str(MODEL),
                          OPENVGF_EXAMPLE_INPUTS=str(inputs))
        try:
            runpy.run_path(str(pathlib.Path(__file__).with_name("cluster_example.py")))
        finally:
            os.environ.clear()
            os.environ.update(saved)


if __name__ == "__main__":
    unittest.main()
