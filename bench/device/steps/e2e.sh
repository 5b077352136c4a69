#!/usr/bin/env bash
# End-to-end proof of kprof on a real GPU with the real ncu. Run from the repository root on the
# GPU machine (see docs/device-e2e.md). Builds kprof there (with the header-only dependencies
# carried in .device/include), then:
#   1. kprof doctor
#   2. profiles every example (examples/{vadd,twostage,softmax,matmul}) once cold and three times
#      warm (median wall time), checking the kernels each case must report;
#   3. failure cases: a kernel that raises, one that does not import, one that hangs past
#      --timeout, one that launches nothing, and a missing ncu;
#   4. kprof batch of the eight softmax candidates on one GPU (and on two when two are visible);
#   5. the Python API over the cases, with a thread pool.
# Everything lands in $OUT (or ./device-out): a summary (summary.md) and logs in results.tar.gz.
# Options: STEPS="build doctor cases failures batch python smoke interrupt hostile shared" (default: the first six),
# KPROF_CLOCK=none, WARM_RUNS=3 (warm runs per case), BATCH_RUNS=2 (runs per batch setting).
set -uo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root"
# shellcheck source=bench/device/common.sh
. "$root/bench/device/common.sh"
work=$(mktemp -d /tmp/kprof-e2e.XXXXXX)
logs="$work/logs"
mkdir -p "$logs"
steps=${STEPS:-"build doctor cases failures batch python"}
clock=${KPROF_CLOCK:-none}
warm_runs=${WARM_RUNS:-3}
batch_runs=${BATCH_RUNS:-2}
# Its own build, with a fallback without the Python module (below); with SKIP_BUILD=1 the one
# build-device/ holds (bench/device/common.sh's build_kprof python), so that steps share a build.
if [ "${SKIP_BUILD:-0}" = 1 ] && [ -x "$root/build-device/kprof" ]; then
  build="$root/build-device"
  steps=${steps/build/}
else
  build="$work/build"
fi
kprof="$build/kprof"

want() { [[ " $steps " == *" $1 "* ]]; }

note "# kprof device end-to-end run"
note ""
note_environment
note "- clock control: $clock"
note ""

# ---- 1. build ---------------------------------------------------------------------------------
if want build; then
  t0=$(now)
  pybind_dir=$(python3 -m pybind11 --cmakedir 2>/dev/null || true)
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DKPROF_BUNDLED_HEADERS="$root/.device/include" -DKPROF_ENABLE_TESTS=OFF \
    -DKPROF_ENABLE_PYTHON=ON -DPython3_EXECUTABLE="$(command -v python3)" \
    ${pybind_dir:+-Dpybind11_DIR="$pybind_dir"} >"$logs/cmake.log" 2>&1 \
    && cmake --build "$build" -j "$(nproc)" >"$logs/build.log" 2>&1
  rc=$?
  note "## build: rc=$rc in $(elapsed "$t0" "$(now)") s"
  if [ $rc -ne 0 ]; then
    tail -40 "$logs/cmake.log" "$logs/build.log"
    # The CLI alone is enough for most steps; retry without the Python module.
    cmake -S . -B "$build" -DKPROF_ENABLE_PYTHON=OFF >>"$logs/cmake.log" 2>&1 \
      && cmake --build "$build" -j "$(nproc)" >>"$logs/build.log" 2>&1
    note "- rebuilt without the Python module: rc=$?"
  fi
fi
[ -x "$kprof" ] || { note "no kprof binary; stopping"; tar -C "$work" -czf "$out/results.tar.gz" logs; exit 1; }
"$kprof" --version | tee -a "$summary"

# ---- 2. doctor ----------------------------------------------------------------------------------
if want doctor; then
  note ""
  note "## kprof doctor"
  note '```'
  timeout 300 "$kprof" doctor --clock-control "$clock" 2>&1 | tee -a "$summary"
  note "exit: ${PIPESTATUS[0]}"
  note '```'
fi

