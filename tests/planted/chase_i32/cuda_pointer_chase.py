# Planted defect: memory latency. Each thread follows 32 dependent loads p = next[p] through a random
# permutation of 64 MiB.
# CUDA C++ built with load_inline and -lineinfo: tests/planted/cuda/planted.cu.
import os
import sys

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cuda"))
import planted_cuda  # noqa: E402


def kernel_function(next_index):
    return planted_cuda.module().pointer_chase(next_index, next_index.numel() // 32, 32)
