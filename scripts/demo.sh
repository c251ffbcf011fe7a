#!/usr/bin/env bash
# The main job on a bundled model (see README). Argument: the build folder.
set -euo pipefail
BUILD=${1:-build/release}
"$BUILD/cli/openvgf" --version
