#!/usr/bin/env bash
# An agent that runs `kprof profile` once per round: RUNS cold rounds of one --out per case, with the truth and without.
# For each case of CASES (vadd softmax matmul, examples/), one untimed run first (Triton's cache),
# then RUNS (3) rounds into one --out with the truth (the default: the reference's FLOP counts
# are kept in the out dir's .cache/flops after round 1) and RUNS rounds into another with
# --no-check --no-timing; wall seconds per round and the truth's counts_from in
# $OUT/summary.md. Builds kprof (bench/device/common.sh; SKIP_BUILD=1 reuses build-device/).
set -uo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root"
# shellcheck source=bench/device/common.sh
. "$root/bench/device/common.sh"
note "# cold rounds of one --out, with the truth and without"
note_environment
build_unless_skipped python
work=$(mktemp -d /tmp/kprof-cold-rounds.XXXXXX)
for c in ${CASES:-vadd softmax matmul}; do
  k=examples/$c/kernel.py p=examples/$c/problem.py
  "$kprof" profile "$k" "$p" --clock-control none --out "$work/$c-warm" --no-history >/dev/null 2>&1
  for mode in truth bare; do
    extra=()
    [ "$mode" = bare ] && extra=(--no-check --no-timing)
    times=()
    for ((i = 1; i <= ${RUNS:-3}; i++)); do
      t0=$(now)
      "$kprof" profile "$k" "$p" --clock-control none --out "$work/$c-$mode" --round "$i" \
        --no-history "${extra[@]}" >/dev/null 2>"$work/$c-$mode-$i.err"
      times+=("$(elapsed "$t0" "$(now)") s (rc $?)")
    done
    from=$(python3 -c 'import json,sys; t=json.load(open(sys.argv[1])).get("truth") or {}; print([((t.get("speed_of_light") or {}).get("counts_from"))])' \
      "$work/$c-$mode/round00${RUNS:-3}/report.json" 2>/dev/null)
    note "- $c, $mode: ${times[*]}; last round's counts_from ${from:-none}"
  done
done
