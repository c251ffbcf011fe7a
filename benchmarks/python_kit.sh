#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Packs Debian 12's own python3.11 with numpy, dask and distributed (the interpreter openvgf's
# Python module is built for) as .deb files, for a Linux x86-64 machine that has neither
# (e.g. a GPU host with another Python). On that machine OUT_DIR/activate.sh unpacks them
# with `dpkg -x` into a private prefix (never into /) and writes PREFIX/python3, a wrapper
# that points LD_LIBRARY_PATH at the unpacked libraries for that python process (and the
# processes it starts) only.
#
#   benchmarks/python_kit.sh .gpu/pykit            # here: downloads the .debs (apt-get download)
#   .gpu/pykit/activate.sh [PREFIX]                # there: unpacks into PREFIX (default /tmp/pykit)
#   /tmp/pykit/python3 -c 'import numpy, distributed'
#
# The packages are python3.11, python3-numpy, python3-dask and python3-distributed with their
# Depends (first alternative of each choice; reference BLAS/LAPACK), less the C/C++ runtime
# (glibc, libgcc, libstdc++: the target has the same or a newer ABI) and the tools that only
# dpkg-installing needs (dpkg, perl, debconf, tar, ...). The script unpacks the kit into a
# scratch prefix and fails if a library any unpacked ELF file needs is neither in the kit nor
# part of that runtime. APT lists for amd64 are read from PYKIT_APT_LISTS (default
# /tmp/amd64), fetched there with `apt-get update` when missing.
set -euo pipefail

OUT="${1:?usage: python_kit.sh OUT_DIR}"
ROOTS=(python3.11 python3-numpy python3-dask python3-distributed)
# Not carried: the C/C++ runtime, and what only installing through dpkg (maintainer scripts,
# alternatives, MIME data) or another BLAS/LAPACK alternative pulls in.
DROP='^(libc6|libgcc-s1|libstdc\+\+6|gcc-12-base|dpkg|tar|perl|perl-base|perl-modules-.*|libperl.*|debconf|cdebconf|install-info|ca-certificates|openssl|mailcap|media-types|mime-support|readline-common|libdebian-installer4|libnewt.*|libslang2|libtextwrap1|libselinux1|libpcre2-.*|libacl1|libmd0|libatlas3-base|libblis4-.*|libopenblas0-.*|libgomp1)$'
# Sonames the target's own runtime provides (what DROP leaves out).
RUNTIME_SONAMES='^(ld-linux-x86-64\.so\.2|libc\.so\.6|libm\.so\.6|libpthread\.so\.0|libdl\.so\.2|librt\.so\.1|libutil\.so\.1|libresolv\.so\.2|libgcc_s\.so\.1|libstdc\+\+\.so\.6)$'
LISTS="${PYKIT_APT_LISTS:-/tmp/amd64}"
APT=(-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 "-oDir::State::Lists=$LISTS" -oAPT::Sandbox::User=root)

if ! ls "$LISTS"/*_Packages* >/dev/null 2>&1; then
  mkdir -p "$LISTS/partial"
  apt-get "${APT[@]}" -qq update
fi

# Breadth-first over Depends/Pre-Depends, not following dropped packages. In an OR group
# (" |Depends: a", "  Depends: b") the first member counts; a virtual package (<name>) counts
# as its first provider.
chosen_depends() {
  apt-cache "${APT[@]}" depends --no-recommends --no-suggests --no-conflicts --no-breaks --no-replaces \
    --no-enhances "$1" | awk '
      NR == 1 { next }
      /^ *\|?(Pre)?Depends: / {
        pending = 0
        if (skipping) { skipping = ($0 ~ /^ \|/); next }
        skipping = ($0 ~ /^ \|/)
        if ($2 ~ /^</) pending = 1; else print $2
        next
      }
      /^    [^ ]/ { if (pending) { print $1; pending = 0 } next }
      { pending = 0 }'
}

declare -A seen=()
queue=("${ROOTS[@]}")
packages=()
while ((${#queue[@]})); do
  package="${queue[0]%:any}"
  queue=("${queue[@]:1}")
  [[ -n "${seen[$package]:-}" ]] && continue
  seen[$package]=1
  [[ "$package" =~ $DROP ]] && continue
  packages+=("$package")
  mapfile -t depends < <(chosen_depends "$package")
  queue+=("${depends[@]}")
done

rm -rf "$OUT"
mkdir -p "$OUT"
(cd "$OUT" && apt-get "${APT[@]}" -qq download "${packages[@]}")

cat >"$OUT/activate.sh" <<'EOF'
#!/bin/sh
# Unpacks the .debs next to this script into PREFIX (default /tmp/pykit) with `dpkg -x` and
# writes PREFIX/python3: Debian 12's python3.11 with numpy, dask and distributed, its
# libraries on LD_LIBRARY_PATH for that process only (benchmarks/python_kit.sh).
set -eu
kit="$(cd "$(dirname "$0")" && pwd)"
prefix="${1:-/tmp/pykit}"
rm -rf "$prefix/root"
mkdir -p "$prefix/root"
for deb in "$kit"/*.deb; do
  dpkg -x "$deb" "$prefix/root"
done
cat >"$prefix/python3" <<'WRAPPER'
#!/bin/sh
# Debian 12's python3.11 unpacked next to this file (benchmarks/python_kit.sh).
root="$(cd "$(dirname "$0")" && pwd)/root"
lib="$root/lib/x86_64-linux-gnu:$root/usr/lib/x86_64-linux-gnu"
lib="$lib:$root/usr/lib/x86_64-linux-gnu/blas:$root/usr/lib/x86_64-linux-gnu/lapack"
LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# Only the kit's packages (and PYTHONPATH): no user site, no other Python's home.
PYTHONNOUSERSITE=1
export LD_LIBRARY_PATH PYTHONNOUSERSITE
unset PYTHONHOME
exec "$root/usr/bin/python3.11" "$@"
WRAPPER
chmod +x "$prefix/python3"
echo "$prefix/python3"
EOF
chmod +x "$OUT/activate.sh"

# Every library an unpacked ELF file needs must be in the kit or the target's runtime.
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
"$OUT/activate.sh" "$scratch" >/dev/null
sonames="$(find "$scratch/root" \( -type f -o -type l \) -name '*.so*' -printf '%f\n' | sort -u)"
missing="$(find "$scratch/root" -type f \( -name '*.so*' -o -path '*/bin/*' \) -exec sh -c \
  'readelf -d "$1" 2>/dev/null | sed -n "s/.*(NEEDED).*\[\(.*\)\]/\1 $(basename "$1")/p"' _ {} \; |
  sort -u | while read -r needed by; do
    if ! grep -qxF "$needed" <<<"$sonames" && ! [[ "$needed" =~ $RUNTIME_SONAMES ]]; then
      echo "  $needed (needed by $by)"
    fi
  done)"
if [ -n "$missing" ]; then
  echo "python_kit.sh: libraries neither in the kit nor in the target's C/C++ runtime:" >&2
  echo "$missing" >&2
  exit 1
fi
echo "python_kit.sh: $OUT ($(du -sh "$OUT" | cut -f1), ${#packages[@]} packages; unpacked $(du -sh "$scratch/root" | cut -f1))"
