# Held-out defect: low occupancy. Blocks of 256 threads transpose 128 x 128 tiles of doubles through
# 129 KiB of shared memory (padded, conflict-free): one block, 8 warps an SM, a few loads in flight
# a thread, too few to cover DRAM's latency. No spills; the fix is the launch (the tile size), no
# device line.
# CUDA C++ built with load_inline and -lineinfo: tests/heldout5/cuda/heldout5.cu.
import os
import sys

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cuda"))
import planted_cuda  # noqa: E402


def kernel_function(x):
    return planted_cuda.module().transpose_wide(x)
