#!/usr/bin/env bash
# Installs every Debian 12 package openvgf needs to build, test and run its demo.
# Does nothing when all of them are present; uses sudo when not root.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build ccache pkg-config
  clang libclang-rt-14-dev                       # libFuzzer targets
  libfmt-dev libspdlog-dev libcli11-dev nlohmann-json3-dev
  libflatbuffers-dev flatbuffers-compiler
  libvulkan-dev vulkan-tools mesa-vulkan-drivers vulkan-validationlayers
  glslang-dev glslang-tools spirv-tools spirv-headers
  libgtest-dev libgmock-dev libbenchmark-dev
  python3 python3-numpy
  python3-dev pybind11-dev python3-pip python3-venv python3-setuptools python3-wheel   # Python package
  python3-distributed python3-dask               # openvgf.dask and its cluster tests (dask scheduler/worker)
  universal-ctags                                # scripts/long_functions.sh
  chromium                                       # tests/view: `openvgf view` pages in headless Chromium
  libpng-dev libjpeg62-turbo-dev                 # image inputs (openvgf::readImage)
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  SUDO="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
