"""A model as torch.compile runs one, for the fake torch (`kprof model --extract`, issue 42): its
forward launches a kernel module in the format Inductor writes to its code cache
(inductor_kernel.py: the module's imports, the @triton_heuristics.pointwise decorator over the
@triton.jit function), loaded by path as Inductor loads it and launched as Inductor's wrapper
code launches it, `kernel.run(in_ptr0, in_ptr1, out_ptr0, xnumel, stream=stream0)`."""

import importlib.util
import os

import torch

_spec = importlib.util.spec_from_file_location(
    "_inductor_kernel", os.path.join(os.path.dirname(os.path.abspath(__file__)), "inductor_kernel.py"))
_kernels = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_kernels)


class Model(torch.nn.Module):
    def forward(self, x, y):
        buf0 = torch.empty(x.numel(), device="cuda")
        _kernels.triton_poi_fused_add_relu_0.run(x, y, buf0, x.numel(), stream=0)
        return buf0


def get_inputs():
    return [torch.randn(1024), torch.randn(1024)]


def get_init_inputs():
    return []
