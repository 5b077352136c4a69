#!/usr/bin/env bash
# Issue 22: what a batch of new candidates spends on compiling, two ways to spend less, measured
# against each other on one machine. The harness that `kprof harness` writes for softmax, its
# plan given N new softmax candidates (examples/softmax_variants, each made unique), runs under
# ncu with kprof's own options, every run on a fresh Triton cache (so every candidate compiles),
# alternating:
#   - ncu's --target-processes: all (kprof's) or application-only. With `all` ncu also injects
#     itself into the processes the harness starts, among them ptxas for every compile;
#   - compiling ahead: 0, or 1 (the plan's "compile_ahead" directory and WORKERS compile workers
#     started beside ncu as kprof starts them: `harness.py PLAN --compile-worker`, outside ncu,
#     CUDA_VISIBLE_DEVICES empty; docs/harness.md "Compiling ahead").
# Then each target-processes mode once more on a warm cache (nothing compiled). Per run: ncu's
# wall time, the harness's setup, the sums of warm-ups and of profiled calls, the first
# candidate's warm-up, the compile ahead's words, and the launches ncu profiled (must be N).
# With WRAPPED=1, one more run under application-only whose python is a shell script that execs
# python3 (a pyenv shim, say): whether ncu still profiles the harness (its launches must be N).
# With STUBS=1 each fresh cache first gets what Triton builds for itself (its driver's helper
# module, built by an untimed process), as a user's cache has after any earlier Triton use; the
# candidates stay new.
# Builds kprof unless SKIP_BUILD=1. Env: N=8, REPS=2, WORKERS=4, TARGETS="all application-only",
# AHEAD="0 1", CACHED=1 (the runs on a warm cache), WRAPPED=0, STUBS=0. Results in $OUT/summary.md.
set -uo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root"
# shellcheck source=bench/device/common.sh
. "$root/bench/device/common.sh"
note "# A batch of new candidates: ncu's target processes and the compile ahead (issue 22)"
note_environment
build_unless_skipped
work=$(mktemp -d /tmp/kprof-batch-ab.XXXXXX)
n=${N:-8}
"$kprof" harness examples/softmax/kernel.py examples/softmax/problem.py --out "$work/harness.py" >/dev/null
for i in $(seq 0 $((n - 1))); do
  mkdir -p "$work/cand$i"
  sed "/^def softmax_kernel/a\\    # unique $i" "examples/softmax_variants/cand$((i % 5)).py" >"$work/cand$i/kernel.py"
