# SPDX-License-Identifier: Apache-2.0
"""Processes a test starts on 127.0.0.1 (`dask scheduler`, `dask worker`s): each in its own
session with its output in DIR/process-N.log, all stopped at the test's cleanup (SIGTERM, then
SIGKILL after 20 s). Shared by dask_cluster_test.py and batch_scheduler_test.py."""
import json
import os
import signal
import subprocess
import time


class LoopbackProcesses:
    """Mixin for a unittest.TestCase with a scratch folder `self.dir`; call start_processes()
    in setUp."""

    def start_processes(self):
        self.processes = []
        self.addCleanup(self.stop_all)

    def start(self, command, environment=None):
        log = open(self.dir / f"process-{len(self.processes)}.log", "w")
        self.addCleanup(log.close)
        self.processes.append(subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
                                               env=os.environ if environment is None else environment, cwd=self.dir))

    def stop_all(self):
        for process in reversed(self.processes):
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for process in self.processes:
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()

    def start_scheduler(self, timeout_s, environment=None):
        """`dask scheduler` on a free port of 127.0.0.1; returns its address."""
        scheduler_file = self.dir / "scheduler.json"
        self.start(["dask", "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                    "--scheduler-file", str(scheduler_file)], environment)
        deadline = time.monotonic() + timeout_s
        while not scheduler_file.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        return json.loads(scheduler_file.read_text())["address"]

    def start_workers(self, address, count, environment=None):
        """`count` one-thread `dask worker`s named gpu0, gpu1, ... that declare VK=1 (docs/cluster.md)."""
        for index in range(count):
            self.start(["dask", "worker", address, "--nthreads", "1", "--resources", "VK=1", "--name", f"gpu{index}",
                        "--no-dashboard", "--local-directory", str(self.dir / "dask")], environment)
