#!/usr/bin/env bash
# Issue 43 on a GPU machine: is the truth beside the counters (time, check, speed of light) true?
# `bench/device/run truth`; builds kprof and its Python module into build-device/
# (bench/device/common.sh, SKIP_BUILD=1 reuses it). Checks, each a PASS/FAIL line in
# $OUT/summary.md:
#   1. time: for each case (CASES, default vadd twostage softmax matmul from examples/, copies of
#      /work/shared/cases; an entry with a slash is a case directory relative to the repository,
#      e.g. .kernelagent/examples/optimize_02_rmsnorm, whose kernel is kernel.py or input.py), the median kprof measured (in the truth's own process, outside ncu)
#      and the cold profile's wall time with and without the truth, against
#      triton.testing.do_bench's median and kprof's own timing in a plain process (bench/device/truth.py do_bench), within TIME_TOL (0.03);
#   2. the speed of light by hand: matmul's FLOPs are 2*M*N*K, softmax's bytes its input and
#      output once, within 1% (LIGHT: "CASE:KIND ...", default "matmul:matmul softmax:bytes");
#   3. a planted off-by-one and a NaN candidate (the vadd kernel with one element changed) are
#      partial with wrong_output, and the right one ranks first;
#   4. the per-candidate cost of the truth in the standby agent loop: bench/device/standby.py
#      (standby, softmax, THINK=2) with TRUTH=1 against TRUTH=0.
# CAST (none) is kprof's --cast for check 1, and do_bench casts the same way (auto: by the
# kernel's words, as KernelAgent's optimize_01_matvec needs bf16).
# TRUTH_PARTS="1 2 3 4" picks the checks; LOOP_CASES (softmax) and THINK (2) set check 4's loop.
# DRY_RUN=1 runs steps 1-3 with the stand-in ncu and the fake torch (tests/standins) and
# KPROF=<built kprof>, with no GPU: the plumbing only (do_bench and the hand counts need the
# real torch and are skipped, said so).
set -uo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root"
# shellcheck source=bench/device/common.sh
. "$root/bench/device/common.sh"
dry=${DRY_RUN:-0}
cases=${CASES:-"vadd twostage softmax matmul"}
time_tol=${TIME_TOL:-0.03}
parts=${TRUTH_PARTS:-"1 2 3 4"}
part() { [[ " $parts " == *" $1 "* ]]; }
work=$(mktemp -d /tmp/kprof-truth.XXXXXX)
helper="python3 $root/bench/device/truth.py"
fails=0
check() { # runs a bench/device/truth.py check; its lines go to the summary, a FAIL line or a crash counts
  local code=0
  "$@" >"$work/check.out" 2>&1 || code=$?
  tee -a "$summary" <"$work/check.out"
  if grep -q '^FAIL' "$work/check.out"; then
    fails=$((fails + 1))
  elif [ "$code" -ne 0 ]; then
    note "FAIL the check exited $code: $*"
    fails=$((fails + 1))
  fi
}

note "# kprof: the truth beside the counters (issue 43)"
if [ "$dry" = 1 ]; then
  kprof=${KPROF:-$root/build/kprof}
  export PYTHONPATH="$root/tests/standins/fake_torch" KPROF_FAKE_EVENT_MS=0.5 \
    KPROF_FAKE_NCU_CSV=batch4_flat_regex_ranges.csv
  ncu_args=(--ncu "$root/tests/standins/ncu" --python "$(command -v /usr/bin/python3 || command -v python3)")
  note "- dry run: stand-in ncu, fake torch, $kprof"
  cases="truth"
  case_dir() { echo "$root/tests/python/cases/truth"; }
