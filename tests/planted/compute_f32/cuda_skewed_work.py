# Planted defect: load imbalance. One wave of 64-thread blocks (32 per SM) where one block in 8 does
# 16 times the work: the SMs run on with their few heavy blocks once the others are done. The fix
# is the partition.
# CUDA C++ built with load_inline and -lineinfo: tests/planted/cuda/planted.cu.
import os
import sys

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cuda"))
import planted_cuda  # noqa: E402


import torch  # noqa: E402


def kernel_function(x):
    sms = torch.cuda.get_device_properties(x.device).multi_processor_count
    return planted_cuda.module().skewed_work(x, sms * 32 * 64, 2048)
