"""Fake triton.language: names a kernel needs when it is defined (tl.constexpr annotations).
Kernel bodies never run, so any other attribute is a placeholder."""


class constexpr:
    def __init__(self, value=None):
        self.value = value


class _Placeholder:
    def __init__(self, name):
        self.name = name

    def __call__(self, *args, **kwargs):
        raise RuntimeError("fake triton.language.%s called outside a kernel" % self.name)


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    return _Placeholder(name)
