"""The harness's command line: `harness.py PLAN.json` runs the plan (session.run), `harness.py
PLAN.json --compile-worker` runs a compile worker (compile_worker.run_compile_worker),
`--timeline OUT.json` the timeline of the first candidate's call (timeline.run_timeline), and
`--truth GATE SECONDS` the truth's own process outside ncu (truth_process.run_truth), and
`--extract SPEC.json` the standalone cases of a model's Triton kernels (extract.run_extract). Every
module of the package is imported here, at the start: a standby's directory is moved while it
waits, so nothing may be imported from the package later."""

import sys
import time
import traceback

from .compile_worker import run_compile_worker
from .extract import run_extract
from .lifetime import become_subreaper, die_with_owner, die_with_parent, exit_now, report_crashes
from .plan import PlanError, read_plan, require
from .report import EXIT_INTERNAL, EXIT_PROBLEM_INVALID, clean_text, log
from .session import run
from .status import StatusFile, new_status
from .timeline import run_timeline
from .truth_process import run_truth

STARTED = time.perf_counter()  # the harness's start, its imports done: setup_seconds counts from here


def main(argv):
    die_with_parent()
    become_subreaper()
    die_with_owner()
    report_crashes()
    sys.dont_write_bytecode = True  # never leave __pycache__ in the user's kernel directories
    worker = argv[2:] == ["--compile-worker"]
    timeline_out = argv[3] if len(argv) == 4 and argv[2] == "--timeline" else None
    truth_gate = argv[3:5] if len(argv) == 5 and argv[2] == "--truth" else None
    extract_spec = argv[3] if len(argv) == 4 and argv[2] == "--extract" else None
    if len(argv) != 2 and not worker and timeline_out is None and truth_gate is None and extract_spec is None:
        log("usage: harness.py PLAN.json [--compile-worker | --timeline OUT.json | --truth GATE SECONDS"
            " | --extract SPEC.json]")
        return EXIT_PROBLEM_INVALID
    try:
        plan = read_plan(argv[1])
        if timeline_out is not None:
            return run_timeline(plan, timeline_out, STARTED)
        if extract_spec is not None:
            return run_extract(plan, extract_spec, STARTED)
        if worker:
            require(plan["compile_ahead"] is not None, "compile_ahead", "set for a compile worker")
            return run_compile_worker(plan)
        status_file = StatusFile(plan["status_file"], new_status(plan))
        status_file.write()
        if truth_gate is not None:
            return run_truth(plan, status_file, truth_gate[0], float(truth_gate[1]))
    except (PlanError, OSError, ValueError) as exc:
        log(clean_text(exc))
        return EXIT_PROBLEM_INVALID
    log("start")
    return run(plan, status_file, STARTED)


def entry(argv):
    """Runs main and ends the process with its exit code (lifetime.exit_now); a bug in the
    harness is exit 70 with its traceback on stderr. Never returns."""
    try:
        code = main(argv)
    except Exception:
        log("internal error:\n" + traceback.format_exc())
        code = EXIT_INTERNAL
    exit_now(code)
