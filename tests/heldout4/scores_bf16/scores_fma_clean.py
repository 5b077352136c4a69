# Clean twin of scores_fma.py: the same 128 x 128 tiles through WMMA (bf16 16 x 16 x 16 fragments,
# mma.sync on the tensor cores), 32 x 64 scores a warp, staged through shared memory to leave as
# 16-byte bf16 stores.
# CUDA C++ built with load_inline and -lineinfo: tests/heldout4/cuda/heldout4.cu.
import os
import sys

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cuda"))
import planted_cuda  # noqa: E402


def kernel_function(q, k):
    return planted_cuda.module().scores_wmma(q, k)
