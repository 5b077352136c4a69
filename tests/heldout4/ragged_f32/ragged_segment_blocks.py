# Held-out defect: load imbalance. A block of 1024 threads per segment: the first blocks stream 4 Mi,
# 2 Mi, 1.4 Mi... values alone on their SMs long after the thousands of short segments are done, so
# most SMs sit idle for most of the time. The fix is the partition (equal chunks), no device line.
# CUDA C++ built with load_inline and -lineinfo: tests/heldout4/cuda/heldout4.cu.
import os
import sys

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cuda"))
import planted_cuda  # noqa: E402


def kernel_function(values, offsets):
    return planted_cuda.module().ragged_blocks(values, offsets)
