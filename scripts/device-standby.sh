#!/usr/bin/env bash
# Issue 10's agent loop on a GPU machine: scripts/device-standby.py over the examples, cold and
# with standby=True (docs/standby.md). Builds kprof into build-device/ like
# scripts/device-hot-lines.sh. Env: MODES="cold standby", CASES="vadd twostage softmax matmul",
# THINK=8 (seconds between calls). Results in $OUT/summary.md.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
out=${OUT:-$root/device-out}
mkdir -p "$out"
build="$root/build-device"
summary="$out/summary.md"; : >"$summary"
note() { echo "$*" | tee -a "$summary"; }
note "# kprof standby on the GPU"
note "- date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
note "- gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | tr '\n' ';')"
note "- ncu: $(ncu --version 2>/dev/null | grep -o 'Version [^ ]*' || echo missing)"
note "- modes: ${MODES:-cold standby}; cases: ${CASES:-vadd twostage softmax matmul}; think: ${THINK:-8} s"
pybind_dir=$(python3 -m pybind11 --cmakedir 2>/dev/null || true)
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DKPROF_BUNDLED_HEADERS="$root/.device/include" -DKPROF_ENABLE_TESTS=OFF \
  -DKPROF_ENABLE_PYTHON=ON -DPython3_EXECUTABLE="$(command -v python3)" \
  ${pybind_dir:+-Dpybind11_DIR="$pybind_dir"} >"$out/cmake.log" 2>&1 \
  && cmake --build "$build" -j "$(nproc)" >"$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
work=$(mktemp -d /tmp/kprof-standby.XXXXXX)
PYTHONPATH="$build/python" KPROF_CLOCK="${KPROF_CLOCK:-none}" timeout 560 \
  python3 scripts/device-standby.py "$work" 2>&1 | grep -v '^INFO' | tee -a "$summary"
note ""
note "- left running after the loop (expect none): $(pgrep -fc "$work" || true)"
