#!/usr/bin/env bash
# Issue 22: what finding Triton's target costs a process (the harness's compile_target_seconds,
# when it compiles ahead; else its first warm-up pays it), on a fresh Triton cache (Triton
# builds its driver's helper module with the host's C compiler, then caches it) and on a warm
# one, run plainly and under ncu with kprof's `--target-processes all` (which injects ncu into
# the compiler's processes too). Each figure is one process: `import torch`, then the time of
# `driver.active.get_current_target()`, which is what the harness's publish_target does, and
# of Triton's triton_key() after it (the hash of its own files that a first compile pays).
# REPS=2 unless set. No kprof build needed. Results in $OUT/summary.md.
set -uo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root"
# shellcheck source=bench/device/common.sh
. "$root/bench/device/common.sh"
note "# Triton's target: fresh and warm cache, plainly and under ncu (issue 22)"
note_environment
work=$(mktemp -d /tmp/kprof-triton-target.XXXXXX)
cat >"$work/target.py" <<'PY'
import time
import torch  # noqa: F401 (as the harness: torch first)
started = time.perf_counter()
from triton.runtime import driver
target = driver.active.get_current_target()
print("KPROF_TARGET %.3f %s" % (time.perf_counter() - started, target))
started = time.perf_counter()
try:  # Triton's cache key of its own sources and library, which every first compile or launch pays
    try:
        from triton.runtime.cache import triton_key
    except ImportError:
        from triton.compiler.compiler import triton_key
    triton_key()
    print("KPROF_KEY %.3f" % (time.perf_counter() - started))
except Exception as exc:
    print("KPROF_KEY none(%s)" % type(exc).__name__)
PY
# measure CACHE WRAP...: one process, its target's seconds and triton_key()'s, or why none.
measure() {
  local cache=$1
  shift
  TRITON_CACHE_DIR="$cache" timeout 120 "$@" python3 "$work/target.py" >"$work/out.txt" 2>&1
  local target key
  target=$(grep -m1 -o 'KPROF_TARGET [0-9.]*' "$work/out.txt" | cut -d' ' -f2)
  key=$(grep -m1 -o 'KPROF_KEY [^ ]*' "$work/out.txt" | cut -d' ' -f2)
  echo "${target:-none} (triton_key ${key:-none})"
}
ncu_all=(ncu --target-processes all --clock-control none --metrics gpu__time_duration.sum)
note ""
note "| rep | cache | plainly (s) | under ncu, target processes all (s) |"
note "|---|---|---|---|"
for rep in $(seq 1 "${REPS:-2}"); do
  rm -rf "$work/plain" "$work/ncu"
  fresh_plain=$(measure "$work/plain")
  fresh_ncu=$(measure "$work/ncu" "${ncu_all[@]}")
  note "| $rep | fresh | $fresh_plain | $fresh_ncu |"
  note "| $rep | warm | $(measure "$work/plain") | $(measure "$work/ncu" "${ncu_all[@]}") |"
done
note ""
note "- what Triton cached (fresh run, plainly): $(find "$work/plain" -type f -name '*.so' -printf '%f ' | head -c 300)"
rm -rf "$work"
