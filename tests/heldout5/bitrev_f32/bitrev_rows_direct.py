# Held-out defect: bank conflicts. A block per row stages the row in shared memory in order, then
# thread i reads s[rev12(i)]: the 32 lanes of a warp read values 128 words apart, all in one bank,
# a 32-way conflict on every read.
# CUDA C++ built with load_inline and -lineinfo: tests/heldout5/cuda/heldout5.cu.
import os
import sys

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cuda"))
import planted_cuda  # noqa: E402


def kernel_function(x):
    return planted_cuda.module().bitrev_direct(x)
