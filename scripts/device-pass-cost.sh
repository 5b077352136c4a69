#!/usr/bin/env bash
# Issue 22: what each metric of kprof's default set costs in replay passes. A profiled call's
# time is mostly its replay passes (14 for the default set, 10 for the lean set's five metrics on
# the H200; twostage's two kernels 28), so a metric that alone adds passes is a candidate for a
# cheaper equivalent. For one small CUDA kernel (a vector add built here with nvcc, profiled with
# `-c 1`, no Python, so each ncu run is short), ncu runs with:
#   - the whole default set (REPS times: the passes and the run's wall time);
#   - the default set without each metric in turn (passes saved by leaving it out);
#   - each metric alone (its own passes);
#   - the lean set.
# Passes are profiler__replayer_passes from the raw page. Builds kprof (for `kprof metrics`) into
# build-device/ unless SKIP_BUILD=1 finds one. Env: REPS=3; FROM=N starts the per-metric table at
# the default set's metric N (0-based: a run cut short goes on where it stopped). Results in
# $OUT/summary.md.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
# shellcheck source=scripts/device-common.sh
. "$root/scripts/device-common.sh"
note "# Replay passes per metric of the default set (issue 22)"
note_environment
build_unless_skipped
work=$(mktemp -d /tmp/kprof-pass-cost.XXXXXX)
cat >"$work/vadd.cu" <<'CU'
#include <cstdio>
#include <cuda_runtime.h>
__global__ void vadd(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
int main() {
  const int n = 1 << 24;
  float *a, *b, *c;
  cudaMalloc(&a, n * sizeof(float));
  cudaMalloc(&b, n * sizeof(float));
  cudaMalloc(&c, n * sizeof(float));
  cudaMemset(a, 0, n * sizeof(float));
  cudaMemset(b, 0, n * sizeof(float));
  vadd<<<(n + 255) / 256, 256>>>(a, b, c, n);
  cudaError_t status = cudaDeviceSynchronize();
  std::printf("vadd: %s\n", cudaGetErrorString(status));
  return status == cudaSuccess ? 0 : 1;
}
CU
if ! nvcc -O2 -o "$work/vadd" "$work/vadd.cu" >"$out/nvcc.log" 2>&1; then
  note "- nvcc failed: $(tail -3 "$out/nvcc.log")"
  exit 1
fi
metrics=$(default_metrics)
lean=$("$kprof" metrics --set lean --format json \
  | python3 -c "import json, sys; print(','.join(m['name'] for m in json.load(sys.stdin)['metrics']))")
# passes LIST: one ncu run of the vector add with metric list LIST; prints "passes wall_s".
passes() {
  local log="$work/run.csv" t0 t1
  t0=$(now)
  ncu --csv --page raw --metrics "$1" --clock-control none --replay-mode kernel -c 1 \
    --log-file "$log" "$work/vadd" >/dev/null 2>&1
  t1=$(now)
  python3 - "$log" "$(elapsed "$t0" "$t1")" <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1], encoding="utf-8", errors="replace"))
        if len(r) > 3 and not r[0].startswith("==")]
header = rows[0] if rows else []
column = header.index("profiler__replayer_passes") if "profiler__replayer_passes" in header else None
value = rows[2][column] if column is not None and len(rows) > 2 else "?"
print(value, sys.argv[2])
PY
}
note ""
note "## The whole default set and the lean set"
note "| set | passes | ncu wall (s) |"
note "|---|---|---|"
for rep in $(seq 1 "${REPS:-3}"); do
  read -r p w < <(passes "$metrics"); note "| default, run $rep | $p | $w |"
done
read -r p w < <(passes "$lean"); note "| lean | $p | $w |"
note ""
note "## Each metric: the default set without it, and alone"
note "| metric | passes without it | passes alone | ncu wall without it (s) |"
note "|---|---|---|---|"
IFS=, read -r -a names <<<"$metrics"
for name in "${names[@]:${FROM:-0}}"; do
  rest=$(printf '%s\n' "${names[@]}" | grep -vxF "$name" | paste -sd, -)
  read -r without wall < <(passes "$rest")
  read -r alone _ < <(passes "$name")
  note "| \`$name\` | $without | $alone | $wall |"
done
note ""
note "- left running (expect none): $(pgrep -fc "$work/vadd" || true)"
