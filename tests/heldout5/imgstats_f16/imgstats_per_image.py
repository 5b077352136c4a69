# Held-out defect: too few blocks. A block of 1024 threads per image streams its 64 MiB alone: 8
# blocks for 132 SMs, 124 of them idle. The fix is the grid (split each image over many blocks), no
# device line.
# CUDA C++ built with load_inline and -lineinfo: tests/heldout5/cuda/heldout5.cu.
import os
import sys

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cuda"))
import planted_cuda  # noqa: E402


def kernel_function(x):
    return planted_cuda.module().imgstats_per_image(x)
