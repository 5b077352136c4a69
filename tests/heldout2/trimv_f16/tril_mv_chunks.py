# Held-out defect: load imbalance. Two programs per SM (one wave), each taking a contiguous run
# of 16-row groups: as rows lengthen down the triangle, the last programs have about twice the
# mean work and the first almost none, and the SMs that finish early idle. The fix is the
# partition, no device line.
import torch
import triton
import triton.language as tl


@triton.jit
def tril_mv_chunks_kernel(a_ptr, x_ptr, y_ptr, N, groups_per_program, ROWS: tl.constexpr,
                          BLOCK: tl.constexpr):
    rows0 = tl.arange(0, ROWS)
    cols0 = tl.arange(0, BLOCK)
    first = tl.program_id(0) * groups_per_program
    for g in range(first, first + groups_per_program):
        rows = g * ROWS + rows0
        acc = tl.zeros([ROWS, BLOCK], dtype=tl.float32)
        for c in range(0, (g + 1) * ROWS, BLOCK):
            cols = c + cols0
            ok = (cols[None, :] <= rows[:, None]) & (rows[:, None] < N)
            a = tl.load(a_ptr + rows[:, None] * N + cols[None, :], mask=ok, other=0.0)
            v = tl.load(x_ptr + cols, mask=cols < N, other=0.0)
            acc += a.to(tl.float32) * v.to(tl.float32)[None, :]
        tl.store(y_ptr + rows, tl.sum(acc, axis=1), mask=rows < N)


def kernel_function(a, x):
    N = a.shape[0]
    groups = triton.cdiv(N, 16)
    sms = torch.cuda.get_device_properties(a.device).multi_processor_count
    per_program = triton.cdiv(groups, 2 * sms)
    y = torch.empty(N, device=a.device, dtype=torch.float32)
    tril_mv_chunks_kernel[(triton.cdiv(groups, per_program),)](a, x, y, N, per_program, ROWS=16, BLOCK=512,
                                                               num_warps=8)
    return y
