# Held-out defect: low occupancy. A block per row keeps its 96 KiB row in dynamic shared memory
# between the sum of squares and the scaling, with only 128 threads: two blocks fit an SM, so 8
# warps (of 64) are resident to hide the loads' latency. The fix is the launch (more threads per
# block), no device line.
# CUDA C++ built with load_inline and -lineinfo: tests/heldout2/cuda/heldout2.cu.
import os
import sys

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cuda"))
import planted_cuda  # noqa: E402


def kernel_function(x):
    return planted_cuda.module().rownorm_staged_narrow(x)
