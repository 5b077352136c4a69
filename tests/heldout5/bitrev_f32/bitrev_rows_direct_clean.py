# Clean twin of bitrev_rows_direct.py: the row staged with a pad word after every 128 values, so
# that the 32 values a warp reads at once fall in 32 different banks.
# CUDA C++ built with load_inline and -lineinfo: tests/heldout5/cuda/heldout5.cu.
import os
import sys

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cuda"))
import planted_cuda  # noqa: E402


def kernel_function(x):
    return planted_cuda.module().bitrev_skewed(x)
