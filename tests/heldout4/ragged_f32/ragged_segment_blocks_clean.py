# Clean twin of ragged_segment_blocks.py: equal chunks of 4096 values a block whatever the segments;
# each block binary-searches the offsets for its first segment and adds its part of each segment it
# overlaps to that segment's total with one atomic (the totals zeroed by a memset, no kernel).
# CUDA C++ built with load_inline and -lineinfo: tests/heldout4/cuda/heldout4.cu.
import os
import sys

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cuda"))
import planted_cuda  # noqa: E402


def kernel_function(values, offsets):
    return planted_cuda.module().ragged_chunks(values, offsets)
