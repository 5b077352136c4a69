#!/usr/bin/env bash
# Issue 22, hot lines for less, and where a batch's time goes.
# 1. "ab": the two ways of getting a session's rows and its source page, with ncu alone on
#    softmax (the same program, options and range as a kprof session with source counters):
#    A (kprof before 2026-12-04) the session prints its rows, then `ncu --import R --page source
#    --print-source cuda,sass`; B (now) the session prints the source page, then `ncu --import R
#    --csv --page raw`. REPS runs each, alternating; the session and the import timed apart.
# 2. "loop": the agent loop with source=True (bench/device/standby.py, THINK s apart) on
#    LOOP_CASES, and without source on softmax, in the same call.
# 3. "batch": N new softmax candidates on GPU 0, twice with one Triton cache (the first run
#    compiles every candidate, the second finds them compiled), once more with --warmup 1, then
#    the first again with a fresh cache and KPROF_COMPILE_AHEAD=0 (the harness compiles each
#    candidate in its warm-up; with 1, compile workers beside the session compile them ahead);
#    "stubs": with compile workers, on a fresh cache that holds only what Triton builds for
#    itself (its driver's helper module, built by an untimed process first), as a user's cache
#    does after any earlier Triton use; the candidates are still all new. BATCH_RUNS picks among
#    compile, cached, warmup1, nocompile and stubs (compile2, compile3...: compile again, each on
#    a fresh cache of its own). Per run the wall time and, from the reports, the ncu session,
#    the harness's setup, the sums of the candidates' warm-up (which holds the compile) and
#    profiled calls, and what the compile ahead said.
# 4. "checks": the batch of 8 softmax variants with a raising and an illegal-address candidate
#    (statuses and messages as before), and the source page live on two kernels and on a failing
#    program: twostage --source (hot lines of both), raises.py --source (exit 10).
# Builds kprof and its Python module into build-device/ (bench/device/common.sh).
# Env: STEPS="ab loop batch checks", REPS=3, LOOP_CASES="vadd softmax", THINK=8, N=32.
# Results in $OUT/summary.md.
set -uo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root"
# shellcheck source=bench/device/common.sh
. "$root/bench/device/common.sh"
steps=${STEPS:-ab loop batch checks}
note "# Hot lines for less; a batch's time (issue 22)"
note_environment
note "- steps: $steps"
case " $steps " in *" loop "*) build_unless_skipped python ;; *) build_unless_skipped ;; esac
work=$(mktemp -d /tmp/kprof-source-live.XXXXXX)

case " $steps " in *" ab "*)
  cat >"$work/softmax_once.py" <<'PY'
import importlib.util, os, sys, torch
def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
problem = load("examples/softmax/problem.py", "problem")
kernel = load("examples/softmax/kernel.py", "kernel")
torch.manual_seed(0)
inputs = [x.cuda() for x in problem.get_inputs()]
for _ in range(3):
    kernel.kernel_function(*inputs)
torch.cuda.synchronize()
torch.cuda.nvtx.range_push("kprof:cand0")
kernel.kernel_function(*inputs)
torch.cuda.synchronize()
torch.cuda.nvtx.range_pop()
sys.stdout.flush()
os._exit(0)
PY
  metrics=$(default_metrics)
  common=(--metrics "$metrics" --section SourceCounters --section WarpStateStats --import-source yes
          --nvtx --nvtx-include 'regex:kprof:(cand[0-9]+|primer)/' --target-processes all
          --replay-mode kernel --clock-control none)
  note ""
  note "## A (rows live, source page imported) against B (source page live, rows imported), softmax"
  note "| run | way | session (s) | import (s) | both (s) | live output (bytes) | import output (bytes) | launches / source blocks |"
  note "|---|---|---|---|---|---|---|---|"
  for rep in $(seq 1 "${REPS:-3}"); do
    for way in A B; do
      d="$work/ab/$way$rep"; mkdir -p "$d"
      if [ "$way" = A ]; then live=(--csv --page raw); imp=(--page source --print-source cuda,sass --csv)
      else live=(--csv --page source --print-source cuda,sass); imp=(--csv --page raw); fi
      t0=$(now)
      ncu "${live[@]}" "${common[@]}" --log-file "$d/ncu.log" -o "$d/report" -f python3 "$work/softmax_once.py" >"$d/program.out" 2>&1
      t1=$(now)
      ncu --import "$d/report.ncu-rep" "${imp[@]}" >"$d/import.out" 2>&1
      t2=$(now)
      if [ "$way" = A ]; then rows="$d/ncu.log"; page="$d/import.out"; else rows="$d/import.out"; page="$d/ncu.log"; fi
      counts="$(grep -c 'kprof:cand0' "$rows") / $(grep -c '^"File Path"' "$page")"
      note "| $rep | $way | $(elapsed "$t0" "$t1") | $(elapsed "$t1" "$t2") | $(elapsed "$t0" "$t2") | $(wc -c <"$d/ncu.log") | $(wc -c <"$d/import.out") | $counts |"
    done
  done
  # The two ways give the same page and the same rows (the numbers of one replay differ run to
  # run; the identity and the column set must not).
  python3 - "$work/ab/A1" "$work/ab/B1" <<'PY' | tee -a "$summary"
