# Held-out defect: low occupancy. Blocks of 64 threads, each holding the whole 48 KiB codebook in
# shared memory: 4 blocks, 8 warps per SM, too few to keep the loads of a streaming loop in
# flight. No spills; the fix is the launch (more threads per codebook copy), no device line.
# CUDA C++ built with load_inline and -lineinfo: tests/heldout3/cuda/heldout3.cu.
import os
import sys

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cuda"))
import planted_cuda  # noqa: E402


def kernel_function(codes, codebook):
    return planted_cuda.module().codebook_narrow(codes, codebook)
