"""pytest plugin for scripts/test-pip-install.sh: makes the Python suite (tests/python) fail at
once unless it tests the pip-installed kprof, not a build tree.

Load it with `-p installed_kprof` (tests/pip on PYTHONPATH) and KPROF_INSTALLED_PREFIX=<venv>:
the session stops with a usage error when `import kprof` resolves outside <venv>, or when the
CLI the tests run (KPROF_BUILD_DIR/kprof, the first kprof on PATH) is not <venv>/bin/kprof.
"""

import os
import shutil
from pathlib import Path

import pytest


def _inside(path: Path, prefix: Path) -> bool:
    try:
        path.resolve().relative_to(prefix.resolve())
    except ValueError:
        return False
    return True


def pytest_configure(config):
    prefix_text = os.environ.get("KPROF_INSTALLED_PREFIX")
    if not prefix_text:
        raise pytest.UsageError("installed_kprof: KPROF_INSTALLED_PREFIX (the venv) is not set")
    prefix = Path(prefix_text)
    # Import errors propagate: the installed package must import.
    import kprof  # noqa: PLC0415

    if not _inside(Path(kprof.__file__), prefix):
        raise pytest.UsageError(f"installed_kprof: kprof is imported from {kprof.__file__}, not from {prefix}")
    cli = prefix / "bin" / "kprof"
    build_dir = os.environ.get("KPROF_BUILD_DIR")
    if build_dir is None or Path(build_dir, "kprof").resolve() != cli.resolve():
        raise pytest.UsageError(f"installed_kprof: KPROF_BUILD_DIR={build_dir} does not hold {cli}")
    on_path = shutil.which("kprof")
    if on_path is None or Path(on_path).resolve() != cli.resolve():
        raise pytest.UsageError(f"installed_kprof: the kprof on PATH is {on_path}, not {cli}")


def pytest_report_header(config):
    import kprof  # noqa: PLC0415

    return f"kprof {kprof.__version__} under test: {kprof.__file__} (installed with pip)"
