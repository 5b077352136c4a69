"""The fake triton's runtime: `driver.active` (device, stream and target), the JIT function and
the autotuner (triton.runtime.jit, triton.runtime.autotuner) with Triton's run/warmup entry
points."""

from .driver import driver  # noqa: F401  (the object, as in Triton)
