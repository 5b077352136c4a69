"""The README's two commands' set-up scripts, run on a copy of them with stand-ins for the
package tools: scripts/install-deps.sh installs what its KPROF_DEPS asks for and nothing more, and
the main job (scripts/run-example.sh) asks only for the kprof command's build dependencies."""

import os
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# What building the kprof command needs (CMakeLists.txt: fmt, nlohmann_json, CLI11, SQLite3).
CLI_PACKAGES = ["g++", "cmake", "ninja-build", "pkg-config", "git", "nlohmann-json3-dev", "libcli11-dev",
                "libfmt-dev", "libsqlite3-dev"]


def stand_in(directory, name, body):
    path = directory / name
    path.write_text("#!/bin/sh\n" + body + "\n", encoding="utf-8")
    path.chmod(0o755)


def copied_tree(tmp_path, *files):
    """The named files of the repository copied into tmp_path/repo, and a bin/ of stand-ins that
    log what they are asked to tmp_path/calls.log: dpkg-query (every package missing), apt-get,
    sudo (runs its command), npm (makes node_modules), node (present) and nvidia-smi (no GPU).
    The environment names the copy's build/ as BUILD_DIR (CI sets its own)."""
    repo = tmp_path / "repo"
    for name in files:
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, repo / name)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "calls.log"
    stand_in(bin_dir, "dpkg-query", "exit 1")
    stand_in(bin_dir, "apt-get", 'echo "apt-get $*" >> %s' % log)
    stand_in(bin_dir, "sudo", 'exec "$@"')
    stand_in(bin_dir, "npm", 'echo "npm $*" >> %s; mkdir -p node_modules' % log)
    stand_in(bin_dir, "node", "exit 0")
    stand_in(bin_dir, "nvidia-smi", "exit 9")
    env = dict(os.environ, PATH="%s:%s" % (bin_dir, os.environ["PATH"]), BUILD_DIR=str(repo / "build"))
    env.pop("KPROF_DEPS", None)
    return repo, env, log


def calls(log):
    return log.read_text(encoding="utf-8").splitlines() if log.exists() else []


def installed(log):
    """The packages `apt-get install` was given."""
    lines = [line.split() for line in calls(log) if line.startswith("apt-get install")]
    assert len(lines) == 1, calls(log)
    return [word for word in lines[0][2:] if not word.startswith("-")]


def install_deps(tmp_path, deps=None):
    repo, env, log = copied_tree(tmp_path, "scripts/install-deps.sh", "tests/mcp/package-lock.json")
    if deps is not None:
        env["KPROF_DEPS"] = deps
    done = subprocess.run(["bash", str(repo / "scripts" / "install-deps.sh")], env=env, capture_output=True,
                          text=True, timeout=60)
    return done, log


def test_install_deps_for_the_cli_installs_its_build_packages_only(tmp_path):
    done, log = install_deps(tmp_path, "cli")

    assert done.returncode == 0, done.stderr
    assert installed(log) == CLI_PACKAGES
    assert not [line for line in calls(log) if line.startswith("npm")]


def test_install_deps_by_default_installs_what_the_tests_need_and_the_mcp_tests_npm_packages(tmp_path):
    done, log = install_deps(tmp_path)

    assert done.returncode == 0, done.stderr
    packages = installed(log)
    assert packages[:len(CLI_PACKAGES)] == CLI_PACKAGES
    for needed in ("libgtest-dev", "pybind11-dev", "python3-mypy", "clang-tidy-14", "chromium", "slurm-wlm",
                   "munge"):
        assert needed in packages
    assert [line.split()[:2] for line in calls(log) if line.startswith("npm")] == [["npm", "ci"]]


def test_install_deps_refuses_a_kprof_deps_it_does_not_know_and_installs_nothing(tmp_path):
    done, log = install_deps(tmp_path, "everything")

    assert done.returncode == 2
    assert "KPROF_DEPS must be cli or all, not 'everything'" in done.stderr
    assert calls(log) == []


def test_the_main_job_builds_the_cli_with_its_own_dependencies_only(tmp_path):
    # run-example.sh with a stand-in build.sh (that records what it is asked) and kprof, on a
    # host whose nvidia-smi finds no GPU: it analyses the recorded capture.
    repo, env, log = copied_tree(tmp_path, "scripts/run-example.sh")
    stand_in(repo / "scripts", "build.sh", 'echo "build.sh KPROF_DEPS=$KPROF_DEPS $*" >> %s' % log)
    (repo / "build").mkdir()
    stand_in(repo / "build", "kprof", 'echo "kprof $*" >> %s' % log)
    done = subprocess.run(["bash", str(repo / "scripts" / "run-example.sh")], env=env, capture_output=True,
                          text=True, timeout=60)

    assert done.returncode == 0, done.stderr
    assert calls(log) == [
        "build.sh KPROF_DEPS=cli -DKPROF_ENABLE_TESTS=OFF -DKPROF_ENABLE_PYTHON=OFF",
        "kprof report %s --format table" % (repo / "examples" / "captures" / "h200_twostage.csv"),
    ]
    assert "analysing the recorded H200 capture" in done.stderr