import csv, io, sys
def rows(text):
    lines = [l for l in text.splitlines() if l.startswith('"')]
    table = list(csv.reader(io.StringIO("\n".join(lines))))
    return table[0], table[2:]
def page(text):
    return [l.split('","')[1] for l in text.splitlines() if l.startswith('"File Path"')]
a, b = sys.argv[1], sys.argv[2]
ha, ra = rows(open(a + "/ncu.log").read()); hb, rb = rows(open(b + "/import.out").read())
print(f"- rows: A {len(ra)} launches, {len(ha)} columns; B {len(rb)} launches, {len(hb)} columns; same columns: {ha == hb}")
print(f"- source page files: A {page(open(a + '/import.out').read())}; B {page(open(b + '/ncu.log').read())}")
PY
  ;;
esac

case " $steps " in *" loop "*)
  note ""
  note "## agent loop, think ${THINK:-8} s, source=True: ${LOOP_CASES:-vadd softmax}"
  PYTHONPATH="$build/python" KPROF_CLOCK=none MODES=standby CASES="${LOOP_CASES:-vadd softmax}" PHASES=1 \
    SOURCE=1 THINK="${THINK:-8}" timeout 300 \
    python3 bench/device/standby.py "$work/loop-source" 2>&1 | grep -v '^INFO' | tee -a "$summary"
  python3 - "$work/loop-source" <<'PY' | tee -a "$summary"
import glob, json, sys
for path in sorted(glob.glob(sys.argv[1] + "/**/report.json", recursive=True)):
    m = json.load(open(path))["metadata"]
    hot = m.get("hot_lines", {})
    print(f"- {path.split(sys.argv[1])[1]}: session {m.get('session_wall_seconds', 0):.2f} s, call {m.get('call_seconds', 0):.2f} s, "
          f"after the session {m.get('source_export_seconds', 0):.2f} s, hot lines error {hot.get('error')}")
PY
  note ""
  note "## agent loop, think ${THINK:-8} s, without source: softmax"
  PYTHONPATH="$build/python" KPROF_CLOCK=none MODES=standby CASES=softmax PHASES=1 \
    SOURCE=0 THINK="${THINK:-8}" timeout 200 \
    python3 bench/device/standby.py "$work/loop-plain" 2>&1 | grep -v '^INFO' | tee -a "$summary"
  ;;
esac

