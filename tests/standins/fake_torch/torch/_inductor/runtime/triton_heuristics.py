"""Fake torch._inductor.runtime.triton_heuristics: a generated kernel module's decorator
(pointwise) makes a CachingAutotuner around its @triton.jit function, launched as the code
torch.compile writes launches it, `kernel.run(*args, stream=stream0)`: a fake launch (logged as
"launch <kernel>", recorded for the fake profiler) with XBLOCK 1024, 4 warps, without going
through JITFunction.run, as Inductor's compiled launcher does not. As Inductor's once its kernel
is compiled, the JIT function's Python function is gone (fn.fn is None); the module's file is the
autotuner's `filename`."""

from triton.runtime import jit as _jit


class CachingAutotuner:
    def __init__(self, fn, triton_meta, inductor_meta, size_hints=None, filename=None, **_options):
        self.fn = fn
        self.filename = filename
        self.triton_meta = triton_meta
        self.inductor_meta = inductor_meta
        self.size_hints = size_hints

    def run(self, *args, stream, benchmark_run=False, **kwargs):
        xnumel = args[-1]
        _jit._fake_log("launch " + self.fn.__name__)
        _jit._record_launch(self.fn.__name__, ((xnumel + 1023) // 1024,), {"num_warps": 4})


def pointwise(size_hints, triton_meta, inductor_meta=None, filename=None, min_elem_per_thread=0):
    def decorate(fn):
        autotuner = CachingAutotuner(fn, triton_meta, inductor_meta or {}, size_hints=size_hints,
                                     filename=filename)
        fn.fn = None  # as Inductor's, once compiled: the Python function is dropped
        return autotuner

    return decorate
