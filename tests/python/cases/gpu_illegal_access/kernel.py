# Real GPU only: stores far outside its buffer, which leaves a sticky "illegal memory access"
# error in the CUDA context (every later CUDA call in the process fails).
import triton
import triton.language as tl


@triton.jit
def wild_store_kernel(out_ptr):
    offs = tl.arange(0, 128)
    tl.store(out_ptr + offs + (1 << 40), offs.to(tl.float32))


def kernel_function(x, y):
    wild_store_kernel[(1,)](x)
    return x