# Runs `kprof profile` and records wall time and exit code. Args: label outdir round extra...
profile() {
  local label=$1 dir=$2 round=$3 kernel=$4 problem=$5
  shift 5
  local t0 t1 rc
  t0=$(now)
  timeout 400 "$kprof" profile "$kernel" "$problem" --out "$dir" --round "$round" \
    --clock-control "$clock" --format json "$@" >"$logs/$label.json" 2>"$logs/$label.err"
  rc=$?
  t1=$(now)
  echo "$label rc=$rc wall=$(elapsed "$t0" "$t1")" >>"$logs/timings.txt"
  echo "$rc $(elapsed "$t0" "$t1")"
}

# ---- 3. the cases -------------------------------------------------------------------------------
if want cases; then
  note ""
  note "## Cases: kprof profile, 1 cold + $warm_runs warm runs each (warm = Triton cache and metric list cached)"
  note ""
  note "| case | kernels reported | cold s | warm runs s | median s | checks |"
  note "|---|---|---|---|---|---|"
  for case in vadd twostage softmax matmul; do
    dir="$work/cases/$case"
    read -r rc cold < <(profile "$case-cold" "$dir" 0 "examples/$case/kernel.py" "examples/$case/problem.py")
    warm=()
    for r in $(seq 1 "$warm_runs"); do
      read -r rc_w t < <(profile "$case-warm$r" "$dir" "$r" "examples/$case/kernel.py" "examples/$case/problem.py")
      warm+=("$t")
      [ "$rc_w" = 0 ] || rc=$rc_w
    done
    median=$(printf '%s\n' "${warm[@]}" | sort -g | sed -n "$(( (${#warm[@]} + 1) / 2 ))p")
    checks=$(python3 - "$logs/$case-warm1.json" "$case" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
case = sys.argv[2]
names = [k["name"] for k in doc["kernels"]]
out = [f"{len(names)}: {', '.join(names)}"]
m = lambda k, n: (k["metrics"].get(n) or {}).get("value")
if case == "vadd":
    read = m(doc["kernels"][0], "dram__bytes_read.sum")
    out.append(f"DRAM read {read/2**20:.1f} MiB (expect ~512)" if read else "no dram read")
if case == "twostage":
    out.append("2 kernels OK" if len(names) == 2 else "EXPECTED 2 KERNELS")
if case == "matmul":
    r = doc["roofline"][names[0]]
    out.append(f"tensor pipe {r['tensor_pipe_pct']}% used={r['tensor_cores_used']}")
r = doc["roofline"][doc["summary"]["dominant_kernel"]]
out.append(f"{r['bottleneck']}-bound (SOL c {r['compute_sol_pct']} / m {r['memory_sol_pct']})")
out.append(f"fp32 FLOP/s {r.get('fp32_flops_per_s')}, FLOP/byte {r.get('fp32_flop_per_dram_byte')}")
md = doc["metadata"]
out.append(f"setup {md.get('harness_setup_seconds', 0):.2f}s inputs {md.get('harness_inputs_seconds', 0):.2f}s "
           f"warmup {md.get('warmup_seconds', 0):.2f}s call {md.get('call_seconds', 0):.2f}s "
           f"ncu session {md.get('session_wall_seconds', 0):.2f}s passes {md.get('replay_passes')}")
print(" | ".join(out))
PY
)
    note "| $case (rc $rc) | ${checks%% | *} | $cold | ${warm[*]} | $median | ${checks#* | } |"
  done
  note ""
  note "Prompt for twostage (round 1):"
  note '```'
  "$kprof" report "$work/cases/twostage/round001/ncu.log" --format prompt 2>&1 | head -40 | tee -a "$summary" >/dev/null
  note '```'
  "$kprof" history "$work/cases/softmax" --format table >"$logs/history-softmax.txt" 2>&1
  "$kprof" diff "$work/cases/twostage" 1 2 --format prompt >"$logs/diff-twostage.txt" 2>&1
  note "diff twostage 1 vs 2: $(head -3 "$logs/diff-twostage.txt" | tr '\n' ' ')"
  # report --round writes through the round writer: a staged round, its KernelAgent file, a row.
  "$kprof" report "$work/cases/twostage/round001/ncu.log" --round 9 --out "$work/cases/twostage" \
    --format json >/dev/null 2>"$logs/report-round.err"
  rc=$?
  note "report --round 9: rc=$rc files: $(ls "$work/cases/twostage/round009" | tr '\n' ' ')" \
    "kernelagent file: $(ls "$work/cases/twostage" | grep -c '^round009_ncu_metrics.json$')" \
    "history rows of round 9: $("$kprof" history "$work/cases/twostage" --format json | python3 -c 'import json,sys; print(sum(r["round"] == 9 for r in json.load(sys.stdin)["rows"]))')"
