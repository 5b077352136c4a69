"""A model as torch.compile runs one, for the fake torch (`kprof model --extract`, issue 42): its
forward launches a kernel module that Inductor wrote (inductor_kernel.py: recorded on an H200 with
torch 2.11.0 and Triton 3.6.0 on 2026-12-06, KernelBench's level-3 44_MiniGPTBlock through
torch.compile, docs/device-runs/2026-12-06-extract.md), loaded by path as Inductor loads it and
launched as Inductor's wrapper code launches it, `kernel.run(*args, stream=stream0)`; the kernel
adds in place into in_out_ptr0 (Inductor's mutated_arg_names)."""

import importlib.util
import os

import torch

_spec = importlib.util.spec_from_file_location(
    "_inductor_kernel", os.path.join(os.path.dirname(os.path.abspath(__file__)), "inductor_kernel.py"))
_kernels = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_kernels)


class Model(torch.nn.Module):
    def forward(self, x, residual, bias_a, bias_b, y):
        buf = x.clone()
        _kernels.triton_poi_fused_add_addmm_view_8.run(buf, residual, bias_a, bias_b, y, buf.numel(), stream=0)
        return buf


def get_inputs():
    return [torch.randn(128, 512, 768), torch.randn(128, 512, 768), torch.randn(768), torch.randn(768),
            torch.randn(65536, 768)]


def get_init_inputs():
    return []
