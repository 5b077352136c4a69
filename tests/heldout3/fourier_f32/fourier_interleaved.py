# Held-out defect: warp divergence. A thread per output with the two sums' outputs interleaved:
# even threads run the 64-term sine sum and odd threads the 64-term cosine sum, so every warp runs
# both loops one after the other, half of its lanes idle in each.
# CUDA C++ built with load_inline and -lineinfo: tests/heldout3/cuda/heldout3.cu.
import os
import sys

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cuda"))
import planted_cuda  # noqa: E402


def kernel_function(a, b):
    return planted_cuda.module().fourier_interleaved(a, b)
