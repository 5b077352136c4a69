#!/usr/bin/env bash
# Issue 10: the batch on one GPU and on two when the candidates are new (never compiled), as an
# agent's are: N candidates, each a softmax variant made unique by a comment in its kernel (so
# Triton compiles every one), a fresh Triton cache per run. Profiling itself is serialized
# host-wide, in the NVIDIA driver (docs/device-runs/2026-12-01-driver-serialization.md);
# compiling, importing and warming up are not. Each setting runs twice: on GPU 0; on GPUs 0 and 1; and on GPUs 0 and 1 without the
# profiled-call lock (docs/harness.md), which a directory in the lock file's place turns off.
# Per setting: wall time, and from the reports the median profiled call and the lock waits.
# Builds kprof into build-device/ (bench/device/common.sh). Results in $OUT/summary.md.
set -uo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root"
. "$root/bench/device/common.sh"
n=${N:-32}
note "# kprof batch of new candidates on one and two GPUs"
note "- date: $(date -u +%Y-%m-%dT%H:%M:%SZ); gpus: $(nvidia-smi --query-gpu=index,name --format=csv,noheader | tr '\n' ';')"
[ -x "$kprof" ] || build_kprof
work=$(mktemp -d /tmp/kprof-cold.XXXXXX)
settings=${SETTINGS:-0 0,1 0,1_nolock 0_again 0,1_again 0,1_nolock_again}
for setting in $settings; do
  gpus=${setting%_again}
  gpus=${gpus%_nolock}
  locks="$work/$setting/locks"
  mkdir -p "$locks"
  case $setting in *nolock*) mkdir -p "$locks/profiled-calls.lock" ;; esac
  kernels=()
  for i in $(seq 0 $((n - 1))); do
    mkdir -p "$work/$setting/cand$i"
    sed "/^def softmax_kernel/a\\    # unique $setting $i" "examples/softmax_variants/cand$((i % 5)).py" >"$work/$setting/cand$i/kernel.py"
    kernels+=("$work/$setting/cand$i/kernel.py")
  done
  t0=$(now)
  KPROF_LOCK_DIR="$locks" TRITON_CACHE_DIR="$work/$setting/triton" timeout 550 "$kprof" batch examples/softmax/problem.py "${kernels[@]}" \
    --out "$work/$setting/out" --gpus "$gpus" --clock-control none --format json >"$work/$setting.json" 2>"$work/$setting.err"
  rc=$?
  ok=$(python3 - "$work/$setting.json" <<'PY' 2>&1
import json, statistics, sys
candidates = json.load(open(sys.argv[1]))["candidates"]
meta = []
for c in candidates:
    try:
        meta.append(json.load(open(c["dir"] + "/report.json"))["metadata"])
    except (OSError, ValueError, TypeError):
        pass
calls = [m["call_seconds"] for m in meta if "call_seconds" in m] or [0]
waits = [m.get("call_lock_wait_seconds", 0) for m in meta]
locks = sorted({m.get("call_lock", "none").split(":")[0] for m in meta})
print("%d ok of %d; profiled call median %.2f s (%.2f-%.2f); lock %s, waits %.1f s in all" % (
    sum(c["status"] == "ok" for c in candidates), len(candidates), statistics.median(calls),
    min(calls), max(calls), "/".join(locks), sum(waits)))
PY
)
  note "- --gpus $gpus ($setting): rc=$rc in $(elapsed "$t0" "$(now)") s; $ok"
done
rm -rf "$work"
