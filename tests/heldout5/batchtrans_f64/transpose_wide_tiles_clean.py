# Clean twin of transpose_wide_tiles.py: the same kernel body on 32 x 32 tiles (8.3 KiB of shared
# memory a block): 8 blocks, 64 warps an SM.
# CUDA C++ built with load_inline and -lineinfo: tests/heldout5/cuda/heldout5.cu.
import os
import sys

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cuda"))
import planted_cuda  # noqa: E402


def kernel_function(x):
    return planted_cuda.module().transpose_small(x)
