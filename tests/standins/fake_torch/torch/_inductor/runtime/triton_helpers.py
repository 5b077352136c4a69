"""Fake torch._inductor.runtime.triton_helpers: the names a generated kernel module imports and
uses in its body (never run: the fake Triton compiles nothing)."""

import types

libdevice = types.SimpleNamespace()
math = types.SimpleNamespace()


def set_driver_to_gpu():
    pass


def maximum(a, b):
    raise RuntimeError("fake triton_helpers.maximum called outside a kernel")
