"""triton.runtime.autotuner: an autotuned kernel launches with its first config (no
benchmarking); warmup compiles every config, as Triton's does."""

from .jit import KernelInterface


class Autotuner(KernelInterface):
    def __init__(self, fn, configs):
        self.fn = fn
        self.configs = configs
        self.__name__ = fn.__name__

    def run(self, *args, **kwargs):
        return self.fn.run(*args, **kwargs, **self.configs[0].kwargs)

    def warmup(self, *args, **kwargs):
        return [self.fn.warmup(*args, **kwargs, **config.kwargs) for config in self.configs]
