"""The primers: work a harness pays before its first candidate so that the candidate's answer does
not. The early primer (plan "early_primer"): a thread, started before `import torch`, that makes
the GPU's CUDA context through the driver (ctypes) and profiles an empty kernel of the harness's
own in the range PRIMER_RANGE (NVTX through libnvtx3interop or libnvToolsExt): the context's
creation and ncu's first-kernel cost (about 1.1 s) then run beside torch's import. A standby's
primers (plan standby.primer): the same kernel through torch when the early one did not run
(run_primer), and a Triton kernel of the harness's own in no range (run_triton_primer). A primer
only saves time: a failure is recorded in the status and changes nothing else."""

import ctypes
import importlib.util
import os
import threading
import time

from .locks import let_go, take_call_lock, take_gpu_lock
from .report import clean_text, log

# The NVTX range of the primer kernel; no candidate's range (kprof never reports its rows).
PRIMER_RANGE = "kprof:primer"


def run_primer(problem, plan, status):
    """Standby: profiles one tiny kernel of the harness's own in the range PRIMER_RANGE while
    the candidates are awaited. The first kernel ncu profiles in a process costs about 1.1 s
    more than later ones (H200, ncu 2025.3.1); paid here, it is not paid inside the candidate's
    answer. kprof never reports the primer's rows (they are in no candidate's range). A failed
    primer is recorded and changes nothing else."""
    torch = problem.torch
    started = time.perf_counter()
    lock_fd = None
    try:
        scratch = torch.empty(1024, device="cuda")
        torch.cuda.synchronize()
        lock_fd, status["primer_call_lock"], _ = take_call_lock(plan)
        torch.cuda.nvtx.range_push(PRIMER_RANGE)
        try:
            scratch.fill_(1.0)
            torch.cuda.synchronize()
        finally:
            torch.cuda.nvtx.range_pop()
        del scratch
        status["primer"] = "ran"
    except Exception as exc:  # the primer only saves time; it never decides an answer
        status["primer"] = "failed: %s" % clean_text(exc)
        log("primer failed: %s" % clean_text(exc))
    finally:
        let_go(lock_fd)
    status["primer_seconds"] = time.perf_counter() - started


# The standby's Triton primer (run_triton_primer): a kernel of the harness's own, compiled from
# this text. Triton reads a kernel's source with inspect.getsourcelines, which finds it in
# linecache under TRITON_PRIMER_FILE.
TRITON_PRIMER_FILE = "<kprof-triton-primer>"
TRITON_PRIMER_SOURCE = """import triton
import triton.language as tl


@triton.jit
def kprof_triton_primer(out):
    tl.store(out, 1.0)
"""


def triton_primer_kernel():
    """The @triton.jit kernel of TRITON_PRIMER_SOURCE (ImportError without Triton)."""
    import linecache

    lines = TRITON_PRIMER_SOURCE.splitlines(True)
    # No modification time: linecache.checkcache keeps the entry, having no file to compare.
    linecache.cache[TRITON_PRIMER_FILE] = (len(TRITON_PRIMER_SOURCE), None, lines, TRITON_PRIMER_FILE)
    namespace = {"__name__": "kprof_triton_primer"}
    exec(compile(TRITON_PRIMER_SOURCE, TRITON_PRIMER_FILE, "exec"), namespace)
    return namespace["kprof_triton_primer"]


def run_triton_primer(problem, status):
    """Standby: launches one Triton kernel of the harness's own, in no NVTX range (ncu does not
    profile it), synchronized, while the candidates are awaited. A process's first Triton launch
    pays for the whole process: Triton's driver and launcher set-up, and its cache key (which
    hashes Triton's own compiler sources and shared library: triton_key, computed beside torch's
    import since 2026-12-05, torch_import.TritonKey, when this Triton has it). In a batch of 32
    cached candidates on the H200 the warm-ups summed to 0.68 s with a median of 0.003 s
    (docs/device-runs/2026-12-04-source-live.md): the first candidate's warm-up carries that cost,
    and on a standby every answer is the process's first candidate. Paid here, it is not in the
    answer. Without Triton nothing is launched; a failure is recorded and changes nothing else."""
    started = time.perf_counter()
    try:
        status["triton_primer"] = launch_triton_primer(problem.torch)
    except Exception as exc:  # the primer only saves time; it never decides an answer
        status["triton_primer"] = "failed: %s" % clean_text(exc)
    if status["triton_primer"] != "ran":
        log("triton primer: %s" % status["triton_primer"])
    status["triton_primer_seconds"] = time.perf_counter() - started


def launch_triton_primer(torch):
    """Runs the primer kernel and says "ran", or says "no triton: <why>" when Triton cannot be
    imported."""
    try:
        kernel = triton_primer_kernel()
    except ImportError as exc:
        return "no triton: %s" % clean_text(exc)
    scratch = torch.empty(1, device="cuda", dtype=torch.float32)
    kernel[(1,)](scratch)
    torch.cuda.synchronize()
    return "ran"


# ---------------------------------------------------------------------------------------------
# The early primer: the CUDA context and ncu's first profiled kernel, beside torch's import

