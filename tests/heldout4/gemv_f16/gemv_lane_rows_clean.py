# Clean twin of gemv_lane_rows.py: a warp per row, each lane loading 16 bytes (8 weights) at a time,
# the warp 512 contiguous bytes, then a shuffle sum.
# CUDA C++ built with load_inline and -lineinfo: tests/heldout4/cuda/heldout4.cu.
import os
import sys

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cuda"))
import planted_cuda  # noqa: E402


def kernel_function(w, x):
    return planted_cuda.module().gemv_warp_rows(w, x)
