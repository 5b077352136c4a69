#!/usr/bin/env bash
# Issue 42 items 1-2: many launches in two tiers, timed on LSTM, VGG16, RNN and softmax
# (one visit, under 9 minutes). Builds kprof (bench/device/common.sh, headers from
# .device/include), then
#   1. what ncu's `--filter-mode per-launch-config` counts per: the rows of `ncu --filter-mode
#      per-launch-config --launch-count 1` on LSTM's and VGG16's call against the distinct
#      (grid, block, shared memory) and (name, grid, block, shared memory) of the same call's
#      timeline (bench/device/workload_groups.py); and whether kprof's --kernel-name regex form
#      selects under it (rows > 0);
#   2. cold `kprof profile` (--launches auto, the default) of KernelBench's 35_LSTM, 11_VGG16,
#      34_VanillaRNNHidden and level 1's 23_Softmax, each problem's reference as the candidate
#      (kernel.py: kernel_function(*args) calls Model(*init_inputs) on the inputs), medians of 3
#      while the time allows; and --launches all for softmax and VGG16 (today's behaviour);
#   3. what the LSTM, VGG16 and RNN reports say (prompt format) and the progress lines;
#   4. `kprof model` (issue 42 item 3) on the problems of WORKLOAD_MODELS ("NAME[:compile] ...",
#      default "35_LSTM 11_VGG16 11_VGG16:compile"): wall time, exit code, the first lines.
# Writes $OUT/workload.md and $OUT/workload-logs.tar.gz.
#   bench/device/run workload      (SKIP_BUILD=1 reuses build-device/; WORKLOAD_PARTS="2 3 4" skips
#   part 1, measured already; WORKLOAD_RUNS=N caps the runs per problem; WORKLOAD_PROFILES
#   "NAME:LAUNCHES:RUNS ..." names part 2's profiles, e.g. "35_LSTM:many:2"; WORKLOAD_SAME_OUT=1
#   makes a problem's runs rounds of one --out)
set -uo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root"
# shellcheck source=bench/device/common.sh
. "$root/bench/device/common.sh"
summary="$out/workload.md"; : >"$summary"
work=$(mktemp -d /tmp/kprof-workload.XXXXXX)
logs="$work/logs"; mkdir -p "$logs"
kb="$root/.device/kernelbench"
deadline=$(( $(date +%s) + ${WORKLOAD_BUDGET_S:-520} ))
left() { echo $(( deadline - $(date +%s) )); }

note "# Issue 42 on the device: many launches in two tiers"
note ""
note_environment
note ""
build_unless_skipped

# Where a run's wall time went (DIR ERR): its report's phase times and its progress lines.
phases() {
  local report
  report=$(find "$1" -name report.json 2>/dev/null | head -1)
  [ -n "$report" ] && note "- phases: $(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); m=d["metadata"]; w=d.get("workload") if isinstance(d.get("workload"), dict) else {}; print(", ".join("%s %.2f" % (k, v) for k, v in sorted(list(m.items()) + list(w.items())) if "seconds" in k and isinstance(v, (int, float))))' "$report" 2>&1 | tail -1)"
  note "- progress: $(tr '\n' ' ' <"$2" | cut -c1-600)"
}

# A candidate per problem: the reference itself.
candidate() { # PROBLEM -> path of its kernel.py
  local name dir
  name=$(basename "$1" .py); dir="$work/cands/$name"; mkdir -p "$dir"
  cat >"$dir/kernel.py" <<PY
import importlib.util

import torch

_spec = importlib.util.spec_from_file_location("_reference_problem", "$1")
_problem = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_problem)
_init = list(_problem.get_init_inputs())
_model = None


def kernel_function(*args):
    """The problem's Model on the inputs: kprof passes (*inputs, *init_inputs)."""
    global _model
    if _model is None:
        torch.manual_seed(0)
        _model = _problem.Model(*_init).cuda().eval()
    inputs = args[: len(args) - len(_init)] if _init else args
    with torch.no_grad():
        return _model(*inputs)
PY
  echo "$dir/kernel.py"
}

parts=${WORKLOAD_PARTS:-"1 2 3 4"}
part() { [[ " $parts " == *" $1 "* ]]; }
runs_cap=${WORKLOAD_RUNS:-3}
runs() { echo $(( $1 < runs_cap ? $1 : runs_cap )); }

