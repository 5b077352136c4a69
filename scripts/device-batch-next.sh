#!/usr/bin/env bash
# Issue 22's batch target (32 new candidates in at most 18 s) in one device call: builds kprof
# with its Python module into build-device/ (skipped with SKIP_BUILD=1 when one is there), then
#   1. the batch of 32 new softmax candidates through `kprof batch`, on a fresh Triton cache each,
#      with compile workers (KPROF_COMPILE_AHEAD=1) and without
#      (STEPS=batch BATCH_RUNS="compile nocompile" scripts/device-source-live.sh): the target's
#      figure, first, so that a call cut short still brings it back;
#   2. scripts/device-batch-ab.sh: compile workers against compiling in the warm-ups, with ncu's
#      --target-processes all and application-only (N=8, REPS=1 unless set).
# Each step's summary is appended to $OUT/summary.md; nothing else is left under $OUT but the
# workers' and the last harness's stderr tails, so that every file comes back.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
# shellcheck source=scripts/device-common.sh
. "$root/scripts/device-common.sh"
note "# Issue 22: the batch of new candidates, compile workers against compiling in the warm-ups"
note_environment
if [ "${SKIP_BUILD:-0}" != 1 ] || [ ! -x "$kprof" ]; then
  started=$(now); build_kprof python; note "- build: $(elapsed "$started" "$(now)") s"
  rm -f "$out/cmake.log" "$out/build.log"
fi
# step NAME COMMAND...: runs a measurement script with its own $OUT, then keeps its summary.
step() {
  local name=$1 started
  shift
  rm -rf "${out:?}/$name"
  started=$(now)
  OUT="$out/$name" SKIP_BUILD=1 timeout "${STEP_LIMIT:-280}" "$@" >/dev/null 2>&1
  local code=$?
  note ""
  note "## $name: exit $code in $(elapsed "$started" "$(now)") s"
  [ -f "$out/$name/summary.md" ] && tee -a "$summary" <"$out/$name/summary.md" >/dev/null
  for kept in workers-stderr.txt last-harness-stderr.txt; do
    [ -s "$out/$name/$kept" ] && mv "$out/$name/$kept" "$out/$name-$kept"
  done
  rm -rf "${out:?}/$name"
}
N=32 STEPS=batch BATCH_RUNS="compile nocompile" step batch32 bash scripts/device-source-live.sh
N=${N:-8} REPS=${REPS:-1} step batch-ab bash scripts/device-batch-ab.sh
cat "$summary"
