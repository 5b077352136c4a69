# Planted defect: low occupancy, limited by shared memory. 100 KiB of dynamic shared memory per 64-thread block: 2 blocks (4 warps) per SM.
# CUDA C++ built with load_inline and -lineinfo: tests/planted/cuda/planted.cu.
import os
import sys

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cuda"))
import planted_cuda  # noqa: E402


def kernel_function(x):
    return planted_cuda.module().smem_heavy_scale(x, x.numel() // 8)
