"""Fake torch.utils._python_dispatch: a TorchDispatchMode stack that the fake ops (torch.matmul,
torch.softmax) report to, as aten ops reach real dispatch modes."""

_modes = []


class _Op:
    """What a mode's __torch_dispatch__ gets as `func`: callable, with an _overloadpacket."""

    def __init__(self, name, flops):
        self._overloadpacket = name
        self.flops = flops

    def __call__(self, *args, **kwargs):
        return None


def _dispatch(name, flops):
    """A fake aten op ran: every active mode sees it, innermost first."""
    op = _Op(name, flops)
    for mode in reversed(list(_modes)):
        mode.__torch_dispatch__(op, (), (), {})


class TorchDispatchMode:
    def __init__(self):
        pass

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))

    def __enter__(self):
        _modes.append(self)
        return self

    def __exit__(self, *exc_info):
        _modes.remove(self)
        return False
