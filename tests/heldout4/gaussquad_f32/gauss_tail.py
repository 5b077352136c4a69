# Held-out defect: tail effect. A block of 1024 threads per tile of 4096 values, 300 tiles, the
# blocks 2 per SM: 264 run in the first wave and the last 36 in a second wave as long as the first,
# with most SMs idle. The fix is the grid (spread the values over one wave), no device line.
# CUDA C++ built with load_inline and -lineinfo: tests/heldout4/cuda/heldout4.cu.
import os
import sys

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cuda"))
import planted_cuda  # noqa: E402


def kernel_function(a):
    return planted_cuda.module().gauss_tiles(a)
