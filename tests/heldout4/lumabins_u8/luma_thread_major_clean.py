# Clean twin of luma_thread_major.py: the same per-thread counters bin-major (thread t's counter of
# bin b at 256 b + t), in bank t % 32 whatever the bin: no increment meets two lanes in a bank.
# CUDA C++ built with load_inline and -lineinfo: tests/heldout4/cuda/heldout4.cu.
import os
import sys

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cuda"))
import planted_cuda  # noqa: E402


def kernel_function(px):
    return planted_cuda.module().luma_bin_major(px)