case " $steps " in *" batch "*)
  n=${N:-32}
  note ""
  note "## batch of $n new softmax candidates, GPU 0"
  # One profile first, untimed, so that no timed run pays the metric check (cached after it).
  KPROF_LOCK_DIR="$work/locks" timeout 120 "$kprof" profile examples/vadd/kernel.py examples/vadd/problem.py \
    --out "$work/metric-check" --clock-control none >/dev/null 2>&1
  note "- untimed: a vadd profile first (exit $?), so that the metric check is cached"
  note ""
  note "| run | wall (s) | ok | ncu session (s) | harness setup (s) | of it, Triton's target (s) | Triton's key, beside torch's import (s) | sum of warm-ups (s) | 1st warm-up (s) | sum of calls (s) | warm-up median (s) | call median (s) | compiled ahead | waits for the workers (s) | workers' compiles (s) |"
  note "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
  kernels=()
  for i in $(seq 0 $((n - 1))); do
    mkdir -p "$work/batch/cand$i"
    sed "/^def softmax_kernel/a\\    # unique $i" "examples/softmax_variants/cand$((i % 5)).py" >"$work/batch/cand$i/kernel.py"
    kernels+=("$work/batch/cand$i/kernel.py")
  done
  for run in ${BATCH_RUNS:-compile cached warmup1 nocompile}; do
    extra=(); [ "$run" = warmup1 ] && extra=(--warmup 1)
    cache="$work/triton"; ahead=1; [ "$run" = nocompile ] && { cache="$work/triton-nocompile"; ahead=0; }
    case $run in compile?*) cache="$work/triton-$run" ;; esac # compile2, ...: again, on a fresh cache
    [ "$run" = stubs ] && { cache="$work/triton-stubs"; only_tritons_own "$cache"; }
    t0=$(now)
    KPROF_COMPILE_AHEAD=$ahead KPROF_LOCK_DIR="$work/locks" TRITON_CACHE_DIR="$cache" timeout 300 "$kprof" batch examples/softmax/problem.py \
      "${kernels[@]}" --out "$work/batch-$run" --gpus 0 --clock-control none "${extra[@]}" --format json \
      >"$work/batch-$run.json" 2>"$work/batch-$run.err"
    wall=$(elapsed "$t0" "$(now)")
    facts=$(python3 - "$work/batch-$run.json" <<'PY'
import collections, json, statistics, sys
candidates = sorted(json.load(open(sys.argv[1]))["candidates"], key=lambda c: c.get("candidate", 0))
meta = [json.load(open(c["dir"] + "/report.json"))["metadata"] for c in candidates if c["status"] == "ok"]
ahead = collections.Counter(m.get("compiled_ahead", "-") for m in meta)
warm = [m.get("warmup_seconds", 0) for m in meta]
calls = [m.get("call_seconds", 0) for m in meta]
first = meta[0] if meta else {}
print(f"{len(meta)} | {first.get('session_wall_seconds', 0):.2f} | {first.get('harness_setup_seconds', 0):.2f} | "
      f"{first.get('compile_target_seconds', 0):.2f} | {first.get('triton_key_seconds', 0):.2f} | {sum(warm):.2f} | {(warm or [0])[0]:.2f} | {sum(calls):.2f} | {statistics.median(warm or [0]):.3f} | {statistics.median(calls or [0]):.3f} | "
      + "; ".join(f"{k} x{v}" for k, v in sorted(ahead.items()))
      + " | %.2f | %.2f" % (sum(m.get("compile_wait_seconds", 0) for m in meta), sum(m.get("compile_seconds", 0) for m in meta)))
PY
)
    note "| $run | $wall | $facts |"
  done
  ;;
esac
case " $steps " in *" checks "*)
  note ""
  note "## checks"
  t0=$(now)
  timeout 300 "$kprof" batch examples/softmax/problem.py examples/softmax_variants/cand{0..7}.py --out "$work/smoke" \
    --gpus 0 --clock-control none --format json >"$work/smoke.json" 2>"$work/smoke.err"
  note "- batch of 8 softmax variants: exit $? in $(elapsed "$t0" "$(now)") s"
  python3 - "$work/smoke.json" <<'PY' | tee -a "$summary"
import json, sys
for c in json.load(open(sys.argv[1]))["candidates"]:
    try:
        doc = json.load(open(c["dir"] + "/" + ("report.json" if c["status"] != "failed" else "error.json")))
    except OSError as e:
        doc = {"metadata": {}, "error": str(e)}
    m = doc.get("metadata", {})
    err = (m.get("error") or doc.get("error") or {})
    err = err.get("message", err) if isinstance(err, dict) else err
    print(f"  - {c['kernel_file'].split('/')[-1]}: {c['status']}; compiled ahead: {m.get('compiled_ahead', '-')}; "
          f"{str(err)[:110] if err else ''}")
PY
  t0=$(now)
  "$kprof" profile examples/twostage/kernel.py examples/twostage/problem.py --out "$work/tw-source" --source \
    --clock-control none --format json >"$work/tw-source.json" 2>"$work/tw-source.err"
  rc=$?
  note "- twostage --source: exit $rc in $(elapsed "$t0" "$(now)") s; $(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
m = d["metadata"]
print("hot lines:", [(k["name"], (k.get("hot_lines") or {}).get("lines", [{}])[0].get("line")) for k in d["kernels"]],
      "error:", m.get("hot_lines", {}).get("error"), "after the session: %.2f s" % m.get("source_export_seconds", 0))' "$work/tw-source.json" 2>&1 | tail -1)"
  t0=$(now)
  "$kprof" profile examples/failures/raises.py examples/softmax/problem.py --out "$work/raises-source" --source \
    --retries 0 --clock-control none --format json >"$work/raises.json" 2>"$work/raises.err"
  note "- raises.py --source: exit $? in $(elapsed "$t0" "$(now)") s; $(grep -m1 'kprof: error' "$work/raises.err")"
  ;;
esac
note ""
note "- left running (expect none): $(pgrep -fc "$work" || true)"
tar -czf "$out/source-live.tar.gz" -C "$work" --exclude='*.ncu-rep' --exclude='triton' . 2>/dev/null || true
rm -rf "$work"
