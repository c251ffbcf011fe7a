# SPDX-License-Identifier: Apache-2.0
"""Host I/O through the Python package on lavapipe with validation on: run_async handles
waited for in any order equal run() and the reference interpreter; pinned numpy arrays run
like any array; an output kept on the device feeds a session of a model on the same device,
equal to the chain through numpy (and to numpy's own sums); misuse raises openvgf.Error."""

import unittest

import numpy as np

import openvgf
from support import ADD, OpenvgfTestCase


class HostIoTest(OpenvgfTestCase):

    def test_runs_in_flight_equal_run_and_the_reference_in_any_wait_order(self):
        model = openvgf.Model(str(ADD / "model.tosa"), **self.options)
        session = model.session(in_flight=3)
        names = [t["name"] for t in model.inputs]
        out = model.outputs[0]["name"]
        inputs = [(self.a + k, self.b - k) for k in (0.0, 2.5, -7.0)]
        handles = [session.run_async({names[0]: a, names[1]: b}) for a, b in inputs]
        self.assertTrue(all(h.pending for h in handles))
        # A fourth with three in flight finishes the oldest first; that handle keeps its outputs.
        (fourth,) = session.run_async(list(inputs[0])).wait()
        np.testing.assert_array_equal(fourth, inputs[0][0] + inputs[0][1])
        self.assertTrue(handles[0].pending)
        for k in (1, 2, 0):
            y = handles[k].wait()[out]
            self.assertFalse(handles[k].pending)
            np.testing.assert_array_equal(y, session.run(list(inputs[k]))[0])
            want = openvgf.reference(str(ADD / "model.tosa"), list(inputs[k]))
            np.testing.assert_array_equal(y, list(want.values())[0])
        self.assertError("InvalidInput", "already waited for", handles[0].wait)
        (listed,) = session.run_async(list(inputs[1])).wait()
        np.testing.assert_array_equal(listed, inputs[1][0] + inputs[1][1])

    def test_pinned_arrays_run_like_any_array(self):
        model = openvgf.Model(str(ADD / "model.tosa"), **self.options)
        a = model.pinned_empty(self.a.shape, np.float32)
        b = model.pinned_empty(self.b.shape)
        self.assertEqual((a.dtype, b.dtype), (np.float32, np.float32))
        self.assertFalse(b.any())
        a[...] = self.a
        b[...] = self.b
        (y,) = model.session().run_async([a, b]).wait()
        np.testing.assert_array_equal(y, self.a + self.b)
        self.assertError("InvalidInput", "pinned_empty: dtype", model.pinned_empty, (4,), np.complex64)

    def test_device_output_feeds_a_model_on_the_same_device_like_the_numpy_chain(self):
        first = openvgf.Model(str(ADD / "model.tosa"), **self.options)
        second = openvgf.Model(str(ADD / "model.tosa"), share_device_with=first, **self.options)
        self.assertTrue(second.shares_device_with(first))
        a, b = first.session(), second.session()
        (kept,) = a.run([self.a, self.b], keep_on_device=True)
        self.assertIsInstance(kept, openvgf.DeviceTensor)
        self.assertEqual((kept.shape, kept.dtype, kept.type), ((1, 4, 4, 4), np.float32, "FP32"))
        (through_host,) = b.run([self.a, a.run([self.a, self.b])[0]])
        (kept,) = a.run([self.a, self.b], keep_on_device=True)
        (on_device,) = b.run([self.a, kept])
        np.testing.assert_array_equal(on_device, through_host)
        np.testing.assert_array_equal(on_device, self.a + (self.a + self.b))
        # Asynchronously, by name, and kept again: B's device output into B.
        names = [t["name"] for t in second.inputs]
        handle = b.run_async({names[0]: self.a, names[1]: kept}, keep_on_device=True)
        (again,) = handle.wait().values()
        (twice,) = b.run([self.a, again])
        np.testing.assert_array_equal(twice, self.a + (self.a + (self.a + self.b)))

        # Misuse: a model on its own device, the wrong input, a stale tensor.
        apart = openvgf.Session(str(ADD / "model.tosa"), **self.options)
        self.assertError("InvalidInput", "expected an output of a session on the same device",
                         apart.run, [self.a, kept])
        self.assertError("InvalidInput", "expected shape [1,4,4,1]", b.run, [kept, self.b])
        a.run([self.a, self.b])
        self.assertError("InvalidInput", "earlier run", b.run, [self.a, kept])

    def test_devices_report_host_io(self):
        for device in openvgf.devices():
            self.assertIsInstance(device["transfer_queue"], bool)
            self.assertIsInstance(device["timeline_semaphores"], bool)
            self.assertEqual(device["import_alignment"] > 0, device["external_memory_host"])

    def test_readme_example(self):
        result = self.run_example("readme_host_io_example.py")
        np.testing.assert_array_equal(result["chained"], np.full((1, 4, 4, 4), 4.5, np.float32))


if __name__ == "__main__":
    unittest.main()
