import torch


def get_inputs():
    probe = torch.randn(1)
    if probe.device.type == "cuda":
        raise RuntimeError("this problem builds its inputs on the CPU only")
    return [torch.randn(1024), torch.randn(1024)]
