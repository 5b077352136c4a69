# Held-out clean kernel at the memory roof, no twin: a grid-stride loop of 16-byte vectors (eight
# bf16), 8 blocks of 256 threads per SM.
# CUDA C++ built with load_inline and -lineinfo: tests/heldout2/cuda/heldout2.cu.
import os
import sys

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cuda"))
import planted_cuda  # noqa: E402


def kernel_function(x):
    return planted_cuda.module().gelu_tanh_bf16x8(x)
