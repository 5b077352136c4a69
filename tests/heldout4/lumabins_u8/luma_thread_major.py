# Held-out defect: shared-memory bank conflicts. Each thread keeps its 32 bin counters in shared
# memory thread-major (32 words a thread), so a lane's counter of bin b is in bank b: the lanes of a
# warp whose values fall in the same bin, most of them on this data, queue on one bank at every
# increment.
# CUDA C++ built with load_inline and -lineinfo: tests/heldout4/cuda/heldout4.cu.
import os
import sys

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cuda"))
import planted_cuda  # noqa: E402


def kernel_function(px):
    return planted_cuda.module().luma_thread_major(px)