fi

# ---- 4. failure cases ---------------------------------------------------------------------------
if want failures; then
  note ""
  note "## Failure cases (each must be classified, never hang, leave no half-written file)"
  note ""
  note "| case | exit | wall s | message |"
  note "|---|---|---|---|"
  for f in raises syntax_error no_launch illegal_address; do
    read -r rc t < <(profile "fail-$f" "$work/failures/$f" 0 "examples/failures/$f.py" examples/softmax/problem.py --retries 0)
    note "| $f | $rc | $t | $(head -1 "$logs/fail-$f.err" | cut -c1-160) |"
  done
  read -r rc t < <(profile "fail-hangs" "$work/failures/hangs" 0 examples/failures/hangs.py examples/softmax/problem.py --timeout 20 --retries 1)
  note "| hangs (--timeout 20 --retries 1) | $rc | $t | $(head -1 "$logs/fail-hangs.err" | cut -c1-160) |"
  left=$(pgrep -f 'failures/hangs.py' | wc -l)
  note "| processes left after the hang | - | - | $left |"
  read -r rc t < <(profile "fail-no-ncu" "$work/failures/noncu" 0 examples/vadd/kernel.py examples/vadd/problem.py --ncu /nonexistent/ncu)
  note "| missing ncu | $rc | $t | $(head -1 "$logs/fail-no-ncu.err" | cut -c1-160) |"
fi

# ---- 5. batch -----------------------------------------------------------------------------------
if want batch; then
  note ""
  note "## Batch: 8 softmax candidates"
  cands=(examples/softmax_variants/cand{0..7}.py)
  healthy=(examples/softmax_variants/cand{0,1,2,3,4,7,8,9}.py)
  ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
  # Warm the Triton cache once so both timings compare profiling, not compilation.
  timeout 400 "$kprof" batch examples/softmax/problem.py examples/softmax_variants/cand*.py --out "$work/batch-warm" \
    --clock-control "$clock" --format json >"$logs/batch-warm.json" 2>"$logs/batch-warm.err"
  for set in healthy with-failures; do
    if [ "$set" = healthy ]; then files=("${healthy[@]}"); else files=("${cands[@]}"); fi
    for gpus in 0 $( [ "$ngpu" -ge 2 ] && echo 0,1 ); do
      for run in $(seq 1 "$batch_runs"); do
        t0=$(now)
        timeout 400 "$kprof" batch examples/softmax/problem.py "${files[@]}" --out "$work/batch-$set-$gpus" --round "$run" \
          --gpus "$gpus" --clock-control "$clock" --format table >"$logs/batch-$set-$gpus-$run.txt" 2>"$logs/batch-$set-$gpus-$run.err"
        rc=$?
        note ""
        note "### $set candidates, --gpus $gpus, run $run: exit $rc in $(elapsed "$t0" "$(now)") s"
        if [ "$run" = 1 ]; then
          note '```'
          cat "$logs/batch-$set-$gpus-$run.txt" >>"$summary"
          note '```'
        fi
      done
    done
  done
  [ "$ngpu" -ge 2 ] || note "(only $ngpu GPU visible: no two-GPU run)"
fi

