#!/usr/bin/env bash
# Issue 42 item 3: `kprof model --compile --extract` on KernelBench level-3 problems, each case profiled.
# Builds kprof (bench/device/common.sh, headers from .device/include), then for each problem of
# EXTRACT_MODELS (default "44_MiniGPTBlock 43_MinGPTCausalAttention", files in .device/kernelbench;
# an entry with a slash is a problem file's path, e.g. bench/device/models/triton_block.py, whose
# kernels are the user's own; an entry ending in ":eager" runs without --compile):
#   1. `kprof model PROBLEM --compile --extract CASES` (--clock-control none): wall time, exit
#      code, what it says about each of the costliest kernels;
#   2. `kprof profile CASE/kernel.py CASE/problem.py` of every extracted case: exit code, the
#      check, and the kernel's mean duration under ncu in the case against its mean duration
#      under ncu in the model's round (the launches ncu replayed there; both with ncu's cache
#      flush and --clock-control none) and in the model's timeline (every launch, PyTorch's
#      profiler, caches warm).
# With PAGE_MODEL=NAME (e.g. 35_LSTM), also `kprof model NAME` and its HTML page ($OUT/NAME.html),
# with the lanes of its report's workload.timeline.
# Writes $OUT/extract.md, the cases ($OUT/cases/<problem>/, with kernel.py as extracted: a real
# Inductor module) and $OUT/extract-logs.tar.gz.
#   bench/device/run extract      (SKIP_BUILD=1 reuses build-device/; EXTRACT_TOP=N, default 3)
set -uo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root"
# shellcheck source=bench/device/common.sh
. "$root/bench/device/common.sh"
summary="$out/extract.md"; : >"$summary"
work=$(mktemp -d /tmp/kprof-extract.XXXXXX)
kb="$root/.device/kernelbench"
deadline=$(( $(date +%s) + ${EXTRACT_BUDGET_S:-540} ))
left() { echo $(( deadline - $(date +%s) )); }

note "# Issue 42 item 3 on the device: kprof model --compile --extract"
note ""
note_environment
note ""
build_unless_skipped

for entry in ${EXTRACT_MODELS:-44_MiniGPTBlock 43_MinGPTCausalAttention}; do
  [ "$(left)" -gt 60 ] || { note "- $entry: out of time"; break; }
  spec=${entry%:eager}; compile=(--compile)
  [ "$spec" = "$entry" ] || compile=()
  case $spec in
  */*) problem="$root/$spec"; name=$(basename "$spec" .py) ;;
  *) problem="$kb/$spec.py"; name=$spec ;;
  esac
  dir="$work/$name"; cases="$work/cases/$name"
  t0=$(now)
  timeout "$(( $(left) - 20 ))" "$kprof" model "$problem" "${compile[@]}" --out "$dir" \
    --clock-control none --extract "$cases" --extract-top "${EXTRACT_TOP:-3}" --format prompt \
    >"$work/$name.out" 2>"$work/$name.err"
  rc=$?
  note ""
  note "## kprof model $name ${compile[*]} --extract: rc=$rc in $(elapsed "$t0" "$(now)") s"
  note '```'
  grep -E "extracted|not extracted|--extract" "$work/$name.err" >>"$summary"
  [ "$rc" = 0 ] || tail -8 "$work/$name.err" >>"$summary"
  note '```'
  [ -f "$cases/extracted.json" ] || continue
  for case in "$cases"/*/; do
    case=${case%/}; kernel=$(basename "$case")
    [ -f "$case/kernel.py" ] || continue
    [ "$(left)" -gt 40 ] || { note "- $kernel: out of time"; break; }
    t0=$(now)
    timeout "$(( $(left) - 15 ))" "$kprof" profile "$case/kernel.py" "$case/problem.py" \
      --out "$work/profile-$name-$kernel" --clock-control none --format json \
      >"$work/profile-$name-$kernel.json" 2>"$work/profile-$name-$kernel.err"
    prc=$?
    python3 - "$kernel" "$(find "$dir" -maxdepth 2 -name report.json | head -1)" "$work/profile-$name-$kernel.json" "$prc" \
      "$(elapsed "$t0" "$(now)")" "$cases/extracted.json" >>"$summary" <<'PY'
