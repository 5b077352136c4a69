"""Fake torch.utils.flop_counter: FlopCounterMode counts the FLOPs the fake ops report for the ops
in flop_registry (aten.mm, as real torch has a formula for it; aten._softmax has none)."""

from ._python_dispatch import TorchDispatchMode

flop_registry = {"aten.mm": None, "aten.addmm": None, "aten.bmm": None, "aten.convolution": None}


class FlopCounterMode(TorchDispatchMode):
    def __init__(self, mods=None, depth=2, display=True, custom_mapping=None):
        super().__init__()
        self.counts = {}

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        if func._overloadpacket in flop_registry:
            self.counts[func._overloadpacket] = self.counts.get(func._overloadpacket, 0) + func.flops
        return func(*args, **(kwargs or {}))

    def get_total_flops(self):
        return sum(self.counts.values())

    def get_flop_counts(self):
        return {"Global": dict(self.counts)}
