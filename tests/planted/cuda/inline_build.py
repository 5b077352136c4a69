"""How a suite's CUDA C++ kernels become one torch extension (tests/planted/cuda/planted_cuda.py,
tests/heldout2/cuda/planted_cuda.py): torch.utils.cpp_extension.load_inline with
`extra_cuda_cflags=["-lineinfo"]`, built once per machine (torch caches the build under
$TORCH_EXTENSIONS_DIR, keyed by the name, the sources and the flags). The CUDA source goes in
behind a `#line 1 "<absolute path of the .cu file>"` directive, so the line info (and ncu's source
page) names the suite's .cu file and its own line numbers instead of the copy load_inline writes
into its build directory."""

import os
import sys
import time


def load(name, source, cpp_source, functions):
    """The built extension `name` of the CUDA file `source` and the C++ side `cpp_source`."""
    # Only Hopper's architecture: a shorter build, and the same flags (so the same cached build)
    # in every process whatever GPUs it sees.
    os.environ.setdefault("TORCH_CUDA_ARCH_LIST", "9.0")
    from torch.utils.cpp_extension import load_inline

    with open(source, encoding="utf-8") as f:
        cuda_source = '#line 1 "%s"\n%s' % (source, f.read())
    return load_inline(
        name=name,
        cpp_sources=[cpp_source],
        cuda_sources=[cuda_source],
        functions=functions,
        extra_cflags=["-O2"],
        extra_cuda_cflags=["-lineinfo", "-O3"],
        verbose=False,
    )


def cached_loader(name, source, cpp_source, functions):
    """A suite's `module()`: the built extension, built on the machine's first call (load) and
    kept for the process after that."""
    built = []

    def module():
        if not built:
            built.append(load(name, source, cpp_source, functions))
        return built[0]

    return module


def build_ahead(name, functions, module):
    """Run as a script: builds (or loads) the extension through `module()`, says how long it took
    and which functions it lacks; exits 1 when it lacks any."""
    started = time.perf_counter()
    m = module()
    missing = [f for f in functions if not hasattr(m, f)]
    print("%s: built/loaded in %.1f s%s" % (name, time.perf_counter() - started,
                                             "; missing " + ", ".join(missing) if missing else ""))
    sys.exit(1 if missing else 0)
