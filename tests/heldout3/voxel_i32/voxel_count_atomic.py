# Held-out defect: atomic contention. A thread per point adds 1 to its voxel's global counter:
# 2^23 atomics, nearly all of them on the 8 counters of the voxels around the origin.
# CUDA C++ built with load_inline and -lineinfo: tests/heldout3/cuda/heldout3.cu.
import os
import sys

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cuda"))
import planted_cuda  # noqa: E402


def kernel_function(pts):
    return planted_cuda.module().voxel_count_global(pts)
