# Held-out defect: low occupancy. Blocks of 128 threads, each holding the whole 128 KiB table in
# shared memory: one block, 4 warps an SM, far too few to keep a streaming loop's loads in flight.
# No spills; the fix is the launch (more threads per table copy), no device line.
# CUDA C++ built with load_inline and -lineinfo: tests/heldout4/cuda/heldout4.cu.
import os
import sys

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cuda"))
import planted_cuda  # noqa: E402


def kernel_function(x, table):
    return planted_cuda.module().lut_narrow(x, table)
