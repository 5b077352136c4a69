"""A compile worker: `harness.py PLAN --compile-worker`, one of the processes kprof starts beside a
session, outside ncu and seeing no GPU (CUDA_VISIBLE_DEVICES empty), that compile the candidates'
Triton kernels ahead (docs/harness.md, "Compiling ahead"). It makes the problem's inputs as meta
tensors (shapes and dtypes, no memory; MetaProblem), waits for the harness's Triton target, then
takes the candidates in order, each that no other process claimed first, loads its kernel.py under
a name of its own and calls kernel_function once as the harness will (calls.choose_call) while
Triton's launches are compiles (compile_only_hooks). The kernels land in Triton's cache, where the
candidate's own warm-up finds them."""

import os
import time

from .calls import choose_call
from .compile_ahead import COMPILE_DONE, COMPILE_TARGET_FILE, claim_candidate, read_json
from .inputs import choose_cast
from .modules import candidate_imports, load_module
from .problem import Problem, load_problem
from .report import EXIT_OK, clean_text, exception_words
from .status import write_json_atomic


class MetaProblem(Problem):
    """The problem as a compile worker sees it: its inputs and Model on the meta device (shapes
    and dtypes, no memory), every input tensor saying it is a CUDA tensor (as_meta), so that
    choose_call calls kernel_function as the harness will, with nothing on a GPU."""

    def prepare(self, value, dtype):
        torch = self.torch
        if isinstance(value, torch.Tensor) and dtype is not None and value.is_floating_point() \
                and value.dtype != dtype:
            value = value.to(dtype)
        return as_meta(torch, value)

    def new_model(self, model_class):
        with self.torch.device("meta"):
            return model_class(*self.init_inputs)


_META_AS_CUDA = []


def meta_as_cuda_class(torch):
    """The meta tensor class whose is_cuda is True (made once, torch being imported late)."""
    if not _META_AS_CUDA:
        _META_AS_CUDA.append(type("MetaAsCuda", (torch.Tensor,), {"is_cuda": property(lambda self: True)}))
    return _META_AS_CUDA[0]


def as_meta(torch, value):
    """A meta tensor that says it is a CUDA tensor (kernels check `x.is_cuda`; what they make
    from it stays meta); anything else as it is."""
    if not isinstance(value, torch.Tensor):
        return value
    tensor = value if value.device.type == "meta" else value.to(device="meta")
    try:
        return torch.Tensor._make_subclass(meta_as_cuda_class(torch), tensor)
    except Exception:  # a torch without tensor subclasses: plain meta
        return tensor


def compile_only_driver():
    """Triton's active driver in a compile worker. The worker sees no GPU (kprof starts it with
    CUDA_VISIBLE_DEVICES empty), so Triton finds no active driver: its CUDA driver is then made
    and set active by hand, which asks CUDA for nothing (compile_only_hooks answers the device,
    stream and target)."""
    from triton.runtime import driver

    try:
        driver.active.get_current_target  # Triton makes its driver on the first use
        return driver.active
    except RuntimeError:  # "0 active drivers": no GPU visible here
        from triton.backends.nvidia.driver import CudaDriver

        driver.set_active(CudaDriver())
        return driver.active


def compile_only_hooks(target, device):
    """Makes every Triton launch of this (compile worker) process a compile: JITFunction.run gets
    warmup=True (compile, no launch), an Autotuner compiles each config (its warmup) instead of
    benchmarking them, and Triton asks no CUDA for the device, stream and target: the target is
    the harness's (COMPILE_TARGET_FILE). Raises when this Triton has no such entry points."""
    from triton.runtime.autotuner import Autotuner
    from triton.runtime.jit import JITFunction

    jit_run = JITFunction.run
    if not callable(getattr(Autotuner, "warmup", None)):
        raise AttributeError("triton's Autotuner has no warmup")

    def run(self, *args, **kwargs):
        kwargs["warmup"] = True
        return jit_run(self, *args, **kwargs)

    def autotuned_run(self, *args, **kwargs):
        kwargs.pop("warmup", None)
        return self.warmup(*args, **kwargs)

    active = compile_only_driver()
    JITFunction.run = run
    Autotuner.run = autotuned_run
    active.get_current_target = lambda: target
    active.get_current_device = lambda: device
    active.get_current_stream = lambda *_: 0


def run_compile_worker(plan):
    """The worker's life: makes the problem's inputs as meta tensors while the harness sets up,
    waits for the harness's Triton target, then compiles each candidate it claims and writes its
    outcome; returns once none is left. A worker that cannot compile anything (its set-up
    failed: every worker's would) says why for each candidate it claims."""
    directory = plan["compile_ahead"]["dir"]
    try:
        compile_one = prepare_compile_worker(plan)
    except Exception as exc:
        compile_one = exc
    target_path = os.path.join(directory, COMPILE_TARGET_FILE)
    target = read_json(target_path)
    while not isinstance(target, dict):  # the harness writes it once, after its own set-up
        time.sleep(0.01)
        target = read_json(target_path)
    if not isinstance(compile_one, Exception):
        try:
            from triton.backends.compiler import GPUTarget

            if "none" in target:
                raise RuntimeError(target["none"])
            compile_only_hooks(GPUTarget(target["backend"], target["arch"], target["warp_size"]), 0)
        except Exception as exc:
            compile_one = exc
    if isinstance(compile_one, Exception):
        why = "not compiled ahead: the compile worker could not start (%s)" % exception_words(compile_one)
        compile_one = lambda index: why  # noqa: E731
    for index in range(plan["first_candidate"], len(plan["candidates"])):
        if not claim_candidate(directory, index):
            continue
        started = time.perf_counter()
        outcome = compile_one(index)
        write_json_atomic(os.path.join(directory, COMPILE_DONE % index),
                          {"outcome": clean_text(outcome), "seconds": time.perf_counter() - started})
    return EXIT_OK


def prepare_compile_worker(plan):
    """The worker's set-up before the target: torch, problem.py and its inputs as meta tensors
    (made under torch.device("meta"): shapes and dtypes, no memory; MetaProblem). Returns
    compile_one(index)."""
    problem = load_problem(plan, {}, MetaProblem, needs_gpu=False)
    with problem.torch.device("meta"):
        problem.set_inputs(list(problem.module.get_inputs()))
        get_init_inputs = getattr(problem.module, "get_init_inputs", None)
        problem.init_inputs = list(get_init_inputs()) if get_init_inputs is not None else []

    def compile_one(index):
        path = plan["candidates"][index]["kernel"]
        with candidate_imports(path):
            try:
                return compile_candidate(problem, plan, index, path)
            except BaseException as exc:  # the candidate's own end, reported in a few words
                return "not compiled ahead: %s" % exception_words(exc)

    return compile_one


def compile_candidate(problem, plan, index, path):
    """Loads candidate `index`'s kernel.py under a name of its own and calls kernel_function
    once as the harness will (choose_call: the inputs, or a Model layer's weights and settings,
    cast as its own call will cast them), on the meta problem, every Triton launch a compile."""
    kernel_function = getattr(load_module("_kprof_ahead_%d" % index, path), "kernel_function", None)
    if not callable(kernel_function):
        return "not compiled ahead: no kernel_function"
    cast, _ = choose_cast(kernel_function, plan["cast"])
    _, _, args, kwargs = choose_call(kernel_function, problem, cast)
    kernel_function(*[as_meta(problem.torch, value) for value in args], **kwargs)  # layer weights too
    return "compiled"
