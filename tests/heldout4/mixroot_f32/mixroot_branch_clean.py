# Clean twin of mixroot_branch.py: each block of 256 sorts its values by kind in shared memory (a
# ballot and a population count per warp), then its first threads take the cube roots and the rest
# the square roots: only the warp at the boundary runs both loops.
# CUDA C++ built with load_inline and -lineinfo: tests/heldout4/cuda/heldout4.cu.
import os
import sys

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cuda"))
import planted_cuda  # noqa: E402


def kernel_function(x, kind, iters=32):  # iters: get_init_inputs()[0], passed after the inputs
    return planted_cuda.module().mixroot_grouped(x, kind, iters)
