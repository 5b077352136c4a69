"""kprof harness: runs candidate kernels once each inside an NVTX range, for Nsight Compute.

This file and the package kprof_harness/ beside it are written by kprof (embedded in its binary)
next to a JSON plan on every run, so edits here are lost. Usage:

    python3 harness.py PLAN.json [--compile-worker]

This entry only loads the package, by path (this directory never goes on sys.path), and runs it;
kprof_harness/__init__.py says what the harness does and which module does it.
"""

import os
import sys

# `python3 harness.py` puts this script's directory first on sys.path. Drop it before importing
# anything else, so a json.py or types.py lying next to the script cannot replace the standard
# library, here or in the user's code. (problem.py's and kernel.py's own directories are appended
# later, after the standard library.)
HERE = os.path.dirname(os.path.realpath(__file__))
if sys.path and sys.path[0] and os.path.realpath(sys.path[0]) == HERE:
    del sys.path[0]
sys.dont_write_bytecode = True  # no __pycache__ beside the package either

import importlib.util  # noqa: E402


def load_package(directory):
    """The package in `directory`, imported as kprof_harness (its modules import each other
    relatively)."""
    spec = importlib.util.spec_from_file_location(
        "kprof_harness", os.path.join(directory, "__init__.py"), submodule_search_locations=[directory])
    package = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = package
    spec.loader.exec_module(package)
    return package


if __name__ == "__main__":
    try:
        load_package(os.path.join(HERE, "kprof_harness"))
        from kprof_harness.main import entry
    except Exception:  # a package missing or broken beside this file: a bug, as in main.entry
        import traceback

        sys.stderr.write("kprof-harness: internal error:\n" + traceback.format_exc())
        sys.stderr.flush()
        os._exit(70)
    entry(sys.argv)
