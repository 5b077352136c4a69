"""What the harness's tests share: the templates (the entry script and its package), a copy of
them installed as kprof installs them, and the package's modules imported one by one.

The modules are imported from templates/kprof_harness as the entry script imports them (by path,
as the package kprof_harness), so a test of one module exercises exactly the file kprof embeds.
"""

import importlib
import importlib.util
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HARNESS = ROOT / "templates" / "harness.py"
PACKAGE = ROOT / "templates" / "kprof_harness"
FAKE_TORCH = ROOT / "tests" / "standins" / "fake_torch"
CASES = Path(__file__).resolve().parent / "cases"


def install_harness(run_dir, name="harness.py"):
    """The entry script copied into run_dir as `name`, with the package beside it, as kprof
    writes them before a run; returns the script's path."""
    script = Path(run_dir) / name
    shutil.copyfile(HARNESS, script)
    shutil.copytree(PACKAGE, Path(run_dir) / "kprof_harness", dirs_exist_ok=True)
    return script


def harness(module):
    """The package's module `module` ("plan", "calls", ...), imported from the templates."""
    if "kprof_harness" not in sys.modules:
        spec = importlib.util.spec_from_file_location(
            "kprof_harness", PACKAGE / "__init__.py", submodule_search_locations=[str(PACKAGE)])
        package = importlib.util.module_from_spec(spec)
        sys.modules["kprof_harness"] = package
        spec.loader.exec_module(package)
    return importlib.import_module("kprof_harness." + module)


@pytest.fixture
def fake_torch(monkeypatch):
    """The fake torch (tests/standins/fake_torch), imported fresh under the name torch only
    inside the test, for the modules that are handed a torch (timing, correctness,
    speed_of_light); sys.modules and sys.path as they were afterwards, so that a real torch of
    the same session is left alone."""
    saved = {key: value for key, value in sys.modules.items() if key == "torch" or key.startswith("torch.")}
    for key in saved:
        del sys.modules[key]
    monkeypatch.syspath_prepend(str(FAKE_TORCH))
    import torch  # noqa: E402  (the fake)
    yield torch
    for key in [key for key in sys.modules if key == "torch" or key.startswith("torch.")]:
        del sys.modules[key]
    sys.modules.update(saved)


class FakeTensor:
    """A tensor as far as the harness's modules look at one: device, dtype, floating or not."""

    def __init__(self, dtype="float32", device="cpu", name=""):
        self.dtype = dtype
        self.device = device
        self.name = name

    @property
    def is_cuda(self):
        return self.device == "cuda"

    def is_floating_point(self):
        return self.dtype in ("float32", "float16", "bfloat16")

    def cuda(self):
        return FakeTensor(self.dtype, "cuda", self.name)

    def to(self, dtype):
        return FakeTensor(dtype, self.device, self.name)

    def __repr__(self):
        return "FakeTensor(%s, %s, %s)" % (self.name, self.dtype, self.device)


class FakeTorch:
    """A torch for the module tests, in this process: it logs what the harness asks of the GPU
    ("sync", "push <range>", "pop", "seed <n>") in `events`."""

    Tensor = FakeTensor
    bfloat16 = "bfloat16"
    float16 = "float16"
    float32 = "float32"

    def __init__(self, devices=1, fail_sync=False):
        self.events = []
        torch = self

        class Nvtx:
            @staticmethod
            def range_push(name):
                torch.events.append("push " + name)

            @staticmethod
            def range_pop():
                torch.events.append("pop")

        class Cuda:
            nvtx = Nvtx

            @staticmethod
            def synchronize():
                torch.events.append("sync")
                if fail_sync:
                    raise RuntimeError("CUDA error: an illegal memory access was encountered")

            @staticmethod
            def device_count():
                return devices

            @staticmethod
            def get_device_name():
                return "Fake GPU"

        self.cuda = Cuda

    def manual_seed(self, seed):
        self.events.append("seed %d" % seed)

    def device(self, name):
        import contextlib

        return contextlib.nullcontext()


def sample_plan(**settings):
    """A plan as read_plan leaves it (every default filled in)."""
    plan = {"version": 1, "problem": "/p/problem.py", "status_file": "/p/status.json",
            "candidates": [{"kernel": "/k/kernel.py", "range": "kprof:cand0"}], "warmup": 3,
            "inputs": "gpu", "cast": "none", "seed": 0, "first_candidate": 0, "early_primer": False,
            "standby": None, "profiled_call_lock": None, "compile_ahead": None, "timeline_gate": None,
            "truth": None}
    plan.update(settings)
    return plan
