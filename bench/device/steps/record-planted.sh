#!/usr/bin/env bash
# Records the planted-defect suite (tests/planted/, docs/diagnosis.md) on the GPU machine, from
# the repository root there:
#   bash bench/device/run record-planted [PROBLEM...]     # results in $OUT (or ./device-out)
# PROBLEM names (vec_f32, compute_f32, ...; tests/planted/manifest.json) record only those.
# PLANTED_SUITE (default tests/planted) names the suite folder to record, relative to the
# repository root: PLANTED_SUITE=tests/heldout records the held-out suite (tests/heldout/README.md)
# through the same steps; its manifest is the one planned, packed and scored.
#  1. builds kprof into build-device/ (bench/device/common.sh) and the suite's CUDA extension
#     ($PLANTED_SUITE/cuda/planted_cuda.py, load_inline with -lineinfo) once, into
#     build-device/planted/torch-extensions, so the profiled processes only load it; a suite
#     without a cuda/ folder (tests/heldout: Triton only) skips it and gets no cuda-build.log;
#  2. one `kprof batch PROBLEM KERNEL... --metrics deep` per problem (a defect and its clean twin
#     share a problem, so each batch is one process), with `--clock-control none`; the deep set
#     implies --source, so each session keeps ncu's details page (rows.csv), the source page and
#     the .ncu-rep; the raw page is exported from the .ncu-rep after the batch;
#  3. packs per problem the details page, raw page, source page, batch.json, each candidate's
#     report.json and Triton's PTX (what the hot lines fold with) into ONE $OUT/planted.tar.gz
#     (planted/<problem>/..., the layout of tests/fixtures/ncu/2025.3.1/planted/), and the .ncu-rep
#     files into $OUT/planted-ncu-rep.tar.gz when that stays under 15 MiB; summary.md has the
#     environment, the times and per kernel its top hot lines and ncu's largest rules.
#  4. scores the reports kprof wrote on the GPU against the manifest (bench/device/score-planted.py:
#     per kernel and per class, the kernels without a report listed as skipped) into summary.md.
# All 66 kernels of the 9 problems in one device call of about 6 minutes on an H100 (build about
# 1 min, CUDA extension about 1 min, batches about 4 min; docs/device-e2e.md). $OUT gets 6 files:
# summary.md, cmake.log, build.log, cuda-build.log, planted.tar.gz, planted-ncu-rep.tar.gz.
# Batches stop being started once PLANTED_BUDGET_S seconds (default 420) have passed since the
# start, so the packing still happens inside a 10-minute device call; skipped problems are named.
set -uo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root" || exit 1
# shellcheck source=bench/device/common.sh
. "$root/bench/device/common.sh"
started=$(now)
budget=${PLANTED_BUDGET_S:-420}
suite=${PLANTED_SUITE:-tests/planted}
export PLANTED_SUITE="$suite"       # read by record-planted.py and score-planted.py
state="$build/planted"              # kept between calls on a warm machine: caches and runs
run="$state/run-$(date +%Y%m%d-%H%M%S)-$$"
pack="$state/pack-$$"
mkdir -p "$state" "$run" "$pack/planted"
export TRITON_CACHE_DIR="$state/triton-cache"
export TORCH_EXTENSIONS_DIR="$state/torch-extensions"
export TORCH_CUDA_ARCH_LIST=9.0
ncu_bin=$(command -v ncu || echo /usr/local/cuda/bin/ncu)

note "# planted-defect suite: recording with --metrics deep"
[ "$suite" = tests/planted ] || note "- suite: $suite"
note_environment
note "- ncu binary: $ncu_bin; clock control: none; budget for batches: ${budget} s"

t0=$(now)
# shellcheck disable=SC2119 # the CLI only
build_kprof
note "- kprof build: $(elapsed "$t0" "$(now)") s"

