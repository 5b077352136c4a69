#!/usr/bin/env bash
# The primer's launch never reaches a report: a session's ncu.log holds the primer's row (range
# kprof:primer) beside the candidate's; `kprof report ncu.log` must list the candidate's kernels
# only (before the fix of 2026-12-02 it listed kprof_primer too), and `kprof profile` likewise.
# Builds kprof into build-device/ (scripts/device-common.sh). Results in $OUT/summary.md.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
. "$root/scripts/device-common.sh"
note "# The primer's row and the reports"
note_environment
[ -x "$kprof" ] || build_kprof
work=$(mktemp -d /tmp/kprof-primer.XXXXXX)
"$kprof" profile examples/twostage/kernel.py examples/twostage/problem.py --out "$work" \
  --clock-control none --format json >"$work/profile.json" 2>"$work/profile.err"
note "- profile: rc=$?; kernels: $(python3 -c 'import json,sys; print([k["name"] for k in json.load(open(sys.argv[1]))["kernels"]])' "$work/profile.json")"
note "- ncu.log rows in range kprof:primer: $(grep -c 'kprof:primer' "$work/round000/ncu.log")"
"$kprof" report "$work/round000/ncu.log" --format json >"$work/report.json" 2>"$work/report.err"
note "- report ncu.log: rc=$?; kernels: $(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print([k["name"] for k in d["kernels"]], d["summary"].get("launch_count", d["summary"].get("launches")))' "$work/report.json")"
rm -rf "$work"
