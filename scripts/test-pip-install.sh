#!/usr/bin/env bash
# Tests `pip install .` (issue 12): installs this checkout with pip into a fresh venv, runs the
# installed `kprof --version`, imports the installed module, runs the Python suite
# (tests/python) against the installed package and CLI, uninstalls and checks that the venv is
# back to what it was; then builds the wheel once (`pip wheel .`) and checks its contents; and
# checks the build left nothing new in the checkout (`git status --porcelain`).
#
# Usage: scripts/test-pip-install.sh [--fresh] [BUILD_DIR]
#   BUILD_DIR (default: $BUILD_DIR, else build/): a CMake build tree of this checkout configured
#   with -DKPROF_ENABLE_PYTHON=ON -DPython3_EXECUTABLE=/usr/bin/python3, reused by setup.py
#   (KPROF_CMAKE_BUILD_DIR) so that only what is missing is built.
#   --fresh: no reuse; setup.py builds in its own tree (build/pip/): configured and built from
#   scratch when absent (minutes), else brought up to date.
# Offline: the venv sees the system site packages only for the build tools (setuptools, wheel)
# and pytest; pip runs with --no-build-isolation --no-index.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
python=${KPROF_PIP_TEST_PYTHON:-/usr/bin/python3}
fresh=0
if [ "${1:-}" = "--fresh" ]; then
  fresh=1
  shift
fi
build_dir=${1:-${BUILD_DIR:-$root/build}}
start=$SECONDS

step() { echo "== pip test: $*"; }
fail() {
  echo "FAIL pip test: $*" >&2
  exit 1
}

work=$(mktemp -d "${TMPDIR:-/tmp}/kprof-pip-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
venv=$work/venv

version=$(sed -nE 's/^[[:space:]]*project\(kprof VERSION ([0-9]+(\.[0-9]+)*).*/\1/p' "$root/CMakeLists.txt")
[ -n "$version" ] || fail "no project(kprof VERSION x.y.z) line in CMakeLists.txt"

reuse=()
if [ "$fresh" = 0 ]; then
  [ -f "$build_dir/CMakeCache.txt" ] || fail "$build_dir is not a configured CMake build tree (or pass --fresh)"
  reuse=(KPROF_CMAKE_BUILD_DIR="$(cd "$build_dir" && pwd)")
fi

# Every command below runs without the build tree on PYTHONPATH and without the user site, so
# that `kprof` can only come from the venv.
in_venv() { env -u PYTHONPATH PYTHONNOUSERSITE=1 PATH="$venv/bin:$PATH" VIRTUAL_ENV="$venv" "$@"; }
pip() { in_venv "${reuse[@]}" "$venv/bin/python" -m pip --disable-pip-version-check "$@"; }
tree_files() { (cd "$venv" && find . -mindepth 1 | LC_ALL=C sort); }

git_status() {
  if git -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git -C "$root" status --porcelain --untracked-files=all
  else
    echo "(not a git checkout)"
  fi
}
git_before=$(git_status)

step "version $version (CMakeLists.txt); python $python; $([ "$fresh" = 1 ] && echo "setup.py's own CMake tree (build/pip/, built from scratch when absent)" || echo "reusing the CMake tree $build_dir")"

step "create a venv with the system site packages (build tools, pytest): $venv"
"$python" -m venv --system-site-packages "$venv"
(cd "$work" && in_venv "$venv/bin/python" -c "import kprof" 2>/dev/null) &&
  fail "kprof is importable in the new venv before installing: $(cd "$work" && in_venv "$venv/bin/python" -c 'import kprof; print(kprof.__file__)')"
tree_files >"$work/venv-before.txt"

step "pip install --no-build-isolation --no-index $root"
(cd "$work" && pip install --quiet --no-build-isolation --no-index --no-cache-dir "$root") ||
  fail "pip install"

step "kprof --version from the venv"
[ "$(cd "$work" && in_venv sh -c "command -v kprof")" = "$venv/bin/kprof" ] || fail "the kprof on the venv's PATH is not $venv/bin/kprof"
[ -x "$venv/bin/kprof" ] || fail "$venv/bin/kprof is not executable"
[ "$(head -c 4 "$venv/bin/kprof" | od -An -c | tr -d ' ')" = '177ELF' ] ||
  fail "$venv/bin/kprof is not the compiled CLI (no ELF header)"
cli_version=$(cd "$work" && in_venv "$venv/bin/kprof" --version) || fail "kprof --version exited non-zero"
echo "   $cli_version"
[ "$(echo "$cli_version" | awk 'NR == 1 { print $1 " " $2 }')" = "kprof $version" ] ||
  fail "kprof --version says '$cli_version', not kprof $version"

step "import kprof from the venv"
imported=$(cd "$work" && in_venv "$venv/bin/python" -c "import kprof; print(kprof.__version__, kprof.__file__)") ||
  fail "import kprof"
echo "   $imported"
read -r module_version module_file <<<"$imported"
[ "$module_version" = "$version" ] || fail "kprof.__version__ is $module_version, not $version"
case "$module_file" in
  "$venv"/lib/python3*/site-packages/kprof/__init__.py) ;;
  *) fail "kprof is imported from $module_file, not from the venv's site-packages" ;;
