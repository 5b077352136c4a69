#!/usr/bin/env bash
# KernelAgent's own profiler against kprof through KernelAgent's platform registry
# (kprof.kernelagent.register(), docs/kernelagent.md), on the same kernels: KernelAgent's three
# optimize examples and the cases of $CASES. Runs bench/device/kernelagent.py; builds kprof and
# its Python module first (bench/device/common.sh).
# Env: KA (a KernelAgent checkout, carried to the device and never committed: e.g. a clone of
# meta-pytorch/KernelAgent in .kernelagent/, ignored by git, 6 MB, carried with .device/; an
# export without .git names its commit in .kernelagent/.commit),
# CASES (a directory of <case>/kernel.py + problem.py, e.g. shared/cases), CALLS=2 (profiles per
# case and mode), MODES="kernelagent kprof kprof-standby", ONLY (case names, default all),
# KPROF_CLOCK=none (both profilers: KernelAgent's ncu through a wrapper adding --clock-control none).
# Prints per case and mode the kernels found, the memory/compute SOL of the kernel KernelAgent's
# loop reads, and the seconds per call; $OUT/kernelagent.json holds the whole summary.
set -uo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root"
: "${KA:?set KA to a KernelAgent checkout (its examples/optimize_0* are profiled)}"
: "${CASES:?set CASES to the cases directory (<case>/kernel.py + problem.py)}"
# shellcheck source=bench/device/common.sh
. "$root/bench/device/common.sh"
note "# KernelAgent's profiler vs kprof in KernelAgent's registry"
note_environment
kernelagent_commit() { # its own checkout's HEAD (not that of a repository it lies in), else $KA/.commit
  local top
  if top=$(git -C "$KA" rev-parse --show-toplevel 2>/dev/null) && [ "$top" -ef "$KA" ]; then
    git -C "$KA" rev-parse --short HEAD
  else
    cat "$KA/.commit" 2>/dev/null || echo "commit unknown: not a git checkout"
  fi
}
note "- KernelAgent: $KA ($(kernelagent_commit))"
note "- cases: $CASES; calls: ${CALLS:-2}; modes: ${MODES:-kernelagent kprof kprof-standby}"
build_kprof python
work=$(mktemp -d /tmp/kprof-kernelagent.XXXXXX)
PYTHONPATH="$build/python:$KA${PYTHONPATH:+:$PYTHONPATH}" KPROF_CLOCK="${KPROF_CLOCK:-none}" timeout 540 \
  python3 bench/device/kernelagent.py --kernelagent "$KA" --cases "$CASES" --work "$work" \
    --json "$out/kernelagent.json" --calls "${CALLS:-2}" \
    --modes "${MODES:-kernelagent kprof kprof-standby}" --only "${ONLY:-}" 2>&1 \
  | grep -v '^INFO' | tee -a "$summary"
note ""
note "- left running after the runs (expect none): $(pgrep -fc "$work" || true)"
