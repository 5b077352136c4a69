"""Fake torch.nn: a plain Module base class and Conv/Linear layers that only hold their settings."""

from . import Tensor, randn


class Module:
    """Calls forward(); cuda()/to()/cpu() move every tensor and submodule attribute."""

    def __init__(self, *args, **kwargs):
        pass

    def __call__(self, *args, **kwargs):
        return self.forward(*args, **kwargs)

    def _apply(self, convert):
        for name, value in list(vars(self).items()):
            if isinstance(value, Tensor):
                setattr(self, name, convert(value))
            elif isinstance(value, Module):
                value._apply(convert)
        return self

    def to(self, *args, **kwargs):
        def convert(tensor):
            moved = tensor.to(*args, **kwargs)
            if not tensor.is_floating_point():
                return tensor.to(moved.device)
            return moved

        return self._apply(convert)

    def cuda(self, device=None):
        return self._apply(lambda tensor: tensor.cuda(device))

    def eval(self):
        return self

    def train(self, mode=True):
        return self

    def cpu(self):
        return self._apply(lambda tensor: tensor.cpu())

    def parameters(self):
        for value in vars(self).values():
            if isinstance(value, Tensor):
                yield value
            elif isinstance(value, Module):
                yield from value.parameters()


def Parameter(tensor, requires_grad=True):
    return tensor


def _tuple(value, dims):
    return tuple(value) if isinstance(value, (tuple, list)) else (value,) * dims


class _ConvNd(Module):
    dims = 2

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, **_ignored):
        super().__init__()
        self.kernel_size = _tuple(kernel_size, self.dims)
        self.stride = _tuple(stride, self.dims)
        self.padding = padding if isinstance(padding, str) else _tuple(padding, self.dims)
        self.dilation = _tuple(dilation, self.dims)
        self.groups = groups
        self.weight = randn(out_channels, in_channels // groups, *self.kernel_size)
        self.bias = randn(out_channels) if bias else None


class Conv1d(_ConvNd):
    dims = 1


class Conv2d(_ConvNd):
    dims = 2


class Conv3d(_ConvNd):
    dims = 3


class Linear(Module):
    def __init__(self, in_features, out_features, bias=True, **_ignored):
        super().__init__()
        self.weight = randn(out_features, in_features)
        self.bias = randn(out_features) if bias else None
