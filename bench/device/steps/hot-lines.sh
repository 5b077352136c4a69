#!/usr/bin/env bash
# Hot lines on a real GPU (issue 9, docs/hot-lines.md), from the repository root of the GPU
# machine. Builds kprof and its Python module into build-device/ (bench/device/common.sh), then:
#   1. the four examples with --source: the hot lines of each kernel, wall time with and
#      without --source (the same warm Triton cache);
#   2. softmax with --metrics deep (implies --source): hot lines, the fp32 roofline inputs;
#   3. kprof batch --source of two softmax candidates, the second one in /dev/shm (a path that
#      sorts before Triton's own files): each candidate's hot lines must name its own file;
#   4. ncu's import filters on the source page (--launch-skip/--launch-count), for the record;
#   5. kprof report R.ncu-rep --source, and the Python API with source=True.
# Results in $OUT (or ./device-out): summary.md plus the reports and prompts.
set -uo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root"
# shellcheck source=bench/device/common.sh
. "$root/bench/device/common.sh"
work=$(mktemp -d /tmp/kprof-hot.XXXXXX)
clock=${KPROF_CLOCK:-none}

note "# kprof hot lines on the GPU"
note_environment
note "- clock control: $clock"

t0=$(now)
build_kprof python
note "- build: in $(elapsed "$t0" "$(now)") s"

# Prints the hot lines of a report (or of each candidate of a batch document).
show() {
  python3 - "$1" <<'PY'
import json, os, sys
doc = json.load(open(sys.argv[1]))
docs = [c["report"] for c in doc["candidates"] if c.get("report")] if doc.get("kind") == "batch" else [doc]
for d in docs:
    md = d["metadata"]
    print(f"- {os.path.basename(md.get('kernel_file', '?'))}: hot_lines metadata {json.dumps(md.get('hot_lines'))}")
    for k in d["kernels"]:
        h = k.get("hot_lines")
        if not h:
            print(f"  - {k['name']} (id {k['id']}): NO HOT LINES")
            continue
        top = h["lines"][:3]
        print(f"  - {k['name']} (id {k['id']}): {h['samples']:.0f} samples; unattributed "
              f"{sum(p['samples'] for p in h['unattributed']):.0f}; notes {h.get('notes')}")
        for line in top:
            inl = ", ".join(sorted({p.get('callee') or '?' for p in line.get('inlined', [])}))
            stalls = ", ".join(f"{s['reason']} {s['share']:.0%}" for s in line["stalls"])
            print(f"    - {os.path.basename(line['file'])}:{line['line']} {line['share']:.1%} "
                  f"({line['samples']:.0f}) `{line['source'].strip()[:70]}` stalls: {stalls}"
                  f"{'; inlined ' + inl if inl else ''}; memory {json.dumps(line.get('memory'))}")
PY
}

# The prompt text of a report document (Python's kprof.render: the same sink as the CLI).
prompt() {
  PYTHONPATH="$build/python" python3 -c "import json, sys, kprof; print(kprof.render(json.load(open(sys.argv[1])), 'prompt'))" "$1" 2>&1
}

note ""
note "## 1. the examples with --source (one warm-up run each first, then timed runs)"
for case in vadd twostage softmax matmul; do
  dir="$work/cases/$case"
  k=examples/$case/kernel.py; p=examples/$case/problem.py
  timeout 300 "$kprof" profile "$k" "$p" --out "$dir" --round 0 --clock-control "$clock" --format json >/dev/null 2>&1
  t0=$(now); timeout 300 "$kprof" profile "$k" "$p" --out "$dir" --round 1 --clock-control "$clock" \
    --format json >"$out/$case-plain.json" 2>"$out/$case-plain.err"; rc0=$?; t_plain=$(elapsed "$t0" "$(now)")
  t0=$(now); timeout 300 "$kprof" profile "$k" "$p" --out "$dir" --round 2 --clock-control "$clock" \
    --source --format json >"$out/$case-source.json" 2>"$out/$case-source.err"; rc1=$?; t_src=$(elapsed "$t0" "$(now)")
  note ""
  note "### $case: without --source rc=$rc0 in $t_plain s; with --source rc=$rc1 in $t_src s"
  show "$out/$case-source.json" | tee -a "$summary"
  prompt "$out/$case-source.json" >"$out/$case-source.prompt.txt"
  cp "$dir/round002/"*/source.csv "$out/$case.source.csv" 2>/dev/null || cp "$dir/round002/source.csv" "$out/$case.source.csv" 2>/dev/null
