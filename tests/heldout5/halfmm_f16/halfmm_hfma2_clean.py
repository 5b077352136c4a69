# Clean twin of halfmm_hfma2.py: the same 128 x 128 tiles through WMMA fp16 16 x 16 x 16 fragments
# with fp32 accumulators (mma.sync on the tensor cores), 32 x 64 outputs a warp, k in steps of 32.
# CUDA C++ built with load_inline and -lineinfo: tests/heldout5/cuda/heldout5.cu.
import os
import sys

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cuda"))
import planted_cuda  # noqa: E402


def kernel_function(a, b):
    return planted_cuda.module().halfmm_wmma(a, b)
