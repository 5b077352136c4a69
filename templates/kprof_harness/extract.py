"""From a model to a kernel worth rewriting (issue 42 item 3, docs/harness.md "Extracting a
kernel"): `harness.py PLAN --extract SPEC.json` writes a standalone case for each Triton kernel that
SPEC names (the model's kernels, costliest first, ranked by kprof from the round), until SPEC's
`top` cases are written.

Run by kprof after a `kprof model` round, outside ncu, on the round's plan: problem, inputs, cast
and call as the session's harness made them. The candidate (the model) is called once to warm up
(Triton's compiles, Inductor's autotuning), then once more with Triton's launch entry points
wrapped: JITFunction.run for a `kernel[grid](...)` of the user's, and Inductor's
CachingAutotuner.run for a kernel that torch.compile generated. The first launch of each named
kernel is recorded: its source, its arguments' shapes, strides and dtypes (and the values of
those that are not floating point: integers and booleans may index memory), its grid and launch
options, and which arguments it writes. Then, for each kernel, `OUT/<kernel>/`:

    kernel.py     the kernel's source and kernel_function(*inputs), which launches it as the model
                  did and returns what it writes (fresh copies, so that inputs are never changed)
    reference.py  a copy of kernel.py: problem.py's reference, left alone while kernel.py is
                  rewritten
    problem.py    KernelBench's format: Model (the reference), get_inputs() (the launch's
                  arguments: floating-point tensors random, the others as recorded), get_init_inputs()
    inputs.pt     the recorded tensors, when there are any

`kprof profile OUT/<kernel>/kernel.py OUT/<kernel>/problem.py` and KernelAgent's loop take the
case as it is. SPEC is JSON: {"out_dir", "model", "compile", "top", "kernels": [{"name", "share",
"launches", "total_us", "ops"}, ...]}. OUT/extracted.json says, per kernel looked at (the costliest
down to the last case written), what was written or why not (a library kernel: the op that
launched it; a source kprof cannot copy: what it refers to).
"""

import json
import os
import re
import time
import types

from .calls import first_candidate_call
from .report import EXIT_OK, describe_exception, exception_words, log
from .status import write_json_atomic, write_text_atomic

EXTRACT_VERSION = 1
NAME_LENGTH = 100  # a case directory's name: the kernel's, cut
CLONE_NOTE = "kernel_function writes into fresh copies of them"


class CannotExtract(Exception):
    """A kernel kprof cannot copy into a standalone case, with the reason in words."""


def run_extract(plan, spec_path, started_process):
    """The extract mode: writes SPEC's out_dir/extracted.json (atomically), {"version": 1,
    "kernels": [...]} or {"version": 1, "error": "..."} when the model could not be called. Exit
    0 once the file is written."""
    started = time.perf_counter()
    with open(spec_path, "r", encoding="utf-8") as f:
        spec = json.load(f)
    out_dir = spec["out_dir"]
    os.makedirs(out_dir, exist_ok=True)
    try:
        result = extract_kernels(plan, spec)
    except (Exception, SystemExit) as exc:
        log("extract: " + describe_exception(exc)["traceback"])
        result = {"version": EXTRACT_VERSION, "error": exception_words(exc)}
    result["process_seconds"] = time.perf_counter() - started_process
    result["extract_seconds"] = time.perf_counter() - started
    write_json_atomic(os.path.join(out_dir, "extracted.json"), result)
    return EXIT_OK


