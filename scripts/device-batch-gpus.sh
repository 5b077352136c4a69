#!/usr/bin/env bash
# Issue 10's batch target on a machine with two GPUs: kprof batch of N candidates (copies of the
# softmax variants, each in its own directory) on GPU 0 alone and on GPUs 0 and 1, RUNS times
# each, wall time from kprof's start to its exit. Builds kprof into build-device/ like
# scripts/device-hot-lines.sh. Env: N=32, RUNS=2, VARIANTS="0 1 2 3 4 5 6 7 8 9" (the variants
# copied round-robin; 5 raises and 6 poisons the CUDA context, see examples/softmax_variants).
# Results in $OUT/summary.md.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
. "$root/scripts/device-common.sh"
n=${N:-32}
runs=${RUNS:-2}
note "# kprof batch on one and two GPUs"
note "- date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
note "- gpus: $(nvidia-smi --query-gpu=index,name --format=csv,noheader 2>/dev/null | tr '\n' ';')"
note "- ncu: $(ncu --version 2>/dev/null | grep -o 'Version [^ ]*' || echo missing)"
build_kprof
work=$(mktemp -d /tmp/kprof-batch.XXXXXX)
read -r -a variants <<<"${VARIANTS:-0 1 2 3 4 5 6 7 8 9}"
kernels=()
for i in $(seq 0 $((n - 1))); do
  mkdir -p "$work/cand$i"
  cp "examples/softmax_variants/cand${variants[$((i % ${#variants[@]}))]}.py" "$work/cand$i/kernel.py"
  kernels+=("$work/cand$i/kernel.py")
done
# One warm-up batch so that Triton's cache holds every variant before anything is timed.
timeout 500 "$kprof" batch examples/softmax/problem.py "${kernels[@]:0:${#variants[@]}}" --out "$work/warm" \
  --clock-control none --format json >/dev/null 2>&1
note "- $n candidates (variants ${variants[*]}), $runs runs per setting"
for gpus in 0 0,1; do
  for r in $(seq 1 "$runs"); do
    t0=$(now)
    timeout 500 "$kprof" batch examples/softmax/problem.py "${kernels[@]}" --out "$work/g${gpus/,/_}" \
      --round "$r" --gpus "$gpus" --clock-control none --format json >"$out/batch-${gpus/,/_}-$r.json" 2>"$out/batch-${gpus/,/_}-$r.err"
    rc=$?
    ok=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); c=d['candidates']; print(sum(x['status']=='ok' for x in c), 'ok of', len(c))" "$out/batch-${gpus/,/_}-$r.json" 2>&1)
    note "- --gpus $gpus run $r: rc=$rc in $(elapsed "$t0" "$(now)") s; $ok"
  done
done
