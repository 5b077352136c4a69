"""The truth's own process (`harness.py PLAN.json --truth GATE`): the candidates timed, checked
and set against the reference in a plain process, never under ncu.

Why a process of its own: ncu's injection stays in the process it profiles, outside the profiled
range too, and every launch there pays for it. Measured on an H100 (2026-12-06,
docs/device-runs/2026-12-06-truth.md): a median timed in ncu's process outside its range was
15% (vadd, one launch of 257 us) to 13 times (twostage, two short launches) above
triton.testing.do_bench's, while the same timing in a plain process was within 2%.

kprof starts this process beside the ncu session (or a standby's candidate) with the same plan.
Python's start, torch's import, problem.py's load, FlopCounterMode's first use (about 5 s, on
the CPU) and the CUDA context (an allocation, no kernel) happen at once; then it waits, running
nothing on the GPU, until kprof writes GATE after the session ended: the GPU is then this
process's alone (kprof holds the GPU's lock throughout). GATE is JSON, `{"candidates":
[{"index", "kernel", "range", "reference_itself"}, ...], "sequence": N, "status": PATH, "serve":
BOOL}`: the candidates the session profiled, so that a truth
process started before the candidates were known (kprof keeps one ready for the next round, a
truth standby) can measure them; none named measures nothing, and no GATE within
max_wait_seconds ends the process. A long-lived profiler keeps its truth process as a worker
across rounds (the gate's "serve"; run_truth): the reference is timed and counted once per
problem and GPU, and the next candidate finds everything ready.

Each candidate named is imported, called once (its Triton kernels come from the cache the
session filled) and measured by truth.Truth.measure: the check of that call's outputs against
the reference's, its timing, the reference's summary. The results go to the gate's status file (else
the plan's) in the harness's status format ("check", "timing", "reference" per candidate), which kprof
merges into the session's. A candidate that fails here, though it ran under ncu, is not failed:
its check and timing say why they are missing. A poisoned CUDA context ends the measuring; the
rest say so.
"""

import json
import os
import time

from . import speed_of_light
from .calls import choose_call, context_poisoned
from .inputs import choose_cast, make_inputs
from .modules import candidate_imports, load_module
from .problem import load_problem
from .report import EXIT_OK, EXIT_PROBLEM_INVALID, describe_exception, exception_words, log
from .status import StatusFile, new_candidate_status
from .truth import make_truth

POLL_SECONDS = 0.005


def wait_for_gate(path, max_wait_seconds, last=0):
    """The gate at `path` once one newer than sequence `last` is there, {"candidates": [{"index",
    "kernel", "range", "reference_itself"}, ...], "sequence", "status", "serve"}, or None when
    none came within max_wait_seconds. kprof replaces the gate whole (a rename), so a new file is a new gate; one
    without "sequence" is the first."""
    deadline = time.perf_counter() + max_wait_seconds
    seen = None
    while True:
        try:
            info = os.stat(path)
            signature = (info.st_ino, info.st_mtime_ns, info.st_size)
        except FileNotFoundError:
            signature = None
        if signature is not None and signature != seen:
            seen = signature
            with open(path, "r", encoding="utf-8") as f:
                gate = json.load(f)
            sequence = int(gate.get("sequence", 1))
            if sequence > last:
                status = gate.get("status")
                return {
                    "candidates": [{"index": int(c["index"]), "kernel": str(c["kernel"]),
                                    "range": str(c["range"]),
                                    "reference_itself": c.get("reference_itself") is True}
                                   for c in gate["candidates"]],
                    "sequence": sequence,
                    "status": str(status) if status is not None else None,
                    "serve": gate.get("serve") is True,
                }
        if time.perf_counter() >= deadline:
            return None
        time.sleep(POLL_SECONDS)


def prepare(problem, plan):
    """What needs no GPU work, done before the gate: FlopCounterMode's first use when the
    reference is counted and no earlier process kept its counts (flop_cache.py), and the CUDA
    context (an allocation; its creation took 2.8 s with the inputs on the H100 host). Never
    raises: the measuring after the gate says what fails."""
    torch = problem.torch
    if problem.truth.settings["reference"] and not problem.truth.stored_counts():
        speed_of_light.prepare(torch)
    try:
        torch.empty(1, device="cuda")
    except Exception:
        pass


def missing(entry, why):
    """A candidate this process could not measure: its check and timing say why."""
    entry["check"] = {"verdict": "unchecked", "reason": why}
    entry["timing"] = {"error": why}


