#!/usr/bin/env bash
# Issue 22: does an empty --section-folder change what a metrics-only session measures, and what
# does it save? The softmax harness (`kprof harness`) under ncu with kprof's options, with and
# without `--section-folder EMPTY` (RUNS pairs): wall time, the raw page's column count and
# kprof's default-set values of the launch. Then `kprof profile` cold (which now passes the
# empty folder) on CASES, and `ncu --import --page source` with and without the empty folder.
# Builds kprof unless SKIP_BUILD=1. Results in $OUT/summary.md.
set -uo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root"
# shellcheck source=bench/device/common.sh
. "$root/bench/device/common.sh"
note "# An empty section folder for metrics-only sessions"
note_environment
build_unless_skipped
work=$(mktemp -d /tmp/kprof-sections.XXXXXX)
mkdir -p "$work/empty"
"$kprof" harness examples/softmax/kernel.py examples/softmax/problem.py --out "$work/harness.py" >/dev/null
opts=(--csv --page raw --metrics "$(default_metrics)" --nvtx --nvtx-include 'regex:kprof:(cand[0-9]+|primer)/'
  --target-processes all --replay-mode kernel --clock-control none)
for i in $(seq 1 "${RUNS:-2}"); do
  for folder in ncu empty; do
    extra=(); [ $folder = empty ] && extra=(--section-folder "$work/empty")
    t=$(now)
    ncu "${opts[@]}" "${extra[@]}" python3 "$work/harness.py" "$work/harness.plan.json" >"$work/$folder.csv" 2>&1
    wall=$(elapsed "$t" "$(now)")
    "$kprof" report "$work/$folder.csv" --format json --out "$work/$folder.json" 2>/dev/null
    facts=$(python3 - "$work/$folder.csv" "$work/$folder.json" <<'PY'
import csv, json, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if r and r[0] in ("ID",) or (r and r[0].isdigit())]
k = json.load(open(sys.argv[2]))["kernels"][0]
m = k.get("metrics", {})
pick = {n: m[n] for n in sorted(m) if n.startswith(("dram__bytes_read", "sm__inst_executed.sum", "launch__registers"))}
print(f"{len(rows[0])} columns, {len(rows) - 1} rows; {pick}")
PY
)
    note "- run $i, $folder sections: ncu $wall s; $facts"
  done
done
note ""
note "## cold kprof profile (empty section folder)"
for c in ${CASES:-softmax vadd softmax}; do
  o="$work/cold-$c-$RANDOM"; t=$(now)
  "$kprof" profile "examples/$c/kernel.py" "examples/$c/problem.py" --out "$o" --clock-control none --format json >/dev/null 2>"$o.err"
  note "- $c: $(elapsed "$t" "$(now)") s, exit $?, argv has --section-folder: $(grep -c section-folder "$o/round000/report.json")"
done
note ""
note "## source page export with and without the empty folder (three runs each, s)"
ncu --clock-control none --nvtx --nvtx-include 'regex:kprof:(cand[0-9]+|primer)/' --metrics "$(default_metrics)" \
  --section SourceCounters --section WarpStateStats --import-source yes -o "$work/src" -f \
  python3 "$work/harness.py" "$work/harness.plan.json" >/dev/null 2>&1
for folder in ncu empty; do
  extra=(); [ $folder = empty ] && extra=(--section-folder "$work/empty")
  times=""
  for i in 1 2 3; do
    t=$(now); ncu --import "$work/src.ncu-rep" --page source --print-source cuda,sass --csv "${extra[@]}" >"$work/page-$folder.csv" 2>&1
    times="$times $(elapsed "$t" "$(now)")"
  done
  note "- $folder:$times ($(wc -c <"$work/page-$folder.csv") bytes)"
done
cmp -s "$work/page-ncu.csv" "$work/page-empty.csv" && note "- the two pages are identical" || note "- the pages differ"
rm -rf "$work"
