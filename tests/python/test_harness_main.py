"""The harness's entry (templates/harness.py) and its main module: the package loaded by path,
every module imported at the start, the command line."""

import os
import subprocess
import sys

import pytest

from harness_helpers import PACKAGE, harness, install_harness

main = harness("main")


@pytest.fixture(autouse=True)
def in_this_process(monkeypatch):
    """main() as a test calls it: without the death signal, the owner's watch, the crash handler
    and the bytecode switch, which would stay on in pytest's own process."""
    for name in ("die_with_parent", "die_with_owner", "report_crashes"):
        monkeypatch.setattr(main, name, lambda: None)
    monkeypatch.setattr(sys, "dont_write_bytecode", sys.dont_write_bytecode)


def test_every_module_of_the_package_is_imported_at_the_start():
    # A standby's directory is moved while it waits: nothing may be imported from it later.
    names = sorted(p.stem for p in PACKAGE.glob("*.py") if p.stem != "__init__")

    assert [name for name in names if "kprof_harness." + name not in sys.modules] == []


def test_a_wrong_command_line_is_a_usage_error(capsys):
    assert main.main(["harness.py"]) == main.EXIT_PROBLEM_INVALID
    assert main.main(["harness.py", "plan.json", "--other"]) == main.EXIT_PROBLEM_INVALID

    assert ("kprof-harness: usage: harness.py PLAN.json [--compile-worker | --timeline OUT.json | --truth GATE SECONDS"
            " | --extract SPEC.json]") in capsys.readouterr().err


def test_a_compile_worker_needs_compile_ahead_in_its_plan(tmp_path, capsys):
    plan = tmp_path / "plan.json"
    plan.write_text('{"version": 1, "problem": "/p.py", "status_file": "/s.json", "candidates": []}')

    assert main.main(["harness.py", str(plan), "--compile-worker"]) == main.EXIT_PROBLEM_INVALID
    assert "plan field 'compile_ahead' must be set for a compile worker" in capsys.readouterr().err


def test_the_entry_without_its_package_is_an_internal_error_saying_so(tmp_path):
    script = install_harness(tmp_path)
    os.rename(tmp_path / "kprof_harness", tmp_path / "elsewhere")

    done = subprocess.run([sys.executable, str(script), str(tmp_path / "plan.json")],
                          capture_output=True, text=True, timeout=60)

    assert done.returncode == 70
    assert done.stderr.startswith("kprof-harness: internal error:\n") and "kprof_harness" in done.stderr


def test_the_entry_puts_neither_its_directory_nor_bytecode_beside_it(tmp_path):
    script = install_harness(tmp_path)
    (tmp_path / "report.py").write_text("raise SystemExit('shadowed')\n")

    done = subprocess.run([sys.executable, str(script), str(tmp_path / "missing.json")],
                          capture_output=True, text=True, timeout=60)

    assert done.returncode == 2 and "cannot read plan" in done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["harness.py", "kprof_harness", "report.py"]
    assert not (tmp_path / "kprof_harness" / "__pycache__").exists()
