#!/usr/bin/env bash
# Records real ncu output for per-line profiling (issue "Hot lines") and answers one question for
# the warm standby (issue "Warm standby"), on the GPU machine. Run from the repository root there:
#   bash scripts/device-capture-source.sh        # results in $OUT (or ./device-out)
# It needs no kprof build: it runs kprof's own harness (templates/harness.py) under ncu with a
# plan written here, exactly as `kprof profile` does, plus the source-level sections.
#  1. each example (vadd, twostage, softmax, matmul): the default-like metric list, once without
#     and once with `--section SourceCounters --section WarpStateStats --import-source yes`
#     (wall time of both); then the source page (`--page source --print-source cuda,sass --csv`),
#     the raw page and the details page of the report;
#  2. a batch of two softmax candidates in one process (ranges kprof:cand0, kprof:cand1);
#  3. softmax with TRITON_DISABLE_LINE_INFO=1 (what the source page holds without line info);
#  4. the PTX and cubin Triton left in its cache for softmax, and nvdisasm's inline line info;
#  5. a harness-like process waiting under plain ncu (CUDA context made, before its NVTX range):
#     does a second profile on the same GPU still run, and how long does it take?
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
# shellcheck source=scripts/device-common.sh
. "$root/scripts/device-common.sh"
w=$(mktemp -d /tmp/kprof-src.XXXXXX)
cap="$w/capture"
mkdir -p "$cap"
export TRITON_CACHE_DIR="$w/triton-cache"

note "# per-line capture run"
note_environment

metrics=gpu__time_duration.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum,sm__cycles_active.avg,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct

plan() { # plan FILE STATUS KERNEL... (problem is $PROBLEM)
  python3 - "$@" <<'PY'
import json, os, sys
plan_file, status, *kernels = sys.argv[1:]
json.dump({"version": 1, "problem": os.path.abspath(os.environ["PROBLEM"]),
           "candidates": [{"kernel": os.path.abspath(k), "range": f"kprof:cand{i}"} for i, k in enumerate(kernels)],
           "status_file": os.path.abspath(status), "warmup": 3, "inputs": "gpu", "cast": "none",
           "seed": 0, "first_candidate": 0}, open(plan_file, "w"), indent=2)
PY
}

profile() { # profile NAME SOURCE(yes|no) KERNEL...
  local name=$1 src=$2; shift 2
  plan "$w/$name.plan.json" "$w/$name.status.json" "$@"
  local extra=()
  [ "$src" = yes ] && extra=(--section SourceCounters --section WarpStateStats --import-source yes)
  local t0; t0=$(now)
  timeout 300 ncu --csv --page raw --metrics "$metrics" "${extra[@]}" --nvtx \
    --nvtx-include 'regex:kprof:cand[0-9]+/' --target-processes all --replay-mode kernel \
    --clock-control none --log-file "$cap/$name.log" -o "$w/$name" -f \
    python3 templates/harness.py "$w/$name.plan.json" >"$w/$name.stdout" 2>&1
  local rc=$?
  echo "$rc $(elapsed "$t0" "$(now)")"
}

export_pages() { # export_pages NAME
  local name=$1 t0
  t0=$(now)
  ncu --import "$w/$name.ncu-rep" --page source --print-source cuda,sass --csv >"$cap/$name.source.csv" 2>"$cap/$name.source.err"
  local rc=$? t=$(elapsed "$t0" "$(now)")
  ncu --import "$w/$name.ncu-rep" --page raw --csv >"$cap/$name.raw.csv" 2>/dev/null
  ncu --import "$w/$name.ncu-rep" --page details --csv >"$cap/$name.details.csv" 2>/dev/null
  echo "source page rc=$rc in $t s, $(wc -l <"$cap/$name.source.csv") lines, $(grep -c '^"File Path"' "$cap/$name.source.csv") file blocks"
}

note ""
note "## 1. examples: wall time of one profiled run, without and with the source sections"
note ""
note "| case | without: rc, s | with --source sections: rc, s | source page |"
note "|---|---|---|---|"
for case in vadd twostage softmax matmul; do
  export PROBLEM=examples/$case/problem.py
  read -r rc0 t0 < <(profile "$case-plain" no "examples/$case/kernel.py")
  read -r rc1 t1 < <(profile "$case" yes "examples/$case/kernel.py")
  note "| $case | $rc0, $t0 | $rc1, $t1 | $(export_pages "$case") |"
