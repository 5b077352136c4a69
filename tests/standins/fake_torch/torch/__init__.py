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
import math as _math
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
    """Values, when a test needs them: `_values` is a flat list (torch.tensor(...) makes one), or
    None, every element then being `_fill`: a number (zeros, ones, fill_), or None for values
    nobody knows (randn, empty: what the fake kernels "compute"). Arithmetic on an unknown tensor
    is unknown; isnan and isinf of one are False, a comparison of one is True, so a candidate of
    the fake kernels matches the reference. The huge tensors of the examples cost nothing."""

    def __init__(self, shape, dtype_=None, device_=None, values=None, fill=None):
        self._shape = Size(_builtins.int(extent) for extent in shape)
        self._dtype = dtype_ if dtype_ is not None else float32
        self._device = device(device_) if device_ is not None else _default_device()
        self._values = values
        self._fill = fill
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
        return Tensor(self._shape, new_dtype, new_device, self._values, self._fill)

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
        return Tensor(self._shape, self._dtype, self._device, self._values, self._fill)

    def data_ptr(self):
        return id(self)

    def double(self):
        return self.to(float64)

    def zero_(self):
        """A GPU write as fill_, logged "launch zero", never slowed (the timing's L2 flush)."""
        self._values, self._fill = None, 0.0
        if self.is_cuda:
            _fake_log("launch zero")
        return self

    def item(self):
        if self.numel() != 1:
            raise RuntimeError("a Tensor with %d elements cannot be converted to Scalar" % self.numel())
        value = self._values[0] if self._values is not None else self._fill
        return 0.0 if value is None else value

    def sum(self):
        return _reduce(self, _builtins.sum, 0)

    def max(self):
        if self.numel() == 0:
            raise RuntimeError("max(): Expected reduction dim to be specified for input.numel() == 0")
        return _reduce(self, _builtins.max, None)

    def __sub__(self, other):
        return _map(lambda a, b: a - b, self, other)

    def __add__(self, other):
        return _map(lambda a, b: a + b, self, other)

    __radd__ = __add__

    def __mul__(self, other):
        return _map(lambda a, b: a * b, self, other)

    __rmul__ = __mul__

    def __truediv__(self, other):
        return _map(lambda a, b: a / b if b != 0 else _math.copysign(_math.inf, a) if a else _math.nan,
                    self, other)

    def fill_(self, value):
        self._values, self._fill = None, value
        if self.is_cuda:
            _fake_log("launch fill")
            if _os.environ.get("KPROF_FAKE_TORCH_FILL_SECONDS"):  # a slow GPU fill (a standby's primer)
                _time.sleep(_builtins.float(_os.environ["KPROF_FAKE_TORCH_FILL_SECONDS"]))
        return self

    def __repr__(self):
        return "FakeTensor(shape=%s, dtype=%r, device=%r)" % (tuple(self._shape), self._dtype, self._device)


def _unknown(value):
    return isinstance(value, Tensor) and value._values is None and value._fill is None


def _constant(value):
    """(True, the value) of a number, a tensor of one value everywhere or of one element (which
    broadcasts); (False, None) of a tensor of several values."""
    if not isinstance(value, Tensor):
        return True, value
    if value._values is None:
        return True, value._fill
    if len(value._values) == 1:
        return True, value._values[0]
    return False, None


def _elements(value, count):
    """A tensor's (or a number's) elements as a list of `count` (one value broadcasts)."""
    constant, fill = _constant(value)
    return [fill] * count if constant else value._values


def _map(op, *operands, dtype_=None):
    """An element-wise op over tensors and numbers, broadcast as torch does for the shapes the
    fake keeps: the largest tensor gives shape and device; one value broadcasts."""
    tensors = [x for x in operands if isinstance(x, Tensor)]
    first = max(tensors, key=lambda t: t.numel())
    if any(_unknown(x) for x in operands):
        known = dtype_ is bool_  # a comparison of unknown values: True (they "match")
        return Tensor(first.shape, dtype_ or first.dtype, first.device, None, True if known else None)
    constants = [_constant(x) for x in operands]
    if all(constant for constant, _ in constants) and (first._values is None or first.numel() != 1):
        # constants stay constants, whatever the size
        fill = op(*[value for _, value in constants])
        return Tensor(first.shape, dtype_ or first.dtype, first.device, None, fill)
    count = first.numel()
    columns = [_elements(x, count) for x in operands]
    return Tensor(first.shape, dtype_ or first.dtype, first.device, [op(*row) for row in zip(*columns)])