def extract_kernels(plan, spec):
    """The model called as the session's harness called it, warmed up, then called once with
    its Triton launches recorded; a case written per kernel of spec["kernels"] that Triton
    launched."""
    problem, kernel_function, args, kwargs = first_candidate_call(plan, "_kprof_extract_model")
    torch = problem.torch
    kernel_function(*args, **kwargs)  # compiles, autotunes: the recorded call launches only
    torch.cuda.synchronize()
    wanted = [kernel["name"] for kernel in spec["kernels"]]
    with LaunchRecorder(torch, wanted) as recorder:
        kernel_function(*args, **kwargs)
        torch.cuda.synchronize()
    kernels, written = [], 0
    for kernel in spec["kernels"]:  # costliest first, until `top` cases are written
        if written >= spec.get("top", len(spec["kernels"])):
            break
        launch = recorder.launches.get(kernel["name"])
        entry = {"name": kernel["name"], "share": kernel.get("share"),
                 "launches": kernel.get("launches"), "total_us": kernel.get("total_us")}
        if launch is None:
            entry["extracted"] = False
            ops = [op for op in kernel.get("ops") or [] if op]
            entry["why"] = ("not launched through Triton: a library kernel" +
                            (" (launched by %s)" % ", ".join(ops[:3]) if ops else ""))
        elif launch.get("error"):
            entry["extracted"] = False
            entry["why"] = launch["error"]
        else:
            try:
                entry.update(write_case(torch, spec, kernel, launch, recorder.counts[kernel["name"]]))
                entry["extracted"] = True
                written += 1
            except CannotExtract as exc:
                entry["extracted"] = False
                entry["why"] = str(exc)
        kernels.append(entry)
    return {"version": EXTRACT_VERSION, "out_dir": spec["out_dir"], "kernels": kernels}


class LaunchRecorder:
    """While entered: Triton's JITFunction.run and Inductor's CachingAutotuner.run (whichever are
    importable) wrapped, so that the first launch of each wanted kernel is recorded in
    `launches` (name -> record) and every launch counted in `counts`. The wrapped entry points
    are put back on exit."""

    def __init__(self, torch, wanted):
        self.torch = torch
        self.wanted = set(wanted)
        self.launches = {}
        self.counts = {}
        self._patches = []

    def __enter__(self):
        jit = _import_attr("triton.runtime.jit", "JITFunction")
        if jit is not None:
            self._wrap(jit, self._record_triton)
        autotuner = _import_attr("torch._inductor.runtime.triton_heuristics", "CachingAutotuner")
        if autotuner is not None:
            self._wrap(autotuner, self._record_inductor)
        return self

    def __exit__(self, *exc_info):
        for owner, original in reversed(self._patches):
            owner.run = original
        self._patches = []
        return False

    def _wrap(self, owner, record):
        original = owner.run

        def run(kernel, *args, **kwargs):
            name = getattr(kernel, "__name__", None) or getattr(getattr(kernel, "fn", None), "__name__", "")
            if name not in self.wanted or kwargs.get("warmup"):
                return original(kernel, *args, **kwargs)
            self.counts[name] = self.counts.get(name, 0) + 1
            if name in self.launches:
                return original(kernel, *args, **kwargs)
            return record(original, kernel, name, args, kwargs)

        self._patches.append((owner, original))
        owner.run = run

    def _record_triton(self, original, kernel, name, args, kwargs):
        """A user's `kernel[grid](...)`: what it writes is found by comparing its tensors before
        and after the launch (an output written with the values it held already is missed)."""
        try:
            record = {"kind": "triton", "index": self.counts[name],
                      "arguments": [describe_argument(self.torch, a, i) for i, a in enumerate(args)],
                      "options": launch_options(kwargs, ("grid", "warmup")),
                      "grid": resolve_grid(kernel, kwargs.get("grid"), args, kwargs),
                      "source": triton_source(kernel)}
        except CannotExtract as exc:
            self.launches[name] = {"error": str(exc)}
            return original(kernel, *args, **kwargs)
        before = [a.clone() if is_tensor(self.torch, a) else None for a in args]
        result = original(kernel, *args, **kwargs)
        self.torch.cuda.synchronize()
        record["written"] = [i for i, copy in enumerate(before)
                             if copy is not None and not tensors_equal(self.torch, copy, args[i])]
        record["written_from"] = "compared"
        self.launches[name] = record
        return result

    def _record_inductor(self, original, kernel, name, args, kwargs):
        """A kernel of torch.compile's: what it writes is what Inductor says (out_ptr*,
        in_out_ptr*, its mutated_arg_names)."""
        try:
            # Once compiled, Inductor may drop the Python function (kernel.fn.fn is None): the
            # module's file is the autotuner's `filename`, the names its signature's.
            signature = ((getattr(kernel, "triton_meta", None) or {}).get("signature") or {})
            names = list(getattr(kernel.fn, "arg_names", None) or signature)
            mutated = set((getattr(kernel, "inductor_meta", None) or {}).get("mutated_arg_names") or [])
            written = [i for i, arg in enumerate(names[:len(args)])
                       if arg.startswith(("out_ptr", "in_out_ptr")) or arg in mutated]
            path = getattr(kernel, "filename", None) or kernel.fn.fn.__code__.co_filename
            with open(path, "r", encoding="utf-8") as f:
                source = f.read()
            self.launches[name] = {
                "kind": "inductor", "index": self.counts[name],
                "arguments": [describe_argument(self.torch, a, i) for i, a in enumerate(args)],
                "options": launch_options(kwargs, ("stream",)), "grid": None,
                "source": source, "written": written, "written_from": "inductor"}
        except (CannotExtract, OSError, AttributeError) as exc:
            self.launches[name] = {"error": exception_words(exc) if not isinstance(exc, CannotExtract)
                                   else str(exc)}
        return original(kernel, *args, **kwargs)


