# Held-out suite 5 (tests/heldout5/README.md): a sparse matrix-vector product y = A x, A in CSR form
# (int32 row offsets and columns, float32 values) with 2^20 rows whose lengths fall off as a power
# law, the k-th longest 24 + floor(2^17 / (k + 1)^0.75) values (131096 down to 31), the rows in
# random order, 41.0 million values (313 MiB with their columns); x of 2^20 float32.
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, row_ptr, cols, vals, x):
        rows = row_ptr.numel() - 1
        row_of = torch.repeat_interleave(torch.arange(rows, device=vals.device), (row_ptr[1:] - row_ptr[:-1]).long())
        return torch.zeros(rows, device=vals.device, dtype=torch.float32).index_add_(0, row_of, vals * x[cols.long()])


def get_inputs():
    rows = 1 << 20
    k = torch.arange(rows, dtype=torch.float64)
    lengths = (24 + torch.floor(2.0**17 / (k + 1) ** 0.75)).to(torch.int64)[torch.randperm(rows)]
    row_ptr = torch.cat([torch.zeros(1, dtype=torch.int64), lengths.cumsum(0)]).to(torch.int32)
    nnz = int(row_ptr[-1])
    return [row_ptr, torch.randint(0, 1 << 20, (nnz,), dtype=torch.int32), torch.randn(nnz, dtype=torch.float32),
            torch.randn(1 << 20, dtype=torch.float32)]


def get_init_inputs():
    return []
