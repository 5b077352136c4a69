"""Fake torch._inductor.runtime.hints: the names a generated kernel module imports."""


class DeviceProperties:
    def __init__(self, **properties):
        self.__dict__.update(properties)


class AutotuneHint:
    pass


class ReductionHint:
    INNER = 0
    OUTER = 1
    DEFAULT = 2


class TileHint:
    SQUARE = 0
    DEFAULT = 1
