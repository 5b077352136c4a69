#!/usr/bin/env bash
# The main job: profile an example kernel on this machine's GPU; without a GPU (or ncu), analyse
# the recorded H200 capture that ships with kprof instead, and say so.
#   scripts/run-example.sh [CASE]     CASE: twostage (default), vadd, softmax, matmul
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build_dir=${BUILD_DIR:-$root/build}
case_name=${1:-twostage}
# The CLI alone, and only its build dependencies: the tests, their tools and the Python module
# are scripts/test.sh's to install and build.
# Quiet: the build's lines go to a log, shown only when the build fails, so that the output
# starts with the answer.
mkdir -p "$build_dir"
build_log="$build_dir/run-example-build.log"
echo "kprof: building $build_dir/kprof (minutes on a fresh machine; log: $build_log)" >&2
if ! KPROF_DEPS=cli "$root/scripts/build.sh" -DKPROF_ENABLE_TESTS=OFF -DKPROF_ENABLE_PYTHON=OFF \
  >"$build_log" 2>&1; then
  tail -n 40 "$build_log" >&2
  echo "kprof: the build failed; the whole log is $build_log" >&2
  exit 1
fi
kprof="$build_dir/kprof"

why="no NVIDIA driver (nvidia-smi not found or lists no GPU)"
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  if doctor=$("$kprof" doctor 2>&1); then
    echo "kprof: GPU found: profiling examples/$case_name on it" >&2
    exec "$kprof" profile "$root/examples/$case_name/kernel.py" "$root/examples/$case_name/problem.py" \
      --out "${OUT_DIR:-$root/kprof-out}" --clock-control none --format table
  fi
  why=$(printf 'kprof doctor says:\n%s' "$doctor")
fi

capture="$root/examples/captures/h200_${case_name}.csv"
echo "kprof: this machine cannot profile: $why" >&2
echo "kprof: analysing the recorded H200 capture $capture instead (real ncu output, H200, ncu 2025.3.1)." >&2
exec "$kprof" report "$capture" --format table
