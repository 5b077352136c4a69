# Clean twin of center_serial_sum.py: the partial sums reduced by warp shuffles, every warp taking
# part, one short barrier.
# CUDA C++ built with load_inline and -lineinfo: tests/heldout2/cuda/heldout2.cu.
import os
import sys

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cuda"))
import planted_cuda  # noqa: E402


def kernel_function(x):
    return planted_cuda.module().center_shuffle_sum(x)
