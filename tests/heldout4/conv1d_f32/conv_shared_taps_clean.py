# Clean twin of conv_shared_taps.py: 8 consecutive outputs a thread, the taps as constant-bank
# operands of the FMAs (copied in by a memcpy, no kernel) and the samples sliding through 8
# registers: one shared load per 8 FMAs.
# CUDA C++ built with load_inline and -lineinfo: tests/heldout4/cuda/heldout4.cu.
import os
import sys

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cuda"))
import planted_cuda  # noqa: E402


def kernel_function(x, w):
    return planted_cuda.module().conv_register(x, w)
