#!/usr/bin/env bash
# Issue 42: where a model's round goes (VGG16 at 23-25 s against the 12 s asked), variant by variant.
# For MODEL (default 11_VGG16, .device/kernelbench/MODEL.py), after one untimed round, one round
# of `kprof model` per variant of MODEL_VARIANTS (default below; a variant is LABEL=ARGS with
# ~ for spaces; "later" is the next round of the first variant's --out, and may come again), each into a fresh
# --out: wall seconds, exit code, and from the report the timeline's seconds, the session's wall,
# the profiled call's seconds, ncu's replay passes, the launches replayed, and whether the
# session started beside the timeline went on (the last round's filters, the same plan).
# Writes $OUT/model-costs.md and $OUT/model-costs-logs.tar.gz. Builds kprof unless SKIP_BUILD=1.
#   bench/device/run model-costs         (MODEL_BUDGET_S, default 540: no run starts past it)
set -uo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root" || exit 1
# shellcheck source=bench/device/common.sh
. "$root/bench/device/common.sh"
summary="$out/model-costs.md"; : >"$summary"
work=$(mktemp -d /tmp/kprof-model-costs.XXXXXX)
deadline=$(( $(date +%s) + ${MODEL_BUDGET_S:-540} ))
left() { echo $(( deadline - $(date +%s) )); }
model=${MODEL:-11_VGG16}
problem=".device/kernelbench/$model.py"

note "# Where a model's round goes: $model"
note ""
note_environment
note ""
build_unless_skipped
# The default set without its two SASS-patched metrics (coalescing and branch uniformity).
no_sass=$(default_metrics | tr , "\n" | grep -v "^smsp__sass_" | paste -sd,)
variants=${MODEL_VARIANTS:-"default= later= lean=--metrics~lean no-sass=--metrics~$no_sass no-truth=--no-timing~--no-check max12=--max-replayed~12 duration=--metrics~gpu__time_duration.sum"}

"$kprof" model "$problem" --clock-control none --out "$work/untimed" --no-history >/dev/null 2>&1

note "| variant | args | wall s | rc | timeline s | session wall s | call s | passes | replayed | gated session went on |"
note "|---|---|---|---|---|---|---|---|---|---|"
first_dir=""
later_round=0
for variant in $variants; do
  label=${variant%%=*}; args=${variant#*=}
  [ "$(left)" -gt 30 ] || { note "- $label: out of time"; continue; }
  IFS="~" read -r -a extra <<<"$args"
  if [ "$label" = later ] && [ -n "$first_dir" ]; then
    dir=$first_dir; later_round=$((later_round + 1)); round=$later_round
    label="later-$round"
  else
    dir="$work/$label"; round=0
  fi
  [ -n "$first_dir" ] || first_dir=$dir
  t0=$(now)
  timeout "$(( $(left) + 60 ))" "$kprof" model "$problem" --clock-control none --out "$dir" \
    --round "$round" --no-history --format json "${extra[@]}" >"$work/$label.json" 2>"$work/$label.err"
  rc=$?
  seconds=$(elapsed "$t0" "$(now)")
  facts=$(python3 - "$work/$label.json" <<'PY'
import json, sys
try:
    doc = json.load(open(sys.argv[1]))
except Exception:
    print("- | - | - | - | - |"); sys.exit()
m, w = doc.get("metadata", {}), doc.get("workload") or {}
def f(x):
    return "%.2f" % x if isinstance(x, (int, float)) else "-"
print("%s | %s | %s | %s | %s |" % (f(w.get("timeline_seconds")), f(m.get("session_wall_seconds")),
      f(m.get("call_seconds")), f(m.get("replay_passes")), w.get("replayed", len(doc.get("kernels") or []))))
PY
)
  went_on=no
  grep -q "goes on" "$work/$label.err" && went_on=yes
  note "| $label | $(echo "${extra[*]:-}" | cut -c1-40) | $seconds | $rc | $facts $went_on |"
done

tar -C "$work" --exclude="*.ncu-rep" --exclude=".cache" -czf "$out/model-costs-logs.tar.gz" . 2>/dev/null