# ---- 6. smoke: the final code on the examples (one profile, one two-GPU batch) ------------------
if want smoke; then
  note ""
  note "## Smoke run"
  read -r rc t < <(profile "smoke-twostage" "$work/smoke" 0 examples/twostage/kernel.py examples/twostage/problem.py)
  note "- twostage: exit $rc in $t s; kernels: $(python3 -c "import json,sys; print([k['name'] for k in json.load(open('$logs/smoke-twostage.json'))['kernels']])" 2>&1)"
  t0=$(now)
  timeout 400 "$kprof" batch examples/softmax/problem.py examples/softmax_variants/cand{0..7}.py --out "$work/smoke-batch" \
    --gpus "$( [ "$(nvidia-smi -L | grep -c '^GPU ')" -ge 2 ] && echo 0,1 || echo 0)" --clock-control "$clock" --format table \
    >"$logs/smoke-batch.txt" 2>"$logs/smoke-batch.err"
  note "- batch of 8 (two failing): exit $? in $(elapsed "$t0" "$(now)") s; $(grep -c ' ok ' "$logs/smoke-batch.txt") ok"
fi

# ---- 7. Ctrl-C: SIGINT to kprof mid-profile stops ncu and the harness -------------------------
if want interrupt; then
  note ""
  note "## Interrupt"
  "$kprof" profile examples/failures/hangs.py examples/softmax/problem.py --out "$work/interrupt" \
    --timeout 300 --clock-control "$clock" >"$logs/interrupt.out" 2>"$logs/interrupt.err" &
  kpid=$!
  sleep 8
  before=$(pgrep -f 'harness.py' | wc -l)
  kill -INT "$kpid"
  t0=$(now)
  wait "$kpid"
  rc=$?
  after=$(pgrep -f 'harness.py' | wc -l)
  note "- SIGINT after 8 s: kprof exit $rc after $(elapsed "$t0" "$(now)") s; harness processes before $before, after $after; $(tail -1 "$logs/interrupt.err")"
fi

# ---- 7b. hostile: a failed re-run keeps the good round; kill -9 leaves nothing running -----------
if want hostile; then
  note ""
  note "## Hostile re-run and kill -9"
  read -r rc t < <(profile "hostile-good" "$work/hostile" 1 examples/vadd/kernel.py examples/vadd/problem.py)
  read -r rc2 t2 < <(profile "hostile-rerun" "$work/hostile" 1 examples/failures/raises.py examples/vadd/problem.py --retries 0)
  kept=$(python3 -c "import json; d=json.load(open('$work/hostile/round001/report.json')); print([k['name'] for k in d['kernels']])" 2>&1)
  rows=$("$kprof" history "$work/hostile" --format csv 2>&1 | grep -c '^1,')
  note "- good round 1: exit $rc ($t s); failed re-run of round 1: exit $rc2 ($t2 s)"
  note "- round001/report.json after the failed re-run: kernels $kept; history rows of round 1: $rows"
  note "- round directory after: $(ls "$work/hostile" | tr '\n' ' ')"
  "$kprof" profile examples/failures/hangs.py examples/softmax/problem.py --out "$work/kill9" \
    --timeout 300 --clock-control "$clock" >"$logs/kill9.out" 2>"$logs/kill9.err" &
  kpid=$!
  sleep 10
  before_h=$(pgrep -f 'harness.py' | wc -l); before_n=$(pgrep -x ncu | wc -l)
  kill -9 "$kpid"; wait "$kpid" 2>/dev/null
  sleep 3
  after_h=$(pgrep -f 'harness.py' | wc -l); after_n=$(pgrep -x ncu | wc -l)
  note "- kill -9 of kprof after 10 s: harness processes $before_h -> $after_h, ncu processes $before_n -> $after_n (3 s later)"
  pkill -9 -f 'harness.py' 2>/dev/null; pkill -9 -x ncu 2>/dev/null
  read -r rc t < <(profile "hostile-after-kill" "$work/kill9" 0 examples/vadd/kernel.py examples/vadd/problem.py)
  note "- the next run in that directory: exit $rc ($t s); leftover staging dirs: $(ls -a "$work/kill9" | grep -c staging)"
fi

