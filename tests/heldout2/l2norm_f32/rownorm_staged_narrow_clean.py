# Clean twin of rownorm_staged_narrow.py: the same staged row with 1024 threads per block (two
# blocks, 64 warps an SM).
# CUDA C++ built with load_inline and -lineinfo: tests/heldout2/cuda/heldout2.cu.
import os
import sys

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cuda"))
import planted_cuda  # noqa: E402


def kernel_function(x):
    return planted_cuda.module().rownorm_staged_wide(x)