def _reduce(tensor, op, empty):
    if _unknown(tensor):
        return Tensor((), tensor.dtype, tensor.device, None, None)
    if tensor._values is None:
        count = tensor.numel()
        value = tensor._fill * count if op is _builtins.sum else (tensor._fill if count else empty)
    else:
        value = op(tensor._values) if tensor._values else empty
    return Tensor((), tensor.dtype, tensor.device, [value])


def _known_or(x, value):
    """isnan/isinf/isfinite of unknown values: `value` everywhere (the fake makes no NaN)."""
    return Tensor(x.shape, bool_, x.device, None, value)


def isnan(x):
    return _known_or(x, False) if _unknown(x) else _map(lambda a: a != a, x, dtype_=bool_)


def isinf(x):
    return _known_or(x, False) if _unknown(x) else _map(lambda a: a in (_math.inf, -_math.inf), x, dtype_=bool_)


def isfinite(x):
    return _known_or(x, True) if _unknown(x) else _map(lambda a: _math.isfinite(a), x, dtype_=bool_)


def logical_and(a, b):
    return _map(lambda p, q: _builtins.bool(p and q), a, b, dtype_=bool_)


def logical_or(a, b):
    return _map(lambda p, q: _builtins.bool(p or q), a, b, dtype_=bool_)


def logical_not(a):
    return _map(lambda p: not p, a, dtype_=bool_)


def le(a, b):
    return _map(lambda p, q: p <= q, a, b, dtype_=bool_)


def gt(a, b):
    return _map(lambda p, q: p > q, a, b, dtype_=bool_)


def eq(a, b):
    return _map(lambda p, q: p == q, a, b, dtype_=bool_)


def abs(x):  # noqa: A001  (torch's name)
    return _map(_builtins.abs, x)


def where(condition, a, b):
    return _map(lambda c, p, q: p if c else q, condition, a, b, dtype_=(a.dtype if isinstance(a, Tensor) else None))


def matmul(a, b):
    """(M, K) @ (K, N), values of constants only; counts 2*M*N*K FLOPs under FlopCounterMode."""
    m, k = a.shape
    n = b.shape[1]
    from .utils import _python_dispatch
    _python_dispatch._dispatch("aten.mm", 2 * m * n * k)
    known = a._values is None and b._values is None and a._fill is not None and b._fill is not None
    return Tensor((m, n), a.dtype, a.device, None, a._fill * b._fill * k if known else None)


mm = matmul


def softmax(x, dim=-1):
    from .utils import _python_dispatch
    _python_dispatch._dispatch("aten._softmax", 0)
    fill = None if _unknown(x) else (1.0 / x.shape[dim] if x.shape else 1.0)
    return Tensor(x.shape, x.dtype, x.device, None, fill)


class no_grad:
    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        return False


def compile(model=None, **_options):  # noqa: A001  (torch's name)
    """torch.compile: the model itself (the fake runs nothing to compile)."""
    return model


def _shape_of(size):
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        return tuple(size[0])
    return tuple(size)


def _factory(fill):
    def make(*size, dtype=None, device=None, requires_grad=False, **_ignored):
        return Tensor(_shape_of(size), dtype, device, None, fill)

    return make


def _like(fill):
    def make(other, dtype=None, device=None, **_ignored):
        return Tensor(other.shape, dtype or other.dtype, device or other.device, None, fill)

    return make


# Random and empty tensors hold values nobody knows; zeros and ones theirs.
randn = rand = empty = _factory(None)
zeros = _factory(0.0)
ones = _factory(1.0)
randn_like = rand_like = empty_like = _like(None)
zeros_like = _like(0.0)
ones_like = _like(1.0)


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

    def flat(value):
        if isinstance(value, (list, tuple)):
            return [item for part in value for item in flat(part)]
        return [value]

    return Tensor(shape, dtype, device, [_builtins.float(v) if dtype.is_floating_point else v for v in flat(data)])


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
from . import utils  # noqa: E402
from . import backends  # noqa: E402
from . import profiler  # noqa: E402
