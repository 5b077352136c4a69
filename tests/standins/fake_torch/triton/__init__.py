"""A fake `triton` for CI: @triton.jit kernels launch as kernel[grid](...) and only log
"launch <kernel name>" to KPROF_FAKE_TORCH_LOG (see the fake torch); triton.runtime has the
entry points kprof's harness compiles ahead with (runtime/jit.py). Nothing is compiled."""

from . import language  # noqa: F401  (import triton.language as tl)
from . import runtime  # noqa: F401
from .runtime.autotuner import Autotuner
from .runtime.jit import JITFunction

__version__ = "0.0-fake"


def jit(fn=None, **options):
    if fn is None:
        return lambda inner: JITFunction(inner)
    return JITFunction(fn)


class Config:
    def __init__(self, kwargs, num_warps=4, num_stages=3, **options):
        self.kwargs = kwargs
        self.num_warps = num_warps
        self.num_stages = num_stages


def autotune(configs, key, **options):
    return lambda fn: Autotuner(fn, configs)


def heuristics(values):
    return lambda fn: fn


def cdiv(x, y):
    return (x + y - 1) // y


def next_power_of_2(n):
    power = 1
    while power < n:
        power *= 2
    return power