# An empty kernel, JIT-compiled by the driver for whatever GPU it is.
PRIMER_PTX = b""".version 7.0
.target sm_50
.address_size 64
.visible .entry kprof_primer() { ret; }
"""
NVTX_LIBRARIES = ("libnvtx3interop.so.1", "libnvToolsExt.so.1")


def nvtx_library_candidates():
    """Where an NVTX library may be, found without importing torch: the loader's path first, then
    the nvidia wheels' lib folders of this Python (torch's own), then the CUDA toolkit's."""
    names = list(NVTX_LIBRARIES)
    folders = []
    try:
        spec = importlib.util.find_spec("nvidia")
        for base in (spec.submodule_search_locations or []) if spec is not None else []:
            for sub in sorted(os.listdir(base)):
                folders.append(os.path.join(base, sub, "lib"))
    except (ImportError, OSError, ValueError):
        pass
    folders += ["/usr/local/cuda/lib64", "/usr/local/cuda/targets/x86_64-linux/lib"]
    return names + [os.path.join(folder, name) for folder in folders for name in NVTX_LIBRARIES
                    if os.path.exists(os.path.join(folder, name))]


def load_nvtx():
    for candidate in nvtx_library_candidates():
        try:
            library = ctypes.CDLL(candidate)
            return library.nvtxRangePushA, library.nvtxRangePop
        except (OSError, AttributeError):
            continue
    return None


class EarlyPrimer:
    """Started before `import torch` (plan "early_primer"): a thread that makes device 0's
    primary CUDA context, the one torch uses later, and profiles PRIMER_PTX in PRIMER_RANGE,
    synchronized, with the profiled-call lock held around it as a candidate's call. Measured on
    the H200 (ncu 2025.3.1, docs/device-runs/2026-12-02-early-primer.md): a session's start to
    its first profiled kernel's end went from 5.99-7.53 s to 4.00-4.71 s. A standby's thread waits for its GPU's
    lock first and lets it go after (plan standby.gpu_lock). join() waits for the thread and
    merges what it did into the status; it never raises."""

    def __init__(self, plan):
        self.result = {}
        self.lock_wait = 0.0
        standby = plan["standby"]
        self.gpu_lock = standby["gpu_lock"] if standby is not None else None
        self.thread = threading.Thread(target=self.run, args=(plan,), name="kprof-primer", daemon=True)
        self.thread.start()

    def run(self, plan):
        started = time.perf_counter()
        gpu_lock_fd = call_lock_fd = None
        try:
            lock_status = {}
            gpu_lock_fd = take_gpu_lock(self.gpu_lock, lock_status)
            self.lock_wait = lock_status.get("gpu_lock_wait_seconds", 0.0)
            function = self.load_primer()
            nvtx = load_nvtx()
            if nvtx is None:
                self.result["primer"] = "context only: no NVTX library (%s)" % ", ".join(NVTX_LIBRARIES)
                return
            push, pop = nvtx
            call_lock_fd, self.result["primer_call_lock"], _ = take_call_lock(plan)
            push(PRIMER_RANGE.encode())
            try:
                self.check(self.cuda.cuLaunchKernel(function, 1, 1, 1, 32, 1, 1, 0, None, None, None),
                           "cuLaunchKernel")
                self.check(self.cuda.cuCtxSynchronize(), "cuCtxSynchronize")
            finally:
                pop()
            self.result["primer"] = "ran at start"
        except Exception as exc:  # the primer only saves time; it never decides an answer
            self.result["primer"] = "failed: %s" % clean_text(exc)
        finally:
            let_go(call_lock_fd)
            let_go(gpu_lock_fd)
            self.result["primer_seconds"] = time.perf_counter() - started - self.lock_wait

    def load_primer(self):
        """Device 0's primary context made current in this thread, and the primer's function."""
        self.cuda = ctypes.CDLL("libcuda.so.1")
        self.check(self.cuda.cuInit(0), "cuInit")
        device = ctypes.c_int()
        self.check(self.cuda.cuDeviceGet(ctypes.byref(device), 0), "cuDeviceGet")
        context = ctypes.c_void_p()
        self.check(self.cuda.cuDevicePrimaryCtxRetain(ctypes.byref(context), device), "cuDevicePrimaryCtxRetain")
        self.check(self.cuda.cuCtxSetCurrent(context), "cuCtxSetCurrent")
        module = ctypes.c_void_p()
        self.check(self.cuda.cuModuleLoadData(ctypes.byref(module), PRIMER_PTX), "cuModuleLoadData")
        function = ctypes.c_void_p()
        self.check(self.cuda.cuModuleGetFunction(ctypes.byref(function), module, b"kprof_primer"),
                   "cuModuleGetFunction")
        return function

    @staticmethod
    def check(code, what):
        if code != 0:
            raise RuntimeError("%s returned CUDA error %d" % (what, code))

    def join(self, status):
        """Waits for the thread; returns the seconds waited for the GPU's lock inside that wait."""
        started = time.perf_counter()
        self.thread.join()
        status.update(self.result)
        return min(time.perf_counter() - started, self.lock_wait)
