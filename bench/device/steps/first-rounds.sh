#!/usr/bin/env bash
# Issue 42: what timing the call first costs a first round, single kernels and models alike.
# The first round of a problem nothing has profiled yet runs, under `--launches auto`, a session
# capped at 34 replayed launches, and goes on to the timeline only when the call reaches the cap;
# `--launches many` times the call outside ncu beside a session gated before its profiled call.
# For each entry of FIRST_CASES (default "vadd softmax 35_LSTM 11_VGG16": examples/NAME, else
# KernelBench's .device/kernelbench/NAME.py through `kprof model`), after one untimed run (Triton's
# cache), FIRST_RUNS (default 2; 1 for a model) first rounds per mode, auto and many alternately,
# each into a fresh --out: wall seconds, exit code, the launches timed and replayed, and the plan
# line. Builds kprof (bench/device/common.sh; SKIP_BUILD=1 reuses build-device/).
# Writes $OUT/first-rounds.md and $OUT/first-rounds-logs.tar.gz.
#   bench/device/run first-rounds       (FIRST_BUDGET_S, default 540: no run starts past it)
set -uo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root"
# shellcheck source=bench/device/common.sh
. "$root/bench/device/common.sh"
summary="$out/first-rounds.md"; : >"$summary"
work=$(mktemp -d /tmp/kprof-first-rounds.XXXXXX)
deadline=$(( $(date +%s) + ${FIRST_BUDGET_S:-540} ))
left() { echo $(( deadline - $(date +%s) )); }

note "# First rounds: --launches auto against many"
note ""
note_environment
note ""
build_unless_skipped

# first_round NAME MODE DIR: one first round of NAME into DIR; prints "SECONDS RC".
first_round() {
  local name=$1 mode=$2 dir=$3 t0 rc
  t0=$(now)
  if [ -d "examples/$name" ]; then
    timeout "$(( $(left) + 60 ))" "$kprof" profile "examples/$name/kernel.py" "examples/$name/problem.py" \
      --clock-control none --launches "$mode" --out "$dir" --no-history --format json \
      >"$dir.json" 2>"$dir.err"
  else
    timeout "$(( $(left) + 60 ))" "$kprof" model ".device/kernelbench/$name.py" \
      --clock-control none --launches "$mode" --out "$dir" --no-history --format json \
      >"$dir.json" 2>"$dir.err"
  fi
  rc=$?
  echo "$(elapsed "$t0" "$(now)") $rc"
}

note "| case | mode | run | wall s | rc | launches timed | replayed | plan |"
note "|---|---|---|---|---|---|---|---|"
for name in ${FIRST_CASES:-vadd softmax 35_LSTM 11_VGG16}; do
  runs=${FIRST_RUNS:-2}
  if [ -d "examples/$name" ]; then
    "$kprof" profile "examples/$name/kernel.py" "examples/$name/problem.py" --clock-control none \
      --out "$work/$name-untimed" --no-history >/dev/null 2>&1
  else
    runs=1
  fi
  for ((i = 1; i <= runs; i++)); do
    for mode in auto many; do
      [ "$(left)" -gt 30 ] || { note "- $name $mode $i: out of time"; continue; }
      dir="$work/$name-$mode-$i"
      read -r seconds rc < <(first_round "$name" "$mode" "$dir")
      facts=$(python3 - "$dir" <<'PY'
import glob, json, sys
reports = glob.glob(sys.argv[1] + "/round*/report.json")
if not reports:
    print("- | - |")
    sys.exit()
doc = json.load(open(reports[0]))
work = doc.get("workload") if isinstance(doc.get("workload"), dict) else {}
replayed = len(doc.get("kernels") or [])
print("%s | %d |" % (work.get("launches", "-"), replayed))
PY
)
      plan=$(grep -m1 -E "launches of .* distinct kernels" "$dir.err" | cut -c1-110)
      grep -q "went on past" "$dir.err" && plan="after the capped session: $plan"
      note "| $name | $mode | $i | $seconds | $rc | $facts ${plan:--} |"
    done
  done
done

tar -C "$work" --exclude="*.ncu-rep" --exclude=".cache" -czf "$out/first-rounds-logs.tar.gz" . 2>/dev/null
