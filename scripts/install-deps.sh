#!/usr/bin/env bash
# Installs kprof's build and test dependencies from Debian packages (bookworm), and the MCP
# TypeScript SDK the `kprof mcp` test uses from npm (`npm ci` in tests/mcp, from its
# package-lock.json). Idempotent: does nothing when everything is already there. Needs root (or
# sudo) only when installing Debian packages.
# KPROF_DEPS=cli (scripts/run-example.sh, the main job): only what building the kprof command
# needs; no test tools, browser, Slurm or munge (whose daemons a GPU host has no use for), and
# no npm packages. KPROF_DEPS=all (the default): everything scripts/test.sh needs.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
deps=${KPROF_DEPS:-all}
if [ "$deps" != cli ] && [ "$deps" != all ]; then
  echo "kprof: KPROF_DEPS must be cli or all, not '$deps'" >&2
  exit 2
fi

packages=(
  g++ cmake ninja-build pkg-config git
  nlohmann-json3-dev libcli11-dev libfmt-dev libsqlite3-dev
)
if [ "$deps" = all ]; then
  packages+=(
    libgtest-dev libbenchmark-dev
    python3 python3-dev pybind11-dev python3-pytest
    python3-mypy         # stubtest of python/kprof/_kprof.pyi (tests/python/test_stub.py)
    python3-venv python3-pip python3-setuptools python3-wheel
    clang-14 libclang-rt-14-dev clang-format-14 clang-tidy-14
    chromium python3-pil # the browser test of the HTML pages (tests/browser)
    slurm-wlm munge      # a real one-host Slurm for the `batch --slurm` tests (tests/slurm)
  )
  # node and npm for the `kprof mcp` test against the MCP SDK client (tests/mcp), unless there
  # are.
  if ! command -v node >/dev/null 2>&1; then
    packages+=(nodejs)
  fi
  if ! command -v npm >/dev/null 2>&1; then
    packages+=(npm)
  fi
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "kprof: installing ${missing[*]}" >&2
  as_root=()
  if [ "$(id -u)" -ne 0 ]; then
    as_root=(sudo)
  fi
  export DEBIAN_FRONTEND=noninteractive
  "${as_root[@]}" apt-get update -qq
  "${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The npm packages of tests/mcp, when its lock file changed since the last `npm ci`. Only the
# test needs them: without the registry (a GPU machine offline) this warns and the build goes
# on; scripts/test.sh then fails on the missing SDK.
mcp_tests="$root/tests/mcp"
stamp="$mcp_tests/node_modules/.kprof-package-lock.json"
if [ "$deps" = all ] && ! cmp -s "$mcp_tests/package-lock.json" "$stamp"; then
  echo "kprof: installing the npm packages of tests/mcp (npm ci)" >&2
  if (cd "$mcp_tests" && npm ci --no-audit --no-fund --loglevel=error >/dev/null); then
    cp "$mcp_tests/package-lock.json" "$stamp"
  else
    echo "kprof: warning: npm ci in tests/mcp failed; the kprof mcp test cannot run" >&2
  fi
fi
