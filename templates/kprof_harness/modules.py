"""Loading problem.py and kernel.py by path, whatever their names (nothing is spliced into code),
with their directories appended to sys.path, never in front of the standard library."""

import contextlib
import importlib.machinery
import importlib.util
import os
import sys


def add_import_dir(directory):
    """Appends `directory` to sys.path (never in front: a types.py there must not shadow the
    standard library). Returns whether it was added."""
    if directory in sys.path:
        return False
    sys.path.append(directory)
    return True


def load_module(name, path):
    """Executes the file at `path` as module `name`; any file name works, nothing is spliced."""
    loader = importlib.machinery.SourceFileLoader(name, path)
    spec = importlib.util.spec_from_file_location(name, path, loader=loader)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


@contextlib.contextmanager
def candidate_imports(kernel_path):
    """While a candidate runs: its kernel.py's directory on sys.path (add_import_dir); after it,
    the modules first imported from there forgotten (forget_modules_from)."""
    kernel_dir = os.path.dirname(os.path.abspath(kernel_path))
    modules_before = set(sys.modules)
    added_dir = add_import_dir(kernel_dir)
    try:
        yield
    finally:
        if added_dir:
            sys.path.remove(kernel_dir)
            forget_modules_from(kernel_dir, modules_before)


def forget_modules_from(directory, known_before):
    """Drops modules first imported from `directory`, so the next candidate's own sibling files
    (a helpers.py of the same name) are imported afresh."""
    prefix = os.path.join(directory, "")
    for name in [name for name in sys.modules if name not in known_before]:
        path = getattr(sys.modules[name], "__file__", None)
        if isinstance(path, str) and os.path.abspath(path).startswith(prefix):
            del sys.modules[name]
