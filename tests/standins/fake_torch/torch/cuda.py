"""Fake torch.cuda: "Fake GPU"s that always work, as many as the machine has and
CUDA_VISIBLE_DEVICES shows (see torch/__init__.py), with an event log."""

import types as _types

from . import _fake_log, _no_gpu, _visible_gpus

_sticky_error = []


def is_available():
    return not _no_gpu()


def device_count():
    return _visible_gpus()


def current_device():
    return 0


def get_device_name(device=None):
    return "Fake GPU"


def synchronize(device=None):
    if _no_gpu():
        raise RuntimeError("No CUDA GPUs are available")
    _fake_log("sync")
    if _sticky_error:
        raise RuntimeError(_sticky_error[0])


def _fake_poison(message):
    """Test hook: every later synchronize() raises RuntimeError(message)."""
    _sticky_error[:] = [message]


_depth = [0]
_range_stack = []  # the open NVTX ranges, innermost last (triton/runtime/jit.py reads it)


def _range_push(message):
    _fake_log("push " + message)
    _depth[0] += 1
    _range_stack.append(message)
    return _depth[0] - 1


def _range_pop():
    _fake_log("pop")
    _depth[0] -= 1
    if _range_stack:
        _range_stack.pop()
    return _depth[0]


nvtx = _types.SimpleNamespace(range_push=_range_push, range_pop=_range_pop)
