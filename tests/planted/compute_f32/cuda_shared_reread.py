# Planted defect: MIO pressure. Each add reads shared memory again (conflict-free): 1024 LDS per
# thread, so the warps wait on the MIO queue.
# CUDA C++ built with load_inline and -lineinfo: tests/planted/cuda/planted.cu.
import os
import sys

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cuda"))
import planted_cuda  # noqa: E402


def kernel_function(x):
    return planted_cuda.module().shared_reread(x, 1 << 20, 1024)
