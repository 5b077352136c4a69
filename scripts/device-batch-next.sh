#!/usr/bin/env bash
# Issue 22's open figures in one device call: builds kprof with its
# Python module into build-device/ (skipped with SKIP_BUILD=1 when one is there), then
#   1. the batch of 32 new softmax candidates through `kprof batch`, each run on a fresh Triton
#      cache: three times with compile workers, once without (STEPS=batch BATCH_RUNS="compile
#      compile2 compile3 nocompile" scripts/device-source-live.sh), first, so that a call cut short
#      still brings back the target's figure;
#   2. the cold `kprof profile` of the four examples, twice each (STEPS=cold
#      scripts/device-speed.sh);
#   3. softmax's agent loop with source=True, 8 s apart (STEPS=loop SOURCE=1 CASES=softmax
#      scripts/device-speed.sh).
# With STEPS=ab, instead: what Triton's target and cache key cost a process
# (scripts/device-triton-target.sh), and 2 against 4 compile workers on the 32
# (scripts/device-batch-ab.sh, WORKER_COUNTS="2 4").
# Each step's summary is appended to $OUT/summary.md; nothing else is left under $OUT but the
# workers' and the last harness's stderr tails, so that every file comes back.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
# shellcheck source=scripts/device-common.sh
. "$root/scripts/device-common.sh"
note "# Issue 22: the batch of 32 new candidates, the cold profiles, the loop with source=True"
note_environment
build_unless_skipped python
rm -f "$out/cmake.log" "$out/build.log"
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
if [ "${STEPS:-next}" = ab ]; then
  step triton-target bash scripts/device-triton-target.sh
  for workers in ${WORKER_COUNTS:-2 4}; do
    N=32 REPS=${REPS:-1} WORKERS=$workers TARGETS=all AHEAD=1 CACHED=0 \
      step "workers-$workers" bash scripts/device-batch-ab.sh
  done
else
  N=32 STEPS=batch BATCH_RUNS="${BATCH_RUNS:-compile compile2 compile3 nocompile}" \
    step batch32 bash scripts/device-source-live.sh
  STEPS=cold step cold bash scripts/device-speed.sh
  STEPS=loop SOURCE=1 CASES=softmax step loop-source bash scripts/device-speed.sh
fi
cat "$summary"
