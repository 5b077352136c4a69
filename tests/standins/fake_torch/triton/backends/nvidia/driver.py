"""triton.backends.nvidia.driver.CudaDriver: made without asking CUDA for anything, as Triton's
is; asked for the device or target it would need a GPU, which a compile worker never asks
(the harness's compile-only hooks answer instead)."""


class CudaDriver:
    def get_current_device(self):
        raise RuntimeError("No CUDA GPUs are available")

    def get_current_stream(self, device=None):
        raise RuntimeError("No CUDA GPUs are available")

    def get_current_target(self):
        raise RuntimeError("No CUDA GPUs are available")
