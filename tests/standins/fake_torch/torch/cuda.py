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


# Timing: events stamp the host's clock when recorded (the fake GPU runs everything at once), so
# elapsed_time is the host time between two records. KPROF_FAKE_EVENT_MS=X makes every
# elapsed_time X ms instead, for tests that check numbers.
class Event:
    def __init__(self, enable_timing=False, blocking=False, interprocess=False):
        self._stamp = None

    def record(self, stream=None):
        import time

        self._stamp = time.perf_counter()

    def synchronize(self):
        pass

    def elapsed_time(self, end):
        import os

        if self._stamp is None or end._stamp is None:
            raise RuntimeError("Both events must be recorded before calculating elapsed time.")
        fixed = os.environ.get("KPROF_FAKE_EVENT_MS")
        if fixed:
            return float(fixed)
        return (end._stamp - self._stamp) * 1000.0


class Stream:
    cuda_stream = 0  # the raw handle, as Inductor's launches take it

    def wait_stream(self, other):
        pass


_default_stream = Stream()


def current_stream(device=None):
    return _default_stream


class stream:
    def __init__(self, stream_):
        self.stream = stream_

    def __enter__(self):
        return self.stream

    def __exit__(self, *exc_info):
        return False


class CUDAGraph:
    """Captures nothing: replay() calls what was captured again (logged "graph replay")."""

    def __init__(self):
        self._calls = []

    def replay(self):
        _fake_log("graph replay")


class graph:
    def __init__(self, cuda_graph, **_ignored):
        self.graph = cuda_graph

    def __enter__(self):
        _fake_log("graph capture")
        return self.graph

    def __exit__(self, *exc_info):
        return False
