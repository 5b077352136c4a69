# Held-out defect: uncoalesced access. A lane per token copies its 256-value row one column at a
# time: at each step the 32 lanes of a warp load 2 bytes each from 32 rows 512 bytes apart (one
# sector each, 2 of its 32 bytes used) and store them 512 bytes apart in the output.
import torch
import triton
import triton.language as tl


@triton.jit
def embed_lane_rows_kernel(ids_ptr, table_ptr, out_ptr, B, D: tl.constexpr, ROWS: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    ok = rows < B
    src = table_ptr + tl.load(ids_ptr + rows, mask=ok, other=0) * D
    dst = out_ptr + rows.to(tl.int64) * D
    for d in range(D):
        v = tl.load(src + d, mask=ok, other=0.0)
        tl.store(dst + d, v, mask=ok)


def kernel_function(ids, table):
    B = ids.shape[0]
    D = table.shape[1]
    out = torch.empty(B, D, device=table.device, dtype=table.dtype)
    embed_lane_rows_kernel[(triton.cdiv(B, 128),)](ids, table, out, B, D=D, ROWS=128, num_warps=4)
    return out
