"""Importing torch, the longest part of a harness's start: Triton first (for its version), then
torch, while a thread computes Triton's cache key beside it (TritonKey). What else overlaps the
import (the early primer, a compile worker's set-up) is started by the callers before it."""

import importlib
import threading
import time


def import_torch(status):
    """torch, imported after Triton (when there is one), whose cache key is computed in a thread
    meanwhile (TritonKey); the status gets both versions and the key's time."""
    try:
        import triton

        status["triton_version"] = str(triton.__version__)
    except Exception:
        status["triton_version"] = None
    key = TritonKey() if status["triton_version"] is not None else None
    import torch

    status["torch_version"] = str(torch.__version__)
    if key is not None:
        key.join(status)
    return torch


class TritonKey:
    """A thread, started once Triton is imported and before `import torch`, that computes
    Triton's triton_key(): the hash of Triton's own sources and shared library that begins every
    compile's cache key, computed once per process (functools.lru_cache) and otherwise paid by
    the process's first compile or launch. Measured on an H100 (2026-12-05,
    bench/device/run triton-target): 0.47-0.97 s in a new process. Hashing the library releases
    the GIL, so it runs beside torch's import. join() waits for the thread (torch's import
    usually outlasts it) and records status["triton_key_seconds"]; a Triton without an
    lru-cached triton_key where 3.6 (triton.runtime.cache) or earlier versions
    (triton.compiler.compiler) have it gets no thread and no figure. Nothing here raises: the
    key is Triton's to compute again if this fails."""

    def __init__(self):
        import pkgutil  # noqa: F401 (triton_key imports it: here, not in the thread beside torch's import)

        self.seconds = None
        self.function = self.find()
        self.thread = None
        if self.function is not None:
            self.thread = threading.Thread(target=self.run, name="kprof-triton-key", daemon=True)
            self.thread.start()

    @staticmethod
    def find():
        for name in ("triton.runtime.cache", "triton.compiler.compiler"):
            try:
                function = getattr(importlib.import_module(name), "triton_key", None)
            except Exception:
                continue
            if callable(function) and hasattr(function, "cache_info"):
                return function
        return None

    def run(self):
        started = time.perf_counter()
        try:
            self.function()
        except Exception:  # Triton computes it again at its first compile, and says why there
            return
        self.seconds = time.perf_counter() - started

    def join(self, status):
        if self.thread is not None:
            self.thread.join()
        if self.seconds is not None:
            status["triton_key_seconds"] = self.seconds
