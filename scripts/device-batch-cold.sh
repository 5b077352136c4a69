#!/usr/bin/env bash
# Issue 10: the batch on one GPU and on two when the candidates are new (never compiled), as an
# agent's are: N candidates, each a softmax variant made unique by a comment in its kernel (so
# Triton compiles every one), a fresh Triton cache per run. Profiling itself is serialized
# host-wide by ncu (scripts/device-ncu-pair.sh); compiling, importing and warming up are not.
# Builds kprof into build-device/ (scripts/device-batch-overlap.sh). Results in $OUT/summary.md.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
. "$root/scripts/device-common.sh"
n=${N:-32}
note "# kprof batch of new candidates on one and two GPUs"
note "- date: $(date -u +%Y-%m-%dT%H:%M:%SZ); gpus: $(nvidia-smi --query-gpu=index,name --format=csv,noheader | tr '\n' ';')"
[ -x "$kprof" ] || build_kprof
work=$(mktemp -d /tmp/kprof-cold.XXXXXX)
for setting in 0 0,1 0_again 0,1_again; do
  gpus=${setting%_again}
  kernels=()
  for i in $(seq 0 $((n - 1))); do
    mkdir -p "$work/$setting/cand$i"
    sed "/^def softmax_kernel/a\\    # unique $setting $i" "examples/softmax_variants/cand$((i % 5)).py" >"$work/$setting/cand$i/kernel.py"
    kernels+=("$work/$setting/cand$i/kernel.py")
  done
  t0=$(now)
  TRITON_CACHE_DIR="$work/$setting/triton" timeout 550 "$kprof" batch examples/softmax/problem.py "${kernels[@]}" \
    --out "$work/$setting/out" --gpus "$gpus" --clock-control none --format json >"$work/$setting.json" 2>"$work/$setting.err"
  rc=$?
  ok=$(python3 -c "import json,sys; c=json.load(open(sys.argv[1]))['candidates']; print(sum(x['status']=='ok' for x in c), 'ok of', len(c))" "$work/$setting.json" 2>&1)
  note "- --gpus $gpus ($setting): rc=$rc in $(elapsed "$t0" "$(now)") s; $ok"
done
rm -rf "$work"
