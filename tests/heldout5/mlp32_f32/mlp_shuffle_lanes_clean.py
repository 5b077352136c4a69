# Clean twin of mlp_shuffle_lanes.py: a thread per vector, each warp staging its 32 vectors through a
# padded shared tile (coalesced both ways), both layers in registers with the weights copied to
# __constant__ (memcpys, no kernel) as FMA operands: 2048 FMAs per 64 shared loads and stores.
# CUDA C++ built with load_inline and -lineinfo: tests/heldout5/cuda/heldout5.cu.
import os
import sys

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cuda"))
import planted_cuda  # noqa: E402


def kernel_function(x, w, b):
    return planted_cuda.module().mlp_threads(x, w, b)
