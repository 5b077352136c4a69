# Clean twin of piecewise_mixed.py: each block of 1024 first groups its values by piece in shared
# memory (__match_any_sync, one shared atomic per warp and piece), thread t evaluates the t-th, and
# the results go back in input order through shared memory: at most 3 warps of 32 run more than one
# body.
# CUDA C++ built with load_inline and -lineinfo: tests/heldout5/cuda/heldout5.cu.
import os
import sys

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cuda"))
import planted_cuda  # noqa: E402


def kernel_function(x, coef):
    return planted_cuda.module().piecewise_grouped(x, coef)
