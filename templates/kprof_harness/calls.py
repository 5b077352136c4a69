"""The candidates: how kernel_function is called (choose_call, docs/harness.md "Call styles"), and
each candidate imported, warmed up and called once inside its NVTX range (run_candidate), a
failure contained to its candidate unless it poisoned the CUDA context."""

import inspect
import time

from .inputs import choose_cast, make_inputs
from .locks import let_go, take_call_lock, wait_for_timeline_gate
from .modules import candidate_imports, load_module
from .problem import ProblemError, load_problem
from .report import EXIT_CANDIDATE_FAILED, EXIT_CUDA_POISONED, EXIT_OK, describe_exception, log

# Model attributes that hold the layer of a Conv/Linear-style problem, in the order tried.
LAYER_NAMES = ("conv1", "conv2", "conv3", "conv1d", "conv2d", "conv", "conv3d", "linear", "fc")
# Layer settings passed as keywords when the layer has them and kernel_function accepts them.
LAYER_SETTINGS = ("stride", "padding", "dilation", "groups")
# Words in an error message that mean the CUDA context is unusable for the rest of the process.
STICKY_ERROR_MARKERS = (
    "illegal memory access",
    "device-side assert",
    "unspecified launch failure",
    "misaligned address",
)


def first_candidate_call(plan, module_name):
    """The plan's first candidate called as the session's harness calls it, for a mode that runs
    it outside ncu (the timeline, the extraction): (problem, kernel_function, args, kwargs), the
    problem loaded and its inputs made with the plan's seed, kernel.py imported as `module_name`,
    the cast and call style chosen as run_candidate chooses them."""
    status = {}
    problem = load_problem(plan, status)
    make_inputs(problem, status)
    candidate = plan["candidates"][plan["first_candidate"]]
    module = load_module(module_name, candidate["kernel"])
    kernel_function = getattr(module, "kernel_function", None)
    if not callable(kernel_function):
        raise AttributeError("kernel.py defines no kernel_function")
    cast, _ = choose_cast(kernel_function, plan["cast"])
    _, _, args, kwargs = choose_call(kernel_function, problem, cast)
    return problem, kernel_function, args, kwargs


def choose_call(kernel_function, problem, cast):
    """How kernel_function is called, decided once: (style, layer name, args, kwargs), with the
    inputs (and Model) of cast word `cast`.

    "layer_weights": the signature has a `weight` parameter and Model(*init_inputs) has a
    Conv/Linear-style layer: (inputs[0], layer.weight, layer.bias, stride=, padding=,
    dilation=, groups=), each setting only when the layer has it and the signature accepts it.
    "positional": (*inputs, *init_inputs).
    """
    inputs = problem.inputs(cast)
    positional = ("positional", None, tuple(inputs) + tuple(problem.init_inputs), {})
    try:
        parameters = inspect.signature(kernel_function).parameters
    except (TypeError, ValueError):
        return positional
    if "weight" not in parameters or not inputs:
        return positional
    model = problem.model(cast)
    for name in LAYER_NAMES:
        layer = getattr(model, name, None)
        if layer is not None and hasattr(layer, "weight"):
            args = (inputs[0], layer.weight, getattr(layer, "bias", None))
            return "layer_weights", name, args, layer_settings(layer, parameters)
    return positional


def layer_settings(layer, parameters):
    takes_any = any(p.kind == inspect.Parameter.VAR_KEYWORD for p in parameters.values())
    settings = {}
    for name in LAYER_SETTINGS:
        if hasattr(layer, name) and (takes_any or name in parameters):
            value = getattr(layer, name)
            if isinstance(value, (tuple, list)) and len(value) > 0:
                value = value[0]
            settings[name] = value
    return settings


def run_candidate(problem, plan, entry, status_file, ahead=None):
    """Imports, warms up and profiles one candidate; raises on failure (entry["phase"] says
    where)."""
    torch = problem.torch
    status_file.set_candidate_phase(entry, "import_kernel")
    started = time.perf_counter()
    module = load_module("_kprof_kernel_%d" % entry["index"], plan["candidates"][entry["index"]]["kernel"])
    entry["import_seconds"] = time.perf_counter() - started
    kernel_function = getattr(module, "kernel_function", None)
    if not callable(kernel_function):
        raise AttributeError("kernel.py defines no kernel_function")
    entry["cast"], entry["cast_reason"] = choose_cast(kernel_function, plan["cast"])
    style, layer, args, kwargs = choose_call(kernel_function, problem, entry["cast"])
    entry["call_style"] = style
    entry["layer"] = layer

    if problem.truth is not None:  # the reference, before any call of this cast
        problem.truth.reference(entry["cast"])
    if ahead is not None:
        started = time.perf_counter()
        entry["compiled_ahead"], entry["compile_seconds"] = ahead.wait(entry)
        entry["compile_wait_seconds"] = time.perf_counter() - started
    status_file.set_candidate_phase(entry, "warmup")
    started = time.perf_counter()
    for _ in range(plan["warmup"]):
        kernel_function(*args, **kwargs)
    torch.cuda.synchronize()
    entry["warmup_seconds"] = time.perf_counter() - started

    wait_for_timeline_gate(plan, entry)
    status_file.set_candidate_phase(entry, "profiled_call")
    lock_fd, entry["call_lock"], entry["call_lock_wait_seconds"] = take_call_lock(plan)
    try:
        started = time.perf_counter()
        torch.cuda.nvtx.range_push(entry["range"])
        try:
            result = kernel_function(*args, **kwargs)
            torch.cuda.synchronize()
        finally:
            torch.cuda.nvtx.range_pop()
        entry["call_seconds"] = time.perf_counter() - started
    finally:
        let_go(lock_fd)
    if problem.truth is not None:  # outside the range: ncu replays none of it
        problem.truth.measure(entry, status_file, lambda: kernel_function(*args, **kwargs), result)
    del result


def context_poisoned(torch, exc):
    """Whether the CUDA context is unusable after `exc` (a sticky error)."""
    text = str(exc).lower()
    if any(marker in text for marker in STICKY_ERROR_MARKERS):
        return True
    try:
        torch.cuda.synchronize()
    except Exception:
        return True
    return False


def run_candidates(problem, plan, status_file, ahead):
    """Runs every candidate from first_candidate (compiled ahead by `ahead`, a CompiledAhead or
    None); returns the exit code. A ProblemError (the Model a candidate needs cannot be built)
    goes up: it is the problem's failure, not the candidate's."""
    all_ok = True
    for entry in status_file.status["candidates"]:
        with candidate_imports(plan["candidates"][entry["index"]]["kernel"]):
            try:
                run_candidate(problem, plan, entry, status_file, ahead)
            except ProblemError:
                raise
            except (Exception, SystemExit) as exc:
                all_ok = False
                category = "kernel_import" if entry["phase"] == "import_kernel" else "kernel_raised"
                entry["error"] = dict(category=category, **describe_exception(exc))
                entry["cuda_context_poisoned"] = context_poisoned(problem.torch, exc)
                status_file.write()
                log("cand%d failed: %s %s" % (entry["index"], category, type(exc).__name__))
                if entry["cuda_context_poisoned"]:
                    log("cand%d left the CUDA context poisoned; stopping" % entry["index"])
                    return EXIT_CUDA_POISONED
                continue
        entry["ok"] = True
        status_file.set_candidate_phase(entry, "done")
    return EXIT_OK if all_ok else EXIT_CANDIDATE_FAILED
