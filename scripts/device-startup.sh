#!/usr/bin/env bash
# Issue 22, where a cold profile's time goes before the candidate runs, and the source page's
# export: (1) Python, `import torch` and a CUDA context with and without ncu; (2) the first
# profiled kernel's cost with a primer launched from a thread before `import torch`
# (scripts/device-startup.py); (3) `ncu --import` of a source-counters report, by page and source
# view. Builds kprof (for its default metric list) unless SKIP_BUILD=1. Results in $OUT/summary.md.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
# shellcheck source=scripts/device-common.sh
. "$root/scripts/device-common.sh"
note "# kprof: a cold session's start and the source export"
note_environment
build_unless_skipped python
work=$(mktemp -d /tmp/kprof-startup.XXXXXX)
metrics=$(default_metrics)
filter=(--nvtx --nvtx-include 'regex:kprof:(cand[0-9]+|primer)/')
nvtx_lib=$(find / -xdev \( -name 'libnvToolsExt.so*' -o -name 'libnvtx3interop*.so*' \) 2>/dev/null | head -5 | tr '\n' ' ')
note "- NVTX libraries found: ${nvtx_lib:-none}"
export NVTX_LIB=${nvtx_lib%% *}

note ""
note "## (1) start costs, two runs each (s)"
for what in "pass" "import torch" "import torch, triton" "import torch; torch.ones(1, device='cuda'); torch.cuda.synchronize()"; do
  for under in plain ncu; do
    times=""
    for i in 1 2; do
      t=$(now)
      if [ $under = ncu ]; then
        ncu --clock-control none "${filter[@]}" --csv --page raw --metrics gpu__time_duration.sum \
          python3 -c "$what" >/dev/null 2>&1
      else
        python3 -c "$what" >/dev/null 2>&1
      fi
      times="$times $(elapsed "$t" "$(now)")"
    done
    note "- \`$what\` $under:$times"
  done
done

note ""
note "## (2) a primer from a thread before import torch (default set, three runs each)"
for mode in plain thread nonvtx plain thread; do
  t=$(now)
  ncu --clock-control none "${filter[@]}" --csv --page raw --metrics "$metrics" \
    python3 scripts/device-startup.py $mode >"$work/$mode.csv" 2>"$work/$mode.err"
  wall=$(elapsed "$t" "$(now)")
  note "- $mode: wall $wall s; rows: $(grep -o 'kprof:[a-z0-9]*' "$work/$mode.csv" | sort | uniq -c | tr '\n' ' '); $(grep '^{' "$work/$mode.err" | tail -1)"
done
grep -h 'ERR\|rror' "$work"/*.err | head -5 | sed 's/^/    /' | tee -a "$summary"

note ""
note "## (3) ncu --import of a report with source counters (softmax), three runs each (s)"
cat >"$work/softmax_run.py" <<PY
import importlib.util, os, sys, torch
spec = importlib.util.spec_from_file_location("k", "$root/examples/softmax/kernel.py")
k = importlib.util.module_from_spec(spec); spec.loader.exec_module(k)
x = torch.randn(16384, 4096, device="cuda", dtype=torch.float16)
for _ in range(2): k.kernel_function(x)
torch.cuda.synchronize()
torch.cuda.nvtx.range_push("kprof:cand0"); k.kernel_function(x); torch.cuda.synchronize(); torch.cuda.nvtx.range_pop()
sys.stdout.flush(); os._exit(0)
PY
t=$(now)
ncu --clock-control none "${filter[@]}" --metrics "$metrics" --section SourceCounters --section WarpStateStats \
  --import-source yes -o "$work/src" -f python3 "$work/softmax_run.py" >"$work/src.out" 2>&1
note "- session with -o: $(elapsed "$t" "$(now)") s, report $(stat -c %s "$work/src.ncu-rep" 2>/dev/null) bytes"
run_import() { # label, args...
  local label=$1; shift
  local times="" bytes=0
  for i in 1 2 3; do
    t=$(now); ncu "$@" >"$work/import.out" 2>&1; times="$times $(elapsed "$t" "$(now)")"
    bytes=$(stat -c %s "$work/import.out")
  done
  note "- $label:$times ($bytes bytes)"
}
run_import "ncu --version" --version
run_import "--page raw --csv" --import "$work/src.ncu-rep" --page raw --csv
run_import "--page source --print-source cuda,sass --csv" --import "$work/src.ncu-rep" --page source --print-source cuda,sass --csv
run_import "--page source --print-source sass --csv" --import "$work/src.ncu-rep" --page source --print-source sass --csv
run_import "--page source --print-source cuda --csv" --import "$work/src.ncu-rep" --page source --print-source cuda --csv
run_import "--page details --csv" --import "$work/src.ncu-rep" --page details --csv
run_import "source cuda,sass, --metrics of 3" --import "$work/src.ncu-rep" --page source --print-source cuda,sass --csv \
  --metrics smsp__pcsamp_sample_count,inst_executed,memory_l2_theoretical_sectors_global
# Does a live session print the source page itself?
t=$(now)
ncu --clock-control none "${filter[@]}" --metrics "$metrics" --section SourceCounters --section WarpStateStats \
  --page source --print-source cuda,sass --csv python3 "$work/softmax_run.py" >"$work/live_source.out" 2>&1
note "- live session --page source: $(elapsed "$t" "$(now)") s, $(wc -l <"$work/live_source.out") lines, first: $(head -c 160 "$work/live_source.out" | tr '\n' ' ')"
cp "$work"/*.err "$work/import.out" "$out/" 2>/dev/null
head -c 4000 "$work/live_source.out" >"$out/live_source_head.txt"
rm -rf "$work"
