"""A KernelBench-style problem whose Model launches Triton kernels of its own (issue 42 item 3 on the
GPU: `kprof model --extract` of a user's `@triton.jit` kernels, not Inductor's). An MLP block on
4096 tokens of width 2048: RMSNorm (a Triton kernel reading a module constant), an up projection
(cuBLAS), bias + GELU (an autotuned Triton kernel calling a JIT helper), a down projection (cuBLAS)
and a residual add (a Triton kernel). Run by `EXTRACT_MODELS=bench/device/models/triton_block.py:eager
bench/device/run extract`."""

import torch
import triton
import triton.language as tl

EPS = tl.constexpr(1e-6)


@triton.jit
def _gelu(x):
    return 0.5 * x * (1.0 + tl.erf(x * 0.7071067811865476))


@triton.jit
def rmsnorm_kernel(x_ptr, w_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0)
    rms = tl.sqrt(tl.sum(x * x, axis=0) / n_cols + EPS)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0)
    tl.store(y_ptr + row * n_cols + cols, x / rms * w, mask=mask)


@triton.autotune(
    configs=[triton.Config({"BLOCK": 1024}, num_warps=4), triton.Config({"BLOCK": 4096}, num_warps=8)],
    key=["n_cols"],
)
@triton.jit
def bias_gelu_kernel(x_ptr, b_ptr, y_ptr, n, n_cols, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    b = tl.load(b_ptr + offs % n_cols, mask=mask)
    tl.store(y_ptr + offs, _gelu(x + b), mask=mask)


@triton.jit
def residual_add_kernel(a_ptr, b_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(a_ptr + offs, mask=mask) + tl.load(b_ptr + offs, mask=mask), mask=mask)


class Model(torch.nn.Module):
    def __init__(self, d_model, d_ff):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.ones(d_model))
        self.up = torch.nn.Linear(d_model, d_ff, bias=False)
        self.bias = torch.nn.Parameter(torch.randn(d_ff) * 0.02)
        self.down = torch.nn.Linear(d_ff, d_model, bias=False)

    def forward(self, x):
        tokens, d_model = x.shape
        h = torch.empty_like(x)
        rmsnorm_kernel[(tokens,)](x, self.weight, h, d_model, BLOCK=triton.next_power_of_2(d_model))
        u = self.up(h)
        g = torch.empty_like(u)
        n = u.numel()
        bias_gelu_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](u, self.bias, g, n, u.shape[1])
        d = self.down(g)
        y = torch.empty_like(x)
        residual_add_kernel[(triton.cdiv(x.numel(), 2048),)](x, d, y, x.numel(), BLOCK=2048)
        return y


def get_inputs():
    return [torch.randn(4096, 2048)]


def get_init_inputs():
    return [2048, 8192]
