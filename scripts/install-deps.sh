#!/usr/bin/env bash
# Installs kprof's build and test dependencies from Debian packages (bookworm). Idempotent:
# does nothing when everything is already there. Needs root (or sudo) only when installing.
set -euo pipefail

packages=(
  g++ cmake ninja-build pkg-config git
  nlohmann-json3-dev libcli11-dev libfmt-dev libsqlite3-dev
  libgtest-dev libbenchmark-dev
  python3 python3-dev pybind11-dev python3-pytest
  python3-venv python3-pip python3-setuptools python3-wheel
  clang-14 libclang-rt-14-dev clang-format-14 clang-tidy-14
  chromium python3-pil # the browser test of the HTML pages (tests/browser)
  slurm-wlm munge      # a real one-host Slurm for the `batch --slurm` tests (tests/slurm)
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "kprof: installing ${missing[*]}" >&2
as_root=()
if [ "$(id -u)" -ne 0 ]; then
  as_root=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update -qq
"${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
