# Held-out defect: warp divergence. A thread per value branches on its kind: the kinds are mixed at
# random within every warp, so each warp runs the 32 cube-root steps with half its lanes masked off,
# then the 32 square-root steps with the other half.
# CUDA C++ built with load_inline and -lineinfo: tests/heldout4/cuda/heldout4.cu.
import os
import sys

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cuda"))
import planted_cuda  # noqa: E402


def kernel_function(x, kind, iters=32):  # iters: get_init_inputs()[0], passed after the inputs
    return planted_cuda.module().mixroot_branchy(x, kind, iters)