if [ -d "$suite/cuda" ]; then
  t0=$(now)
  python3 "$suite/cuda/planted_cuda.py" >"$out/cuda-build.log" 2>&1
  note "- CUDA extension (load_inline, -lineinfo): rc $? in $(elapsed "$t0" "$(now)") s: $(tail -1 "$out/cuda-build.log")"
else
  note "- CUDA extension: none ($suite has no cuda/ folder)"
fi

mapfile -t plan < <(python3 bench/device/record-planted.py plan "$@")
note ""
note "## batches"
note ""
note "| problem | kernels | rc | wall s | sessions |"
note "|---|---|---|---|---|"
round=0
packed=()
skipped=()
for line in "${plan[@]}"; do
  read -r -a words <<<"$line"
  name=${words[0]}
  problem=${words[1]}
  kernels=("${words[@]:2}")
  if python3 -c "import sys; sys.exit(0 if $(elapsed "$started" "$(now)") < $budget else 1)"; then :; else
    skipped+=("$name")
    continue
  fi
  round=$((round + 1))
  t0=$(now)
  timeout 400 "$kprof" batch "$problem" "${kernels[@]}" --out "$run" --round "$round" \
    --metrics deep --clock-control none --cast none --retries 0 --timeout 200 --no-history \
    --format json >"$run/batch-$name.json" 2>"$run/batch-$name.err"
  rc=$?
  t=$(elapsed "$t0" "$(now)")
  sessions=0
  for rep in "$run/round$(printf %03d "$round")"/gpu*-part*/report.ncu-rep; do
    [ -f "$rep" ] || continue
    sessions=$((sessions + 1))
    "$ncu_bin" --import "$rep" --page raw --csv >"$(dirname "$rep")/raw.csv" 2>/dev/null
  done
  note "| $name | ${#kernels[@]} | $rc | $t | $sessions |"
  [ "$rc" = 0 ] || tail -5 "$run/batch-$name.err" | sed 's/^/    /' | tee -a "$summary"
  cp "$run/batch-$name.err" "$pack/planted/$name.stderr.txt" 2>/dev/null
  packed+=("$round:$name")
done
[ ${#skipped[@]} -eq 0 ] || note "- NOT RECORDED (budget of ${budget} s spent): ${skipped[*]}"

note ""
note "## per kernel"
if [ ${#packed[@]} -gt 0 ]; then
  python3 bench/device/record-planted.py pack "$run" "$TRITON_CACHE_DIR" "$pack/planted" "${packed[@]}" \
    2>&1 | tee -a "$summary"
fi
note ""
note "## score (the reports kprof wrote on this GPU; bench/device/score-planted.py)"
note ""
python3 bench/device/score-planted.py "$pack/planted" 2>&1 | tee -a "$summary"
note "- score-planted.py: rc ${PIPESTATUS[0]} (0: every recorded class meets the targets)"
cp "$suite/manifest.json" "$pack/planted/manifest.json"
cp "$summary" "$pack/planted/summary.md"
tar -C "$pack" -czf "$out/planted.tar.gz" planted
note ""
note "- planted.tar.gz: $(du -h "$out/planted.tar.gz" | cut -f1)"
reps=$(find "$run" -name report.ncu-rep | wc -l)
if [ "$reps" -gt 0 ]; then
  (cd "$run" && find . -name report.ncu-rep -print0 | tar --null -czf "$pack/ncu-rep.tar.gz" -T -)
  size=$(stat -c %s "$pack/ncu-rep.tar.gz")
  if [ "$size" -lt $((15 * 1024 * 1024)) ]; then
    mv "$pack/ncu-rep.tar.gz" "$out/planted-ncu-rep.tar.gz"
    note "- planted-ncu-rep.tar.gz: $reps reports, $size bytes"
  else
    note "- the $reps .ncu-rep files ($size bytes compressed) were left out (over 15 MiB)"
  fi
fi
note "- total: $(elapsed "$started" "$(now)") s"
rm -rf "$pack"
