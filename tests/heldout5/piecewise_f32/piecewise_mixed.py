# Held-out defect: warp divergence. A thread per value switches on the value's piece (its integer
# part), four bodies of about a hundred FMAs each (Horner, Clenshaw, a polynomial under exp, a
# ratio of two); the pieces are random, so every warp runs all four bodies in turn with a quarter
# of its lanes in each.
# CUDA C++ built with load_inline and -lineinfo: tests/heldout5/cuda/heldout5.cu.
import os
import sys

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cuda"))
import planted_cuda  # noqa: E402


def kernel_function(x, coef):
    return planted_cuda.module().piecewise_mixed(x, coef)
