# Clean twin of spmv_warp_rows.py: equal runs of 2048 stored values a warp whatever the rows (20k
# warps, scheduled by the hardware); each warp binary-searches the row offsets for its first row
# and adds its part of each row it overlaps with one atomic (y zeroed by a memset, no kernel).
# CUDA C++ built with load_inline and -lineinfo: tests/heldout5/cuda/heldout5.cu.
import os
import sys

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cuda"))
import planted_cuda  # noqa: E402


def kernel_function(row_ptr, cols, vals, x):
    return planted_cuda.module().spmv_chunks(row_ptr, cols, vals, x)