# ---- 7b. a shared host (issue 40) ---------------------------------------------------------------
# Run as root on the GPU machine: another user (uid 65534) made /tmp/kprof-locks first and planted
# a dangling symlink gpu0.lock -> a file root must never create; a candidate starts a child that
# would outlive it; the same user then profiles with its own kprof.
if want shared; then
  note ""
  note "## A shared host: a planted lock directory, a candidate's child, another user"
  victim=/tmp/kprof-victim-$$
  rm -rf /tmp/kprof-locks "$victim"
  setpriv --reuid 65534 --regid 65534 --clear-groups sh -c \
    "mkdir -m 0755 /tmp/kprof-locks && ln -s $victim /tmp/kprof-locks/gpu0.lock && ln -s $victim /tmp/kprof-locks/profiled-calls.lock"
  note "- planted: $(stat -c '%U %a %n' /tmp/kprof-locks) with $(ls -l /tmp/kprof-locks | tail -n +2 | awk '{print $9, $10, $11}' | tr '\n' ';')"
  read -r rc t < <(profile "shared-planted" "$work/shared" 0 examples/vadd/kernel.py examples/vadd/problem.py)
  note "- root's kprof profile (vadd) beside it: exit $rc ($t s); the symlink's target created: $([ -e "$victim" ] && echo YES || echo no); locks used: $(ls -d /tmp/kprof-locks-* 2>/dev/null | tr '\n' ' ')"
  note "- stderr: \`$(grep -v '^kprof-harness' "$logs/shared-planted.err" | head -3 | tr '\n' ' ' | cut -c1-400)\`"
  mkdir -p "$work/child"
  cat >"$work/child/kernel.py" <<PY
import subprocess
import sys

sys.path.insert(0, "$root/examples/vadd")
from kernel import kernel_function as vadd

def kernel_function(*args):
    subprocess.Popen(["sleep", "271828"])  # a child the candidate leaves behind
    return vadd(*args)
PY
  read -r rc t < <(profile "shared-child" "$work/shared" 1 "$work/child/kernel.py" examples/vadd/problem.py)
  sleep 1
  note "- a candidate that starts \`sleep 271828\`: exit $rc ($t s); such sleeps left after kprof exited: $(pgrep -f 'sleep 271828' | wc -l)"
  pkill -f 'sleep 271828' 2>/dev/null
  nobody_out=$(mktemp -d /tmp/kprof-nobody.XXXXXX)
  cp "$kprof" examples/vadd/kernel.py examples/vadd/problem.py "$nobody_out/"
  chown -R 65534:65534 "$nobody_out"
  t0=$(now)
  (cd "$nobody_out" && setpriv --reuid 65534 --regid 65534 --clear-groups env HOME="$nobody_out" \
    timeout 300 ./kprof profile kernel.py problem.py --out out \
    --clock-control "$clock") >"$logs/shared-nobody.out" 2>"$logs/shared-nobody.err"
  rc=$?
  note "- uid 65534's own kprof profile (vadd): exit $rc in $(elapsed "$t0" "$(now)") s: \`$(grep -v '^kprof-harness' "$logs/shared-nobody.err" | head -2 | tr '\n' ' ' | cut -c1-300)\`; its lock directory: $(ls -ld /tmp/kprof-locks-65534 2>/dev/null | awk '{print $1, $3}')"
  rm -rf /tmp/kprof-locks "$victim"
fi

# ---- 8. Python API ------------------------------------------------------------------------------
if want python; then
  note ""
  note "## Python API"
  if [ -d "$build/python/kprof" ]; then
    t0=$(now)
    PYTHONPATH="$build/python" KPROF_E2E_WORK="$work/python" KPROF_CLOCK="$clock" \
      timeout 500 python3 bench/device/python-example.py >"$logs/python.txt" 2>&1
    rc=$?
    note "exit $rc in $(elapsed "$t0" "$(now)") s"
    note '```'
    tail -30 "$logs/python.txt" >>"$summary"
    note '```'
  else
    note "the Python module was not built (see build.log)"
  fi
fi

cp -r "$work/cases/twostage/round001" "$logs/twostage-round001" 2>/dev/null
tar -C "$work" -czf "$out/results.tar.gz" logs

echo "done: $out"