def _import_attr(module_name, attr):
    try:
        module = __import__(module_name, fromlist=[attr])
    except Exception:  # no Triton, no Inductor: nothing of theirs to record
        return None
    return getattr(module, attr, None)


def is_tensor(torch, value):
    return isinstance(value, torch.Tensor)


def tensors_equal(torch, a, b):
    equal = getattr(torch, "equal", None)
    return bool(equal(a, b)) if equal is not None else True


def dtype_name(dtype):
    """"float32" for torch.float32."""
    return getattr(dtype, "name", None) or str(dtype).rsplit(".", 1)[-1]


def describe_argument(torch, value, index):
    """A launch argument as the case's problem.py remakes it: a tensor's size, stride, storage
    offset and dtype (its values kept, as `value`, unless floating point), or a plain value."""
    if is_tensor(torch, value):
        floating = value.is_floating_point() or bool(getattr(value, "is_complex", lambda: False)())
        described = {"kind": "tensor", "size": list(value.size()), "stride": list(value.stride()),
                     "offset": int(getattr(value, "storage_offset", lambda: 0)()),
                     "dtype": dtype_name(value.dtype), "random": floating}
        if not floating:
            described["value"] = value.detach().clone().cpu()
        return described
    value = getattr(value, "value", value) if type(value).__name__ == "constexpr" else value
    if value is None or isinstance(value, (bool, int, float, str)):
        return {"kind": "value", "value": value}
    raise CannotExtract("argument %d is a %s, which kprof cannot remake" % (index, type(value).__name__))


def launch_options(kwargs, skip):
    """The launch's keyword arguments (constexprs, num_warps, ...) as literals."""
    options = {}
    for key, value in kwargs.items():
        if key in skip:
            continue
        value = getattr(value, "value", value) if type(value).__name__ == "constexpr" else value
        if value is not None and not isinstance(value, (bool, int, float, str)):
            raise CannotExtract("keyword argument %s is a %s, which kprof cannot copy"
                                % (key, type(value).__name__))
        options[key] = value
    return options


def resolve_grid(kernel, grid, args, kwargs):
    """The launch's grid as a tuple of ints: a callable grid is called with the kernel's bound
    arguments, as Triton calls it."""
    if callable(grid):
        import inspect

        parameters = inspect.signature(kernel.fn).parameters
        meta = dict(zip(parameters, args))
        for key, parameter in parameters.items():
            if key not in meta and parameter.default is not inspect.Parameter.empty:
                meta[key] = parameter.default
        meta.update(kwargs)
        grid = grid(meta)
    grid = grid if isinstance(grid, (tuple, list)) else (grid,)
    try:
        return [int(extent) for extent in grid]
    except (TypeError, ValueError):
        raise CannotExtract("its grid %r is not a tuple of integers" % (grid,)) from None


