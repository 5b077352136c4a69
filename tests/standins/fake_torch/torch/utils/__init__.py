"""Fake torch.utils: flop_counter and _python_dispatch, enough for kprof's speed of light."""

from . import _python_dispatch  # noqa: F401
from . import flop_counter  # noqa: F401