esac
metadata_version=$(cd "$work" && in_venv "$venv/bin/python" -c "import importlib.metadata as m; print(m.version('kprof'))")
[ "$metadata_version" = "$version" ] || fail "the installed metadata says version $metadata_version, not $version"
package_dir=$(dirname "$module_file")
for f in py.typed _kprof.pyi; do
  [ -f "$package_dir/$f" ] || fail "the installed package has no $f"
done
ls "$package_dir"/_kprof*.so >/dev/null 2>&1 || fail "the installed package has no _kprof extension"

step "pytest tests/python against the installed package and the venv's kprof"
(cd "$work" && in_venv PYTHONPATH="$root/tests/pip" KPROF_INSTALLED_PREFIX="$venv" KPROF_BUILD_DIR="$venv/bin" \
  "$venv/bin/python" -m pytest -q -p installed_kprof -p no:cacheprovider "$root/tests/python") ||
  fail "pytest tests/python against the installed package"

step "pip uninstall -y kprof"
(cd "$work" && pip uninstall --yes --quiet kprof) || fail "pip uninstall"
tree_files >"$work/venv-after.txt"
if ! diff -u "$work/venv-before.txt" "$work/venv-after.txt"; then
  fail "the venv differs from before the install (above: - was there before, + is left over)"
fi
(cd "$work" && in_venv "$venv/bin/python" -c "import kprof" 2>/dev/null) && fail "kprof is still importable after uninstalling"
echo "   the venv holds the same $(wc -l <"$work/venv-before.txt") paths as before the install"

step "pip wheel --no-build-isolation --no-index $root -w <dir>, and its contents"
(cd "$work" && pip wheel --quiet --no-build-isolation --no-index --no-deps --no-cache-dir "$root" -w "$work/wheel") ||
  fail "pip wheel"
in_venv "$venv/bin/python" - "$work/wheel" "$version" <<'EOF' || fail "the wheel's contents"
import pathlib, stat, sys, zipfile

wheel_dir, version = pathlib.Path(sys.argv[1]), sys.argv[2]
wheels = sorted(wheel_dir.glob("*.whl"))
if len(wheels) != 1 or not wheels[0].name.startswith(f"kprof-{version}-"):
    sys.exit(f"expected one kprof-{version}-*.whl, found {[w.name for w in wheels]}")
errors = []
with zipfile.ZipFile(wheels[0]) as wheel:
    infos = {i.filename: i for i in wheel.infolist()}
    info_dir, data_dir = f"kprof-{version}.dist-info/", f"kprof-{version}.data/"
    script = data_dir + "scripts/kprof"
    for name in infos:
        if not (name.startswith("kprof/") or name.startswith(info_dir) or name == script):
            errors.append(f"unexpected file {name}")
    for name in ["kprof/__init__.py", "kprof/py.typed", "kprof/_kprof.pyi", script]:
        if name not in infos:
            errors.append(f"no {name}")
    if not any(n.startswith("kprof/_kprof") and n.endswith(".so") for n in infos):
        errors.append("no kprof/_kprof*.so")
    if script in infos:
        mode = infos[script].external_attr >> 16
        if not mode & stat.S_IXUSR:
            errors.append(f"{script} is not executable (mode {oct(mode)})")
        if wheel.read(script)[:4] != b"\x7fELF":
            errors.append(f"{script} is not the compiled CLI")
    metadata = wheel.read(info_dir + "METADATA").decode() if info_dir + "METADATA" in infos else ""
    if f"\nVersion: {version}\n" not in metadata:
        errors.append(f"METADATA does not say Version: {version}")
    print(f"   {wheels[0].name}: {len(infos)} files")
    for name in sorted(infos):
        mode = infos[name].external_attr >> 16
        print(f"     {stat.filemode(stat.S_IFREG | (mode & 0o7777))} {infos[name].file_size:>10} {name}")
if errors:
    sys.exit("\n".join(errors))
EOF

step "the checkout is as it was (git status --porcelain)"
git_after=$(git_status)
if [ "$git_before" != "$git_after" ]; then
  diff <(echo "$git_before") <(echo "$git_after") || true
  fail "the pip build changed the checkout outside ignored build dirs"
fi

step "passed in $((SECONDS - start)) s"
