"""What the problem must do at least, the evidence for its speed of light (issue 43).

Self-contained (standard library only; torch is passed in), testable with the fake torch. The
harness measures here; kprof (src/analysis/truth.cpp) turns the counts into an ideal
time against the GPU's datasheet peaks, since the peaks and the candidate's time meet there.

- FLOPs of the reference's forward, per aten op, by torch.utils.flop_counter.FlopCounterMode,
  split into the ops a tensor core can run (matmuls, convolutions, attention) and the rest; the
  ops that ran but FlopCounterMode has no formula for are listed by name with their call counts
  (element-wise math, softmax, reductions: their FLOPs are not in the total), except the ops that
  only move or describe memory (views, copies, allocations: NO_MATH_OPS).
- The minimum bytes: every input, output and parameter (or buffer) of the Model read or written
  once, each tensor counted once however often it appears.
- The compute dtype: the dtype of the first floating-point input, else the first output's.
"""

# Ops a tensor core runs (the packet's name without "aten."); their FLOPs are held against the
# dtype's tensor peak, every other op's against the FP32 (CUDA core) peak.
TENSOR_CORE_OPS = frozenset((
    "mm", "addmm", "bmm", "baddbmm", "matmul", "convolution", "_convolution", "conv2d", "conv1d",
    "conv3d", "_scaled_dot_product_efficient_attention", "_scaled_dot_product_flash_attention",
    "_scaled_dot_product_cudnn_attention", "_flash_attention_forward", "_efficient_attention_forward",
    "_scaled_mm",
))
# Ops that do no arithmetic worth counting: not listed among the uncounted.
NO_MATH_OPS = frozenset((
    "view", "_unsafe_view", "reshape", "permute", "transpose", "t", "expand", "contiguous", "clone",
    "copy_", "copy", "empty", "empty_like", "empty_strided", "zeros", "zeros_like", "ones", "ones_like",
    "full", "full_like", "fill_", "zero_", "detach", "alias", "slice", "select", "unsqueeze", "squeeze",
    "as_strided", "_to_copy", "to", "split", "split_with_sizes", "chunk", "cat", "stack", "flatten",
    "unbind", "narrow", "index_select", "lift_fresh", "_reshape_alias", "new_empty", "new_zeros",
    "new_ones", "new_full", "arange", "scalar_tensor", "_local_scalar_dense", "resize_", "set_",
    "unflatten", "movedim", "repeat", "expand_as", "view_as", "type_as", "sym_size", "sym_stride",
    "sym_numel", "is_same_size", "_has_compatible_shallow_copy_type", "pad", "constant_pad_nd",
))


def prepare(torch):
    """FlopCounterMode's first use, on two CPU tensors: it costs about 5 s in a fresh process
    (5.15 s on the H100 host of 2026-12-06, against 1 ms for the reference's count after it), and
    the truth's process pays it before its gate, while ncu profiles. Never raises."""
    try:
        from torch.utils.flop_counter import FlopCounterMode

        with FlopCounterMode(display=False):
            torch.matmul(torch.ones(4, 4, device="cpu"), torch.ones(4, 4, device="cpu"))
    except Exception:  # measure() says what is missing
        pass


def op_name(packet):
    """"mm" for aten.mm (an OpOverloadPacket or its text)."""
    text = str(packet)
    return text[len("aten."):] if text.startswith("aten.") else text


def split_flops(per_op):
    """{op name: FLOPs} -> (tensor-core FLOPs, other FLOPs)."""
    tensor = sum(count for name, count in per_op.items() if name in TENSOR_CORE_OPS)
    other = sum(count for name, count in per_op.items() if name not in TENSOR_CORE_OPS)
    return tensor, other


def uncounted(calls, counted):
    """The ops that ran ({op name: calls}) that FlopCounterMode could not count (not in
    `counted`, the names it has a formula for) and that do math, sorted by name."""
    return {name: calls[name] for name in sorted(calls)
            if name not in counted and name not in NO_MATH_OPS}


def _op_recorder(torch):
    """A TorchDispatchMode that counts the aten ops run under it, by name."""
    from torch.utils._python_dispatch import TorchDispatchMode

    class OpRecorder(TorchDispatchMode):
        def __init__(self):
            super().__init__()
            self.calls = {}

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            name = op_name(getattr(func, "_overloadpacket", func))
            self.calls[name] = self.calls.get(name, 0) + 1
            return func(*args, **(kwargs or {}))

    return OpRecorder()


