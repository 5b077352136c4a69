"""Loads the harness's self-contained modules (templates/harness/*.py) and the fake torch
(tests/standins/fake_torch) into the test process, the fake under the name torch only inside
the `fake_torch` fixture, so that a real torch of the same session is left alone."""

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FAKE_TORCH = ROOT / "tests" / "standins" / "fake_torch"


def load(name):
    """templates/harness/<name>.py as a module of its own."""
    path = ROOT / "templates" / "harness" / (name + ".py")
    spec = importlib.util.spec_from_file_location("kprof_harness_" + name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def fake_torch(monkeypatch):
    """The fake torch, imported fresh; sys.modules and sys.path as they were afterwards."""
    saved = {key: value for key, value in sys.modules.items() if key == "torch" or key.startswith("torch.")}
    for key in saved:
        del sys.modules[key]
    monkeypatch.syspath_prepend(str(FAKE_TORCH))
    import torch  # noqa: E402  (the fake)
    yield torch
    for key in [key for key in sys.modules if key == "torch" or key.startswith("torch.")]:
        del sys.modules[key]
    sys.modules.update(saved)
