#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Packs openvgf, openvgf-zoo and openvgf-op-sweep from a build folder, with the shared libraries they need that
# a stock machine may lack (Vulkan loader, spdlog, fmt), into one small folder that runs on
# another Linux x86-64 machine with a newer glibc (e.g. a GPU host without our Debian
# packages). Each tool gets a wrapper that points LD_LIBRARY_PATH at the bundled libraries,
# so nothing else on that machine (PyTorch, ...) sees them.
#
# It also packs openvgf's Python package (BUILD_DIR/python/openvgf, with its compiled
# extension, for the Python it was built for: Debian 12's python3.11) as OUT_DIR/python/openvgf,
# and OUT_DIR/python3, which runs the interpreter OPENVGF_PYTHON names (default
# /usr/bin/python3; benchmarks/python_kit.sh carries Debian's to other machines) with that
# package on PYTHONPATH and the bundled libraries on LD_LIBRARY_PATH.
#
#   benchmarks/bundle.sh build/release build/bundle
#   build/bundle/openvgf devices          # on the other machine
#   benchmarks/run.sh --bundle build/bundle
#   OPENVGF_PYTHON=/tmp/pykit/python3 build/bundle/python3 -c 'import openvgf; print(openvgf.devices())'
set -euo pipefail

BUILD="${1:?usage: bundle.sh BUILD_DIR OUT_DIR}"
OUT="${2:?usage: bundle.sh BUILD_DIR OUT_DIR}"
BINARIES=("$BUILD/cli/openvgf" "$BUILD/benchmarks/models/openvgf-zoo" "$BUILD/benchmarks/models/openvgf-op-sweep")
PACKAGE="$BUILD/python/openvgf"
# The C/C++ runtime comes from the target machine (same or newer ABI); everything else is packed.
SYSTEM_LIBS='^(linux-vdso|ld-linux|libc\.so|libm\.so|libgcc_s|libstdc\+\+|libpthread|libdl\.so|librt\.so)'

for bin in "${BINARIES[@]}"; do
  [ -x "$bin" ] || { echo "bundle.sh: $bin not found (build it first)" >&2; exit 2; }
done
extensions=("$PACKAGE"/_openvgf.*.so)
if ! [ -f "${extensions[0]}" ] || ! [ -f "$PACKAGE/__init__.py" ]; then
  echo "bundle.sh: $PACKAGE: no Python package with its extension _openvgf (a build without Python?): bundling the binaries only" >&2
  PACKAGE=""
fi

# Copies the shared libraries `ldd FILE` names, but the C/C++ runtime, into OUT/lib.
bundle_libraries() {
  ldd "$1" | awk '$2 == "=>" && $3 ~ /^\// { print $1, $3 }' | while read -r soname path; do
    if ! echo "$soname" | grep -qE "$SYSTEM_LIBS"; then
      cp -L "$path" "$OUT/lib/$soname"
    fi
  done
}

# The Python package (OUT/python/openvgf, its extension's libraries in OUT/lib) and OUT/python3.
bundle_python() {
  mkdir -p "$OUT/python/openvgf"
  cp "$PACKAGE"/*.py "$OUT/python/openvgf/"
  for extension in "${extensions[@]}"; do
    cp "$extension" "$OUT/python/openvgf/"
    strip --strip-debug "$OUT/python/openvgf/$(basename "$extension")" 2>/dev/null || true
    bundle_libraries "$extension"
  done
  cat >"$OUT/python3" <<'EOF'
#!/usr/bin/env bash
# The Python that OPENVGF_PYTHON names (default /usr/bin/python3: the package's extension is
# built for Debian 12's python3.11) with the bundled openvgf package and libraries
# (benchmarks/bundle.sh).
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export PYTHONPATH="$here/python${PYTHONPATH:+:$PYTHONPATH}"
export LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
exec "${OPENVGF_PYTHON:-/usr/bin/python3}" "$@"
EOF
  chmod +x "$OUT/python3"
}

rm -rf "$OUT"
mkdir -p "$OUT/bin" "$OUT/lib"
for bin in "${BINARIES[@]}"; do
  name="$(basename "$bin")"
  cp "$bin" "$OUT/bin/$name"
  strip --strip-debug "$OUT/bin/$name" 2>/dev/null || true
  bundle_libraries "$bin"
  cat >"$OUT/$name" <<EOF
#!/usr/bin/env bash
# $name with its bundled libraries (benchmarks/bundle.sh).
here="\$(cd "\$(dirname "\${BASH_SOURCE[0]}")" && pwd)"
export LD_LIBRARY_PATH="\$here/lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
exec "\$here/bin/$name" "\$@"
EOF
  chmod +x "$OUT/$name"
done
if [ -n "$PACKAGE" ]; then
  bundle_python
fi
echo "bundle.sh: $OUT ($(du -sh "$OUT" | cut -f1)):"
ls -l "$OUT/bin" "$OUT/lib" ${PACKAGE:+"$OUT/python/openvgf"} | sed 's/^/  /'
