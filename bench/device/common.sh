# Sourced by the measurement steps of bench/device/run after they set `root`: the output folder
# ($OUT, else device-out/), summary.md with note(), timing helpers, note_environment (date, GPUs,
# driver, ncu, Python, torch, triton), only_tritons_own (a Triton cache with only Triton's own
# helper module), profile_case (one timed cold `kprof profile` of an example), default_metrics
# (kprof's default set, comma-separated, for plain ncu runs; needs the built kprof), and
# build_kprof (build_unless_skipped: the same, timed, unless SKIP_BUILD=1 finds a built kprof),
# which builds kprof into $build (KPROF_DEVICE_BUILD, else build-device/, unless the script sets `build` after sourcing
# this) with the header-only dependencies carried in .device/include: the CLI only, or with
# `build_kprof python` the Python module too, for the device's python3.
# shellcheck shell=bash
out=${OUT:-$root/device-out}
mkdir -p "$out"
build=${KPROF_DEVICE_BUILD:-$root/build-device}
kprof="$build/kprof"
summary="$out/summary.md"; : >"$summary"
note() { echo "$*" | tee -a "$summary"; }
now() { date +%s.%N; }
elapsed() { python3 -c "print(f'{$2 - $1:.2f}')"; }
note_environment() {
  note "- date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  note "- gpu: $(nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader 2>/dev/null | tr '\n' ';')"
  note "- ncu: $(ncu --version 2>/dev/null | grep -o 'Version [^ ]*' || echo missing)"
  note "- python: $(python3 -c 'import sys, torch, triton; print(sys.version.split()[0], "torch", torch.__version__, "triton", triton.__version__)' 2>&1 | tail -1)"
}
build_kprof() { # [python]: also the Python module. Logs in $out/cmake.log and $out/build.log.
  local python=OFF pybind_dir=""
  if [ "${1:-}" = python ]; then
    python=ON
    pybind_dir=$(python3 -m pybind11 --cmakedir 2>/dev/null || true)
  fi
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DKPROF_BUNDLED_HEADERS="$root/.device/include" -DKPROF_ENABLE_TESTS=OFF \
    -DKPROF_ENABLE_PYTHON="$python" -DPython3_EXECUTABLE="$(command -v python3)" \
    ${pybind_dir:+-Dpybind11_DIR="$pybind_dir"} >"$out/cmake.log" 2>&1 \
    && cmake --build "$build" -j "$(nproc)" >"$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
}
# build_unless_skipped [python]: build_kprof (with the Python module when asked), its time noted
# in the summary; skipped with SKIP_BUILD=1 when a built kprof is there.
build_unless_skipped() {
  if [ "${SKIP_BUILD:-0}" = 1 ] && [ -x "$kprof" ]; then
    return 0
  fi
  local started
  started=$(now)
  build_kprof "$@"
  note "- build: $(elapsed "$started" "$(now)") s"
}
# only_tritons_own CACHE: the Triton cache CACHE given only what Triton builds for itself (its
# driver's helper module), by an untimed process, as a user's cache has after any earlier use.
only_tritons_own() {
  TRITON_CACHE_DIR="$1" timeout 120 python3 -c \
    'from triton.runtime import driver; driver.active.get_current_target()' >/dev/null 2>&1
}
# profile_case CASE DIR [NAME=VALUE...]: a cold `kprof profile` of examples/CASE into DIR, with
# the variables given (DIR.json and DIR.err beside it); sets profile_code and profile_seconds.
profile_case() {
  local c=$1 o=$2 started
  shift 2
  started=$(now)
  env "$@" "$kprof" profile "examples/$c/kernel.py" "examples/$c/problem.py" --out "$o" \
    --clock-control none --format json >"$o.json" 2>"$o.err"
  profile_code=$?
  profile_seconds=$(elapsed "$started" "$(now)")
}
default_metrics() {
  "$kprof" metrics --set default --format json \
    | python3 -c "import json, sys; print(','.join(m['name'] for m in json.load(sys.stdin)['metrics']))"
}
