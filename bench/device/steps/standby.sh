#!/usr/bin/env bash
# Issue 10's agent loop on a GPU machine: bench/device/standby.py over the examples, cold and
# with standby=True (docs/standby.md). Builds kprof and its Python module into build-device/
# (bench/device/common.sh). Env: MODES="cold standby", CASES="vadd twostage softmax matmul",
# THINK=8 (seconds between calls). Results in $OUT/summary.md.
set -uo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root"
# shellcheck source=bench/device/common.sh
. "$root/bench/device/common.sh"
note "# kprof standby on the GPU"
note_environment
note "- modes: ${MODES:-cold standby}; cases: ${CASES:-vadd twostage softmax matmul}; think: ${THINK:-8} s"
build_kprof python
work=$(mktemp -d /tmp/kprof-standby.XXXXXX)
PYTHONPATH="$build/python" KPROF_CLOCK="${KPROF_CLOCK:-none}" timeout 560 \
  python3 bench/device/standby.py "$work" 2>&1 | grep -v '^INFO' | tee -a "$summary"
note ""
note "- left running after the loop (expect none): $(pgrep -fc "$work" || true)"