def triton_source(kernel):
    """A @triton.jit kernel's source with what it refers to: the other JIT functions it calls
    (recursively), the modules it names (imports) and the constants of its module. Anything else
    it refers to cannot be copied: CannotExtract names it."""
    imports, constants, functions, seen = {}, {}, [], set()

    def visit(jit):
        if jit.__name__ in seen:
            return
        seen.add(jit.__name__)
        fn = jit.fn
        for name in fn.__code__.co_names:
            if name not in fn.__globals__:
                continue  # an attribute's name, or a builtin
            value = fn.__globals__[name]
            if hasattr(value, "fn") and hasattr(value, "src"):
                visit(value)
            elif isinstance(value, types.ModuleType):
                imports[name] = value.__name__
            elif type(value).__name__ == "constexpr":
                constants[name] = "tl.constexpr(%r)" % (value.value,)
            elif value is None or isinstance(value, (bool, int, float, str)):
                constants[name] = repr(value)
            else:
                raise CannotExtract("%s refers to %s, a %s, which kprof cannot copy into a "
                                    "standalone case" % (jit.__name__, name, type(value).__name__))
        functions.append("@triton.jit\n" + jit.src.rstrip() + "\n")

    visit(kernel)
    lines = ["import torch", "import triton", "import triton.language as tl"]
    for name, module in sorted(imports.items()):
        statement = "import %s" % module if module == name else "import %s as %s" % (module, name)
        if statement not in lines and not (module == "triton.language" and name == "tl"):
            lines.append(statement)
    lines.append("")
    lines += ["%s = %s" % (name, value) for name, value in sorted(constants.items())]
    return "\n".join(lines).rstrip() + "\n\n\n" + "\n\n".join(functions)


def case_name(name):
    """The case directory of kernel `name`: letters, digits and '_' only, at most NAME_LENGTH."""
    return (re.sub(r"[^A-Za-z0-9_]", "_", name) or "kernel")[:NAME_LENGTH]


def write_case(torch, spec, kernel, launch, count):
    """OUT/<kernel>/: kernel.py, reference.py, problem.py (and inputs.pt); returns the entry's
    files and facts."""
    name = kernel["name"]
    directory = os.path.join(spec["out_dir"], case_name(name))
    os.makedirs(directory, exist_ok=True)
    arguments = launch["arguments"]
    recorded = {"a%d" % i: a.pop("value") for i, a in enumerate(arguments)
                if a["kind"] == "tensor" and "value" in a}
    written = launch["written"]
    guessed = not written
    if guessed:  # nothing seen written: every tensor counts as written (returned, copied)
        written = [i for i, a in enumerate(arguments) if a["kind"] == "tensor"]
    facts = case_facts(spec, kernel, launch, count, written, guessed, sorted(recorded))
    text = kernel_text(name, launch, written, facts)
    write_text_atomic(os.path.join(directory, "kernel.py"), text, readable=True)
    write_text_atomic(os.path.join(directory, "reference.py"), text, readable=True)
    write_text_atomic(os.path.join(directory, "problem.py"), problem_text(name, arguments, recorded, facts),
                      readable=True)
    files = ["kernel.py", "reference.py", "problem.py"]
    if recorded:
        torch.save(recorded, os.path.join(directory, "inputs.pt"))
        files.append("inputs.pt")
    return {"directory": directory, "kind": launch["kind"], "launch": launch["index"],
            "files": files, "written": written, "written_from": "every tensor" if guessed
            else launch["written_from"], "recorded": sorted(recorded),
            "grid": launch["grid"], "options": launch["options"]}


def case_facts(spec, kernel, launch, count, written, guessed, recorded):
    """The docstring's paragraph: where the kernel came from and what its inputs are."""
    origin = ("a Triton kernel that torch.compile (Inductor) generated for" if launch["kind"] == "inductor"
              else "a Triton kernel in")
    share = kernel.get("share")
    time_words = ""
    if kernel.get("total_us") is not None and kernel.get("launches"):
        time_words = " In the model it ran %s, %.1f us in all (%.1f us a launch%s)." % (
            "once" if kernel["launches"] == 1 else "%d times" % kernel["launches"],
            kernel["total_us"], kernel["total_us"] / kernel["launches"],
            ", %.0f%% of the call's kernel time" % (100 * share) if share is not None else "")
    which = ("it wrote nothing kprof could see, so every tensor argument counts as written"
             if guessed else "it writes argument%s %s (%s)" % (
                 "" if len(written) == 1 else "s", ", ".join(str(i) for i in written),
                 "as Inductor names them" if launch["written_from"] == "inductor"
                 else "compared before and after the launch"))
    inputs = "floating-point tensors random (torch.randn)"
    if recorded:
        inputs += "; arguments %s as recorded (inputs.pt: integers and booleans may index memory)" % (
            ", ".join(r[1:] for r in recorded))
    return ("%s, %s %s's Model%s, extracted by `kprof model --extract` from launch %d of %d of "
            "one forward call.%s Arguments with the recorded shapes, strides and dtypes: %s; %s; "
            "%s." % (kernel["name"], origin, spec.get("model", "the problem"),
                     " through torch.compile" if spec.get("compile") and launch["kind"] != "inductor" else "",
                     launch["index"], count,
                     time_words, inputs, which, CLONE_NOTE))