import json, sys
kernel, model_path, case_path, rc, seconds, extracted_path = sys.argv[1:7]

def mean_ns(report, name):
    for k in (report.get("summary") or {}).get("kernels") or []:
        if k.get("name") == name and k.get("launches"):
            return k["duration_ns"] / k["launches"]
    return None

try:
    model = json.load(open(model_path))
except (OSError, ValueError):
    model = {}
try:
    case = json.load(open(case_path))
except (OSError, ValueError):
    case = {}
extracted = {k["name"]: k for k in json.load(open(extracted_path))["kernels"]}
entry = extracted.get(kernel, {})
in_model = mean_ns(model, kernel)
in_case = mean_ns(case, kernel)
timeline = entry.get("total_us", 0) * 1000 / entry["launches"] if entry.get("launches") else None
check = ((case.get("truth") or {}).get("check") or {})
words = "- %s: kprof profile rc=%s in %s s; check %s" % (kernel, rc, seconds, check.get("verdict", check.get("passed", "-")))
if in_case and in_model:
    words += "; ncu mean %.2f us in the case, %.2f us in the model's round: %+.1f%%" % (
        in_case / 1000, in_model / 1000, 100 * (in_case - in_model) / in_model)
if in_case and timeline:
    words += "; timeline mean in the model %.2f us (%+.1f%%)" % (timeline / 1000, 100 * (in_case - timeline) / timeline)
print(words)
PY
  done
  # The cases, under short names ($OUT keeps paths of limited depth and length).
  mkdir -p "$out/cases/$name"
  cp "$cases/extracted.json" "$out/cases/$name/" 2>/dev/null
  i=0
  for case in "$cases"/*/; do
    i=$((i + 1)); mkdir -p "$out/cases/$name/case$i"
    cp "$case"/*.py "$out/cases/$name/case$i/" 2>/dev/null
    basename "$case" >"$out/cases/$name/case$i/NAME"
  done
done

if [ -n "${PAGE_MODEL:-}" ] && [ "$(left)" -gt 60 ]; then
  dir="$work/page-$PAGE_MODEL"
  t0=$(now)
  timeout "$(( $(left) - 10 ))" "$kprof" model "$kb/$PAGE_MODEL.py" --out "$dir" --clock-control none \
    --format json >"$work/page-$PAGE_MODEL.json" 2>"$work/page-$PAGE_MODEL.err"
  rc=$?
  report=$(find "$dir" -maxdepth 2 -name report.json | head -1)
  note ""
  note "## kprof model $PAGE_MODEL: rc=$rc in $(elapsed "$t0" "$(now)") s; its page and timeline"
  [ -n "$report" ] && "$kprof" report "$report" --format html --out "$out/$PAGE_MODEL.html" \
    && python3 - "$report" "$out/$PAGE_MODEL.html" >>"$summary" <<'PY'
import json, os, sys
doc = json.load(open(sys.argv[1]))
timeline = doc["workload"]["timeline"]
print("- %d launches; timeline span %.1f us in %d bins; page %d bytes" % (
    doc["workload"]["launches"], timeline["span_us"], timeline["bins"], os.path.getsize(sys.argv[2])))
for lane in timeline["lanes"]:
    busy = lane["busy_us"]
    print("  - %s: %.1f us busy in %d bins" % (lane["function"][:60], sum(busy), sum(1 for b in busy if b > 0)))
print("- kernel time %.1f us; the lanes hold %.1f us" % (
    doc["workload"]["kernel_time_us"], sum(sum(l["busy_us"]) for l in timeline["lanes"])))
PY
fi

tar -C "$work" --exclude="*.ncu-rep" --exclude=".cache" -czf "$out/extract-logs.tar.gz" . 2>/dev/null
cat "$summary"
