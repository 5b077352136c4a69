"""The inputs: seeded, made on the GPU (or on the CPU and moved), cast once when a dtype is asked
for, and the cast each candidate gets under "auto" (choose_cast, KernelAgent's rule;
docs/harness.md, "Casting")."""

import inspect
import random

from .report import clean_text, log

# cast "auto", KernelAgent's rule: the first of these words found in kernel_function's lowercased
# source (inspect.getsource) picks the dtype; none found, or no source, leaves the inputs alone.
AUTO_CAST_WORDS = (("bfloat16", "bf16"), ("float16", "fp16"), ("half", "fp16"), ("float32", "fp32"))
AS_MADE = "inputs as the problem made them"


def seed_everything(torch, seed):
    random.seed(seed)
    torch.manual_seed(seed)
    try:
        import numpy
    except ImportError:
        return
    numpy.random.seed(seed % (2 ** 32))


def make_inputs(problem, status):
    """Inputs on the GPU (cast when an explicit dtype is asked), init_inputs as the problem
    returns them."""
    torch = problem.torch
    seed_everything(torch, problem.plan["seed"])
    inputs = None
    if problem.plan["inputs"] == "gpu":
        try:
            with torch.device("cuda"):
                inputs = list(problem.module.get_inputs())
        except Exception as exc:
            status["inputs_on"] = "cpu"
            status["inputs_fallback"] = clean_text("%s: %s" % (type(exc).__name__, exc))
            log("inputs on the GPU failed (%s); creating them on the CPU" % type(exc).__name__)
            seed_everything(torch, problem.plan["seed"])
    if inputs is None:
        inputs = list(problem.module.get_inputs())
    problem.set_inputs(inputs)
    get_init_inputs = getattr(problem.module, "get_init_inputs", None)
    problem.init_inputs = list(get_init_inputs()) if get_init_inputs is not None else []
    torch.cuda.synchronize()
    try:
        status["gpu_name"] = clean_text(torch.cuda.get_device_name())
    except Exception:
        status["gpu_name"] = None


def prepare_input(torch, value, cast_dtype):
    """Tensors go to the GPU; floating ones are cast when asked. Anything else is untouched."""
    if not isinstance(value, torch.Tensor):
        return value
    if not value.is_cuda:
        value = value.cuda()
    if cast_dtype is not None and value.is_floating_point() and value.dtype != cast_dtype:
        value = value.to(cast_dtype)
    return value


def choose_cast(kernel_function, asked):
    """(cast word, why) for one candidate: the asked word, or under "auto" KernelAgent's rule on
    kernel_function's source."""
    if asked != "auto":
        if asked == "none":
            return "none", "asked for cast none: " + AS_MADE
        return asked, "asked for cast " + asked
    try:
        source = inspect.getsource(kernel_function).lower()
    except Exception as exc:
        return "none", "could not read kernel_function's source (%s): %s" % (type(exc).__name__, AS_MADE)
    for word, cast in AUTO_CAST_WORDS:
        if word in source:
            return cast, "kernel_function's source mentions '%s'" % word
    return "none", "no dtype named in kernel_function's source: " + AS_MADE
