import sys
import time

import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pass


def kernel_function(x, y):
    # Hangs only in a compile worker (`harness.py PLAN --compile-worker`), as a kernel can that
    # loops on a question meta tensors cannot answer; in the harness it runs as positional/.
    if "--compile-worker" in sys.argv:
        time.sleep(1000)
    out = torch.empty_like(x)
    add_kernel[(triton.cdiv(x.numel(), 256),)](x, y, out, x.numel(), BLOCK=256)
    return out
