# Clean twin: the same blocks, two full waves (4 blocks per SM); compute-bound.
# CUDA C++ built with load_inline and -lineinfo: tests/planted/cuda/planted.cu.
import os
import sys

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cuda"))
import planted_cuda  # noqa: E402


import torch  # noqa: E402


def kernel_function(x):
    sms = torch.cuda.get_device_properties(x.device).multi_processor_count
    return planted_cuda.module().full_waves(x, sms * 4 * 1024, 4096)
