"""A model's call for the fake torch: thousands of launches of a few kernels, like KernelBench's
35_LSTM (a gemv and a cell per step and layer, a last gemm). FAKE_US is each launch's duration
and FAKE_SHARED its shared memory for the fake profiler (tests/standins/fake_torch). Steps:
KPROF_FAKE_STEPS (default 3072)."""

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


@triton.jit
def fill_kernel(x_ptr, n):
    pass


def kernel_function(x, y):
    fill_kernel[(4,)](x, 1, FAKE_US=4.0)
    for _ in range(int(os.environ.get("KPROF_FAKE_STEPS", "3072"))):
        gemv_kernel[(8,)](x, 1, FAKE_US=3.0, num_warps=4)
        cell_kernel[(16,)](x, 1, FAKE_US=2.0, num_warps=2, FAKE_SHARED=1024)
    gemm_kernel[(2, 2)](x, 1, FAKE_US=5.0, num_warps=8)
    return x
