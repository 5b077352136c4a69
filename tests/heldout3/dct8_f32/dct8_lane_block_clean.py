# Clean twin of dct8_lane_block.py: the blocks padded to 65 floats, and the staging loads and
# stores take blocks 8 apart per 8 lanes, so that no access of the warp meets two lanes in a bank.
# CUDA C++ built with load_inline and -lineinfo: tests/heldout3/cuda/heldout3.cu.
import os
import sys

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cuda"))
import planted_cuda  # noqa: E402


def kernel_function(img):
    return planted_cuda.module().dct8_padded(img)
