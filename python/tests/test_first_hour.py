# SPDX-License-Identifier: Apache-2.0
"""The first hour in Python (issue 35 item 4), each in a fresh interpreter so that what the
library writes to stderr is seen: no [info] lines by default, set_log_level("info") and
OPENVGF_LOG_LEVEL show them; Arm's GRAPH VGF with R8_UINT input and output reports and gives
uint8; an int8 array for it is taken byte for byte with a warning (the rule of docs/limits.md,
"uint8 and int8"), and uint8 for an INT8 input likewise; readme_example.py runs from any folder."""

import os
import pathlib
import subprocess
import sys
import unittest

from support import DATA, DEVICE, OpenvgfTestCase

ARM_GRAPH = DATA / "vgf-graph" / "simple_conv2d_rescale_graph.vgf"
HERE = pathlib.Path(__file__).resolve().parent


class FirstHourTest(OpenvgfTestCase):
    def python(self, code, **env):
        """Runs `code` in a new interpreter, in the scratch folder; returns (stdout, stderr)."""
        environment = dict(os.environ, XDG_CACHE_HOME=str(self.dir / "xdg"), **env)
        if "OPENVGF_LOG_LEVEL" not in env:
            environment.pop("OPENVGF_LOG_LEVEL", None)
        done = subprocess.run([sys.executable, "-c", code], cwd=self.dir, env=environment, capture_output=True,
                              text=True, timeout=300)
        self.assertEqual(done.returncode, 0, done.stderr)
        return done.stdout, done.stderr

    def test_arm_graph_vgf_is_uint8_and_logs_only_when_asked(self):
        code = f"""
import numpy as np, openvgf
m = openvgf.Model({str(ARM_GRAPH)!r}, device={DEVICE!r})
print(m.inputs[0]["dtype"], m.outputs[0]["dtype"])
x = (np.arange(720 * 1280 * 4) % 256).astype(np.uint8).reshape(1, 720, 1280, 4)
(y,) = m.session().run([x])  # a list in, a list out
print(y.dtype)
print("signed", flush=True)
m.session().run([x.view(np.int8)])
openvgf.set_log_level("info")
print(openvgf.log_level(), flush=True)
openvgf.Model({str(ARM_GRAPH)!r}, device={DEVICE!r})
"""
        out, err = self.python(code)
        self.assertEqual(out.splitlines()[:3], ["uint8 uint8", "uint8", "signed"])
        self.assertEqual(out.splitlines()[3], "info")
        self.assertIn("read differently as the UINT8 input", err)
        # The first open lowered the graph quietly; the third, at info level, says where it came from.
        self.assertEqual(err.count("lowered VGF from the cache"), 1, err)
        self.assertEqual(err.count("[info]"), 1, err)

    def test_uint8_for_an_int8_input_warns_with_the_values(self):
        model = pathlib.Path(os.environ["OPENVGF_PYTHON_MODELS"]) / "reverse_int8.tosa"  # y = reverse(x, axis 1)
        code = f"""
import numpy as np, openvgf
s = openvgf.Session({str(model)!r}, device={DEVICE!r})
print(s.inputs[0]["dtype"])
print(s.run([np.array([[1, 200, 3], [250, 5, 6]], np.uint8)])[0].tolist())
"""
        out, err = self.python(code)
        self.assertEqual(out.splitlines(), ["int8", "[[3, -56, 1], [6, 5, -6]]"])
        self.assertIn("2 of 6 values of this uint8 array read differently as the INT8 input (element [0,1]: 200 -> -56)",
                      err)

    def test_environment_sets_the_level_and_bad_values_are_named(self):
        _, err = self.python("import openvgf; print(openvgf.log_level())", OPENVGF_LOG_LEVEL="off")
        self.assertEqual(err, "")
        out, _ = self.python("import openvgf; print(openvgf.log_level())", OPENVGF_LOG_LEVEL="Debug")
        self.assertEqual(out.strip(), "debug")
        out, err = self.python("import openvgf; print(openvgf.log_level())", OPENVGF_LOG_LEVEL="wran")
        self.assertEqual(out.strip(), "warn")
        self.assertIn("got 'wran' (did you mean 'warn'?)", err)

    def test_readme_example_runs_from_any_folder(self):
        environment = dict(os.environ, XDG_CACHE_HOME=str(self.dir / "xdg"))
        environment.pop("OPENVGF_EXAMPLE_MODEL", None)
        environment.pop("OPENVGF_LOG_LEVEL", None)
        done = subprocess.run([sys.executable, str(HERE / "readme_example.py")], cwd=self.dir, env=environment,
                              capture_output=True, text=True, timeout=300)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("TosaOutput_0 float32 (1, 4, 4, 4) [3. 3. 3. 3.]", done.stdout)
        self.assertEqual(done.stderr, "")  # nothing logged by default


if __name__ == "__main__":
    unittest.main()
