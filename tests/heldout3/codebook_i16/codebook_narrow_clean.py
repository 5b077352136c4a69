# Clean twin of codebook_narrow.py: the same kernel body with blocks of 1024 threads: 2 blocks,
# 64 warps per SM.
# CUDA C++ built with load_inline and -lineinfo: tests/heldout3/cuda/heldout3.cu.
import os
import sys

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cuda"))
import planted_cuda  # noqa: E402


def kernel_function(codes, codebook):
    return planted_cuda.module().codebook_wide(codes, codebook)
