# Held-out defect: MIO pressure. The textbook shared-memory tiling, 16 x 16 threads, an output
# each: every |a - b| (two arithmetic instructions) takes two shared-memory loads.
# CUDA C++ built with load_inline and -lineinfo: tests/heldout2/cuda/heldout2.cu.
import os
import sys

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cuda"))
import planted_cuda  # noqa: E402


def kernel_function(a, b):
    return planted_cuda.module().cdist_l1_tile16(a, b)
