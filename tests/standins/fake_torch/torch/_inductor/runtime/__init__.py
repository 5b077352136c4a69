"""Fake torch._inductor.runtime: triton_heuristics (the CachingAutotuner a generated kernel
module's decorator makes), triton_helpers and hints, as a generated kernel module imports them."""