done

note ""
note "## 2. batch of two softmax candidates in one process"
export PROBLEM=examples/softmax/problem.py
read -r rc t < <(profile batch2 yes examples/softmax/kernel.py examples/softmax_variants/cand1.py)
note "- rc $rc in $t s; $(export_pages batch2)"
grep -n '^"File Path"\|^"Function Name"' "$cap/batch2.source.csv" | head -20 | tee -a "$summary"

note ""
note "## 3. softmax without line info (TRITON_DISABLE_LINE_INFO=1)"
read -r rc t < <(TRITON_CACHE_DIR="$w/triton-cache-noline" TRITON_DISABLE_LINE_INFO=1 profile softmax-noline yes examples/softmax/kernel.py)
note "- rc $rc in $t s; $(export_pages softmax-noline)"
head -c 600 "$cap/softmax-noline.source.err" | tee -a "$summary"

note ""
note "## 4. Triton's PTX and cubin for softmax, and nvdisasm's inline line info"
mkdir -p "$cap/triton-softmax"
find "$TRITON_CACHE_DIR" -name 'softmax_kernel*' \( -name '*.ptx' -o -name '*.cubin' -o -name '*.json' -o -name '*.ttir' -o -name '*.ttgir' -o -name '*.llir' \) \
  -exec cp {} "$cap/triton-softmax/" \; 2>/dev/null
ls -la "$cap/triton-softmax" | tee -a "$summary"
cubin=$(ls "$cap"/triton-softmax/*.cubin 2>/dev/null | head -1)
if [ -n "$cubin" ]; then
  nvdisasm --print-line-info-inline -c "$cubin" >"$cap/triton-softmax/nvdisasm-inline.txt" 2>&1
  note "- nvdisasm rc $?: $(wc -l <"$cap/triton-softmax/nvdisasm-inline.txt") lines"
  grep -m 5 'inlined' "$cap/triton-softmax/nvdisasm-inline.txt" | tee -a "$summary"
fi
grep -m 5 '@\[' "$cap"/triton-softmax/*.ptx | cut -c1-200 | tee -a "$summary"

note ""
note "## 5. a process waiting under ncu: does it block another profile on the same GPU?"
cat >"$w/waiter.py" <<'PY'
import os, sys, time, torch
torch.cuda.init(); x = torch.ones(1 << 20, device="cuda"); torch.cuda.synchronize()
open(sys.argv[1], "w").write("ready\n")
deadline = time.time() + 60
while not os.path.exists(sys.argv[2]) and time.time() < deadline:
    time.sleep(0.05)
torch.cuda.nvtx.range_push("kprof:cand0"); y = x * 2; torch.cuda.synchronize(); torch.cuda.nvtx.range_pop()
print("waiter done", float(y.sum()))
PY
t0=$(now)
ncu --csv --page raw --metrics gpu__time_duration.sum --nvtx --nvtx-include 'regex:kprof:cand[0-9]+/' \
  --clock-control none --log-file "$cap/waiter.log" python3 "$w/waiter.py" "$w/ready" "$w/go" >"$w/waiter.out" 2>&1 &
wpid=$!
for _ in $(seq 1 600); do [ -f "$w/ready" ] && break; sleep 0.1; done
note "- waiter ready after $(elapsed "$t0" "$(now)") s (python + torch + CUDA context under ncu)"
export PROBLEM=examples/vadd/problem.py
read -r rc t < <(profile vadd-while-waiting no examples/vadd/kernel.py)
note "- a second profile (vadd) while the waiter waits: rc $rc in $t s; rows: $(grep -c 'add_kernel' "$cap/vadd-while-waiting.log")"
t1=$(now); touch "$w/go"; wait $wpid
note "- waiter released: ncu exited $? after $(elapsed "$t1" "$(now)") s; rows: $(grep -c 'kprof:cand0' "$cap/waiter.log")"
ls /tmp/nsight-compute-lock* /tmp/*ncu* 2>/dev/null | head | tee -a "$summary"

tar -C "$w" -czf "$out/capture.tar.gz" capture
ls -la "$out"
echo "done"
