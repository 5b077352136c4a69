"""A KernelBench-style model for the fake torch (`kprof model`, issue 42): Model's forward makes a
call of many launches of a few kernels, like 35_LSTM's (a gemv and a cell per step, a last gemm);
KPROF_FAKE_STEPS steps (default 100). FAKE_US is each launch's duration for the fake profiler."""

import os

import torch
import triton
import triton.language as tl


@triton.jit
def gemv_kernel(x_ptr, n):
    pass


@triton.jit
def cell_kernel(x_ptr, n):
    pass


@triton.jit
def gemm_kernel(x_ptr, n):
    pass


class Model(torch.nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.hidden = hidden

    def forward(self, x):
        for _ in range(int(os.environ.get("KPROF_FAKE_STEPS", "100"))):
            gemv_kernel[(8,)](x, self.hidden, FAKE_US=3.0, num_warps=4)
            cell_kernel[(16,)](x, self.hidden, FAKE_US=2.0, num_warps=2, FAKE_SHARED=1024)
        gemm_kernel[(2, 2)](x, self.hidden, FAKE_US=5.0, num_warps=8)
        return x


def get_inputs():
    return [torch.randn(1024)]


def get_init_inputs():
    return [256]
