# SPDX-License-Identifier: Apache-2.0
"""One Session shared by 8 Python threads (issue 33) after 50 run_async handles were dropped
unwaited: every call returns its own answer (the ADD fixture's sum, computed here with numpy,
inputs distinct per thread and call), through run(), run_async().wait() and run_async handles
dropped unwaited; no "already in flight" error, no garbage, no crash."""

import threading
import unittest

import numpy as np

import openvgf
from support import ADD, OpenvgfTestCase

THREADS = 8
CALLS = 50


class SharedSessionTest(OpenvgfTestCase):

    def inputs(self, thread, call):
        """Inputs no other (thread, call) uses."""
        return [self.a + np.float32(1000 * thread + call), self.b - np.float32(thread)]

    def test_threads_sharing_a_session_each_get_their_own_answer(self):
        model = openvgf.Model(str(ADD / "model.tosa"), **self.options)
        session = model.session(in_flight=2)
        for call in range(CALLS):
            session.run_async(self.inputs(THREADS, call))  # dropped unwaited
        failures = []
        answered = [0] * THREADS

        def work(thread):
            try:
                for call in range(CALLS):
                    a, b = self.inputs(thread, call)
                    kind = (thread + call) % 3
                    if kind == 0:
                        (y,) = session.run([a, b])
                    elif kind == 1:
                        (y,) = session.run_async([a, b]).wait()
                    else:
                        session.run_async([a, b])  # dropped: finishes its run into its own array
                        (y,) = session.run_async([a, b]).wait()
                    if not np.array_equal(y, a + b):
                        failures.append(f"thread {thread} call {call}: wrong answer")
                    answered[thread] += 1
            except Exception as e:  # every error is a failure of the test
                failures.append(f"thread {thread}: {e}")

        threads = [threading.Thread(target=work, args=(t,)) for t in range(THREADS)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(failures, [])
        self.assertEqual(answered, [CALLS] * THREADS)


if __name__ == "__main__":
    unittest.main()
