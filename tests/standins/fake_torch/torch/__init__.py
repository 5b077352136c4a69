"""A fake `torch` for CI machines without a GPU or torch: just enough to run kprof's harness.

Tensors keep only a shape, a dtype and a device; no arithmetic. CUDA calls succeed and, when the
environment variable KPROF_FAKE_TORCH_LOG names a file, append one line per event to it:
"sync" (torch.cuda.synchronize), "push <name>" / "pop" (torch.cuda.nvtx), "launch <kernel>"
(a fake @triton.jit kernel launched with kernel[grid](...)), "cast <dtype>" (a Tensor.to() that
changes the dtype).

The machine has KPROF_FAKE_GPU_COUNT GPUs (default 1), and CUDA_VISIBLE_DEVICES shows them as
CUDA does: empty, or naming an index the machine lacks, there is no GPU, as in real torch:
torch.cuda.device_count() is 0, torch.cuda.is_available() is False, and making a CUDA tensor or
synchronizing raises RuntimeError("No CUDA GPUs are available").

Test hooks (not in real torch): KPROF_FAKE_TORCH_IMPORT_SECONDS=S makes `import torch` take S
seconds, like real torch's import, and KPROF_FAKE_TORCH_LOG_IMPORT=1 logs "import torch" and
"torch imported" around it; KPROF_FAKE_TORCH_FILL_SECONDS=S makes a GPU tensor's fill_() take
S seconds (a standby's primer); torch.cuda._fake_poison(message) makes every later
torch.cuda.synchronize() raise RuntimeError(message), like a sticky CUDA error.
"""

import builtins as _builtins
import os as _os
import time as _time

if _os.environ.get("KPROF_FAKE_TORCH_LOG_IMPORT") and _os.environ.get("KPROF_FAKE_TORCH_LOG"):
    with open(_os.environ["KPROF_FAKE_TORCH_LOG"], "a", encoding="utf-8") as _f:
        _f.write("import torch\n")
if _os.environ.get("KPROF_FAKE_TORCH_IMPORT_SECONDS"):
    _time.sleep(_builtins.float(_os.environ["KPROF_FAKE_TORCH_IMPORT_SECONDS"]))
if _os.environ.get("KPROF_FAKE_TORCH_LOG_IMPORT") and _os.environ.get("KPROF_FAKE_TORCH_LOG"):
    with open(_os.environ["KPROF_FAKE_TORCH_LOG"], "a", encoding="utf-8") as _f:
        _f.write("torch imported\n")

__version__ = "0.0-fake"


_PID = _os.getpid()


def _visible_gpus():
    """The GPUs this process sees, as CUDA counts them: the machine has KPROF_FAKE_GPU_COUNT
    (default 1); CUDA_VISIBLE_DEVICES, when set, names them by index (or UUID, "GPU-..."), and
    CUDA stops at the first entry that names none ("" and "99" on a one-GPU machine show none)."""
    machine = _builtins.int(_os.environ.get("KPROF_FAKE_GPU_COUNT", "1"))
    visible = _os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is None:
        return machine
    count = 0
    for entry in visible.split(","):
        entry = entry.strip()
        if not (entry.startswith(("GPU-", "MIG-")) or (entry.isdigit() and _builtins.int(entry) < machine)):
            break
        count += 1
    return count


def _no_gpu():
    """Whether this process sees no GPU (_visible_gpus() is 0)."""
    return _visible_gpus() == 0


def _fake_log(event):
    """Logs an event of the process that imported torch; a forked child's (kprof's harness
    compiles ahead in some) are not that process's, as ncu would not count them either."""
    path = _os.environ.get("KPROF_FAKE_TORCH_LOG")
    if path and _os.getpid() == _PID:
        with open(path, "a", encoding="utf-8") as f:
            f.write(event + "\n")


class dtype:
    def __init__(self, name, is_floating_point, itemsize):
        self.name = name
        self.is_floating_point = is_floating_point
        self.itemsize = itemsize

    def __repr__(self):
        return "torch." + self.name


float32 = dtype("float32", True, 4)
float16 = dtype("float16", True, 2)
bfloat16 = dtype("bfloat16", True, 2)
float64 = dtype("float64", True, 8)
int64 = dtype("int64", False, 8)
int32 = dtype("int32", False, 4)
int8 = dtype("int8", False, 1)
uint8 = dtype("uint8", False, 1)
bool_ = dtype("bool", False, 1)


class device:
    """torch.device; also a context manager that sets the default device of factories."""

    _stack = []

    def __init__(self, spec="cpu", index=None):
        if isinstance(spec, device):
            spec, index = spec.type, spec.index
        kind, _, number = str(spec).partition(":")
        if kind not in ("cpu", "cuda", "meta"):
            raise RuntimeError("Expected one of cpu, cuda, meta device type at start of device string: " + str(spec))
        self.type = kind
        self.index = _builtins.int(number) if number else index

    def __enter__(self):
        device._stack.append(self)
        return self

    def __exit__(self, *exc_info):
        device._stack.pop()
        return False

    def __eq__(self, other):
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self):
        return hash((self.type, self.index))

    def __repr__(self):
        if self.index is None:
            return "device(type=%r)" % self.type
        return "device(type=%r, index=%d)" % (self.type, self.index)