done
find "$work/cases/softmax/round002" -maxdepth 3 | sed "s|$work/||" >"$out/softmax-round-layout.txt"

note ""
note "## 2. softmax with --metrics deep"
dir="$work/deep"
t0=$(now); timeout 400 "$kprof" profile examples/softmax/kernel.py examples/softmax/problem.py --out "$dir" \
  --round 1 --clock-control "$clock" --metrics deep --format json >"$out/softmax-deep.json" 2>"$out/softmax-deep.err"
note "- rc=$? in $(elapsed "$t0" "$(now)") s"
show "$out/softmax-deep.json" | tee -a "$summary"
python3 - "$out/softmax-deep.json" <<'PY' | tee -a "$summary"
import json, sys
k = json.load(open(sys.argv[1]))["kernels"][0]["metrics"]
for name in ["smsp__sass_thread_inst_executed_op_ffma_pred_on.sum.per_cycle_elapsed",
             "smsp__cycles_elapsed.avg.per_second"]:
    hits = {key: v for key, v in k.items() if name in key}
    print(f"- {name}: {json.dumps(hits) if hits else 'MISSING'}")
PY
"$kprof" view "$dir" >/dev/null 2>&1 && cp "$dir/index.html" "$out/softmax-deep-view.html"

note ""
note "## 3. batch --source: examples/softmax/kernel.py and cand1.py in /dev/shm"
shm=/dev/shm/kprof-hot-$$; mkdir -p "$shm"; cp examples/softmax_variants/cand1.py "$shm/cand1.py"
dir="$work/batch"
t0=$(now); timeout 400 "$kprof" batch examples/softmax/problem.py examples/softmax/kernel.py "$shm/cand1.py" \
  --out "$dir" --round 1 --clock-control "$clock" --source --format json >"$out/batch.json" 2>"$out/batch.err"
note "- rc=$? in $(elapsed "$t0" "$(now)") s"
show "$out/batch.json" | tee -a "$summary"
src=$(find "$dir/round001" -name source.csv | head -1)
[ -n "$src" ] && cp "$src" "$out/batch.source.csv" && grep -n '^"File Path"' "$src" | tee -a "$summary"
rep=$(find "$dir/round001" -name 'report.ncu-rep' | head -1)

note ""
note "## 4. ncu's import filters on the source page"
if [ -n "$rep" ]; then
  for filter in "--launch-skip 1 --launch-count 1" "--launch-count 1"; do
    # shellcheck disable=SC2086
    ncu --import "$rep" --page source --print-source cuda,sass --csv $filter >"$work/filter.csv" 2>&1
    note "- \`$filter\`: rc=$?, blocks: $(grep '^"File Path"' "$work/filter.csv" | sed 's/"File Path",//' | tr '\n' ' ')"
  done
fi

note ""
note "## 5. kprof report R.ncu-rep --source, and Python"
if [ -n "$rep" ]; then
  t0=$(now); "$kprof" report "$rep" --source --format prompt >"$out/report-ncu-rep.prompt.txt" 2>&1
  note "- kprof report --source: rc=$? in $(elapsed "$t0" "$(now)") s; $(grep -c '^- ' "$out/report-ncu-rep.prompt.txt") hot-line bullets"
fi
PYTHONPATH="$build/python" timeout 300 python3 - "$work/py" "$clock" <<'PY' 2>&1 | tail -20 | tee -a "$summary"
import sys, time, kprof
work, clock = sys.argv[1], sys.argv[2]
p = kprof.KernelProfiler(work, clock_control=clock, source=True)
t0 = time.perf_counter()
r = p.profile_kernel("examples/softmax/kernel.py", "examples/softmax/problem.py", round_num=1)
wall = time.perf_counter() - t0
if r is None:
    print("- python: FAILED")
else:
    for name, hot in r.hot_lines.items():
        top = hot["lines"][0]
        print(f"- python source=True in {wall:.1f} s: {name}: top line {top['line']} {top['share']:.1%} `{top['source'].strip()[:60]}`")
PY
rm -rf "$shm"
note ""
note "done"
