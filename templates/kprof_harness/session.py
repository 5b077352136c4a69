"""One harness process from its plan to its exit code (run): the early primer started before torch's
import, torch and problem.py, the compile workers' target, the inputs, a standby's primers and
wait, then the candidates. The order is the point: each step that can overlap another is started
before it (docs/harness.md, "What the harness does")."""

import time

from .calls import run_candidates
from .compile_ahead import compiled_ahead
from .gpus import NoGpu
from .inputs import make_inputs
from .locks import let_go, take_gpu_lock
from .primer import EarlyPrimer, run_primer, run_triton_primer
from .problem import ProblemError, load_problem
from .report import EXIT_CUDA_POISONED, EXIT_PROBLEM_INVALID, clean_text, describe_exception, log
from .standby import wait_in_standby
from .truth import make_truth


def fail_problem(status_file, error):
    status_file.status["problem_ok"] = False
    status_file.status["problem_error"] = error
    status_file.write()
    log("problem invalid: %s" % error["type"])
    return EXIT_PROBLEM_INVALID


def fail_no_gpu(status_file, exc):
    """No GPU to profile on (NoGpu): the problem is not looked at. The status's cuda_devices (0)
    and machine_gpus make kprof's usage error; problem_error says it for any other reader."""
    status_file.status["problem_ok"] = False
    status_file.status["problem_error"] = describe_exception(exc)
    status_file.write()
    log("no GPU: %s" % clean_text(exc))
    return EXIT_PROBLEM_INVALID


def run(plan, status_file, started):
    """Runs the plan; returns the exit code. `started` is when the harness started (after the
    interpreter's start and the harness's own imports): setup_seconds counts from it."""
    status = status_file.status
    # A standby with defer_inputs waits before touching the GPU (kprof starts it beside a
    # session still profiling on the same GPU); the others have the inputs ready when it comes.
    defer = plan["standby"] is not None and plan["standby"]["defer_inputs"]
    primer = EarlyPrimer(plan) if plan["early_primer"] and not defer else None
    status_file.set_phase("import_problem")
    try:
        problem = load_problem(plan, status)
    except NoGpu as exc:
        return fail_no_gpu(status_file, exc)
    except (Exception, SystemExit) as exc:
        return fail_problem(status_file, describe_exception(exc))
    if primer is not None:
        primer_lock_wait = primer.join(status)
        status["gpu_lock_wait_seconds"] = status.get("gpu_lock_wait_seconds", 0.0) + primer_lock_wait
    # A session's compile workers get the Triton target now, and compile while the inputs are
    # made; a standby's learn of theirs from its message, with the candidates.
    ahead = compiled_ahead(plan, status) if plan["standby"] is None else None

    if defer:
        code = wait_in_standby(plan, status_file)
        if code is not None:
            return code

    # A standby's GPU work (inputs, primer) is done under its GPU's lock, taken here, after
    # Python's start and torch's import, and let go before it waits (plan standby.gpu_lock).
    gpu_lock_fd = None
    if plan["standby"] is not None and not defer:
        gpu_lock_fd = take_gpu_lock(plan["standby"]["gpu_lock"], status)
    try:
        status_file.set_phase("inputs")
        inputs_started = time.perf_counter()
        try:
            make_inputs(problem, status)
        except (Exception, SystemExit) as exc:
            return fail_problem(status_file, describe_exception(exc))
        status["inputs_seconds"] = time.perf_counter() - inputs_started
        # Setup is the work, not a standby's waits (for its GPU's lock, for its candidates).
        status["setup_seconds"] = (time.perf_counter() - started - status.get("standby_wait_seconds", 0.0)
                                   - status.get("gpu_lock_wait_seconds", 0.0))
        status["problem_ok"] = True
        try:  # truth.py: timing, check, speed of light
            problem.truth = make_truth(plan, problem)
        except ValueError as exc:
            return fail_problem(status_file, describe_exception(exc))
        if plan["standby"] is not None and not defer and plan["standby"]["primer"]:
            status_file.set_phase("primer")
            if status.get("primer") != "ran at start":
                run_primer(problem, plan, status)
            run_triton_primer(problem, status)
    finally:
        let_go(gpu_lock_fd)

    if plan["standby"] is not None and not defer:
        code = wait_in_standby(plan, status_file)
        if code is not None:
            return code

    status_file.set_phase("candidates")
    if plan["standby"] is not None:
        ahead = compiled_ahead(plan, status)
    try:
        code = run_candidates(problem, plan, status_file, ahead)
    except ProblemError as exc:
        return fail_problem(status_file, exc.error)
    if code != EXIT_CUDA_POISONED:
        status_file.set_phase("done")
    return code
