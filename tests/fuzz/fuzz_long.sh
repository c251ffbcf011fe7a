#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Long fuzzing campaign (`make fuzz-long`): runs every libFuzzer target of a fuzz build for a
# given time and/or number of executions, in chunks of at most CHUNK_RUNS executions (a fresh
# process per chunk keeps ASan's quarantine and the drivers' caches from growing without
# bound). The corpus grows in $BUILD/long/corpus/<target> (seeded from tests/fuzz/corpus), and
# crashes land in $BUILD/long/crashes/<target>/. Prints one summary line per target.
#
#   tests/fuzz/fuzz_long.sh BUILD [SECONDS_PER_TARGET] [RUNS_PER_TARGET] [TARGET...]
#   SECONDS 0 = no time limit; RUNS 0 = no run limit (one of them must be set).
set -u
build=${1:?usage: fuzz_long.sh BUILD [SECONDS] [RUNS] [TARGET...]}
seconds=${2:-3600}
runs=${3:-0}
shift $(( $# < 3 ? $# : 3 ))
chunk=${CHUNK_RUNS:-1000000}
source_dir=$(cd "$(dirname "$0")" && pwd)
if [ "$seconds" = 0 ] && [ "$runs" = 0 ]; then echo "fuzz_long.sh: give SECONDS or RUNS" >&2; exit 2; fi
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for exe in "$build"/tests/fuzz/*_fuzz; do targets+=("$(basename "$exe" _fuzz)"); done
fi
# The same per-target options as the bounded CI runs (tests/fuzz/CMakeLists.txt).
declare -A extra=([tosa_reader]="-max_len=8192" [ethosu_compiler]="-max_len=8192" [vgf_session]="-max_len=65536")
status=0
for target in "${targets[@]}"; do
  exe="$build/tests/fuzz/${target}_fuzz"
  [ -x "$exe" ] || { echo "$target: no executable $exe (build the fuzz_targets target)" >&2; status=1; continue; }
  corpus="$build/long/corpus/$target" crashes="$build/long/crashes/$target" log="$build/long/$target.log"
  mkdir -p "$corpus" "$crashes"
  : > "$log"
  done_runs=0 start=$(date +%s)
  while :; do
    elapsed=$(( $(date +%s) - start ))
    [ "$seconds" != 0 ] && [ "$elapsed" -ge "$seconds" ] && break
    [ "$runs" != 0 ] && [ "$done_runs" -ge "$runs" ] && break
    this=$chunk
    [ "$runs" != 0 ] && [ $(( runs - done_runs )) -lt "$this" ] && this=$(( runs - done_runs ))
    limit=""
    [ "$seconds" != 0 ] && limit="-max_total_time=$(( seconds - elapsed ))"
    ASAN_OPTIONS=detect_leaks=0 "$exe" -runs="$this" $limit -rss_limit_mb=2048 -artifact_prefix="$crashes/" \
      ${extra[$target]:-} "$corpus" "$source_dir/corpus/$target" >> "$log" 2>&1
    rc=$?
    n=$(grep -a -o '^Done [0-9]* runs' "$log" | tail -1 | awk '{print $2}')
    if [ $rc -ne 0 ] || [ -z "$n" ]; then
      echo "$target: stopped with exit code $rc after $done_runs runs; see $log and $crashes" >&2
      status=1
      break
    fi
    done_runs=$(( done_runs + n ))
  done
  echo "$target: $done_runs runs in $(( $(date +%s) - start )) s, corpus $(ls "$corpus" | wc -l) files, crashes $(ls "$crashes" | wc -l)"
done
exit $status
