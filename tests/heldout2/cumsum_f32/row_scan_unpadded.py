# Held-out defect: shared-memory bank conflicts. A warp stages 32 rows in a 32 x 32 float tile and
# each lane scans its own row: at every step the 32 lanes read and write addresses 128 bytes
# apart, all in one bank.
# CUDA C++ built with load_inline and -lineinfo: tests/heldout2/cuda/heldout2.cu.
import os
import sys

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cuda"))
import planted_cuda  # noqa: E402


def kernel_function(x):
    return planted_cuda.module().row_scan_unpadded(x)
