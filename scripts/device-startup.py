"""Issue 22: where a cold session's first seconds go, and whether a primer launched from a thread
before `import torch` takes the first profiled kernel's cost off the candidate.

Run under ncu by scripts/device-startup.sh, as `python3 device-startup.py MODE`:
  plain     import torch, make a tensor, one kernel in the range kprof:cand0 (the baseline)
  thread    the same, with a primer started first in a thread: the CUDA driver through ctypes,
            an empty PTX kernel launched inside the NVTX range kprof:primer (NVTX through the
            library named by NVTX_LIB), joined before kprof:cand0
  nonvtx    the thread's primer outside any range (ncu does not profile it)
Prints one JSON line of the times (seconds since the script's first line) to stderr.
"""
import ctypes
import json
import os
import sys
import threading
import time

T0 = time.perf_counter()
mode = sys.argv[1]
marks = {}


def mark(name):
    marks[name] = round(time.perf_counter() - T0, 3)


PTX = b"""
.version 7.0
.target sm_50
.address_size 64
.visible .entry kprof_primer() { ret; }
"""


def primer(with_range):
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
        check = lambda code, what: None if code == 0 else (_ for _ in ()).throw(RuntimeError(f"{what}: {code}"))
        check(cuda.cuInit(0), "cuInit")
        device = ctypes.c_int()
        check(cuda.cuDeviceGet(ctypes.byref(device), 0), "cuDeviceGet")
        context = ctypes.c_void_p()
        check(cuda.cuDevicePrimaryCtxRetain(ctypes.byref(context), device), "retain")
        check(cuda.cuCtxSetCurrent(context), "set current")
        mark("primer_context")
        module = ctypes.c_void_p()
        check(cuda.cuModuleLoadData(ctypes.byref(module), PTX), "load")
        function = ctypes.c_void_p()
        check(cuda.cuModuleGetFunction(ctypes.byref(function), module, b"kprof_primer"), "function")
        nvtx = ctypes.CDLL(os.environ["NVTX_LIB"]) if with_range else None
        if nvtx is not None:
            nvtx.nvtxRangePushA(b"kprof:primer")
        check(cuda.cuLaunchKernel(function, 1, 1, 1, 32, 1, 1, 0, None, None, None), "launch")
        check(cuda.cuCtxSynchronize(), "sync")
        if nvtx is not None:
            nvtx.nvtxRangePop()
        mark("primer_done")
    except Exception as exc:  # noqa: BLE001 - reported, the baseline goes on
        marks["primer_error"] = repr(exc)


thread = None
if mode in ("thread", "nonvtx"):
    thread = threading.Thread(target=primer, args=(mode == "thread",))
    thread.start()
import torch  # noqa: E402

mark("torch")
x = torch.ones(1 << 24, device="cuda")
torch.cuda.synchronize()
mark("tensor")
if thread is not None:
    thread.join()
    mark("joined")
torch.cuda.nvtx.range_push("kprof:cand0")
x.mul_(2)
torch.cuda.synchronize()
torch.cuda.nvtx.range_pop()
mark("call")
print(json.dumps({"mode": mode, **marks}), file=sys.stderr, flush=True)
sys.stdout.flush()
os._exit(0)
