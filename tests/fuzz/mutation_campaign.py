#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Mutation campaign: mutated .tosa, .vgf, GRAPH .vgf, .ethosu, .pte and .npy files through the openvgf CLI.

Each file is a valid seed with a few random byte-level mutations. Every command runs in its
own process with a timeout (a hang) and its maximum resident set size measured (wait4). A
run is a crash when it dies by a signal or exits with a code other than 0, 1, 2. Beyond
crashes, every format has an oracle for "silent wrong answers" (tests/fuzz/README.md):

  tosa  convert + `run --check`: the converted model is judged against the reference
        interpreter on the same (mutated) graph; a FAIL is a wrong answer.
  vgf   the runner's view of the file (openvgf-runner-view) decides. Same view as the seed
        (the mutation touched names, padding, unused entries) -> outputs must be bit-identical
        to the seed's. Different view, run accepted -> the file is a different program: it
        must give the same outputs whatever the memory held before (two runs with
        MALLOC_PERTURB_ 0x00 / 0xAA) and must not trip the validation layer (--validate).
  graph GRAPH-segment VGFs (TOSA as SPIR-V, as Arm's model-converter writes them: the
        Arm-made fixture and `convert --format arm-graph` of the TOSA seeds), half of the
        mutations inside the SPIR-V module: `inspect`, `convert` (lowering; a failed one
        leaves no file) and `run --check`, which judges the lowered kernels against the
        reference interpreter on the graph the mutated file carries; a FAIL is a wrong answer.
  pte   extract: every manifest entry's file must hold exactly bytes [offset, offset+size)
        of the program, with the recorded size and SHA-256.
  npy   inputs of an fp32 ADD model: an accepted input must be what numpy reads from the
        same file (dtype and shape), and run and reference must return numpy's a + b bit
        for bit.

Three classes make well-formed files or states rather than mutated bytes:

  vgftable  structured edits of a VGF's tables (openvgf-vgf-edit: a segment removed, bindings
        swapped, a resource resized or retyped, alias groups merged, a dispatch grown, an
        interface slot retargeted, a name duplicated); `run --validate` must refuse the file or
        give the seed's outputs bit for bit.
  cache  a warm cache folder (models/, lowered/, spirv/, pipeline cache) tampered with (a byte
        flipped, one entry copied over another, entries swapped, truncated, appended to), then
        `run` of a .tosa or a GRAPH .vgf, or `convert` of a .tosa: exit 0 must give what an
        uncached run or convert gives, bit for bit.
  threads  thread storms on one shared Session from Python (thread_storm.py): every result is
        numpy's a + b of its own call's inputs, the only error is the documented "in flight"
        refusal, and the process exits 0.

Exit 2 must name the file. The script prints and writes (OUT/report.json) the figures that
tests/fuzz/README.md records, and keeps every finding in OUT/findings/.

  tests/fuzz/mutation_campaign.py --build build/release --out /tmp/campaign --per-format 2000
