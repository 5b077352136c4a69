# Held-out defect: barrier stalls. A 1024-thread block per row: after the partial sums, thread 0
# adds up all 1024 of them in a loop while the other 1023 threads wait at the barrier.
# CUDA C++ built with load_inline and -lineinfo: tests/heldout2/cuda/heldout2.cu.
import os
import sys

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cuda"))
import planted_cuda  # noqa: E402


def kernel_function(x):
    return planted_cuda.module().center_serial_sum(x)
