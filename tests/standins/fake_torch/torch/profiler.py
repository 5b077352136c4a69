"""Fake torch.profiler: records the fake Triton launches made inside `with profile(...)` and
exports them as PyTorch's chrome trace does: per launch a `cpu_op` ("aten::fake_op"), the
`cuda_runtime` call (cudaLaunchKernel) inside it and the `kernel` event, tied by `correlation`,
the kernel's args carrying grid, block, registers per thread, shared memory and stream.
With KPROF_FAKE_PROFILER_FAILS set, entering a profile raises, as a profiler that cannot start.

A launch's duration is its FAKE_US keyword (default 1.0 us), its shared memory its FAKE_SHARED
keyword (default 0), its block num_warps * 32 (default 4 warps); a grid that is a callable is
called with the launch's keywords, as Triton does.
"""

import json as _json
import os as _os

_active = []


class ProfilerActivity:
    CPU = "CPU"
    CUDA = "CUDA"


def _record_launch(name, grid, block, shared, duration_us):
    for prof in _active:
        prof._launches.append((name, grid, block, shared, duration_us))


class profile:
    def __init__(self, activities=None, **options):
        self.activities = activities
        self._launches = []

    def __enter__(self):
        if _os.environ.get("KPROF_FAKE_PROFILER_FAILS"):
            raise RuntimeError("CUPTI could not be initialized (KPROF_FAKE_PROFILER_FAILS)")
        _active.append(self)
        return self

    def __exit__(self, *exc_info):
        _active.remove(self)
        return False

    def events(self):
        return []

    def export_chrome_trace(self, path):
        events, ts = [], 0.0
        for correlation, (name, grid, block, shared, us) in enumerate(self._launches, start=1):
            events.append({"ph": "X", "cat": "cpu_op", "name": "aten::fake_op", "pid": 1, "tid": 1,
                           "ts": ts, "dur": 5.0, "args": {}})
            events.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1,
                           "tid": 1, "ts": ts + 1.0, "dur": 2.0, "args": {"correlation": correlation}})
            events.append({"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7,
                           "ts": ts + 3.0, "dur": us,
                           "args": {"correlation": correlation, "grid": list(grid), "block": list(block),
                                    "registers per thread": 32, "shared memory": shared,
                                    "stream": 7}})
            ts += 10.0 + us
        with open(path, "w", encoding="utf-8") as f:
            _json.dump({"traceEvents": events}, f)
