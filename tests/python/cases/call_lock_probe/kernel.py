"""Says on every call whether the profiled-call lock ($KPROF_TEST_CALL_LOCK) is free, by trying
to take it through a descriptor of its own, into $KPROF_TEST_PROBE_LOG ("free" or "taken")."""
import fcntl
import os

import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pass


def lock_state():
    fd = os.open(os.environ["KPROF_TEST_CALL_LOCK"], os.O_RDONLY | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        fcntl.flock(fd, fcntl.LOCK_UN)
        return "free"
    except BlockingIOError:
        return "taken"
    finally:
        os.close(fd)


def kernel_function(x, y):
    with open(os.environ["KPROF_TEST_PROBE_LOG"], "a", encoding="utf-8") as log:
        log.write(lock_state() + "\n")
    out = torch.empty_like(x)
    add_kernel[(triton.cdiv(x.numel(), 256),)](x, y, out, x.numel(), BLOCK=256)
    return out