def _default_device():
    return device._stack[-1] if device._stack else device("cpu")


class Size(tuple):
    def numel(self):
        count = 1
        for extent in self:
            count *= extent
        return count


class Tensor:
    def __init__(self, shape, dtype_=None, device_=None):
        self._shape = Size(_builtins.int(extent) for extent in shape)
        self._dtype = dtype_ if dtype_ is not None else float32
        self._device = device(device_) if device_ is not None else _default_device()
        if self._device.type == "cuda" and _no_gpu():
            raise RuntimeError("No CUDA GPUs are available")

    @staticmethod
    def _make_subclass(cls, data):
        """`data` as an instance of the Tensor subclass `cls` (real torch's, for subclasses)."""
        made = cls.__new__(cls)
        made.__dict__.update(data.__dict__)
        return made

    @property
    def shape(self):
        return self._shape

    @property
    def dtype(self):
        return self._dtype

    @property
    def device(self):
        return self._device

    @property
    def is_cuda(self):
        return self._device.type == "cuda"

    @property
    def ndim(self):
        return len(self._shape)

    def dim(self):
        return len(self._shape)

    def size(self, dim=None):
        return self._shape if dim is None else self._shape[dim]

    def numel(self):
        return self._shape.numel()

    def element_size(self):
        return self._dtype.itemsize

    def stride(self, dim=None):
        strides = []
        step = 1
        for extent in reversed(self._shape):
            strides.insert(0, step)
            step *= extent
        return tuple(strides) if dim is None else strides[dim]

    def is_floating_point(self):
        return self._dtype.is_floating_point

    def is_contiguous(self):
        return True

    def to(self, *args, **kwargs):
        new_dtype = kwargs.get("dtype", self._dtype)
        new_device = kwargs.get("device", self._device)
        for arg in args:
            if isinstance(arg, dtype):
                new_dtype = arg
            elif isinstance(arg, Tensor):
                new_dtype, new_device = arg.dtype, arg.device
            else:
                new_device = arg
        if new_dtype is not self._dtype:
            _fake_log("cast " + new_dtype.name)
        return Tensor(self._shape, new_dtype, new_device)

    def cuda(self, device_=None):
        return self.to(device("cuda") if device_ is None else device_)

    def cpu(self):
        return self.to(device("cpu"))

    def float(self):
        return self.to(float32)

    def half(self):
        return self.to(float16)

    def bfloat16(self):
        return self.to(bfloat16)

    def contiguous(self):
        return self

    def clone(self):
        return Tensor(self._shape, self._dtype, self._device)

    def fill_(self, value):
        if self.is_cuda:
            _fake_log("launch fill")
            if _os.environ.get("KPROF_FAKE_TORCH_FILL_SECONDS"):  # a slow GPU fill (a standby's primer)
                _time.sleep(_builtins.float(_os.environ["KPROF_FAKE_TORCH_FILL_SECONDS"]))
        return self

    def __repr__(self):
        return "FakeTensor(shape=%s, dtype=%r, device=%r)" % (tuple(self._shape), self._dtype, self._device)


def _shape_of(size):
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        return tuple(size[0])
    return tuple(size)


def _factory(*size, dtype=None, device=None, requires_grad=False, **_ignored):
    return Tensor(_shape_of(size), dtype, device)


def _like(other, dtype=None, device=None, **_ignored):
    return Tensor(other.shape, dtype or other.dtype, device or other.device)


randn = rand = zeros = ones = empty = _factory
randn_like = rand_like = zeros_like = ones_like = empty_like = _like


def randint(*args, size=None, dtype=None, device=None, **_ignored):
    """randint(high, size) or randint(low, high, size); int64 by default."""
    if size is None:
        size = args[-1]
    return Tensor(_shape_of((size,)), dtype or int64, device)


def tensor(data, dtype=None, device=None, **_ignored):
    shape = []
    values = data
    while isinstance(values, (list, tuple)):
        shape.append(len(values))
        values = values[0] if values else 0
    if dtype is None:
        dtype = float32 if isinstance(values, _builtins.float) else int64
    return Tensor(shape, dtype, device)


_seed = [0]


def manual_seed(seed):
    _seed[0] = _builtins.int(seed)


def initial_seed():
    return _seed[0]


# Aliases whose names shadow builtins; everything above uses `_builtins` explicitly.
float = float32
half = float16
double = float64
long = int64
int = int32
bool = bool_

from . import cuda  # noqa: E402  (submodules need the names above)
from . import nn  # noqa: E402
from . import profiler  # noqa: E402
