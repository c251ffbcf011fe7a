#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Lists the C++ functions (lambdas included, each counted on its own) longer than a limit,
# from universal-ctags' line/end fields: "<lines> <file>:<line> <scope>::<name>", longest first.
#
#   scripts/long_functions.sh [--max N] [--fail] DIR_OR_FILE...   # N defaults to 150
#
# --fail exits 1 when any function is over the limit (CTest function_length_test).
set -euo pipefail

MAX=150
FAIL=0
PATHS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --max) MAX="$2"; shift 2 ;;
    --fail) FAIL=1; shift ;;
    -h|--help) sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) PATHS+=("$1"); shift ;;
  esac
done
[ ${#PATHS[@]} -gt 0 ] || { echo "long_functions.sh: expected at least one folder or file" >&2; exit 2; }
command -v ctags >/dev/null || { echo "long_functions.sh: universal-ctags is needed (scripts/install-deps.sh)" >&2; exit 2; }

FILES=()
while IFS= read -r -d '' f; do FILES+=("$f"); done < <(find "${PATHS[@]}" -type f \( -name '*.cpp' -o -name '*.h' \) -print0 | sort -z)
[ ${#FILES[@]} -gt 0 ] || { echo "long_functions.sh: no C++ files under ${PATHS[*]}" >&2; exit 2; }

REPORT="$(ctags --languages=C++ --fields=+ne --kinds-C++=f -o - "${FILES[@]}" | awk -F'\t' -v max="$MAX" '
  {
    line = 0; end = 0; scope = ""
    for (i = 4; i <= NF; i++) {
      if ($i ~ /^line:/) line = substr($i, 6)
      else if ($i ~ /^end:/) end = substr($i, 5)
      else if ($i ~ /^(class|struct|namespace|function):/) { scope = $i; sub(/^[a-z]+:/, "", scope) }
    }
    n = end - line + 1
    if (end > 0 && n > max) {
      name = $1; if (name ~ /^__anon/) name = "<lambda>"
      gsub(/__anon[0-9a-f]+::/, "", scope)
      printf "%d %s:%d %s%s\n", n, $2, line, (scope == "" ? "" : scope "::"), name
    }
  }' | sort -k1,1nr)"

if [ -n "$REPORT" ]; then
  echo "$REPORT"
  [ "$FAIL" = 1 ] && { echo "long_functions.sh: functions over $MAX lines (above)" >&2; exit 1; }
else
  echo "no function over $MAX lines in ${PATHS[*]}"
fi
exit 0
