#!/usr/bin/env bash
# Issue 22's numbers on a GPU machine: the cold `kprof profile` of each example twice (fresh
# output directories, so the second shows the cached metric check), then the agent loop of
# bench/device/standby.py with standbys (primer on). Builds kprof and its Python module into
# build-device/ (bench/device/common.sh; with SKIP_BUILD=1 an existing build is reused).
# Env: STEPS="nvtx cold loop" (any of: nvtx cold loop), CASES="vadd twostage softmax matmul",
# THINK=8, SOURCE=0|1 (the loop with source=True), UNIQUE=0|1 (the loop's candidates made new
# kernels, compiled each round). Results in $OUT/summary.md and $OUT/speed.json.
set -uo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root"
# shellcheck source=bench/device/common.sh
. "$root/bench/device/common.sh"
steps=${STEPS:-nvtx cold loop}
cases=${CASES:-vadd twostage softmax matmul}
note "# kprof speed on the GPU"
note_environment
note "- steps: $steps; cases: $cases; think: ${THINK:-8} s; source: ${SOURCE:-0}; new kernels: ${UNIQUE:-0}"
{ cat /proc/driver/nvidia/version; for f in /proc/driver/nvidia/gpus/*/information; do echo "== $f"; cat "$f"; done; } \
  >"$out/nvidia-proc.txt" 2>&1 || true
build_unless_skipped python
work=$(mktemp -d /tmp/kprof-speed.XXXXXX)

case " $steps " in *" nvtx "*)
  # Does ncu take the alternation in --nvtx-include that the primer's range needs?
  cat >"$work/ranges.py" <<'PY'
import torch
x = torch.ones(1 << 20, device="cuda")
for name in ("kprof:primer", "kprof:cand0", "kprof:other"):
    torch.cuda.nvtx.range_push(name); x.mul_(2); torch.cuda.synchronize(); torch.cuda.nvtx.range_pop()
PY
  ncu --clock-control none --nvtx --nvtx-include 'regex:kprof:(cand[0-9]+|primer)/' --csv --page raw \
    --metrics gpu__time_duration.sum python3 "$work/ranges.py" >"$work/ranges.csv" 2>&1
  note "- nvtx alternation: rows per range: $(grep -o 'kprof:[a-z0-9]*' "$work/ranges.csv" | sort | uniq -c | tr '\n' ' ')"
  ;;
esac

case " $steps " in *" exit "*)
  # Does ncu keep the rows of a program that ends with os._exit (no interpreter teardown), and
  # how much sooner does the session end?
  for how in sys_exit os_exit; do
    cat >"$work/exit_$how.py" <<PY
import os, sys, time, torch
x = torch.ones(1 << 24, device="cuda")
for _ in range(3): x.mul_(1.0001)
torch.cuda.synchronize()
torch.cuda.nvtx.range_push("kprof:cand0"); x.mul_(2); torch.cuda.synchronize(); torch.cuda.nvtx.range_pop()
sys.stdout.flush(); sys.stderr.flush()
print("done at", time.time(), file=sys.stderr)
if "$how" == "os_exit":
    os._exit(0)
sys.exit(0)
PY
    for i in 1 2 3; do
      started=$(now)
      ncu --clock-control none --nvtx --nvtx-include 'regex:kprof:(cand[0-9]+|primer)/' --csv --page raw \
        --metrics "$(default_metrics)" python3 "$work/exit_$how.py" >"$work/exit_$how.csv" 2>"$work/exit_$how.err"
      ended=$(now)
      done_at=$(grep -o 'done at [0-9.]*' "$work/exit_$how.err" | awk '{print $3}')
      note "- exit $how run $i: ncu wall $(elapsed "$started" "$ended") s, after the program's last line $(elapsed "${done_at:-$ended}" "$ended") s, rows $(grep -c 'kprof:cand0' "$work/exit_$how.csv")"
    done
  done
  ;;
esac

case " $steps " in *" cold "*)
  note ""
  note "## cold kprof profile (fresh --out each; pass 2 has the metric check cached)"
  note "| case | pass | seconds | exit | metric check | setup / inputs / warmup / call (s) | primer (s) | Triton's key, beside torch's import (s) |"
  note "|---|---|---|---|---|---|---|---|"
  for pass in ${PASSES:-1 2}; do
    mkdir -p "$work/cold$pass"
    for c in $cases; do
      o="$work/cold$pass/$c"
      profile_case "$c" "$o"
      facts=$(python3 - "$o/round000/report.json" <<'PY'
import json, sys
try:
    m = json.load(open(sys.argv[1]))["metadata"]
except Exception as e:
    print(f"no report ({e}) |"); sys.exit()
check = "cached" if "cached" in m.get("metric_check", "") else m.get("metric_check", "")[:40]
print(f"{check} | {m.get('harness_setup_seconds', 0):.2f} / {m.get('harness_inputs_seconds', 0):.2f} / "
      f"{m.get('warmup_seconds', 0):.2f} / {m.get('call_seconds', 0):.2f} | {m.get('primer', '')[:40]} "
      f"{m.get('primer_seconds', 0):.2f} | {m.get('triton_key_seconds', 0):.2f}")
PY
)
      note "| $c | $pass | $profile_seconds | $profile_code | $facts |"
    done
  done
  ;;
esac

case " $steps " in *" loop "*)
  note ""
  note "## agent loop (standby, primer on), think ${THINK:-8} s, source ${SOURCE:-0}"
  PYTHONPATH="$build/python" KPROF_CLOCK=none MODES=standby CASES="$cases" PHASES=1 \
    SOURCE="${SOURCE:-0}" THINK="${THINK:-8}" timeout 540 \
    python3 bench/device/standby.py "$work/loop" 2>&1 | grep -v '^INFO' | tee -a "$summary"
  # The primer's rows are in the session's ncu log, and in no report.
  log=$(find "$work/loop" -name ncu.log | head -1)
  note "- primer rows in one session's ncu log: $(grep -c 'kprof:primer' "$log" 2>/dev/null || echo 0); in reports: $(grep -l 'kprof:primer' $(find "$work/loop" -name report.json) 2>/dev/null | wc -l)"
  # The Triton primer runs in no range: ncu profiles none of it (expect 0 in every log).
  note "- kprof_triton_primer rows in the sessions' ncu logs: $(cat $(find "$work/loop" -name ncu.log) 2>/dev/null | grep -c 'kprof_triton_primer')"
  ;;
esac
note ""
note "- left running (expect none): $(pgrep -fc "$work" || true)"
tar -czf "$out/speed.tar.gz" -C "$work" --exclude='*.ncu-rep' . 2>/dev/null || true
