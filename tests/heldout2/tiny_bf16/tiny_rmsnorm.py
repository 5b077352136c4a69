# Held-out defect: launch-bound. 8 blocks (a row each) normalize 16384 bf16 values: a launch of a
# few microseconds, about what launching it costs. The fix is fewer launches (fuse it into its
# neighbours), no device line; no clean twin, as any kernel on this input is as short.
# CUDA C++ built with load_inline and -lineinfo: tests/heldout2/cuda/heldout2.cu.
import os
import sys

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cuda"))
import planted_cuda  # noqa: E402


def kernel_function(x, weight):
    return planted_cuda.module().tiny_rmsnorm_bf16(x, weight)
