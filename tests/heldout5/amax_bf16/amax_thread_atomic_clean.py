# Clean twin of amax_thread_atomic.py: each thread keeps a running max over its grid-stride loop,
# the block reduces them (a warp max, then shared memory) and raises the global maximum once: about
# a thousand atomics in all.
# CUDA C++ built with load_inline and -lineinfo: tests/heldout5/cuda/heldout5.cu.
import os
import sys

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cuda"))
import planted_cuda  # noqa: E402


def kernel_function(x):
    return planted_cuda.module().amax_block(x)
