# Held-out defect: barrier stalls. A block of 1024 threads per row scans it Hillis-Steele style in
# shared memory, with a block-wide barrier before and after each of the 10 doubling steps: 20
# barriers a row, each met by all 32 warps after two shared loads and an add.
# CUDA C++ built with load_inline and -lineinfo: tests/heldout5/cuda/heldout5.cu.
import os
import sys

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cuda"))
import planted_cuda  # noqa: E402


def kernel_function(x):
    return planted_cuda.module().prefix_hillis(x)
