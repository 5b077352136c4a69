# Held-out defect: shared-memory bank conflicts. A warp stages 32 blocks of 8 x 8 floats in shared
# memory, 64 floats apart, and each lane transforms its own block: every load and store of a lane's
# block finds the 32 lanes of the warp in one bank (and the staging stores 4 lanes a bank).
# CUDA C++ built with load_inline and -lineinfo: tests/heldout3/cuda/heldout3.cu.
import os
import sys

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cuda"))
import planted_cuda  # noqa: E402


def kernel_function(img):
    return planted_cuda.module().dct8_lane_block(img)
