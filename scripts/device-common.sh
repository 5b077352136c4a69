# Sourced by the scripts/device-*.sh measurement scripts after they set `root`: the output folder
# ($OUT, else device-out/), summary.md with note(), timing helpers, and build_kprof, which builds
# the kprof binary (CLI only) into build-device/ with the headers carried in .device/include.
# shellcheck shell=bash
out=${OUT:-$root/device-out}
mkdir -p "$out"
build="$root/build-device"
kprof="$build/kprof"
summary="$out/summary.md"; : >"$summary"
note() { echo "$*" | tee -a "$summary"; }
now() { date +%s.%N; }
elapsed() { python3 -c "print(f'{$2 - $1:.2f}')"; }
build_kprof() {
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DKPROF_BUNDLED_HEADERS="$root/.device/include" -DKPROF_ENABLE_TESTS=OFF \
    -DKPROF_ENABLE_PYTHON=OFF >"$out/cmake.log" 2>&1 \
    && cmake --build "$build" -j "$(nproc)" >"$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
}
