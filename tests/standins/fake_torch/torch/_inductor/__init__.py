"""Fake torch._inductor: only its runtime (runtime/), what the kernel modules that torch.compile
writes import."""
