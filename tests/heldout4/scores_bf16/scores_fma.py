# Held-out defect: tensor cores unused. 128 x 128 score tiles, 8 x 8 scores a thread: the bf16
# tiles staged in shared memory, widened to float32 in registers and multiplied with FMAs on the
# CUDA cores, a bf16 product that mma.sync would take on the tensor cores.
# CUDA C++ built with load_inline and -lineinfo: tests/heldout4/cuda/heldout4.cu.
import os
import sys

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cuda"))
import planted_cuda  # noqa: E402


def kernel_function(q, k):
    return planted_cuda.module().scores_fma(q, k)
