"""How many GPUs CUDA shows the harness, and with none, how many the machine has: kprof then
names the index it was asked for and the machine's count (docs/harness.md, step 2)."""

import ctypes
import os

from .report import clean_text


class NoGpu(Exception):
    """CUDA shows the harness no GPU: the index kprof was asked for is not on this machine (or
    no GPU is); status "cuda_devices" is 0 and "machine_gpus" says how many there are."""


def machine_gpu_count():
    """How many GPUs this machine has, whatever CUDA_VISIBLE_DEVICES says: NVML's count
    (libnvidia-ml, the driver's own library), else the driver's /proc/driver/nvidia/gpus entries;
    None when neither can tell."""
    try:
        nvml = ctypes.CDLL("libnvidia-ml.so.1")
        count = ctypes.c_uint(0)
        if nvml.nvmlInit_v2() == 0:
            try:
                if nvml.nvmlDeviceGetCount_v2(ctypes.byref(count)) == 0:
                    return int(count.value)
            finally:
                nvml.nvmlShutdown()
    except (OSError, AttributeError):
        pass
    try:
        return len(os.listdir("/proc/driver/nvidia/gpus"))
    except OSError:
        return None


def count_gpus(torch, status):
    """Records the GPUs CUDA shows this process (status "cuda_devices") and, when it shows none,
    how many the machine has ("machine_gpus"); raises NoGpu then. Without a GPU nothing can be
    profiled: kprof names the index it was asked for and the machine's count."""
    status["cuda_devices"] = int(torch.cuda.device_count())
    if status["cuda_devices"] > 0:
        return
    status["machine_gpus"] = machine_gpu_count()
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    raise NoGpu("CUDA shows no GPU%s; this machine has %s" % (
        "" if visible is None else " under CUDA_VISIBLE_DEVICES=%s" % clean_text(visible),
        "an unknown number of GPUs" if status["machine_gpus"] is None else "%d GPU(s)" % status["machine_gpus"]))
