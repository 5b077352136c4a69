# Held-out defect: load imbalance. A one-wave grid of warps (8 blocks of 256 an SM) takes the rows
# round-robin, a whole row a warp: the few warps that meet the rows of 50k to 131k values stream
# them alone, 1 MiB at a warp's pace, long after the other warps (about 5000 values each) are done
# and their SMs idle. The fix is the partition (equal runs of values), no device line.
# CUDA C++ built with load_inline and -lineinfo: tests/heldout5/cuda/heldout5.cu.
import os
import sys

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cuda"))
import planted_cuda  # noqa: E402


def kernel_function(row_ptr, cols, vals, x):
    return planted_cuda.module().spmv_rows(row_ptr, cols, vals, x)
