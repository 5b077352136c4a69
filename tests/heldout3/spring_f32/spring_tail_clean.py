# Clean twin of spring_tail.py: the same blocks, the springs split evenly over exactly one wave
# (2 blocks of 1024 per SM).
# CUDA C++ built with load_inline and -lineinfo: tests/heldout3/cuda/heldout3.cu.
import os
import sys

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cuda"))
import planted_cuda  # noqa: E402


def kernel_function(x, v, k, steps, dt):
    return planted_cuda.module().spring_chunks_wave(x, v, k, steps, dt)
