#!/usr/bin/env bash
# Configures and builds kprof (library, CLI, tests, Python module) into BUILD_DIR (default
# build/). Extra arguments go to cmake's configure step.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build_dir=${BUILD_DIR:-$root/build}
"$root/scripts/install-deps.sh"
# --no-warn-unused-cli: Python3_EXECUTABLE is unused when an argument turns Python off (the main
# job does), and CMake's warning about it would be the first thing a user reads.
cmake -S "$root" -B "$build_dir" -G Ninja --no-warn-unused-cli -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DKPROF_ENABLE_PYTHON=ON -DPython3_EXECUTABLE=/usr/bin/python3 "$@" >/dev/null
cmake --build "$build_dir" -j "$(nproc)"
