#!/usr/bin/env bash
# Issue 22's batch target (32 new candidates in at most 18 s) in one device call: builds kprof
# with its Python module into build-device/ (skipped with SKIP_BUILD=1 when one is there), then
#   1. the batch of 32 new softmax candidates through `kprof batch`, on a fresh Triton cache each,
#      with compile workers, with them on a cache holding only Triton's own helper module, and
#      without them (STEPS=batch BATCH_RUNS="compile stubs nocompile"
#      scripts/device-source-live.sh): the target's figure, first, so that a call cut short
#      still brings it back;
#   2. scripts/device-triton-target.sh: what finding Triton's target costs, fresh and warm cache,
#      plainly and under ncu (the harness's compile_target_seconds);
#   3. scripts/device-batch-ab.sh with 32 candidates under kprof's --target-processes all, with
#      WORKERS compile workers for each of WORKER_COUNTS ("2 4" unless set), on fresh caches.
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
N=32 STEPS=batch BATCH_RUNS="${BATCH_RUNS:-compile stubs nocompile}" step batch32 bash scripts/device-source-live.sh
step triton-target bash scripts/device-triton-target.sh
for workers in ${WORKER_COUNTS:-2 4}; do
  N=32 REPS=${REPS:-1} WORKERS=$workers TARGETS=all AHEAD=1 CACHED=0 \
    step "workers-$workers" bash scripts/device-batch-ab.sh
done
cat "$summary"
