#!/usr/bin/env bash
# Issue 22: the early primer measured against itself on one machine. The harness that
# `kprof harness` writes for softmax runs under ncu with kprof's own options (default metric set,
# kprof's NVTX filter), its plan's "early_primer" alternating false / true (RUNS pairs); per run:
# ncu's wall time and the harness's phases from its status file. Then what ncu's own start costs
# with options that skip its section and rule files (`python3 -c pass` under ncu). Builds kprof
# unless SKIP_BUILD=1. Results in $OUT/summary.md.
set -uo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root"
# shellcheck source=bench/device/common.sh
. "$root/bench/device/common.sh"
note "# The early primer, on and off, on one machine"
note_environment
build_unless_skipped python
work=$(mktemp -d /tmp/kprof-primer-ab.XXXXXX)
case=${CASE:-softmax}
"$kprof" harness "examples/$case/kernel.py" "examples/$case/problem.py" --out "$work/harness.py" >/dev/null
metrics=$(default_metrics)
ncu_options=(--csv --page raw --metrics "$metrics" --nvtx --nvtx-include 'regex:kprof:(cand[0-9]+|primer)/'
  --target-processes all --replay-mode kernel --clock-control none)
note ""
note "| run | early_primer | ncu wall (s) | setup / inputs / warm-up / call (s) | primer |"
note "|---|---|---|---|---|"
for i in $(seq 1 "${RUNS:-3}"); do
  for early in false true; do
    python3 - "$work/harness.plan.json" "$early" <<'PY'
import json, sys
plan = json.load(open(sys.argv[1])); plan["early_primer"] = sys.argv[2] == "true"
json.dump(plan, open(sys.argv[1], "w"))
PY
    rm -f "$work/harness.status.json"
    t=$(now)
    ncu "${ncu_options[@]}" python3 "$work/harness.py" "$work/harness.plan.json" >"$work/log.csv" 2>"$work/err.txt"
    wall=$(elapsed "$t" "$(now)")
    facts=$(python3 - "$work/harness.status.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1])); c = s["candidates"][0]
print(f"{s['setup_seconds']:.2f} / {s['inputs_seconds']:.2f} / {c['warmup_seconds']:.2f} / {c['call_seconds']:.2f} | "
      f"{s.get('primer', '')} {s.get('primer_seconds', 0):.2f}")
PY
)
    note "| $i | $early | $wall | $facts |"
  done
done
note ""
note "## ncu's own start: \`python3 -c pass\` under ncu, three runs each (s)"
mkdir -p "$work/no-sections"
for variant in default "--apply-rules no" "--section-folder $work/no-sections" "--apply-rules no --section-folder $work/no-sections"; do
  extra=(); [ "$variant" = default ] || read -r -a extra <<<"$variant"
  times=""
  for i in 1 2 3; do
    t=$(now); ncu "${ncu_options[@]}" "${extra[@]}" python3 -c pass >/dev/null 2>&1; times="$times $(elapsed "$t" "$(now)")"
  done
  note "- ${variant/$work/\$work}:$times"
done
rm -rf "$work"