def run_truth(plan, status_file, gate_path, max_wait_seconds):
    """The truth mode; returns the exit code (0 once the status is written, whatever was
    measured; 2 when the problem could not be loaded: kprof then keeps the session's answer
    without the truth).

    A gate with "serve" keeps the process for the next gate (a long-lived profiler's truth
    worker, one per problem and GPU): the problem, its reference (timed and counted once) and
    the CUDA context stay; each gate gets the inputs made again (the same seed, so the same
    values: a candidate that wrote into its inputs leaves nothing behind), its own status file
    (the gate's "status", in the round's directory) and ends with "serving" saying whether this
    process waits for another. It stops serving after a candidate poisoned its CUDA context, and
    when no gate came within max_wait_seconds."""
    status = status_file.status
    status["pid"] = os.getpid()
    status_file.set_phase("import_problem")
    try:
        problem = load_problem(plan, status)
        problem.truth = make_truth(plan, problem)
    except (Exception, SystemExit) as exc:  # NoGpu, a bad "truth", problem.py raising
        status["problem_error"] = describe_exception(exc)
        status_file.write()
        return EXIT_PROBLEM_INVALID
    started = time.perf_counter()
    prepare(problem, plan)
    status["prepare_seconds"] = time.perf_counter() - started
    last = 0
    served = 0
    while True:
        status_file.set_phase("standby")
        started = time.perf_counter()
        try:
            gate = wait_for_gate(gate_path, max_wait_seconds, last)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            log("truth: unreadable gate: %s" % exception_words(exc))
            gate = None
        status["standby_wait_seconds"] = time.perf_counter() - started
        if gate is None:
            log("truth: no gate")
            status_file.set_phase("done")
            return EXIT_OK
        last = gate["sequence"]
        served += 1
        round_file = status_file
        if gate["status"] is not None and os.path.abspath(gate["status"]) != status_file.path:
            round_file = StatusFile(gate["status"], dict(status))
        round_file.status.update({"sequence": last, "rounds_served": served, "serving": False, "candidates": []})
        code, poisoned = measure_round(problem, plan, round_file, gate["candidates"])
        round_file.status["serving"] = gate["serve"] and code == EXIT_OK and poisoned is None
        round_file.set_phase("done")
        if not round_file.status["serving"]:
            return code


def measure_round(problem, plan, status_file, wanted):
    """The candidates of one gate, into `status_file`: (exit code, why the CUDA context is
    poisoned or None)."""
    status = status_file.status
    if not wanted:
        log("truth: nothing to measure")
        return EXIT_OK, None
    started = time.perf_counter()
    status_file.set_phase("inputs")
    try:
        make_inputs(problem, status)
    except (Exception, SystemExit) as exc:
        status["problem_error"] = describe_exception(exc)
        return EXIT_PROBLEM_INVALID, None
    status["inputs_seconds"] = time.perf_counter() - started
    status["problem_ok"] = True
    status_file.set_phase("candidates")
    status["candidates"] = [new_candidate_status(c["index"], c) for c in wanted]
    poisoned = None
    for entry, candidate in zip(status["candidates"], wanted):
        if poisoned is not None:
            missing(entry, "not measured: %s" % poisoned)
            continue
        with candidate_imports(candidate["kernel"]):
            try:
                measure_candidate(problem, plan, entry, candidate, status_file)
            except (Exception, SystemExit) as exc:  # the session's answer stands; the truth is missing
                missing(entry, "it raised when called again outside ncu: %s" % exception_words(exc))
                if context_poisoned(problem.torch, exc):
                    poisoned = "cand%d left the CUDA context poisoned outside ncu" % entry["index"]
        entry["ok"] = True
        status_file.set_candidate_phase(entry, "done")
    status["measure_seconds"] = time.perf_counter() - started
    return EXIT_OK, poisoned


def measure_candidate(problem, plan, entry, candidate, status_file):
    """One candidate of the gate: imported, called once with the inputs of its cast, then
    measured; kprof model's candidate that is the problem's Model itself (the gate's
    "reference_itself", which kprof decides from the file's text: profiler.cpp,
    is_model_reference_candidate) is the reference, made and timed once
    (measure_as_reference)."""
    torch = problem.torch
    status_file.set_candidate_phase(entry, "import_kernel")
    started = time.perf_counter()
    module = load_module("_kprof_truth_%d" % entry["index"], candidate["kernel"])
    entry["import_seconds"] = time.perf_counter() - started
    kernel_function = getattr(module, "kernel_function", None)
    if not callable(kernel_function):
        raise AttributeError("kernel.py defines no kernel_function")
    entry["cast"], entry["cast_reason"] = choose_cast(kernel_function, plan["cast"])
    if candidate.get("reference_itself") is True:
        measure_as_reference(problem, entry)
        return
    _, _, args, kwargs = choose_call(kernel_function, problem, entry["cast"])
    problem.truth.reference(entry["cast"])  # before any call of this cast, as in the session
    status_file.set_candidate_phase(entry, "warmup")
    started = time.perf_counter()
    result = kernel_function(*args, **kwargs)
    torch.cuda.synchronize()
    entry["warmup_seconds"] = time.perf_counter() - started
    problem.truth.measure(entry, status_file, lambda: kernel_function(*args, **kwargs), result)


def measure_as_reference(problem, entry):
    """The candidate that is the reference itself: the reference made, counted and timed once,
    its timing the candidate's; the reference's own timing null and "same_as_candidate" true (no
    speed-up of a Model over itself). Never called: a check of a Model against itself is
    unchecked."""
    reference = problem.truth.reference(entry["cast"])
    summary = reference["summary"]
    entry["reference"] = dict(summary, timing=None, same_as_candidate=True)
    if problem.truth.settings["check"]:
        entry["check"] = {"verdict": "unchecked", "reason": "the candidate is the problem's Model itself"}
    if problem.truth.settings["timing"]:
        entry["timing"] = summary["timing"] or {"error": summary["error"] or "the reference was not timed"}