def kernel_text(name, launch, written, facts):
    """kernel.py: the kernel's source and kernel_function, which launches it as the model did."""
    head = '"""%s\n\nkernel_function(*inputs) launches it as the model did and returns what it writes. Rewrite it\nfreely: problem.py\'s reference is reference.py, a copy of this file as extracted."""\n' % wrap(facts)
    if launch["kind"] == "inductor":
        launch_line = ("    %s.run(*args, stream=_kprof_torch.cuda.current_stream().cuda_stream, "
                       "**OPTIONS)" % name)
        body = launch["source"].rstrip() + "\n"
        tail_imports = "import torch as _kprof_torch\n"
    else:
        launch_line = "    %s[GRID](*args, **OPTIONS)" % name
        body = launch["source"]
        tail_imports = ""
    return (head + "\n" + body + "\n\n# The launch, as the model made it (kprof model --extract).\n" +
            tail_imports +
            "GRID = %r\nOPTIONS = %r\nWRITTEN = %r  # the arguments it writes\n\n\n" % (
                tuple(launch["grid"]) if launch["grid"] is not None else None, launch["options"],
                tuple(written)) +
            "def kernel_function(*args):\n"
            "    args = list(args)\n"
            "    for i in WRITTEN:\n"
            "        args[i] = args[i].clone()  # the inputs stay as they were\n" +
            launch_line + "\n"
            "    outputs = [args[i] for i in WRITTEN]\n"
            "    return outputs[0] if len(outputs) == 1 else tuple(outputs)\n")


PROBLEM_CODE = '''
import importlib.util
import os

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ARGUMENTS = %s


def _load(name):
    spec = importlib.util.spec_from_file_location("_kprof_extracted_" + name, os.path.join(HERE, name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Model(torch.nn.Module):
    """The kernel as extracted (reference.py)."""

    def __init__(self):
        super().__init__()
        self._reference = _load("reference")

    def forward(self, *inputs):
        return self._reference.kernel_function(*inputs)


def _contiguous_stride(size):
    stride, step = [], 1
    for extent in reversed(size):
        stride.insert(0, step)
        step *= max(extent, 1)
    return stride


def _tensor(argument, recorded):
    if argument["name"] in recorded:
        return recorded[argument["name"]].cuda()
    size, stride, offset = argument["size"], argument["stride"], argument["offset"]
    dtype = getattr(torch, argument["dtype"])
    if list(stride) == _contiguous_stride(size) and offset == 0:
        return torch.randn(*size, device="cuda").to(dtype)
    elements = offset + 1 + sum((extent - 1) * step for extent, step in zip(size, stride) if extent > 0)
    return torch.randn(elements, device="cuda").to(dtype).as_strided(size, stride, offset)


def get_inputs():
    recorded = {}
    if any(argument.get("recorded") for argument in ARGUMENTS):
        recorded = torch.load(os.path.join(HERE, "inputs.pt"))
    return [_tensor(argument, recorded) if argument["kind"] == "tensor" else argument["value"]
            for argument in ARGUMENTS]


def get_init_inputs():
    return []
'''


def problem_text(name, arguments, recorded, facts):
    """problem.py: Model (the kernel as extracted), get_inputs, get_init_inputs."""
    listed = []
    for i, argument in enumerate(arguments):
        entry = dict(argument, name="a%d" % i)
        if entry["name"] in recorded:
            entry["recorded"] = True
        listed.append(entry)
    head = '"""%s\n\nThe reference is reference.py; get_inputs() makes the launch\'s arguments."""\n' % wrap(
        "The problem of " + facts)
    return head + PROBLEM_CODE % format_arguments(listed)


def format_arguments(listed):
    """ARGUMENTS as a Python literal, one argument a line."""
    return "[\n" + "".join("    %r,\n" % (a,) for a in listed) + "]"


def wrap(text, width=99):
    """`text` in lines of at most `width` characters (a docstring's paragraph)."""
    lines, line = [], ""
    for word in text.split():
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = word if not line else line + " " + word
    return "\n".join(lines + [line]).replace('"""', "'''")