"""
import argparse
import hashlib
import json
import os
import random
import shutil
import signal
import sys
import tempfile
import time

import numpy as np

SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NUMPY_DTYPES = {"FP32": np.float32, "FP16": np.float16, "INT8": np.int8, "INT16": np.int16, "INT32": np.int32,
                "BOOL": np.bool_, "INT4": np.int8, "INT48": np.int64}
MAX_INPUT_ELEMENTS = 1 << 20


class Outcome:
    def __init__(self, code, sig, output, rss_kb, seconds, timed_out):
        self.code, self.sig, self.output, self.rss_kb = code, sig, output, rss_kb
        self.seconds, self.timed_out = seconds, timed_out

    @property
    def crashed(self):
        return not self.timed_out and (self.sig is not None or self.code not in (0, 1, 2))


def run(command, timeout, env=None):
    """Runs `command` (a list), returns its Outcome; the whole process group dies on timeout."""
    with tempfile.TemporaryFile() as out:
        start = time.monotonic()
        pid = os.fork()
        if pid == 0:
            os.setsid()
            os.dup2(out.fileno(), 1)
            os.dup2(out.fileno(), 2)
            try:
                os.execve(command[0], command, env if env is not None else os.environ)
            finally:
                os._exit(127)
        timed_out = False
        delay = 0.002
        while True:
            done, status, usage = os.wait4(pid, os.WNOHANG)
            if done:
                break
            if time.monotonic() - start > timeout:
                os.killpg(pid, signal.SIGKILL)
                _, status, usage = os.wait4(pid, 0)
                timed_out = True
                break
            time.sleep(delay)
            delay = min(delay * 2, 0.05)
        seconds = time.monotonic() - start
        out.seek(0)
        text = out.read().decode("utf-8", "replace")
    code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else None
    sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
    return Outcome(code, sig, text, usage.ru_maxrss, seconds, timed_out)


INTERESTING32 = [0, 1, 2, 3, 4, 0x7F, 0x80, 0xFF, 0x100, 0xFFFF, 0x10000, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFE,
                 0xFFFFFFFF]
INTERESTING8 = [0, 1, 0x7F, 0x80, 0xFF]


def vela_view(data):
    """What the simulator executes from a vela_bin_stream: every block's name, external flag and
    unpadded data up to the end block (names past their NUL, reserved bytes, padding and
    anything after `vela_end_stream` are not part of it; specs/ethosu.md)."""
    view, pos = [], 0
    while pos + 32 <= len(data):
        name = bytes(data[pos:pos + 16]).split(b"\0")[0]
        size = int.from_bytes(data[pos + 16:pos + 20], "little")
        view.append((name, data[pos + 20], bytes(data[pos + 32:pos + 32 + size])))
        if name == b"vela_end_stream":
            break
        pos += 32 + ((size + 15) & ~15)
    return view


def mutate(data, rng):
    """A few random byte-level mutations: bit flips, interesting bytes and 32-bit words (binding
    numbers, indices, counts, lengths), small deltas of a word (renumbering), swapped words,
    truncation, deleted and duplicated chunks."""
    d = bytearray(data)
    for _ in range(rng.choice((1, 1, 1, 2, 2, 3, 4))):
        if len(d) < 8:
            d += bytes(8)
        op = rng.randrange(9)
        pos = rng.randrange(len(d))
        word = pos & ~3
        if word + 4 > len(d):
            word = len(d) - 4
        if op == 0:
            d[pos] ^= 1 << rng.randrange(8)
        elif op == 1:
            d[pos] = rng.choice(INTERESTING8)
        elif op == 2:
            d[word:word + 4] = rng.choice(INTERESTING32).to_bytes(4, "little")
        elif op == 3:
            value = (int.from_bytes(d[word:word + 4], "little") + rng.randint(-8, 8)) & 0xFFFFFFFF
            d[word:word + 4] = value.to_bytes(4, "little")
        elif op == 4:
            other = rng.randrange(0, len(d) - 3) & ~3
            d[word:word + 4], d[other:other + 4] = d[other:other + 4], d[word:word + 4]
        elif op == 5:
            del d[rng.randrange(len(d)):]
        elif op == 6:
            del d[pos:pos + rng.randint(1, 64)]
        elif op == 7:
            start = rng.randrange(len(d))
            chunk = d[start:start + rng.randint(1, 64)]
            d[pos:pos] = chunk
        else:
            d[word:word + 4] = rng.getrandbits(32).to_bytes(4, "little")
    return bytes(d)


class Campaign:
    def __init__(self, args):
        self.args = args
        self.cli = os.path.join(args.build, "cli", "openvgf")
        self.view_tool = os.path.join(args.build, "tests", "fuzz", "openvgf-runner-view")
        self.edit_tool = os.path.join(args.build, "tests", "fuzz", "openvgf-vgf-edit")
        self.out = args.out
        self.work = os.path.join(args.out, "work")
        self.findings = os.path.join(args.out, "findings")
        for d in (self.work, self.findings):
            os.makedirs(d, exist_ok=True)
        # Mesa's shader cache stays in one place when a case moves XDG_CACHE_HOME (the cache class).
        self.env = dict(os.environ, XDG_CACHE_HOME=os.path.join(args.out, "cache"), OPENVGF_VALIDATE="0",
                        MESA_SHADER_CACHE_DIR=os.path.join(args.out, "mesa-cache"))
        self.rng = random.Random(args.seed)
        self.report = {}

    # ---- bookkeeping --------------------------------------------------------------------
    def stats(self, fmt):
        return self.report.setdefault(fmt, {
            "files": 0, "runs": 0, "exit_codes": {}, "crashes": [], "hangs": [], "wrong": [],
            "unnamed_errors": [], "driver_failures": [], "accepted_changed": {}, "notes": {},
            "max_rss_kb": 0, "max_rss_command": "", "seconds": 0.0})

    def note(self, fmt, key):
        notes = self.stats(fmt)["notes"]
        notes[key] = notes.get(key, 0) + 1

    def keep(self, fmt, kind, path, why):
        dest = os.path.join(self.findings, f"{fmt}_{kind}_{len(os.listdir(self.findings))}_{os.path.basename(path)}")
        shutil.copyfile(path, dest)
        self.stats(fmt)[kind].append({"file": dest, "why": why[:2000]})
        print(f"  {kind}: {dest}: {why[:300]}", flush=True)

    def cli_run(self, fmt, path, arguments, timeout=None, env=None, name_check=True, command=None):
        """Runs openvgf with `arguments` (or `command`), records what every run must satisfy,
        returns the Outcome."""
        command = command or [self.cli] + arguments
        outcome = run(command, timeout or self.args.timeout, env or self.env)
        s = self.stats(fmt)
        s["runs"] += 1
        s["seconds"] += outcome.seconds
        key = "timeout" if outcome.timed_out else (f"signal {outcome.sig}" if outcome.sig else str(outcome.code))
        s["exit_codes"][key] = s["exit_codes"].get(key, 0) + 1
        if outcome.rss_kb > s["max_rss_kb"]:
            s["max_rss_kb"], s["max_rss_command"] = outcome.rss_kb, " ".join(command[1:3])
        shown = " ".join(command[1:])
        if outcome.timed_out:
            self.keep(fmt, "hangs", path, f"{shown}: no exit within {self.args.timeout} s")
        elif outcome.crashed:
            self.keep(fmt, "crashes", path, f"{shown}: {key}\n{outcome.output[-1500:]}")
        elif outcome.code == 2 and name_check and os.path.basename(path) not in outcome.output:
            self.keep(fmt, "unnamed_errors", path, f"{shown}: {outcome.output[-500:]}")
        return outcome

    # ---- seeds ----------------------------------------------------------------------------
    def tosa_inputs(self, tosa, folder, rng):
        """Random inputs for the main block of `tosa` (from `inspect --json`), or None."""
        info = run([self.cli, "inspect", "--json", tosa], self.args.timeout, self.env)
        if info.code != 0:
            return None
        try:
            graph = json.loads(info.output)
            block = graph["regions"][0]["blocks"][0]
            tensors = {t["name"]: t for t in block["tensors"]}
            files = []
            for k, name in enumerate(block["inputs"]):
                t = tensors[name]
                dtype = NUMPY_DTYPES.get(t["type"])
                shape = t.get("shape") or []
                if dtype is None or any(d < 1 for d in shape) or int(np.prod(shape, dtype=np.float64)) > MAX_INPUT_ELEMENTS:
                    return None
                if dtype == np.bool_:
                    value = rng.integers(0, 2, size=shape).astype(np.bool_)
                elif np.issubdtype(dtype, np.integer):
                    lo, hi = (-8, 8) if t["type"] == "INT4" else (-100, 100)
                    value = rng.integers(lo, hi, size=shape).astype(dtype)
                else:
                    value = (rng.standard_normal(size=shape)).astype(dtype)
                path = os.path.join(folder, f"in{k}.npy")
                np.save(path, value)
                files.append(path)
            return files
        except (KeyError, IndexError, TypeError, ValueError):
            return None

    def prepare(self):
        seeds = os.path.join(self.out, "seeds")
        os.makedirs(seeds, exist_ok=True)
        corpus = os.path.join(SOURCE, "tests", "fuzz", "corpus")
        tosa = sorted(os.path.join(corpus, "tosa_reader", f) for f in os.listdir(os.path.join(corpus, "tosa_reader")))
        data = os.path.join(SOURCE, "tests", "data", "tosa")
        tosa += sorted(os.path.join(data, d, "model.tosa") for d in os.listdir(data))
        self.tosa_seeds = tosa
        self.vgf_seeds = []  # (vgf, inputs, view, outputs)
        self.ethosu_seeds = []  # (stream, inputs, view, outputs)
        rng = np.random.default_rng(self.args.seed)
        for k, t in enumerate(tosa):
            self.prepare_ethosu(t, os.path.join(seeds, f"ethosu{k}"), rng)
            folder = os.path.join(seeds, f"vgf{k}")
            os.makedirs(folder, exist_ok=True)
            vgf = os.path.join(folder, "model.vgf")
            if run([self.cli, "convert", t, "-o", vgf], 600, self.env).code != 0:
                continue
            inputs = self.tosa_inputs(t, folder, rng)
            if inputs is None:
                continue
            outputs = os.path.join(folder, "out")
            r = run([self.cli, "run", vgf, "--output-dir", outputs] + sum([["-i", i] for i in inputs], []), 600, self.env)
            if r.code != 0:
                print(f"seed {t}: run failed: {r.output}", file=sys.stderr)
                continue
            self.vgf_seeds.append((vgf, inputs, self.view(vgf), self.read_outputs(outputs)))
        self.graph_seeds = []  # (graph vgf, inputs)
        for k, t in enumerate(tosa):
            folder = os.path.join(seeds, f"graph{k}")
            os.makedirs(folder, exist_ok=True)
            graph = os.path.join(folder, "graph.vgf")
            if run([self.cli, "convert", t, "--format", "arm-graph", "-o", graph], 600, self.env).code != 0:
                continue
            inputs = self.tosa_inputs(t, folder, rng)
            if inputs is not None:
                self.graph_seeds.append((graph, inputs))
        fixture_input = os.path.join(seeds, "arm_fixture_input.npy")
        np.save(fixture_input, rng.integers(0, 256, size=(1, 720, 1280, 4)).astype(np.uint8))
        self.graph_seeds.append((os.path.join(SOURCE, "tests", "data", "vgf-graph", "simple_conv2d_rescale_graph.vgf"),
                                 [fixture_input]))
        self.pte_seeds = sorted(os.path.join(corpus, "pte_reader", f) for f in os.listdir(os.path.join(corpus, "pte_reader"))
                                if f.endswith(".pte"))
        add = os.path.join(data, "test_add_1x4x4x4_f32")
        self.add_tosa = os.path.join(add, "model.tosa")
        self.add_vgf = os.path.join(seeds, "add.vgf")
        run([self.cli, "convert", self.add_tosa, "-o", self.add_vgf], 600, self.env)
        self.npy_seeds = [os.path.join(add, "placeholder_0.npy"), os.path.join(add, "placeholder_1.npy")]
        self.prepare_cache(seeds)
        print(f"seeds: {len(self.tosa_seeds)} tosa, {len(self.vgf_seeds)} vgf, {len(self.ethosu_seeds)} ethosu, "
              f"{len(self.graph_seeds)} graph, {len(self.pte_seeds)} pte, {len(self.npy_seeds)} npy", flush=True)

    def prepare_ethosu(self, tosa, folder, rng):
        """Ethos-U seeds: the TOSA seeds our compiler takes, for a one-core U55 and a two-core U65."""
        os.makedirs(folder, exist_ok=True)
        inputs = None
        for target in ("ethos-u55-128", "ethos-u65-512"):
            stream = os.path.join(folder, f"{target}.ethosu")
            if run([self.cli, "convert", tosa, "--target", target, "-o", stream], 600, self.env).code != 0:
                continue
            inputs = inputs or self.tosa_inputs(tosa, folder, rng)
            if inputs is None:
                return
            outputs = os.path.join(folder, f"{target}_out")
            r = run([self.cli, "run", stream, "--output-dir", outputs] + sum([["-i", i] for i in inputs], []), 600,
                    self.env)
            if r.code != 0:
                print(f"seed {stream}: run failed: {r.output}", file=sys.stderr)
                continue
            self.ethosu_seeds.append((stream, inputs, vela_view(open(stream, "rb").read()), self.read_outputs(outputs)))

    def view(self, vgf):
        return run([self.view_tool, vgf], self.args.timeout, self.env).output

    @staticmethod
    def read_outputs(folder):
        """The output files' bytes, sorted: file names come from output names, which a neutral
        mutation may change."""
        if not os.path.isdir(folder):
            return []
        return sorted(open(os.path.join(folder, f), "rb").read() for f in os.listdir(folder))

    def fresh(self, name, data):
        path = os.path.join(self.work, name)
        with open(path, "wb") as f:
            f.write(data)
        return path

    # ---- formats --------------------------------------------------------------------------
    def tosa_case(self, i):
        seed = self.rng.choice(self.tosa_seeds)
        path = self.fresh(f"m{i}.tosa", mutate(open(seed, "rb").read(), self.rng))
        self.cli_run("tosa", path, ["inspect", path])
        folder = os.path.join(self.work, f"t{i}")
        shutil.rmtree(folder, ignore_errors=True)
        os.makedirs(folder)
        inputs = self.tosa_inputs(path, folder, np.random.default_rng(i))
        if inputs is not None:
            self.cli_run("tosa", path, ["reference", path, "--output-dir", os.path.join(folder, "ref")] +
                         sum([["-i", x] for x in inputs], []))
        vgf = os.path.join(folder, "m.vgf")
        if self.converted("tosa", path, ["convert", path, "-o", vgf]) and inputs is not None:
            checked = self.cli_run("tosa", path, ["run", vgf, "--check", path] + sum([["-i", x] for x in inputs], []),
                                   name_check=False)
            self.judge_check("tosa", path, "vulkan", checked)
        # The Ethos-U compiler takes the same mutated graphs; the simulator is judged the same way.
        stream = os.path.join(folder, "m.ethosu")
        if self.converted("tosa", path, ["convert", path, "--target", "ethos-u55-128", "-o", stream]) and inputs is not None:
            checked = self.cli_run("tosa", path, ["run", stream, "--check", path] + sum([["-i", x] for x in inputs], []),
                                   name_check=False)
            self.judge_check("tosa", path, "ethos-u", checked)
        shutil.rmtree(folder, ignore_errors=True)

    def converted(self, fmt, path, arguments):
        """Runs a convert; a failed one must leave no output file (arguments end with -o OUT)."""
        outcome = self.cli_run(fmt, path, arguments)
        if outcome.code != 0 and os.path.lexists(arguments[-1]):
            self.keep(fmt, "wrong", path, f"{' '.join(arguments)}: exit {outcome.code} but left {arguments[-1]}")
        return outcome.code == 0

    def judge_check(self, fmt, path, target, checked):
        """`run --check` judged the converted model against the reference interpreter."""
        if checked.code == 0:
            self.note(fmt, f"{target}: converted and passed --check")
        elif checked.code == 1 and "check: FAIL" in checked.output:
            if "REQUIRE" in checked.output or "unpredictable" in checked.output:
                self.note(fmt, f"{target}: --check FAIL on a graph whose result TOSA calls unpredictable")
            else:
                self.keep(fmt, "wrong", path, f"{target} run --check: " + checked.output[-1500:])
        elif checked.code == 1:
            self.keep(fmt, "driver_failures", path, f"{target} run --check: " + checked.output[-1500:])
        else:
            self.note(fmt, f"{target}: converted, run exit {checked.code}")

    def vgf_case(self, i):
        vgf, inputs, seed_view, seed_outputs = self.rng.choice(self.vgf_seeds)
        path = self.fresh(f"m{i}.vgf", mutate(open(vgf, "rb").read(), self.rng))
        self.cli_run("vgf", path, ["inspect", path])
        view = self.view(path)
        accepted = not view.startswith("refused:")
        arguments = ["run", path, "--validate"] + sum([["-i", x] for x in inputs], [])
        results = []
        for perturb in ("0", "170"):
            folder = os.path.join(self.work, f"v{i}_{perturb}")
            shutil.rmtree(folder, ignore_errors=True)
            env = dict(self.env, MALLOC_PERTURB_=perturb, MALLOC_MMAP_THRESHOLD_="33554432")
            outcome = self.cli_run("vgf", path, arguments + ["--output-dir", folder], env=env)
            results.append((outcome, self.read_outputs(folder)))
            shutil.rmtree(folder, ignore_errors=True)
            if outcome.code != 0 or view == seed_view:
                break
        outcome, outputs = results[0]
        if not accepted:
            if outcome.code == 0:
                self.keep("vgf", "wrong", path, "the runner's view refuses the file but run accepted it")
            self.note("vgf", "refused by Model::create" if outcome.code == 2 else f"refused, run exit {outcome.code}")
            return
        if outcome.code == 1:
            self.keep("vgf", "driver_failures", path, outcome.output[-1500:])
            return
        if outcome.code != 0:
            self.note("vgf", f"accepted view, run exit {outcome.code}")
            return
        if view == seed_view:
            if outputs != seed_outputs:
                self.keep("vgf", "wrong", path, "same runner view as the seed, different outputs")
            else:
                self.note("vgf", "same view as the seed, identical outputs")
            return
        if len(results) > 1 and results[1][0].code == 0 and results[1][1] != outputs:
            self.keep("vgf", "wrong", path, "outputs depend on what memory held before the run (MALLOC_PERTURB_)")
            return
        changed = sorted({a.split(" ")[0] for a, b in zip(view.splitlines(), seed_view.splitlines()) if a != b} |
                         ({"count"} if len(view.splitlines()) != len(seed_view.splitlines()) else set()))
        key = "+".join(changed) + (": same outputs" if outputs == seed_outputs else ": different outputs")
        s = self.stats("vgf")["accepted_changed"]
        s[key] = s.get(key, 0) + 1

    @staticmethod
    def spirv_range(data):
        """Byte range [start, end) of the first SPIR-V module in a VGF (magic, then whole
        instructions), or None."""
        start = data.find((0x07230203).to_bytes(4, "little"))
        if start < 0 or start % 4:
            return None
        pos = start + 20
        while pos + 4 <= len(data):
            count = int.from_bytes(data[pos:pos + 4], "little") >> 16
            if count == 0 or pos + 4 * count > len(data):
                break
            pos += 4 * count
        return (start, pos) if pos > start + 20 else None

    def graph_case(self, i):
        seed, inputs = self.rng.choice(self.graph_seeds)
        data = open(seed, "rb").read()
        where = self.spirv_range(data)
        if where is not None and self.rng.randrange(2):
            # Inside the module only, keeping its length, so the container stays consistent and
            # the SPIR-V graph decoder is what has to cope.
            start, end = where
            module = mutate(data[start + 20:end], self.rng)[:end - start - 20]
            module += data[start + 20 + len(module):end]
            data = data[:start + 20] + module + data[end:]
        else:
            data = mutate(data, self.rng)
        path = self.fresh(f"m{i}.vgf", data)
        self.cli_run("graph", path, ["inspect", path])
        folder = os.path.join(self.work, f"g{i}")
        shutil.rmtree(folder, ignore_errors=True)
        os.makedirs(folder)
        self.converted("graph", path, ["convert", path, "-o", os.path.join(folder, "lowered.vgf")])
        checked = self.cli_run("graph", path, ["run", path, "--check", "--output-dir", os.path.join(folder, "out")] +
                               sum([["-i", x] for x in inputs], []))
        self.judge_check("graph", path, "vulkan", checked)
        shutil.rmtree(folder, ignore_errors=True)

    def ethosu_case(self, i):
        """Like vgf_case, with vela_view as the view: a mutation outside it must not change the
        outputs; an accepted different program must not depend on what memory held before."""
        stream, inputs, seed_view, seed_outputs = self.rng.choice(self.ethosu_seeds)
        data = mutate(open(stream, "rb").read(), self.rng)
        path = self.fresh(f"m{i}.ethosu", data)
        self.cli_run("ethosu", path, ["inspect", path])
        results = []
        for perturb in ("0", "170"):
            folder = os.path.join(self.work, f"e{i}_{perturb}")
            shutil.rmtree(folder, ignore_errors=True)
            env = dict(self.env, MALLOC_PERTURB_=perturb, MALLOC_MMAP_THRESHOLD_="33554432")
            outcome = self.cli_run("ethosu", path, ["run", path, "--output-dir", folder] +
                                   sum([["-i", x] for x in inputs], []), env=env)
            results.append((outcome, self.read_outputs(folder)))
            shutil.rmtree(folder, ignore_errors=True)
            if outcome.code != 0:
                break
        outcome, outputs = results[0]
        same_view = vela_view(data) == seed_view
        if outcome.code != 0:
            # Refusing is always allowed: the reader is stricter than the view (bytes after the
            # end block, its size field).
            self.note("ethosu", f"refused, run exit {outcome.code}")
            return
        if same_view:
            if outputs != seed_outputs:
                self.keep("ethosu", "wrong", path, "same view as the seed, different outputs")
            else:
                self.note("ethosu", "same view as the seed, identical outputs")
            return
        if results[1][0].code != 0 or results[1][1] != outputs:
            self.keep("ethosu", "wrong", path, "outputs depend on what memory held before the run (MALLOC_PERTURB_)")
            return
        self.note("ethosu", "accepted a different program" + (": same outputs" if outputs == seed_outputs
                                                                else ": different outputs"))

    def pte_case(self, i):
        seed = self.rng.choice(self.pte_seeds)
        data = mutate(open(seed, "rb").read(), self.rng)
        path = self.fresh(f"m{i}.pte", data)
        self.cli_run("pte", path, ["inspect", path])
        folder = os.path.join(self.work, f"x{i}")
        shutil.rmtree(folder, ignore_errors=True)
        outcome = self.cli_run("pte", path, ["extract", path, "-o", folder])
        if outcome.code == 0:
            try:
                manifest = json.load(open(os.path.join(folder, "manifest.json")))
                for entry in manifest["delegates"]:
                    payload = open(os.path.join(folder, entry["file"]), "rb").read()
                    expected = data[entry["offset"]:entry["offset"] + entry["size"]]
                    if (payload != expected or len(payload) != entry["size"] or
                            hashlib.sha256(payload).hexdigest() != entry["sha256"]):
                        self.keep("pte", "wrong", path, f"extract: {entry['file']} differs from the manifest")
                        break
                else:
                    self.note("pte", "extracted, manifest consistent")
            except (OSError, ValueError, KeyError) as e:
                self.keep("pte", "wrong", path, f"extract: unreadable manifest or payload: {e}")
        elif os.path.exists(os.path.join(folder, "manifest.json")):
            self.keep("pte", "wrong", path, "extract failed but left a manifest")
        shutil.rmtree(folder, ignore_errors=True)

    def npy_case(self, i):
        k = self.rng.randrange(2)
        files = list(self.npy_seeds)
        path = self.fresh(f"m{i}.npy", mutate(open(files[k], "rb").read(), self.rng))
        files[k] = path
        expected_shapes = [np.load(f).shape for f in self.npy_seeds]
        try:
            arrays = [np.load(f, allow_pickle=False) for f in files]
            numpy_ok = all(a.dtype == np.float32 and a.shape == s for a, s in zip(arrays, expected_shapes))
        except Exception:  # numpy's reader raises many types on damaged headers
            numpy_ok = False
        for command in ("run", "reference"):
            model = self.add_vgf if command == "run" else self.add_tosa
            out = os.path.join(self.work, f"n{i}_{command}.npy")
            outcome = self.cli_run("npy", path, [command, model, "-o", out] + sum([["-i", f] for f in files], []))
            if outcome.code != 0:
                continue
            if not numpy_ok:
                self.keep("npy", "wrong", path, f"{command} accepted an input numpy does not read as float32 "
                                                f"{expected_shapes[k]}")
                continue
            result = np.load(out)
            if not np.array_equal(result, np.add(arrays[0], arrays[1]), equal_nan=True):
                self.keep("npy", "wrong", path, f"{command}: output differs from numpy's a + b")
            else:
                self.note("npy", f"{command} accepted, output = numpy a + b")
            os.remove(out)

    def prepare_cache(self, seeds):
        """The cache class's seeds: for each data-folder model, its uncached `run` outputs (as a
        .tosa and as its Arm-style GRAPH .vgf) and uncached `convert` bytes; then one cache
        folder warmed by all of them, which every case copies and tampers with."""
        self.cache_seeds = []  # (command arguments without outputs, kind, expected)
        data = os.path.join(SOURCE, "tests", "data", "tosa")
        rng = np.random.default_rng(self.args.seed)
        for k, name in enumerate(sorted(os.listdir(data))):
            tosa = os.path.join(data, name, "model.tosa")
            folder = os.path.join(seeds, f"cache{k}")
            os.makedirs(folder, exist_ok=True)
            inputs = self.tosa_inputs(tosa, folder, rng)
            if inputs is None:
                continue
            flags = sum([["-i", x] for x in inputs], [])
            graph = os.path.join(folder, "graph.vgf")
            run([self.cli, "convert", tosa, "--format", "arm-graph", "-o", graph], 600, self.env)
            # Each expected result comes from a process with an empty cache folder of its own.
            cold = dict(self.env, XDG_CACHE_HOME=os.path.join(folder, "cold-cache"))
            for model in (tosa, graph):
                out = os.path.join(folder, f"expected_{os.path.basename(model)}")
                shutil.rmtree(cold["XDG_CACHE_HOME"], ignore_errors=True)
                if run([self.cli, "run", model, "--output-dir", out] + flags, 600, cold).code == 0:
                    self.cache_seeds.append((["run", model] + flags, "run", self.read_outputs(out)))
            vgf = os.path.join(folder, "uncached.vgf")
            shutil.rmtree(cold["XDG_CACHE_HOME"], ignore_errors=True)
            if run([self.cli, "convert", tosa, "-o", vgf], 600, cold).code == 0:
                self.cache_seeds.append((["convert", tosa], "convert", open(vgf, "rb").read()))
        self.warm_cache = os.path.join(seeds, "warm-cache")
        shutil.rmtree(self.warm_cache, ignore_errors=True)
        env = dict(self.env, XDG_CACHE_HOME=self.warm_cache)
        for arguments, kind, _ in self.cache_seeds:
            extra = ["--output-dir", os.path.join(seeds, "warm-out")] if kind == "run" else ["-o", os.path.join(seeds, "warm.vgf")]
            run([self.cli] + arguments + extra, 600, env)

    def tamper(self, root, rng):
        """One tampering of the openvgf entries under `root` (Mesa's own cache is left alone);
        returns what was done."""
        entries = sorted(os.path.join(d, f) for d, _, files in os.walk(os.path.join(root, "openvgf")) for f in files)
        if not entries:
            return "nothing to tamper with"
        target = rng.choice(entries)
        data = open(target, "rb").read()
        kind = rng.choice(("flip", "copy-over", "swap", "truncate", "append"))
        others = [e for e in entries if e != target and os.path.dirname(e) == os.path.dirname(target)]
        if kind in ("copy-over", "swap") and not others:
            kind = "flip"
        if kind == "flip" and data:
            at = rng.randrange(len(data))
            data = data[:at] + bytes([data[at] ^ (1 << rng.randrange(8))]) + data[at + 1:]
        elif kind == "copy-over":
            source = rng.choice(others)
            data = open(source, "rb").read()
            target_note = f" from {os.path.basename(source)}"
        elif kind == "swap":
            other = rng.choice(others)
            other_data = open(other, "rb").read()
            with open(other, "wb") as f:
                f.write(data)
            data = other_data
        elif kind == "truncate":
            data = data[:rng.randrange(len(data) + 1)]
        else:
            data = data + bytes(rng.getrandbits(8) for _ in range(rng.randrange(1, 64)))
        with open(target, "wb") as f:
            f.write(data)
        return f"{kind} {os.path.relpath(target, root)}" + (target_note if kind == "copy-over" else "")

    def cache_case(self, i):
        arguments, kind, expected = self.rng.choice(self.cache_seeds)
        root = os.path.join(self.work, f"c{i}")
        shutil.rmtree(root, ignore_errors=True)
        shutil.copytree(self.warm_cache, root)
        what = self.tamper(root, self.rng)
        # Findings keep the command and the tampering as a text file (the case is a state, not a file).
        path = self.fresh(f"m{i}_cache.txt", f"{' '.join(arguments)}\n{what}\n".encode())
        env = dict(self.env, XDG_CACHE_HOME=root)
        if kind == "run":
            folder = os.path.join(root, "out")
            outcome = self.cli_run("cache", path, arguments + ["--output-dir", folder], env=env, name_check=False)
            result = self.read_outputs(folder)
        else:
            out = os.path.join(root, "out.vgf")
            outcome = self.cli_run("cache", path, arguments + ["-o", out], env=env, name_check=False)
            result = open(out, "rb").read() if os.path.exists(out) else None
        if outcome.code == 0 and result != expected:
            self.keep("cache", "wrong", path, f"{what}: {arguments[0]} exit 0, result differs from the uncached one")
        elif outcome.code == 0:
            self.note("cache", f"{what.split(' ')[0]}: {kind} exit 0, same result")
        elif outcome.code == 1:
            self.keep("cache", "driver_failures", path, f"{what}: " + outcome.output[-1500:])
        else:
            self.note("cache", f"{what.split(' ')[0]}: {kind} exit {outcome.code}")
        shutil.rmtree(root, ignore_errors=True)

    def vgftable_case(self, i):
        vgf, inputs, _, seed_outputs = self.rng.choice(self.vgf_seeds)
        path = os.path.join(self.work, f"m{i}_edit.vgf")
        edit = run([self.edit_tool, vgf, path, str(self.rng.getrandbits(31))], self.args.timeout, self.env)
        what = edit.output.strip()
        if edit.code != 0 or what.startswith("no-edit") or not os.path.exists(path):
            self.note("vgftable", what.split(":")[0] if edit.code == 0 else f"edit tool exit {edit.code}")
            self.stats("vgftable")["files"] -= 1  # only edited files count
            return
        folder = os.path.join(self.work, f"t{i}")
        shutil.rmtree(folder, ignore_errors=True)
        outcome = self.cli_run("vgftable", path, ["run", path, "--validate", "--output-dir", folder] +
                               sum([["-i", x] for x in inputs], []))
        outputs = self.read_outputs(folder)
        shutil.rmtree(folder, ignore_errors=True)
        kind = what.split(":")[0]
        if outcome.code == 0 and outputs != seed_outputs:
            self.keep("vgftable", "wrong", path, f"{what}: run exit 0 with outputs that differ from the seed's")
        elif outcome.code == 1:
            self.keep("vgftable", "driver_failures", path, f"{what}: " + outcome.output[-1500:])
        else:
            self.note("vgftable", f"{kind}: exit {outcome.code}" + (", seed's outputs" if outcome.code == 0 else ""))

    def threads_case(self, i):
        """One process of thread storms; each storm counts as one file."""
        storms = min(20, self.args.per_format - i)
        path = self.fresh(f"m{i}_storm.txt", f"thread_storm.py {self.add_tosa} {i} {storms}\n".encode())
        env = dict(self.env, PYTHONPATH=os.path.join(self.args.build, "python"))
        outcome = self.cli_run("threads", path, [], env=env, name_check=False,
                               command=["/usr/bin/python3", os.path.join(SOURCE, "tests", "fuzz", "thread_storm.py"),
                                        self.add_tosa, str(i), str(storms)])
        lines = [json.loads(line) for line in outcome.output.splitlines() if line.startswith("{")]
        for storm in lines:
            for kind in ("wrong", "errors"):
                if storm[kind]:
                    self.keep("threads", "wrong", path, f"storm {storm['storm']}: {kind}: {storm[kind]}")
            self.note("threads", "storm clean" if not storm["wrong"] and not storm["errors"] else "storm failed")
            totals = self.stats("threads").setdefault("calls", {})
            for key in ("calls", "ok", "refused", "dropped"):
                totals[key] = totals.get(key, 0) + storm[key]
        if outcome.code == 0 and len(lines) != storms:
            self.keep("threads", "wrong", path, f"{len(lines)} of {storms} storms reported")
        return storms

    def main(self):
        self.prepare()
        cases = {"tosa": self.tosa_case, "vgf": self.vgf_case, "pte": self.pte_case, "npy": self.npy_case,
                 "ethosu": self.ethosu_case, "graph": self.graph_case, "vgftable": self.vgftable_case,
                 "cache": self.cache_case, "threads": self.threads_case}
        for fmt in self.args.formats.split(","):
            start = time.monotonic()
            i = 0
            while self.stats(fmt)["files"] < self.args.per_format and i < 50 * self.args.per_format:
                self.stats(fmt)["files"] += 1
                taken = cases[fmt](i)
                if taken:  # a case that stands for several files (a process of thread storms)
                    self.stats(fmt)["files"] += taken - 1
                i += 1
                for f in os.listdir(self.work):
                    if f.startswith("m"):
                        os.remove(os.path.join(self.work, f))
                if i % 100 == 0:
                    print(f"{fmt}: {self.stats(fmt)['files']} files, {time.monotonic() - start:.0f} s", flush=True)
                    self.write()
            self.stats(fmt)["wall_seconds"] = time.monotonic() - start
        self.write()
        bad = 0
        for fmt, s in self.report.items():
            print(f"{fmt}: {s['files']} files, {s['runs']} runs, exits {s['exit_codes']}, crashes {len(s['crashes'])}, "
                  f"hangs {len(s['hangs'])}, wrong {len(s['wrong'])}, driver failures {len(s['driver_failures'])}, "
                  f"unnamed errors {len(s['unnamed_errors'])}, max RSS {s['max_rss_kb'] / 1024:.0f} MiB "
                  f"({s['max_rss_command']})")
            bad += len(s["crashes"]) + len(s["hangs"]) + len(s["wrong"]) + len(s["driver_failures"]) + len(s["unnamed_errors"])
        return 1 if bad else 0

    def write(self):
        with open(os.path.join(self.out, "report.json"), "w") as f:
            json.dump({"seed": self.args.seed, "per_format": self.args.per_format, "formats": self.report}, f, indent=1)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", required=True, help="Release build folder (cli/openvgf, tests/fuzz/openvgf-runner-view)")
    parser.add_argument("--out", required=True, help="Work folder for seeds, mutated files, findings and report.json")
    parser.add_argument("--per-format", type=int, default=2000, help="Mutated files per format")
    parser.add_argument("--formats", default="tosa,vgf,graph,ethosu,pte,npy,vgftable,cache,threads")
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--timeout", type=float, default=120, help="Seconds before a command counts as a hang")
    args = parser.parse_args()
    os.nice(19)
    return Campaign(args).main()


if __name__ == "__main__":
    sys.exit(main())
