#!/usr/bin/env bash
# Builds kprof and runs every test that can run here: the GoogleTest suites and the end-to-end
# tests of the binary (ctest), then the Python tests (pytest), `kprof mcp` against the MCP
# TypeScript SDK client (tests/mcp, node), the browser test and the Slurm
# tests (tests/slurm), then `pip install .` into a fresh
# venv (reusing the build) with the Python tests again against the installed package. Tests that
# need a GPU or ncu report themselves as skipped, with the reason.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build_dir=${BUILD_DIR:-$root/build}
# Tests and the Python module on, also in a build directory the main job configured without them.
"$root/scripts/build.sh" -DKPROF_ENABLE_TESTS=ON -DKPROF_ENABLE_PYTHON=ON "$@"
# Twice as many tests as cores: tests that wait on the processes they start (a hang's timeout, a
# stand-in ncu) leave their core to the others (ctest on a 2-core VM: 200 s at -j2; 104 s at -j4
# without the Python-only harness_pytest, 2026-12-07).
(cd "$build_dir" && ctest --output-on-failure -j "$(($(nproc) * 2))")
PYTHONPATH="$build_dir/python${PYTHONPATH:+:$PYTHONPATH}" KPROF_BUILD_DIR="$build_dir" \
  /usr/bin/python3 -m pytest -q "$root/tests/python"
(cd "$root/tests/mcp" && KPROF_BUILD_DIR="$build_dir" node --test)
/usr/bin/python3 "$root/tests/browser/browser_test.py" --kprof "$build_dir/kprof"
# `batch --slurm` against a real one-host Slurm that the suite starts and stops (needs root and
# the slurm-wlm and munge packages; otherwise its tests say skipped, with the reason).
KPROF_BUILD_DIR="$build_dir" /usr/bin/python3 -m pytest -q -rs "$root/tests/slurm"
"$root/scripts/test-pip-install.sh" "$build_dir"
