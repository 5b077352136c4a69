# Clean twin of horner_tail.py: the same kernel with one 512-value step per program, 8192
# programs (15.5 waves of 4 per SM, so the part-empty last wave is a small share).
import torch
import triton
import triton.language as tl

DEGREE = 256  # problem.py's get_init_inputs()


@triton.jit
def horner_many_programs_kernel(x_ptr, y_ptr, n, chunk, DEGREE: tl.constexpr, BLOCK: tl.constexpr):
    start = tl.program_id(0) * chunk
    for base in range(start, start + chunk, BLOCK):
        offs = base + tl.arange(0, BLOCK)
        mask = (offs < start + chunk) & (offs < n)
        x = tl.load(x_ptr + offs, mask=mask, other=0.0)
        y = tl.zeros([BLOCK], dtype=tl.float32)
        for i in range(0, DEGREE):
            y = y * x + 1.0 / (DEGREE - i)
        tl.store(y_ptr + offs, y, mask=mask)


def kernel_function(x, degree=256):  # degree: get_init_inputs()[0], passed after the inputs
    n = x.numel()
    chunk = 512
    y = torch.empty_like(x)
    horner_many_programs_kernel[(triton.cdiv(n, chunk),)](x, y, n, chunk, DEGREE=degree, BLOCK=512, num_warps=16)
    return y
