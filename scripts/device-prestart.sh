#!/usr/bin/env bash
# Issue 10: a batch whose candidates poison the CUDA context, with the next harness pre-started
# (the default) and with --no-prestart. The ten softmax variants (5 raises, 6 poisons the
# context) repeated to N candidates, RUNS runs per setting, after one warm-up batch so that
# Triton's cache holds every variant. Builds kprof into build-device/. Results in $OUT/summary.md.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
. "$root/scripts/device-common.sh"
n=${N:-20}
runs=${RUNS:-2}
note "# kprof batch with poisoning candidates, pre-started harness on and off"
note "- date: $(date -u +%Y-%m-%dT%H:%M:%SZ); gpu: $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); ncu $(ncu --version | grep -o 'Version [^ ]*')"
build_kprof
work=$(mktemp -d /tmp/kprof-prestart.XXXXXX)
kernels=()
for i in $(seq 0 $((n - 1))); do
  mkdir -p "$work/cand$i"
  cp "examples/softmax_variants/cand$((i % 10)).py" "$work/cand$i/kernel.py"
  kernels+=("$work/cand$i/kernel.py")
done
timeout 300 "$kprof" batch examples/softmax/problem.py "${kernels[@]:0:10}" --out "$work/warm" --clock-control none --format json >/dev/null 2>&1
summarize() { # batch dir
  python3 - "$1" <<'PY'
import json, glob, os, sys
d = sys.argv[1]
batch = json.load(open(os.path.join(d, "batch.json")))
status = [c["status"] for c in batch["candidates"]]
sessions = {}
for f in glob.glob(os.path.join(d, "cand*", "report.json")):
    m = json.load(open(f))["metadata"]
    sessions[m["session_dir"]] = (m.get("standby"), m.get("harness_setup_seconds"))
parts = "; ".join(f"{k}: standby={v[0]} setup {v[1]:.2f} s" for k, v in sorted(sessions.items()))
print(f"{status.count('ok')} ok, {status.count('failed')} failed; sessions with results: {parts}")
PY
}
for r in $(seq 1 "$runs"); do
  for setting in prestart no-prestart; do
    extra=(); [ "$setting" = no-prestart ] && extra=(--no-prestart)
    t0=$(now)
    timeout 500 "$kprof" batch examples/softmax/problem.py "${kernels[@]}" --out "$work/$setting" --round "$r" \
      --clock-control none --format json "${extra[@]}" >/dev/null 2>"$work/$setting-$r.err"
    rc=$?
    note "- run $r, $setting: rc=$rc in $(elapsed "$t0" "$(now)") s; $(summarize "$work/$setting/round00$r")"
  done
done
left=$(pgrep -f "$work" | wc -l)
note "- processes of the run left afterwards: $left"
rm -rf "$work"
