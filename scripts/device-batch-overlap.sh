#!/usr/bin/env bash
# Issue 10: why is `kprof batch --gpus 0,1` no faster than one GPU? Compares, for N softmax
# candidates: one kprof on GPU 0; one kprof with --gpus 0,1; two kprof processes at once, one
# per GPU with N/2 each. Also prints the CPU quota. Builds kprof into build-device/.
# Results in $OUT/summary.md; each run's batch.json per-call times in $OUT/calls.txt.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
. "$root/scripts/device-common.sh"
n=${N:-16}
note "# kprof batch: one process over two GPUs against two processes"
note "- date: $(date -u +%Y-%m-%dT%H:%M:%SZ); nproc $(nproc); cpu.max $(cat /sys/fs/cgroup/cpu.max 2>/dev/null || echo n/a)"
note "- gpus: $(nvidia-smi --query-gpu=index,name --format=csv,noheader 2>/dev/null | tr '\n' ';')"
build_kprof
work=$(mktemp -d /tmp/kprof-overlap.XXXXXX)
kernels=()
for i in $(seq 0 $((n - 1))); do
  mkdir -p "$work/cand$i"
  cp "examples/softmax_variants/cand$((i % 5)).py" "$work/cand$i/kernel.py"
  kernels+=("$work/cand$i/kernel.py")
done
half=$((n / 2))
timeout 300 "$kprof" batch examples/softmax/problem.py "${kernels[@]:0:5}" --out "$work/warm" --clock-control none --format json >/dev/null 2>&1
calls() { # batch.json -> the profiled calls' seconds
  python3 - "$1" <<'PY'
import json, sys, glob, os
d = os.path.dirname(sys.argv[1])
secs = []
for f in sorted(glob.glob(d + "/cand*/report.json")):
    m = json.load(open(f))["metadata"]
    secs.append(f"{m.get('call_seconds', 0):.2f}/{m.get('warmup_seconds', 0):.2f}")
print(" ".join(secs))
PY
}
run() { # tag gpus kernels...
  local tag=$1 gpus=$2; shift 2
  timeout 500 "$kprof" batch examples/softmax/problem.py "$@" --out "$work/$tag" --gpus "$gpus" \
    --clock-control none --format json >"$work/$tag.json" 2>"$work/$tag.err"
  echo "$tag calls: $(calls "$(ls -d "$work/$tag"/round000)/batch.json")" >>"$out/calls.txt"
}
for rep in 1 2; do
  t0=$(now); run "one-$rep" 0 "${kernels[@]}"; note "- rep $rep: one GPU, $n candidates: $(elapsed "$t0" "$(now)") s"
  t0=$(now); run "both-$rep" 0,1 "${kernels[@]}"; note "- rep $rep: --gpus 0,1, $n candidates: $(elapsed "$t0" "$(now)") s"
  t0=$(now)
  run "split0-$rep" 0 "${kernels[@]:0:$half}" & run "split1-$rep" 1 "${kernels[@]:$half}" & wait
  note "- rep $rep: two kprof processes, GPU 0 and GPU 1, $half each: $(elapsed "$t0" "$(now)") s"
done
note ""; note "## per candidate: profiled call / warm-up seconds"; cat "$out/calls.txt" | tee -a "$summary"
tail -5 "$work"/both-1.err > "$out/both-1.err" 2>/dev/null
rm -rf "$work"
