"""A fake `triton` for CI: @triton.jit kernels launch as kernel[grid](...) and only log
"launch <kernel name>" to KPROF_FAKE_TORCH_LOG (see the fake torch). Nothing is compiled."""

from torch import _fake_log

from . import language  # noqa: F401  (import triton.language as tl)

__version__ = "0.0-fake"


class JITFunction:
    def __init__(self, fn):
        self.fn = fn
        self.__name__ = fn.__name__

    def __getitem__(self, grid):
        def launch(*args, **kwargs):
            _fake_log("launch " + self.__name__)

        return launch

    def __call__(self, *args, **kwargs):
        raise RuntimeError("Cannot call @triton.jit'd outside of the scope of a kernel")


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
    return lambda fn: fn


def heuristics(values):
    return lambda fn: fn


def cdiv(x, y):
    return (x + y - 1) // y


def next_power_of_2(n):
    power = 1
    while power < n:
        power *= 2
    return power
