# Planted defect: tail effect. 2 blocks of 1024 threads per SM, and one block more: the second
# wave runs one block on one SM while the others idle (a third of the time). The fix is the grid,
# no device line.
# CUDA C++ built with load_inline and -lineinfo: tests/planted/cuda/planted.cu.
import os
import sys

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cuda"))
import planted_cuda  # noqa: E402


import torch  # noqa: E402


def kernel_function(x):
    sms = torch.cuda.get_device_properties(x.device).multi_processor_count
    return planted_cuda.module().tail_wave(x, (sms * 2 + 1) * 1024, 4096)
