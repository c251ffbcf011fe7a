# SPDX-License-Identifier: Apache-2.0
"""Keeps the README's examples true.

1. Each code block of README.md and docs/*.md marked `<!-- file: PATH -->` must be the file
   PATH, word for word, so the examples shown are the ones the install and Python tests run.
2. Each shell block of README.md (```sh or ```console) must be marked `<!-- run -->` or
   `<!-- not run: REASON -->`, so no command slips in untested.
3. The blocks marked `<!-- run -->` run in order in one bash session, from the checkout root as
   the README says, with a fresh cache folder and TMPDIR. The README's `$PWD/build/release` is
   the build under test. In a ```console block each `$ ` line is a command and the lines after
   it are its expected output (stdout and stderr together): compared line by line, where a
   line `...` stands for any lines and decimal numbers in `error` lines (which depend on the
   device's arithmetic) match any number. Every command of a ```sh block must exit with 0.

Usage: readme_examples_test.py SOURCE_DIR BUILD_DIR
"""

import os
import pathlib
import re
import subprocess
import sys
import tempfile

FENCE = re.compile(r"(<!-- (?:file: \S+|run|not run: [^>]+) -->\n)?```([a-z]*)\n(.*?)```", re.S)
DECIMAL = re.compile(r"\d+\.\d+(?:e[-+]?\d+)?")


def check_file_blocks(root):
    count = 0
    for doc in [root / "README.md"] + sorted((root / "docs").glob("*.md")):
        for path, text in re.findall(r"<!-- file: (\S+) -->\n```[a-z]*\n(.*?)```", doc.read_text(), re.S):
            if text != (root / path).read_text():
                sys.exit(f"{doc.name}: the example marked {path} differs from the file; copy the file into it")
            count += 1
    if count < 3:
        sys.exit(f"README.md and docs/: expected the C++, C and Python examples marked <!-- file: ... -->, found {count}")
    print(f"{count} examples in README.md and docs/ match their files")


def shell_blocks(readme):
    """(kind, text) of each block marked <!-- run -->; exits on an unmarked shell block."""
    blocks = []
    for marker, language, text in FENCE.findall(readme):
        if language not in ("sh", "console"):
            continue
        if not marker:
            first = text.splitlines()[0] if text.strip() else ""
            sys.exit(f"README.md: the {language} block starting '{first}' is marked neither <!-- run --> nor "
                     "<!-- not run: REASON -->")
        if marker.startswith("<!-- run -->"):
            blocks.append((language, text))
    if not any(language == "console" for language, _ in blocks):
        sys.exit("README.md: expected the first model run as a ```console block marked <!-- run -->")
    return blocks


def steps(blocks):
    """(command, expected output lines or None for 'exit status only') in README order."""
    result = []
    for language, text in blocks:
        if language == "sh":
            result += [(line, None) for line in text.splitlines() if line.strip() and not line.startswith("#")]
            continue
        for line in text.splitlines():
            if line.startswith("$ "):
                result.append((line[2:], []))
            elif result and result[-1][1] is not None:
                result[-1][1].append(line)
            else:
                sys.exit(f"README.md: console block output '{line}' before any '$ ' command")
    return result


def normalize(line):
    return DECIMAL.sub("<number>", line) if "error" in line else line


def matches(expected, actual):
    """Line-by-line match where an expected line '...' stands for any run of lines."""
    if not expected:
        return not actual
    if expected[0] == "...":
        return any(matches(expected[1:], actual[k:]) for k in range(len(actual) + 1))
    return bool(actual) and normalize(expected[0]) == normalize(actual[0]) and matches(expected[1:], actual[1:])


def main():
    root = pathlib.Path(sys.argv[1]).resolve()
    build = pathlib.Path(sys.argv[2]).resolve()
    check_file_blocks(root)
    readme = (root / "README.md").read_text()
    commands = steps(shell_blocks(readme))
    with tempfile.TemporaryDirectory() as scratch:
        env = dict(os.environ, XDG_CACHE_HOME=os.path.join(scratch, "cache"), TMPDIR=scratch)
        os.makedirs(env["XDG_CACHE_HOME"])
        # One bash session, so that `cd` and variables carry from one command to the next; a
        # marker line after each command separates the outputs and carries its exit status.
        marker = "@@readme-step@@"
        script = "set -o pipefail\n"
        for command, _ in commands:
            command = command.replace("$PWD/build/release", str(build))
            script += f"{command}\necho \"{marker} $?\"\n"
        run = subprocess.run(["bash", "-c", script], cwd=root, env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True, timeout=300)
    pieces = run.stdout.split("\n")
    outputs, current = [], []
    for line in pieces:
        if marker not in line:
            current.append(line)
            continue
        before, status = line.split(marker)
        if before:  # the command's output did not end with a newline
            current.append(before)
        outputs.append((current, int(status)))
        current = []
    if len(outputs) != len(commands):
        sys.exit(f"README.md: {len(commands)} commands, but the session ended after {len(outputs)}:\n{run.stdout}")
    failures = 0
    for (command, expected), (actual, status) in zip(commands, outputs):
        if status != 0:
            print(f"FAIL: `{command}` exited with {status}:\n" + "\n".join(actual))
            failures += 1
        elif expected is not None and not matches(expected, actual):
            print(f"FAIL: `{command}` printed\n" + "\n".join(actual) + "\nwhere README.md shows\n" + "\n".join(expected))
            failures += 1
    if failures:
        sys.exit(f"README.md: {failures} of {len(commands)} commands failed")
    print(f"{len(commands)} README commands ran as shown")


if __name__ == "__main__":
    main()