def count_flops(torch, fn):
    """Runs fn() once under FlopCounterMode: {"flops", "tensor_core_flops", "other_flops",
    "per_op": {name: FLOPs}, "uncounted_ops": {name: calls}, "error": None}; with "error" set
    (and the counts None) when this torch has no FlopCounterMode or fn raised under it."""
    result = {"flops": None, "tensor_core_flops": None, "other_flops": None, "per_op": {},
              "uncounted_ops": {}, "error": None}
    try:
        from torch.utils.flop_counter import FlopCounterMode, flop_registry
    except ImportError as exc:
        result["error"] = "no FlopCounterMode in this torch (%s)" % exc
        return result
    try:
        counter = FlopCounterMode(display=False)
        recorder = _op_recorder(torch)
        with torch.no_grad(), counter, recorder:
            fn()
        per_op = {}
        for packet, count in counter.get_flop_counts().get("Global", {}).items():
            per_op[op_name(packet)] = per_op.get(op_name(packet), 0) + int(count)
        counted = {op_name(packet) for packet in flop_registry}
    except Exception as exc:
        result["error"] = "FlopCounterMode: %s: %s" % (type(exc).__name__, exc)
        return result
    tensor, other = split_flops(per_op)
    result.update(flops=tensor + other, tensor_core_flops=tensor, other_flops=other, per_op=per_op,
                  uncounted_ops=uncounted(recorder.calls, counted))
    return result


def tensors_of(torch, value):
    """The tensors in a value (a tensor, or tuples/lists/dicts of them, nested)."""
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (tuple, list)):
        return [tensor for item in value for tensor in tensors_of(torch, item)]
    if isinstance(value, dict):
        return [tensor for item in value.values() for tensor in tensors_of(torch, item)]
    return []


def _identity(tensor):
    """What makes two tensors the same memory: their first byte and their size."""
    try:
        return (tensor.data_ptr(), tensor.numel() * tensor.element_size())
    except Exception:  # a tensor without storage (meta, some subclasses)
        return (id(tensor), 0)


def minimum_bytes(torch, inputs, outputs, model=None):
    """{"inputs_bytes", "outputs_bytes", "parameters_bytes", "bytes"}: each distinct tensor once
    (a parameter that is also an input, an output written into an input, counted once)."""
    seen = set()
    totals = {}
    groups = (("inputs_bytes", tensors_of(torch, inputs)), ("outputs_bytes", tensors_of(torch, outputs)),
              ("parameters_bytes", model_tensors(model)))
    for key, tensors in groups:
        total = 0
        for tensor in tensors:
            identity = _identity(tensor)
            if identity in seen:
                continue
            seen.add(identity)
            total += tensor.numel() * tensor.element_size()
        totals[key] = total
    totals["bytes"] = totals["inputs_bytes"] + totals["outputs_bytes"] + totals["parameters_bytes"]
    return totals


def model_tensors(model):
    """A Model's parameters and buffers (none for None or an object that has no such methods)."""
    tensors = []
    for method in ("parameters", "buffers"):
        get = getattr(model, method, None)
        if callable(get):
            try:
                tensors.extend(get())
            except Exception:
                pass
    return tensors


def compute_dtype(torch, inputs, outputs):
    """The dtype name ("float32", "bfloat16", ...) the problem computes in: its first floating
    input's, else its first floating output's; None when neither has one."""
    for tensor in tensors_of(torch, inputs) + tensors_of(torch, outputs):
        if tensor.is_floating_point():
            return str(tensor.dtype).replace("torch.", "")
    return None


def measure(torch, fn, inputs, outputs, model=None, counts=None):
    """The speed-of-light evidence of the reference: count_flops(fn) (or `counts`, what an
    earlier process counted: flop_cache.py, "counts_from": "cache"), minimum_bytes and the
    compute dtype, in one object (the status's reference.speed_of_light)."""
    if counts is not None:
        result = dict(counts, counts_from="cache")
    else:
        result = dict(count_flops(torch, fn), counts_from="counted")
    result.update(minimum_bytes(torch, inputs, outputs, model))
    result["dtype"] = compute_dtype(torch, inputs, outputs)
    matmul = getattr(getattr(torch, "backends", None), "cuda", None)
    matmul = getattr(matmul, "matmul", None)
    result["allow_tf32"] = bool(getattr(matmul, "allow_tf32", False))
    return result
