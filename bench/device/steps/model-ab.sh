#!/usr/bin/env bash
# Issue 42: a model's rounds on this tree against an older one (AB_BASE, default .device/old: the
# older tree's CMakeLists.txt, cli, cmake, include, src, templates and python, e.g. from
# `git archive`), in one visit, each built here (build-device/ and build-base/). For each MODEL
# of AB_MODELS (default "11_VGG16 35_LSTM"), bench/device/run model-costs with AB_VARIANTS
# (default "default= later= later=": a first round, then two more of its --out) on the base, then
# on this tree. Writes $OUT/base-MODEL/ and $OUT/new-MODEL/ (model-costs.md each) and
# $OUT/model-ab.md. SKIP_BUILD=1 reuses both builds.
#   bench/device/run model-ab
set -uo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root" || exit 1
# shellcheck source=bench/device/common.sh
. "$root/bench/device/common.sh"
summary="$out/model-ab.md"; : >"$summary"
base_src=$(cd "${AB_BASE:-.device/old}" && pwd) || exit 1
note "# A model's rounds: this tree against $base_src"
note ""
note_environment
build_unless_skipped
started=$(now)
if [ "${SKIP_BUILD:-0}" != 1 ] || [ ! -x "$root/build-base/kprof" ]; then
  if ! cmake -S "$base_src" -B "$root/build-base" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DKPROF_BUNDLED_HEADERS="$root/.device/include" -DKPROF_ENABLE_TESTS=OFF \
    -DKPROF_ENABLE_PYTHON=OFF >"$out/cmake-base.log" 2>&1 \
    || ! cmake --build "$root/build-base" -j "$(nproc)" >"$out/build-base.log" 2>&1; then
    tail -30 "$out/build-base.log" "$out/cmake-base.log" 2>/dev/null
    exit 1
  fi
fi
note "- base build: $(elapsed "$started" "$(now)") s"
for model in ${AB_MODELS:-11_VGG16 35_LSTM}; do
  for side in base new; do
    dir=$root/build-device
    [ "$side" = base ] && dir=$root/build-base
    note ""
    note "## $model, $side"
    OUT="$out/$side-$model" MODEL=$model SKIP_BUILD=1 KPROF_DEVICE_BUILD=$dir \
      MODEL_VARIANTS=${AB_VARIANTS:-"default= later= later="} MODEL_BUDGET_S=${AB_BUDGET_S:-150} \
      bash "$root/bench/device/steps/model-costs.sh" >/dev/null 2>&1
    grep '^|' "$out/$side-$model/model-costs.md" | tee -a "$summary"
  done
done
