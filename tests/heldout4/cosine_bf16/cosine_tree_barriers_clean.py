# Clean twin of cosine_tree_barriers.py: a warp per row, 16 bytes of each row a lane, three shuffle
# sums: no shared memory and no barrier.
# CUDA C++ built with load_inline and -lineinfo: tests/heldout4/cuda/heldout4.cu.
import os
import sys

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cuda"))
import planted_cuda  # noqa: E402


def kernel_function(a, b):
    return planted_cuda.module().cosine_warp(a, b)
