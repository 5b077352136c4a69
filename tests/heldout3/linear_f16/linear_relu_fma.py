# Held-out defect: tensor cores unused. 128 x 128 output tiles, 8 x 8 outputs per thread, the fp16
# tiles converted to float32 in shared memory and multiplied with FMAs on the CUDA cores: a
# register-tiled product with no tensor core instruction.
# CUDA C++ built with load_inline and -lineinfo: tests/heldout3/cuda/heldout3.cu.
import os
import sys

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cuda"))
import planted_cuda  # noqa: E402


def kernel_function(x, weight, bias):
    return planted_cuda.module().linear_relu_fma(x, weight, bias)
