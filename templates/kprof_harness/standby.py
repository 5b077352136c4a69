"""A standby's wait: a harness that prepared everything (plan "standby": torch, problem, inputs,
primers) and then waits on its FIFO for one JSON line {"candidates": [...], "first_candidate": K,
"compile_ahead": ...}; the waiting costs nothing under ncu, which profiles only the NVTX ranges.
No line within idle_seconds: exit 4 (docs/standby.md)."""

import json
import os
import time

from .plan import PlanError, check_candidates, check_compile_ahead, require
from .report import EXIT_PROBLEM_INVALID, EXIT_STANDBY_IDLE, clean_text, log
from .status import new_candidate_status


def wait_for_candidates(plan, status_file):
    """Standby: blocks on the FIFO until kprof writes the candidates (one JSON line), then puts
    them into the plan and the status. False after idle_seconds without a line."""
    standby = plan["standby"]
    status_file.set_phase("standby")
    # O_RDWR: the FIFO never reads as closed while this process holds it, and kprof's
    # non-blocking open for writing succeeds only once this reader is there.
    fd = os.open(standby["fifo"], os.O_RDWR | os.O_NONBLOCK)
    try:
        import select

        deadline = time.monotonic() + standby["idle_seconds"]
        data = b""
        while b"\n" not in data:
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            ready, _, _ = select.select([fd], [], [], min(left, 1.0))
            if ready:
                try:
                    data += os.read(fd, 65536)
                except BlockingIOError:
                    pass
    finally:
        os.close(fd)
    try:
        message = json.loads(data.split(b"\n", 1)[0].decode("utf-8"))
    except ValueError as exc:
        raise PlanError("standby: the candidates are not JSON: %s" % exc)
    if not isinstance(message, dict):
        raise PlanError("standby: the candidates must be a JSON object")
    plan["candidates"] = message.get("candidates")
    plan["first_candidate"] = message.get("first_candidate", 0)
    plan["compile_ahead"] = message.get("compile_ahead")
    check_candidates(plan)
    check_compile_ahead(plan)
    first = plan["first_candidate"]
    ok = isinstance(first, int) and not isinstance(first, bool) and first >= 0
    require(ok, "first_candidate", "a non-negative integer")
    status_file.status["candidates"] = [
        new_candidate_status(index, candidate)
        for index, candidate in enumerate(plan["candidates"]) if index >= first]
    status_file.status["standby_wait_seconds"] = standby["idle_seconds"] - max(0.0, deadline - time.monotonic())
    return True


def wait_in_standby(plan, status_file):
    """Waits for the candidates; None once they came, else the exit code."""
    try:
        if not wait_for_candidates(plan, status_file):
            status_file.set_phase("idle")
            return EXIT_STANDBY_IDLE
    except (PlanError, OSError) as exc:
        log(clean_text(exc))
        return EXIT_PROBLEM_INVALID
    return None