# ---- 1. what per-launch-config counts per -------------------------------------------------------
part 1 && note "## 1. ncu --filter-mode per-launch-config --launch-count 1"
empty=$(mktemp -d)
part 1 && for name in 35_LSTM 11_VGG16; do
  problem="$kb/$name.py"
  [ -f "$problem" ] || { note "- $name: no $problem"; continue; }
  kernel=$(candidate "$problem")
  # The timeline: kprof's harness in its timeline mode, through a --launches auto profile of the
  # reference (its session directory keeps timeline.json).
  t0=$(now)
  timeout 150 "$kprof" profile "$kernel" "$problem" --out "$work/groups-$name" --clock-control none \
    --no-history >"$logs/groups-$name.profile.out" 2>"$logs/groups-$name.profile.err"
  note "- $name: kprof profile (auto) rc=$? in $(elapsed "$t0" "$(now)") s"
  timeline=$(find "$work/groups-$name" -name timeline.json | head -1)
  for filter in plain regex; do
    extra=()
    if [ "$filter" = regex ]; then
      extra=(--kernel-name "regex:^(.*::)?(gemmSN_TN_kernel|elementwise_kernel)([<(].*)?\$")
    fi
    t0=$(now)
    timeout 150 ncu --clock-control none --target-processes all --csv --page raw \
      --section-folder "$empty" --metrics gpu__time_duration.sum --nvtx --nvtx-include "kprof_call/" \
      --filter-mode per-launch-config --launch-count 1 "${extra[@]}" \
      python3 bench/device/workload_probe.py call "$problem" \
      >"$logs/$name.per-config-$filter.csv" 2>"$logs/$name.per-config-$filter.err"
    rc=$?
    rows=$(grep -c '^"[0-9]' "$logs/$name.per-config-$filter.csv")
    verdict=""
    if [ "$filter" = plain ] && [ -n "$timeline" ]; then
      verdict=$(python3 bench/device/workload_groups.py "$timeline" "$logs/$name.per-config-$filter.csv" 2>&1 | tail -1)
    fi
    note "- $name, $filter: rc=$rc, $(elapsed "$t0" "$(now)") s, $rows rows${verdict:+: \`$verdict\`}"
  done
done
note ""

