# Held-out defect: MIO pressure. A warp per vector, lane j computing unit j: each of the 64 FMAs of a
# lane waits on a shuffle that brings it input k from lane k and on a shared-memory load of its
# weight (the weights staged once a block, transposed and padded: conflict-free), two MIO
# instructions per FMA.
# CUDA C++ built with load_inline and -lineinfo: tests/heldout5/cuda/heldout5.cu.
import os
import sys

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cuda"))
import planted_cuda  # noqa: E402


def kernel_function(x, w, b):
    return planted_cuda.module().mlp_lanes(x, w, b)