else
  note_environment
  build_unless_skipped python
  ncu_args=(--clock-control "${KPROF_CLOCK:-none}" --cast "${CAST:-none}")
  case_dir() { case $1 in */*) echo "$root/$1" ;; *) echo "$root/examples/$1" ;; esac }
fi
kernel_of() { if [ -f "$1/kernel.py" ]; then echo "$1/kernel.py"; else echo "$1/input.py"; fi }

# ---- 1. time ----------------------------------------------------------------------------------
note ""
part 1 && note "## 1. measured median against do_bench (limit ${time_tol})"
part 1 && for case in $cases; do
  dir=$(case_dir "$case")
  kernel=$(kernel_of "$dir")
  [ "$dry" = 1 ] && kernel="$dir/right.py"
  name=$(basename "$case")
  # Round 3 (untimed) fills Triton's cache; then round 2 without the truth, round 1 with it.
  "$kprof" profile "$kernel" "$dir/problem.py" "${ncu_args[@]}" --round 3 --out "$work/$name" \
    --no-check --no-timing --format json >/dev/null 2>&1
  t0=$(now)
  "$kprof" profile "$kernel" "$dir/problem.py" "${ncu_args[@]}" --round 2 --out "$work/$name" \
    --no-check --no-timing --format json >/dev/null 2>&1
  without_truth=$(elapsed "$t0" "$(now)")
  t0=$(now)
  "$kprof" profile "$kernel" "$dir/problem.py" "${ncu_args[@]}" --round 1 --out "$work/$name" --format json \
    >"$work/$name.json" 2>"$work/$name.err"
  code=$?
  note "- $name: cold kprof profile $(elapsed "$t0" "$(now)") s with the truth, ${without_truth} s with --no-check --no-timing"
  note "- $name: kprof exit $code; $(python3 -c 'import json,sys; t=(json.load(open(sys.argv[1])).get("truth") or {}); print("timing", json.dumps(t.get("timing") and {k: t["timing"].get(k) for k in ("median_us","count","mode","timed_in","gpu_moved")}), "| speed of light", json.dumps(t.get("speed_of_light") and {k: t["speed_of_light"].get(k) for k in ("ideal_us","bound","share")}), "| reference", json.dumps(t.get("reference") and t["reference"].get("speedup")), "| ncu vs measured", json.dumps(t.get("ncu_vs_measured")))' "$work/$name/round001/report.json" 2>&1 | tail -1)"
  if [ "$dry" = 1 ]; then
    note "- $name: do_bench skipped (dry run: no triton.testing)"
  else
    python3 "$root/bench/device/truth.py" do_bench "$dir" "${CAST:-none}" >"$work/$name.bench" 2>>"$work/$name.err"
    check $helper compare "$work/$name/round001/report.json" "$work/$name.bench" "$time_tol"
  fi
done

# ---- 2. speed of light by hand -----------------------------------------------------------------
note ""
note "## 2. speed of light by hand (1%)"
if [ "$dry" = 1 ]; then
  note "- skipped (dry run: the hand counts need the real torch)"
elif part 2; then
  for pair in ${LIGHT:-matmul:matmul softmax:bytes}; do
    case=${pair%:*}
    [[ " $cases " == *" $case "* ]] &&
      check $helper light "$work/$(basename "$case")/round001/report.json" "$(case_dir "$case")" "${pair##*:}" 0.01
  done
fi

# ---- 3. planted wrong candidates -----------------------------------------------------------------
if part 3; then
  note ""
  note "## 3. a planted off-by-one and a NaN candidate"
  if [ "$dry" = 1 ]; then
    dir=$(case_dir truth)
    set -- "$dir/right.py" "$dir/off_by_one.py" "$dir/nan.py"
    problem="$dir/problem.py"
  else
    dir=$(case_dir vadd)
    $helper plant "$dir" "$work"
    set -- "$dir/kernel.py" "$work/off_by_one.py" "$work/nan.py"
    problem="$dir/problem.py"
  fi
  "$kprof" batch "$problem" "$@" "${ncu_args[@]}" --out "$work/planted" --format json \
    >"$work/planted.json" 2>"$work/planted.err"
  note "- kprof batch exit $? (expected 0: a batch fails only when every candidate failed)"
  check $helper wrong "$work/planted.json"
fi

# ---- 4. the truth's cost in the standby agent loop ----------------------------------------------
loop_cases=${LOOP_CASES:-softmax}
think=${THINK:-2}
if [ "$dry" != 1 ] && part 4; then
  note ""
  note "## 4. per-candidate cost in the standby agent loop ($loop_cases, 5 candidates, THINK=$think)"
  for t in 0 1; do
    note "- TRUTH=$t:"
    PYTHONPATH="$build/python" TRUTH=$t MODES=standby CASES="$loop_cases" THINK=$think timeout 240 \
      python3 bench/device/standby.py "$work/loop$t" 2>&1 | grep 'standby=' | tee -a "$summary"
  done
  # Each round's truth: which process answered it (one worker per problem and GPU), how long it
  # waited for its gate and how long it measured.
  for status in "$work"/loop1/standby/*/round*/truth-status.json; do
    [ -f "$status" ] || continue
    note "  - $(python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); c=(s.get("candidates") or [{}])[0]; print(sys.argv[1].split("/loop1/standby/")[1].rsplit("/", 1)[0], "pid", s.get("pid"), "rounds_served", s.get("rounds_served"), "prepare %.2f s" % (s.get("prepare_seconds") or 0), "measure %.2f s" % (s.get("measure_seconds") or 0), "import %.2f s warmup %.2f s" % (c.get("import_seconds") or 0, c.get("warmup_seconds") or 0))' "$status" 2>&1 | tail -1)"
  done
fi

note ""
note "- failed checks: $fails"
tar -C "$work" -czf "$out/results.tar.gz" . 2>/dev/null
[ "$fails" -eq 0 ]