part 2 || WORKLOAD_PROFILES=" "
# ---- 2. cold kprof profile ----------------------------------------------------------------------
note "## 2. cold kprof profile (--clock-control none)"
note ""
note "| problem (launches) | call's launches | runs (s) | median (s) | replayed | covered | ncu.log Profiling lines | rc |"
note "|---|---|---|---|---|---|---|---|"
profile_runs() { # NAME PROBLEM RUNS LAUNCHES
  local name=$1 problem=$2 runs=$3 launches=$4 times=() rc=0 i t0 dir report kernel median
  kernel=$(candidate "$problem")
  for ((i = 1; i <= runs; i++)); do
    [ "$(left)" -gt 60 ] || { note "- $name ($launches): out of time after $((i - 1)) runs"; break; }
    dir="$work/runs/$name-$launches-$i"
    # WORKLOAD_SAME_OUT=1: every run a round of one --out, as an agent running kprof once per
    # round does (the launch memory of the out dir then skips the capped session after run 1).
    [ "${WORKLOAD_SAME_OUT:-0}" = 1 ] && dir="$work/runs/$name-$launches-1"
    t0=$(now)
    timeout "$(( $(left) - 20 ))" "$kprof" profile "$kernel" "$problem" --out "$dir" --round "$i" \
      --clock-control none --launches "$launches" --no-history \
      >"$logs/$name-$launches-$i.out" 2>"$logs/$name-$launches-$i.err"
    rc=$?
    times+=("$(elapsed "$t0" "$(now)")")
    if [ "$i" = 1 ]; then # noted after the table
      echo "- $name ($launches), run 1:" >>"$work/phases.md"
      summary="$work/phases.md" phases "$dir" "$logs/$name-$launches-$i.err" >/dev/null
    fi
  done
  report=$(find "$work/runs/$name-$launches-1" -name report.json 2>/dev/null | sort | head -1)
  local facts="- | - | -"
  if [ -n "$report" ]; then
    facts=$(python3 - "$report" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
w = d.get("workload")
if w is None:
    n = d["summary"]["launches"]
    print("%d | %d (every launch) | -" % (n, n))
else:
    print("%d | %d of %d planned | %.0f%%" % (w["launches"], w["replayed"], w["planned"], 100 * w["covered_share"]))
PY
)
  fi
  # Whether ncu's log holds a "==PROF== Profiling" line per replay under --csv (the progress
  # lines and metadata.timeline's replay count read them).
  facts="$facts | $(cat "$work/runs/$name-$launches-1"/round*/ncu.log 2>/dev/null | grep -c '==PROF== Profiling')"
  median=$(printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {if (NR) print a[int((NR+1)/2)]; else print "-"}')
  note "| $name ($launches) | $(echo "$facts" | cut -d'|' -f1) | ${times[*]} | $median |$(echo "$facts" | cut -d'|' -f2)|$(echo "$facts" | cut -d'|' -f3) |$(echo "$facts" | cut -d'|' -f4) | $rc |"
}
# WORKLOAD_PROFILES: "NAME:LAUNCHES:RUNS ..." in order (NAME a file of .device/kernelbench/).
profiles=${WORKLOAD_PROFILES:-"l1_23_Softmax:auto:3 l1_23_Softmax:all:2 35_LSTM:auto:3 11_VGG16:auto:3 34_VanillaRNNHidden:auto:3 11_VGG16:all:1"}
for entry in $profiles; do
  IFS=: read -r name launches count <<<"$entry"
  profile_runs "${name#l1_}" "$kb/$name.py" "$(runs "$count")" "$launches"
done
note ""
[ -f "$work/phases.md" ] && tee -a "$summary" <"$work/phases.md" && note ""

# ---- 3. what the reports say ----------------------------------------------------------------------
part 3 && note "## 3. the reports (prompt format, first lines) and progress"
part 3 && for name in 35_LSTM 11_VGG16 34_VanillaRNNHidden; do
  report=$(find "$work/runs/$name-auto-1" -name report.json 2>/dev/null | sort | head -1)
  [ -n "$report" ] || { note "- $name: no report ($(tail -2 "$logs/$name-auto-1.err" 2>/dev/null | tr '\n' ' '))"; continue; }
  note ""
  note "### $name"
  note '```'
  "$kprof" report "$report" --format prompt 2>&1 | head -16 >>"$summary"
  note '```'
  note "stderr: $(grep -c 'replayed' "$logs/$name-auto-1.err") progress lines; first: $(grep -m1 'launches of' "$logs/$name-auto-1.err")"
done

# ---- 4. kprof model ---------------------------------------------------------------------------------
part 4 && note "" && note "## 4. kprof model PROBLEM.py (--clock-control none)"
models=${WORKLOAD_MODELS:-"35_LSTM 11_VGG16 11_VGG16:compile"}
part 4 && for entry in $models; do
  IFS=: read -r name mode <<<"$entry"
  [ "$(left)" -gt 60 ] || { note "- $entry: out of time"; break; }
  flags=(); [ "$mode" = compile ] && flags=(--compile)
  dir="$work/runs/model-$name-${mode:-eager}"
  t0=$(now)
  timeout "$(( $(left) - 20 ))" "$kprof" model "$kb/$name.py" --out "$dir" --clock-control none \
    "${flags[@]}" --format prompt >"$logs/model-$name-${mode:-eager}.out" 2>"$logs/model-$name-${mode:-eager}.err"
  rc=$?
  note ""
  note "### kprof model $name ${flags[*]}: rc=$rc in $(elapsed "$t0" "$(now)") s"
  note '```'
  head -24 "$logs/model-$name-${mode:-eager}.out" >>"$summary"
  [ "$rc" = 0 ] || tail -5 "$logs/model-$name-${mode:-eager}.err" >>"$summary"
  note '```'
  phases "$dir" "$logs/model-$name-${mode:-eager}.err"
done

tar -C "$work" -czf "$out/workload-logs.tar.gz" logs runs 2>/dev/null
rm -rf "$empty"
cat "$summary"
