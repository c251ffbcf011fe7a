# SPDX-License-Identifier: Apache-2.0
"""Each code block of README.md marked `<!-- file: PATH -->` must be the file PATH, word for
word, so the examples the README shows are the ones the install and Python tests run."""

import pathlib
import re
import sys

root = pathlib.Path(sys.argv[1])
readme = (root / "README.md").read_text()
blocks = re.findall(r"<!-- file: (\S+) -->\n```[a-z]*\n(.*?)```", readme, re.S)
if len(blocks) < 3:
    sys.exit(f"README.md: expected the C++, C and Python examples marked <!-- file: ... -->, found {len(blocks)}")
for path, text in blocks:
    actual = (root / path).read_text()
    if text != actual:
        sys.exit(f"README.md: the example marked {path} differs from the file; copy the file into the README")
print(f"{len(blocks)} README examples match their files")
