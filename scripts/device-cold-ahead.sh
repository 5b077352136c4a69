#!/usr/bin/env bash
# Issue 22: a cold `kprof profile` with its one candidate compiled ahead by a compile worker
# against without (KPROF_COMPILE_AHEAD=0), on the same host. Only a kprof that gives a single
# candidate a worker compiles ahead here: a76787e did (its worker found the Triton target with
# nvidia-smi); it was measured slower and reverted (docs/device-runs/2026-12-05-cold-ahead.md),
# so on main both settings run alike, and the table says so in its compiled_ahead column
# ("-"). Check out a76787e to measure it again. For each round, case
# and setting: a Triton cache holding only Triton's own helper module (only_tritons_own), then
# `kprof profile` twice on it: "new", its kernel compiled in that profile, and "cached", the
# kernel already in the cache. The settings alternate within each case. The metric check is
# cached by an untimed vadd profile first. Builds kprof into build-device/ unless SKIP_BUILD=1.
# Env: CASES="twostage softmax matmul vadd", REPS=2 (rounds, the outer loop). Results in
# $OUT/summary.md.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
# shellcheck source=scripts/device-common.sh
. "$root/scripts/device-common.sh"
cases=${CASES:-twostage softmax matmul vadd}
note "# A cold profile's one candidate compiled ahead, or not (issue 22)"
note_environment
build_unless_skipped
work=$(mktemp -d /tmp/kprof-cold-ahead.XXXXXX)
"$kprof" profile examples/vadd/kernel.py examples/vadd/problem.py --out "$work/untimed" \
  --clock-control none --format json >/dev/null 2>&1
note "- untimed: a vadd profile first (exit $?), so that the metric check is cached"
note ""
note "| round | case | compile ahead | kernel | wall (s) | exit | setup (s) | warm-up (s) | call (s) | compiled_ahead | wait for the worker (s) | worker's compile (s) |"
note "|---|---|---|---|---|---|---|---|---|---|---|---|"
for round in $(seq 1 "${REPS:-2}"); do
  for c in $cases; do
    for setting in 1 0; do
      cache="$work/cache-$round-$c-$setting"
      only_tritons_own "$cache"
      for kernel in new cached; do
        o="$work/out-$round-$c-$setting-$kernel"
        profile_case "$c" "$o" TRITON_CACHE_DIR="$cache" KPROF_COMPILE_AHEAD="$setting"
        facts=$(python3 - "$o/round000/report.json" <<'PY'
import json, sys
try:
    m = json.load(open(sys.argv[1]))["metadata"]
except Exception as e:
    print(f"no report ({type(e).__name__}) | | | | |"); sys.exit()
print(f"{m.get('harness_setup_seconds', 0):.2f} | {m.get('warmup_seconds', 0):.2f} | "
      f"{m.get('call_seconds', 0):.2f} | {m.get('compiled_ahead', '-')} | "
      f"{m.get('compile_wait_seconds', 0):.2f} | {m.get('compile_seconds', 0):.2f}")
PY
)
        note "| $round | $c | $([ "$setting" = 1 ] && echo yes || echo no) | $kernel | $profile_seconds | $profile_code | $facts |"
      done
    done
  done
done
note ""
note "- left running (expect none): $(pgrep -f -- '--compile-worker' | wc -l)"
rm -rf "$work"
