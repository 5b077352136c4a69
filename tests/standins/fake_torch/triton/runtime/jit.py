"""triton.runtime.jit: kernel[grid](...) is run(..., grid=grid, warmup=False), as in Triton.
A launch logs "launch <kernel>" to KPROF_FAKE_TORCH_LOG (see the fake torch); a run with
warmup=True compiles without launching and logs "compile <kernel> <pid>" to
KPROF_FAKE_TRITON_COMPILE_LOG when that names a file. Nothing is compiled. As Triton's
JITFunction, @triton.jit reads the function's source with inspect.getsourcelines (a function
whose source cannot be found cannot be a kernel) and keeps it from the `def` on.

Test hooks (not in Triton): KPROF_FAKE_TRITON_FAIL_LAUNCH=NAME makes launching kernel NAME raise
RuntimeError("no launch here"); KPROF_FAKE_TRITON_LAUNCH_SECONDS=S makes every launch take S
seconds (a kernel that takes time, while compile workers get ahead)."""

import inspect
import json
import os
import re
import textwrap
import time

from .cache import triton_key


def _fake_log(event):
    from torch import _fake_log as log  # not at import: real Triton does not import torch

    log(event)


def _launch_shape(grid, kwargs):
    """(grid, block, shared memory, microseconds) of a fake launch: see torch/profiler.py."""
    if callable(grid):
        grid = grid(kwargs)
    grid = tuple(int(g) for g in (grid if isinstance(grid, (tuple, list)) else (grid,)))
    grid = (grid + (1, 1, 1))[:3]
    block = (int(kwargs.get("num_warps", 4)) * 32, 1, 1)
    return grid, block, int(kwargs.get("FAKE_SHARED", 0)), float(kwargs.get("FAKE_US", 1.0))


def _record_launch(name, grid, kwargs):
    """A launch for the fake profiler (torch.profiler) and, when KPROF_FAKE_LAUNCH_LOG names a
    file (the stand-in ncu sets it), one JSON line there with the NVTX range it was made in."""
    import torch  # not at import: real Triton does not import torch

    grid, block, shared, us = _launch_shape(grid, kwargs)
    torch.profiler._record_launch(name, grid, block, shared, us)
    path = os.environ.get("KPROF_FAKE_LAUNCH_LOG")
    if path and os.getpid() == torch._PID:
        ranges = torch.cuda._range_stack
        with open(path, "a", encoding="utf-8") as f:
            f.write(json.dumps({"name": name, "grid": grid, "block": block, "shared": shared,
                                "us": us, "range": ranges[-1] if ranges else ""}) + "\n")


def _compile_log(event):
    path = os.environ.get("KPROF_FAKE_TRITON_COMPILE_LOG")
    if path:
        with open(path, "a", encoding="utf-8") as f:
            f.write("%s %d\n" % (event, os.getpid()))


class KernelInterface:
    def __getitem__(self, grid):
        return lambda *args, **kwargs: self.run(*args, grid=grid, warmup=False, **kwargs)


class JITFunction(KernelInterface):
    def __init__(self, fn):
        self.fn = fn
        self.__name__ = fn.__name__
        self.arg_names = list(inspect.signature(fn).parameters)
        self.raw_src, self.starting_line_number = inspect.getsourcelines(fn)
        src = textwrap.dedent("".join(self.raw_src))
        self.src = src[re.search(r"^def\s+\w+\s*\(", src, re.MULTILINE).start():]

    def run(self, *args, grid, warmup, **kwargs):
        triton_key()  # as Triton's: every compile's cache key begins with it
        if warmup:
            _compile_log("compile " + self.__name__)
            return None
        if os.environ.get("KPROF_FAKE_TRITON_FAIL_LAUNCH") == self.__name__:
            raise RuntimeError("no launch here")
        _fake_log("launch " + self.__name__)
        _record_launch(self.__name__, grid, kwargs)
        if os.environ.get("KPROF_FAKE_TRITON_LAUNCH_SECONDS"):
            time.sleep(float(os.environ["KPROF_FAKE_TRITON_LAUNCH_SECONDS"]))
        return None

    def warmup(self, *args, grid, **kwargs):
        return self.run(*args, grid=grid, warmup=True, **kwargs)

    def __call__(self, *args, **kwargs):
        raise RuntimeError("Cannot call @triton.jit'd outside of the scope of a kernel")