def test_the_main_job_starts_with_what_matters_its_build_quiet_in_a_log(tmp_path):
    # A build that prints what a real one does (a CMake warning, a hundred ninja lines): none of
    # it reaches the user, who reads one line about the build and then the answer.
    repo, env, log = copied_tree(tmp_path, "scripts/run-example.sh")
    stand_in(repo / "scripts", "build.sh",
             'echo "CMake Warning: Manually-specified variables were not used" >&2\n'
             'for i in $(seq 115); do echo "[$i/115] Building CXX object"; done')
    (repo / "build").mkdir()
    stand_in(repo / "build", "kprof", 'echo "the answer"')
    done = subprocess.run(["bash", str(repo / "scripts" / "run-example.sh")], env=env, capture_output=True,
                          text=True, timeout=60)

    assert done.returncode == 0, done.stderr
    assert done.stdout == "the answer\n"
    assert done.stderr.splitlines()[0].startswith("kprof: building ")
    assert "Building CXX" not in done.stderr and "CMake Warning" not in done.stderr
    assert "[115/115] Building CXX object" in (repo / "build" / "run-example-build.log").read_text()


def test_the_main_job_shows_the_end_of_the_build_log_when_the_build_fails(tmp_path):
    repo, env, _ = copied_tree(tmp_path, "scripts/run-example.sh")
    stand_in(repo / "scripts", "build.sh", 'echo "error: planted.cpp:1: expected ;"; exit 1')
    done = subprocess.run(["bash", str(repo / "scripts" / "run-example.sh")], env=env, capture_output=True,
                          text=True, timeout=60)

    assert done.returncode == 1
    assert "error: planted.cpp:1: expected ;" in done.stderr
    assert "the build failed" in done.stderr


def test_the_build_script_tells_cmake_not_to_warn_about_python_when_the_main_job_turns_it_off(tmp_path):
    repo, env, log = copied_tree(tmp_path, "scripts/build.sh")
    stand_in(repo / "scripts", "install-deps.sh", "exit 0")
    stand_in(tmp_path / "bin", "cmake", 'echo "cmake $*" >> %s' % log)
    done = subprocess.run(["bash", str(repo / "scripts" / "build.sh"), "-DKPROF_ENABLE_PYTHON=OFF"], env=env,
                          capture_output=True, text=True, timeout=60)

    assert done.returncode == 0, done.stderr
    configure = calls(log)[0].split()
    assert "--no-warn-unused-cli" in configure
    assert "-DPython3_EXECUTABLE=/usr/bin/python3" in configure


def documents():
    """The docs, README, ARCHITECTURE and tests' READMEs, without the dated device transcripts."""
    paths = [ROOT / "README.md", ROOT / "ARCHITECTURE.md", *sorted((ROOT / "docs").glob("*.md")),
             *sorted((ROOT / "tests").rglob("README.md")), *sorted((ROOT / "examples").rglob("README.md"))]
    return {path: path.read_text(encoding="utf-8") for path in paths}


def test_every_device_step_the_docs_quote_is_a_step_of_the_one_driver():
    import re
    listed = subprocess.run(["bash", str(ROOT / "bench" / "device" / "run"), "--list"], capture_output=True,
                            text=True, timeout=60, check=True).stdout
    steps = {line.split()[0] for line in listed.splitlines() if line.strip()}
    assert {"e2e", "standby", "record-planted"} <= steps
    quoted = {(path.name, step) for path, text in documents().items()
              for step in re.findall(r"bench/device/run ([a-z0-9][a-z0-9-]*)", text)}
    assert quoted
    assert [(name, step) for name, step in sorted(quoted) if step not in steps] == []
    # scripts/ holds what a user runs; the measurements are bench/device's.
    assert [path.name for path, text in documents().items() if "scripts/device-" in text] == []
    assert sorted(path.name for path in (ROOT / "scripts").glob("device-*")) == []


def test_the_device_driver_refuses_a_step_it_does_not_have_and_lists_those_it_has():
    done = subprocess.run(["bash", str(ROOT / "bench" / "device" / "run"), "no-such-step"], capture_output=True,
                          text=True, timeout=60)

    assert done.returncode == 2
    assert "no step 'no-such-step'" in done.stderr
    assert "  e2e " in done.stderr
