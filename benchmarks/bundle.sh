#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Packs openvgf, openvgf-zoo and openvgf-op-sweep from a build folder, with the shared libraries they need that
# a stock machine may lack (Vulkan loader, spdlog, fmt), into one small folder that runs on
# another Linux x86-64 machine with a newer glibc (e.g. a GPU host without our Debian
# packages). Each tool gets a wrapper that points LD_LIBRARY_PATH at the bundled libraries,
# so nothing else on that machine (PyTorch, ...) sees them.
#
#   benchmarks/bundle.sh build/release build/bundle
#   build/bundle/openvgf devices          # on the other machine
#   benchmarks/run.sh --bundle build/bundle
set -euo pipefail

BUILD="${1:?usage: bundle.sh BUILD_DIR OUT_DIR}"
OUT="${2:?usage: bundle.sh BUILD_DIR OUT_DIR}"
BINARIES=("$BUILD/cli/openvgf" "$BUILD/benchmarks/models/openvgf-zoo" "$BUILD/benchmarks/models/openvgf-op-sweep")
# The C/C++ runtime comes from the target machine (same or newer ABI); everything else is packed.
SYSTEM_LIBS='^(linux-vdso|ld-linux|libc\.so|libm\.so|libgcc_s|libstdc\+\+|libpthread|libdl\.so|librt\.so)'

for bin in "${BINARIES[@]}"; do
  [ -x "$bin" ] || { echo "bundle.sh: $bin not found (build it first)" >&2; exit 2; }
done
rm -rf "$OUT"
mkdir -p "$OUT/bin" "$OUT/lib"
for bin in "${BINARIES[@]}"; do
  name="$(basename "$bin")"
  cp "$bin" "$OUT/bin/$name"
  strip --strip-debug "$OUT/bin/$name" 2>/dev/null || true
  ldd "$bin" | awk '$2 == "=>" && $3 ~ /^\// { print $1, $3 }' | while read -r soname path; do
    if ! echo "$soname" | grep -qE "$SYSTEM_LIBS"; then
      cp -L "$path" "$OUT/lib/$soname"
    fi
  done
  cat >"$OUT/$name" <<EOF
#!/usr/bin/env bash
# $name with its bundled libraries (benchmarks/bundle.sh).
here="\$(cd "\$(dirname "\${BASH_SOURCE[0]}")" && pwd)"
export LD_LIBRARY_PATH="\$here/lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
exec "\$here/bin/$name" "\$@"
EOF
  chmod +x "$OUT/$name"
done
echo "bundle.sh: $OUT ($(du -sh "$OUT" | cut -f1)):"
ls -l "$OUT/bin" "$OUT/lib" | sed 's/^/  /'
