"""triton.runtime.driver: `driver.active` answers the current device, stream and target, made
lazily as Triton's is (DriverConfig, LazyProxy): without a visible GPU (CUDA_VISIBLE_DEVICES
empty) making it raises RuntimeError("0 active drivers ..."), as Triton's does, unless a driver
was set with driver.set_active(...)."""

import os

from ..backends.compiler import GPUTarget


class _Driver:
    def get_current_device(self):
        return 0

    def get_current_stream(self, device=None):
        return 0

    def get_current_target(self):
        return GPUTarget("cuda", 90, 32)


def _create_driver():
    if os.environ.get("CUDA_VISIBLE_DEVICES") == "":
        raise RuntimeError("0 active drivers ([]). There should only be one.")
    return _Driver()


class _LazyProxy:
    def __init__(self, init_fn):
        object.__setattr__(self, "_init_fn", init_fn)
        object.__setattr__(self, "_obj", None)

    def _made(self):
        if self._obj is None:
            object.__setattr__(self, "_obj", self._init_fn())
        return self._obj

    def __getattr__(self, name):
        return getattr(self._made(), name)

    def __setattr__(self, name, value):
        setattr(self._made(), name, value)


class DriverConfig:
    def __init__(self):
        self.default = _LazyProxy(_create_driver)
        self.active = self.default

    def set_active(self, driver):
        self.active = driver

    def reset_active(self):
        self.active = self.default


driver = DriverConfig()