done
python3 - "$work" "$n" <<'PY'
import json, sys
work, n = sys.argv[1], int(sys.argv[2])
plan = json.load(open(f"{work}/harness.plan.json"))
plan["candidates"] = [{"kernel": f"{work}/cand{i}/kernel.py", "range": f"kprof:cand{i}"} for i in range(n)]
plan["early_primer"] = True
json.dump(plan, open(f"{work}/harness.plan.json", "w"))
PY
metrics=$(default_metrics)
# plan_ahead AHEAD: the plan with (1) or without (0) the compile-ahead directory, made empty.
plan_ahead() {
  rm -rf "$work/compile-ahead"; mkdir -m 700 "$work/compile-ahead"
  python3 - "$work" "$1" <<'PY'
import json, sys
work, ahead = sys.argv[1], sys.argv[2] == "1"
plan = json.load(open(f"{work}/harness.plan.json"))
plan["compile_ahead"] = {"dir": f"{work}/compile-ahead"} if ahead else None
json.dump(plan, open(f"{work}/harness.plan.json", "w"))
PY
}
# run TARGET AHEAD CACHE LABEL: one harness under ncu (with compile workers beside it when
# AHEAD is 1, stopped once ncu ends, as kprof does); notes a row.
run() {
  local target=$1 ahead=$2 cache=$3 label=$4 python=${5:-python3} t wall facts workers=() i sampler=
  rm -f "$work/harness.status.json"
  plan_ahead "$ahead"
  [ "${STUBS:-0}" = 1 ] && [ ! -d "$cache" ] && only_tritons_own "$cache"
  t=$(now)
  if [ "$ahead" = 1 ]; then
    for i in $(seq 1 "${WORKERS:-4}"); do
      CUDA_VISIBLE_DEVICES= TRITON_CACHE_DIR="$cache" PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1 \
        python3 "$work/harness.py" "$work/harness.plan.json" --compile-worker >/dev/null 2>>"$work/workers.err" &
      workers+=($!)
    done
    # The workers' host memory: the largest resident size any of them reached, sampled.
    (peak=0; while kill -0 "${workers[@]}" 2>/dev/null; do
       for rss in $(ps -o rss= -p "$(IFS=,; echo "${workers[*]}")" 2>/dev/null); do
         [ "$rss" -gt "$peak" ] && peak=$rss
       done
       echo "$peak" >"$work/workers-rss"; sleep 0.2
     done) &
    sampler=$!
  fi
  TRITON_CACHE_DIR="$cache" timeout 300 \
    ncu --csv --page raw --metrics "$metrics" --nvtx --nvtx-include 'regex:kprof:(cand[0-9]+|primer)/' \
    --target-processes "$target" --replay-mode kernel --clock-control none --log-file "$work/log.csv" \
    "$python" "$work/harness.py" "$work/harness.plan.json" >"$work/out.txt" 2>"$work/err.txt"
  wall=$(elapsed "$t" "$(now)")
  [ ${#workers[@]} -gt 0 ] && { kill "${workers[@]}" 2>/dev/null; wait "${workers[@]}" "$sampler" 2>/dev/null; }
  facts=$(python3 - "$work/harness.status.json" "$work/log.csv" <<'PY'
import collections, json, sys
s = json.load(open(sys.argv[1]))
c = s["candidates"]
warm = [x["warmup_seconds"] for x in c]
calls = [x["call_seconds"] for x in c]
ahead = collections.Counter(x.get("compiled_ahead") or "-" for x in c)
rows = sum(1 for line in open(sys.argv[2], errors="replace") if '"kprof:cand' in line or ":kprof:cand" in line)
waits = sum(x.get("compile_wait_seconds", 0) for x in c)
compiles = sum(x.get("compile_seconds", 0) for x in c)
print(f"{s['setup_seconds']:.2f} | {s.get('compile_target_seconds', 0):.2f} | {sum(warm):.2f} | {sum(calls):.2f} | {warm[0]:.2f} | "
      f"{sum(1 for x in c if x['ok'])}/{len(c)} ok, {rows} launches | " + "; ".join(f"{k} x{v}" for k, v in sorted(ahead.items()))
      + f" | {waits:.2f} | {compiles:.2f}")
PY
)
  local rss=-
  [ "$ahead" = 1 ] && [ -s "$work/workers-rss" ] && rss=$(( $(cat "$work/workers-rss") / 1024 ))
  rm -f "$work/workers-rss"
  note "| $label | $target | $ahead | $wall | $facts | $rss |"
}
note ""
note "| run | target processes | compile ahead | ncu wall (s) | setup (s) | of it, Triton's target (s) | sum of warm-ups (s) | sum of calls (s) | 1st warm-up (s) | candidates | compiled ahead | waits for the workers (s) | workers' compiles (s) | a worker's peak RSS (MiB) |"
note "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
targets=${TARGETS:-all application-only}
for rep in $(seq 1 "${REPS:-2}"); do
  for target in $targets; do
    for ahead in ${AHEAD:-0 1}; do
      run "$target" "$ahead" "$work/triton-$rep-$target-$ahead" "new $rep"
    done
  done
done
if [ "${CACHED:-1}" = 1 ]; then
  for target in $targets; do
    run "$target" 0 "$work/triton-1-$target-0" "cached"
  done
fi
if [ "${WRAPPED:-0}" = 1 ]; then
  printf '#!/bin/sh\nexec python3 "$@"\n' >"$work/python-shim"
  chmod +x "$work/python-shim"
  run application-only 1 "$work/triton-wrapped" "new, python through an exec shim" "$work/python-shim"
fi
note ""
note "- left running (expect none): $(pgrep -fc "$work" || true)"
tail -5 "$work/err.txt" >"$out/last-harness-stderr.txt" 2>/dev/null || true
tail -20 "$work/workers.err" >"$out/workers-stderr.txt" 2>/dev/null || true
rm -rf "$work"
