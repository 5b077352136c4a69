# Held-out defect: MIO pressure. An output a thread, the 65 taps and the block's 320 samples in
# shared memory: every FMA takes two shared loads (a tap, broadcast, and a sample, conflict-free),
# so the shared-memory pipe, not the FMA units, sets the pace.
# CUDA C++ built with load_inline and -lineinfo: tests/heldout4/cuda/heldout4.cu.
import os
import sys

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cuda"))
import planted_cuda  # noqa: E402


def kernel_function(x, w):
    return planted_cuda.module().conv_shared(x, w)
