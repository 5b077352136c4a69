"""The workload of scripts/device-ncu-wait.sh and device-ncu-cost.sh: N elementwise kernels
(y = x * 2 over 2^BITS floats), each synchronized, inside one NVTX range "work" that ncu profiles.
Prints one line: wall time per kernel, the range's start and end, and the main thread's user and
system CPU time and context switches per kernel. With MARKS, touches MARKS/started when the range
opens and MARKS/ended when it closes.

usage: python3 device-ncu-workload.py N BITS [MARKS]
"""
import pathlib
import resource
import sys
import time

import torch

n, bits = int(sys.argv[1]), int(sys.argv[2])
marks = pathlib.Path(sys.argv[3]) if len(sys.argv) > 3 else None


def rusage():
    return resource.getrusage(resource.RUSAGE_THREAD)


def per_kernel(a, b):
    return (b - a) / n * 1000


x = torch.randn(1 << bits, device="cuda")
torch.cuda.synchronize()
torch.cuda.nvtx.range_push("work")
if marks:
    (marks / "started").touch()
r0, t0 = rusage(), time.time()
for _ in range(n):
    y = x * 2.0
    torch.cuda.synchronize()
t1, r1 = time.time(), rusage()
torch.cuda.nvtx.range_pop()
if marks:
    (marks / "ended").touch()
print(f"LOOP {per_kernel(t0, t1):.1f} ms per kernel [{t0:.2f}, {t1:.2f}]; main thread CPU per kernel: "
      f"user {per_kernel(r0.ru_utime, r1.ru_utime):.1f} ms, system {per_kernel(r0.ru_stime, r1.ru_stime):.1f} ms, "
      f"{(r1.ru_nvcsw - r0.ru_nvcsw) / n:.0f} voluntary and {(r1.ru_nivcsw - r0.ru_nivcsw) / n:.0f} "
      "involuntary switches")
