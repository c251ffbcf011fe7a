# SPDX-License-Identifier: Apache-2.0
"""The Python package on lavapipe with the validation layer on: sessions against
TensorFlow's result for the ADD fixture, numpy round trips of every mapped dtype through a
REVERSE graph (expected: numpy's own flip), EXT-VARIABLE defaults, errors as openvgf.Error
with the command's message, checks (a wrong output made by hand must fail), and the free
functions."""

import os
import pathlib
import struct
import threading
import unittest
import zlib

import numpy as np

import openvgf
from support import ADD, DATA, DEVICE, OpenvgfTestCase

MODELS = pathlib.Path(os.environ["OPENVGF_PYTHON_MODELS"])


class OpenvgfTest(OpenvgfTestCase):
    def setUp(self):
        super().setUp()
        self.expected = np.load(ADD / "tf_result.npy")

    def test_session_matches_tensorflow_by_name_and_in_order(self):
        session = openvgf.Session(str(ADD / "model.tosa"), **self.options)
        names = [t["name"] for t in session.inputs]
        self.assertEqual([t["shape"] for t in session.inputs], [(1, 4, 4, 1), (1, 4, 4, 4)])
        self.assertEqual(session.inputs[0]["dtype"], np.float32)
        by_name = session.run({names[1]: self.b, names[0]: self.a})
        self.assertEqual(list(by_name), [session.outputs[0]["name"]])
        y = by_name[session.outputs[0]["name"]]
        self.assertEqual(y.dtype, np.float32)
        np.testing.assert_allclose(y, self.expected, rtol=1e-6)
        (in_order,) = session.run([self.a, self.b])
        np.testing.assert_array_equal(in_order, y)

    def test_second_open_comes_from_the_model_cache(self):
        first = openvgf.Model(str(ADD / "model.tosa"), **self.options)
        self.assertEqual(first.format, "tosa")
        self.assertFalse(first.from_cache)
        second = openvgf.Model(str(ADD / "model.tosa"), **self.options)
        self.assertTrue(second.from_cache)
        np.testing.assert_array_equal(second.session().run([self.a, self.b])[0], first.session().run([self.a, self.b])[0])

    def test_every_dtype_round_trips(self):
        rng = np.random.default_rng(5)
        values = {
            "bool": lambda: rng.integers(0, 2, (2, 3)).astype(np.bool_),
            "int8": lambda: rng.integers(-128, 128, (2, 3), dtype=np.int8),
            "int16": lambda: rng.integers(-32768, 32768, (2, 3), dtype=np.int16),
            "int32": lambda: rng.integers(-(2**31), 2**31, (2, 3), dtype=np.int32),
            "float16": lambda: rng.standard_normal((2, 3)).astype(np.float16),
            "float32": lambda: rng.standard_normal((2, 3)).astype(np.float32),
            # bfloat16 travels as its raw bits: the upper half of float32 values.
            "bfloat16": lambda: (rng.standard_normal((2, 3)).astype(np.float32).view(np.uint32) >> 16).astype(np.uint16),
        }
        for name, make in values.items():
            with self.subTest(dtype=name):
                session = openvgf.Session(str(MODELS / f"reverse_{name}.tosa"), **self.options)
                x = make()
                self.assertEqual(session.inputs[0]["dtype"], x.dtype)
                (y,) = session.run([x])
                self.assertEqual(y.dtype, x.dtype)
                np.testing.assert_array_equal(y, np.flip(x, axis=1))
        # INT48 travels as int64; RESCALE by 1.0 to INT32 is the one graph that takes it.
        session = openvgf.Session(str(MODELS / "rescale_int48.tosa"), **self.options)
        self.assertEqual(session.inputs[0]["dtype"], np.int64)
        x = rng.integers(-(2**31), 2**31, (2, 3), dtype=np.int64)
        (y,) = session.run([x])
        self.assertEqual(y.dtype, np.int32)
        np.testing.assert_array_equal(y, x)

    def test_inputs_numpy_can_view_are_taken_as_they_are(self):
        session = openvgf.Session(str(MODELS / "reverse_float32.tosa"), **self.options)
        base = np.arange(12, dtype=np.float32).reshape(2, 6)
        strided = base[:, ::2]  # not contiguous: copied into a contiguous array first

        class Exposed:  # only __array_interface__
            def __init__(self, array):
                self.__array_interface__ = array.__array_interface__
                self.keep = array

        for x in (strided, Exposed(np.ascontiguousarray(strided))):
            (y,) = session.run([x])
            np.testing.assert_array_equal(y, np.flip(strided, axis=1))

    def test_state_input_defaults_to_the_variables_initial_value(self):
        session = openvgf.Session(str(MODELS / "accumulate.tosa"), **self.options)
        self.assertEqual([t["name"] for t in session.inputs], ["x", "state:acc"])
        x = np.array([1, 2, 3], np.int32)
        first = session.run({"x": x})
        np.testing.assert_array_equal(first["y"], [11, 22, 33])
        np.testing.assert_array_equal(first["state:acc"], [11, 22, 33])
        second = session.run({"x": x, "state:acc": first["state:acc"]})
        np.testing.assert_array_equal(second["y"], [12, 24, 36])

    def test_errors_carry_the_message_and_exit_code(self):
        session = openvgf.Session(str(ADD / "model.tosa"), **self.options)
        path = str(ADD / "model.tosa")
        self.assertError("InvalidInput", path + ": input 'TosaInput_0': expected shape [1,4,4,1], got [1,4,4,4]",
                         session.run, [self.b, self.b])
        self.assertError("InvalidInput", "expected dtype float32 (FP32), got float64",
                         session.run, [self.a.astype(np.float64), self.b])
        self.assertError("InvalidInput", "input 'nope': expected one of the model's inputs",
                         session.run, {"nope": self.a, "TosaInput_1": self.b})
        self.assertError("InvalidInput", "expected 2 inputs", session.run, [self.a])
        self.assertError("InvalidInput", "expected a dict", session.run, self.a)
        garbage = self.dir / "garbage.onnx"
        garbage.write_bytes(b"\x08\x07\x12\x07pytorch")
        self.assertError("InvalidInput", str(garbage) + ": cannot run an ONNX model: expected a TOSA flatbuffer, a VGF, "
                         "an ExecuTorch program or an Ethos-U command stream", openvgf.Session, str(garbage),
                         **self.options)
        self.assertError("InvalidInput", "missing.vgf: cannot open", openvgf.Model, str(self.dir / "missing.vgf"))
        self.assertError("InvalidInput", "target: expected portable or native", openvgf.Model, path, target="fast")
        # The session still runs after the refusals.
        np.testing.assert_allclose(session.run([self.a, self.b])[0], self.expected, rtol=1e-6)

    def test_profile_lists_every_dispatch(self):
        model = openvgf.Model(str(ADD / "model.tosa"), **self.options)
        session = model.session(profile=True)
        session.run([self.a, self.b])
        profile = session.profile
        self.assertGreater(len(profile["segments"]), 0)
        self.assertAlmostEqual(sum(ms for _, ms in profile["segments"]), profile["gpu_ms"], places=6)
        self.assertGreaterEqual(profile["host_ms"], profile["gpu_ms"])

    def test_threads_with_a_session_each(self):
        model = openvgf.Model(str(ADD / "model.tosa"), **self.options)
        errors = []

        def work(offset):
            try:
                session = model.session()
                for run in range(20):
                    a = self.a + offset + run
                    (y,) = session.run([a, self.b])
                    np.testing.assert_array_equal(y, a + self.b)
            except Exception as e:  # reported below, on the main thread
                errors.append(e)

        threads = [threading.Thread(target=work, args=(k * 100.0,)) for k in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(errors, [])

    def test_arm_graph_vgf_is_lowered_and_matches_the_reference(self):
        # model-converter's int8 RESCALE -> CONV2D -> RESCALE: bit-exact against the reference
        # interpreter on the graph it carries (decoded to a .tosa at build time).
        path = str(DATA / "vgf-graph" / "simple_conv2d_rescale_graph.vgf")
        session = openvgf.Session(path, **self.options)
        self.assertEqual(session.model.format, "vgf")
        (info,) = session.inputs
        self.assertEqual(info["dtype"], np.uint8)  # the file declares R8_UINT
        x = (np.arange(np.prod(info["shape"])) * 37 % 256).astype(np.uint8).reshape(info["shape"])
        (y,) = session.run([x])
        self.assertEqual(y.dtype, np.uint8)
        # The reference interpreter's tensors are signless INT8: the same bytes.
        expected = openvgf.reference(str(MODELS / "simple_conv2d_rescale_graph.tosa"), [x.view(np.int8)])
        np.testing.assert_array_equal(y.view(np.int8), next(iter(expected.values())))
        self.assertTrue(openvgf.Model(path, **self.options).from_cache)

    def test_pte_runs_its_vgf_delegates_in_order(self):
        session = openvgf.Session(str(MODELS / "two_delegates.pte"), **self.options)
        self.assertEqual(session.model.format, "pte")
        self.assertEqual([(t["name"], t["shape"]) for t in session.inputs], [("input_0", (1, 4, 4, 2))])
        x = ((np.arange(32) % 7 - 3) * 0.75 + 0.125).astype(np.float32).reshape(1, 4, 4, 2)
        y = session.run({"input_0": x})["output_0"]
        expected = openvgf.reference(str(MODELS / "two_delegates.tosa"), [x])["y"]
        self.assertEqual(y.shape, (1, 64))
        np.testing.assert_allclose(y, expected, rtol=1e-5, atol=1e-6)
        self.assertError("InvalidInput", "two_delegates.pte: --plan: expected one of the program's plans ('forward'), got 'x'",
                         openvgf.Model, str(MODELS / "two_delegates.pte"), plan="x", **self.options)

    def test_devices_inspect_convert_reference(self):
        devices = openvgf.devices()
        self.assertEqual(sum(d["default"] for d in devices), 1)
        self.assertTrue(any(DEVICE.lower() in d["name"].lower() for d in devices))
        info = openvgf.inspect(str(ADD / "model.tosa"))
        self.assertIn("regions", info)
        self.assertIn("TosaInput_0", openvgf.inspect(str(ADD / "model.tosa"), text=True))
        vgf = self.dir / "add.vgf"
        stats = openvgf.convert(str(ADD / "model.tosa"), str(vgf))
        self.assertEqual(stats["output_bytes"], vgf.stat().st_size)
        self.assertEqual(openvgf.Model(str(vgf), **self.options).format, "vgf")
        self.assertEqual(openvgf.inspect(str(vgf))["header"]["major"], 0)
        outputs = openvgf.reference(str(ADD / "model.tosa"), [self.a, self.b])
        np.testing.assert_allclose(outputs["TosaOutput_0"], self.expected, rtol=1e-6)
        precise = openvgf.reference(str(ADD / "model.tosa"), {"TosaInput_0": self.a, "TosaInput_1": self.b}, precise=True)
        self.assertEqual(precise["TosaOutput_0"].dtype, np.float64)
        self.assertError("InvalidInput", "expected an ExecuTorch program", openvgf.extract, str(vgf), str(self.dir / "x"))
        self.assertError("InvalidInput", "got a VGF file, which is already converted", openvgf.convert, str(vgf),
                         str(self.dir / "again.vgf"))

    def test_read_image_preprocesses_a_png_for_an_input(self):
        # An 8-bit grey PNG written here with zlib; the ADD fixture's inputs are [1,4,4,1] float32.
        pixels = np.arange(16, dtype=np.uint8).reshape(4, 4) * 16

        def chunk(kind, data):
            body = kind + data
            return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)

        raw = b"".join(b"\x00" + row.tobytes() for row in pixels)
        png = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 4, 4, 8, 0, 0, 0, 0)) +
               chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
        path = self.dir / "grey.png"
        path.write_bytes(png)
        model = openvgf.Model(str(ADD / "model.tosa"), **self.options)
        image = model.read_image(str(path), input="TosaInput_0", mean=[0.5], std=[0.5])
        self.assertEqual(image.shape, (1, 4, 4, 1))
        np.testing.assert_allclose(image, ((pixels / 255.0 - 0.5) / 0.5).reshape(1, 4, 4, 1).astype(np.float32),
                                   rtol=1e-6)
        self.assertError("InvalidInput", "expected an input named 'nope'", model.read_image, str(path), input="nope")

    def test_check_judges_outputs_and_fails_a_wrong_one(self):
        session = openvgf.Session(str(ADD / "model.tosa"), check=True, **self.options)
        outputs = session.run([self.a, self.b])
        report = session.check([self.a, self.b], outputs)
        self.assertTrue(report["pass"], report)
        (line,) = report["outputs"]
        self.assertEqual((line["rule"], line["elements"], line["failures"]), ("ULP", 64, 0))
        outputs[0][0, 1, 2, 3] += 1.0  # one element wrong: TOSA's ADD allows 0.5 ulp
        wrong = session.check({session.inputs[0]["name"]: self.a, session.inputs[1]["name"]: self.b}, outputs)
        self.assertFalse(wrong["pass"])
        self.assertFalse(wrong["inconclusive"])
        self.assertEqual(wrong["outputs"][0]["failures"], 1)
        with self.assertRaisesRegex(openvgf.Error, "expected the run's outputs as run\\(\\) returned them"):
            session.check([self.a, self.b], outputs[0])

    def test_check_operators_names_the_operators_a_wrong_tensor_touches(self):
        session = openvgf.Session(str(MODELS / "two_delegates.tosa"), keep_intermediates=True, **self.options)
        kept = {t["name"]: t for t in session.outputs}
        self.assertEqual(kept["conv2d_3"]["producer"], "CONV2D")
        x = np.random.default_rng(3).uniform(-1, 1, session.inputs[0]["shape"]).astype(np.float32)
        outputs = session.run({"x": x})
        report = session.check_operators({"x": x}, outputs)
        self.assertTrue(report["pass"], report)
        ops = [o["op"] for o in report["operators"]]
        self.assertIn("CONV2D", ops)
        self.assertTrue(all(o["outputs"] and not o["not_judged"] for o in report["operators"]))
        # Make the convolution's kept output wrong: its producer is now wrong on its own inputs,
        # and the CLAMP that reads it no longer matches what it was given; nothing else changes.
        outputs["conv2d_3"][0, 0, 0, 0] += 0.5
        wrong = session.check_operators({"x": x}, outputs)
        self.assertFalse(wrong["pass"])
        failed = [o["op"] for o in wrong["operators"] if not all(c["pass"] for c in o["outputs"])]
        self.assertEqual(failed, ["CONV2D", "CLAMP"])
        with self.assertRaisesRegex(openvgf.Error, "keepIntermediates"):
            openvgf.Session(str(MODELS / "two_delegates.tosa"), **self.options).check_operators({"x": x}, [outputs["y"]])

    def test_readme_example(self):
        result = self.run_example("readme_example.py")
        np.testing.assert_allclose(result["y"]["TosaOutput_0"], np.full((1, 4, 4, 4), 3.0, np.float32))


if __name__ == "__main__":
    unittest.main()
