# Held-out defect: uncoalesced access. A thread per row walks its 1024 weights two at a time: at
# each step the 32 lanes of a warp load 4 bytes each from 32 rows 2 KiB apart, a sector each
# (4 of its 32 bytes used), 32 sectors a request where a coalesced load needs 4.
# CUDA C++ built with load_inline and -lineinfo: tests/heldout4/cuda/heldout4.cu.
import os
import sys

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cuda"))
import planted_cuda  # noqa: E402


def kernel_function(w, x):
    return planted_cuda.module().gemv_lane_rows(w, x)
