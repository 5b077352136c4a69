"""Compiling ahead, the harness's side and the files it shares with its compile workers
(compile_worker; docs/harness.md, "Compiling ahead"). With "compile_ahead": {"dir": D} in the plan
and more than one candidate, the harness claims its first candidate (it runs it at once),
publishes its Triton target in D for the workers, and before each candidate's warm-up waits for
the worker that claimed it (at most compile_ahead.max_wait_seconds, and not once that worker is
gone), or claims it itself when none did. Nothing here decides an answer."""

import json
import os
import tempfile
import time

from .lifetime import owner_alive
from .report import clean_text, describe_exception, log
from .status import write_json_atomic

# Files in D, each written once, atomically.
COMPILE_TARGET_FILE = "target.json"  # the harness's Triton target, or why there is none
COMPILE_CLAIM = "%d.claim"  # who compiles candidate i: the pid of a worker or of the harness
COMPILE_DONE = "%d.done"  # a worker's outcome for candidate i: {"outcome", "seconds"}
# The outcome of the candidate the harness claims when it publishes its target: it runs it next.
FIRST_RUN_AT_ONCE = "not compiled ahead: the harness's first candidate, run at once"


def read_json(path):
    """The JSON at `path`, or None when it is not there (yet) or not JSON."""
    try:
        with open(path, "r", encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def claim_candidate(directory, index):
    """True when this process now compiles candidate `index` (its claim file made, naming this
    pid), False when another process claimed it first. The claim appears whole (a hard link of
    a written file), so a reader never sees it without its pid."""
    fd, temp = tempfile.mkstemp(prefix=".kprof-claim-", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(str(os.getpid()))
        os.link(temp, os.path.join(directory, COMPILE_CLAIM % index))
        return True
    except FileExistsError:
        return False
    finally:
        os.unlink(temp)


class CompiledAhead:
    """The harness's side of compiling ahead: it claims its first candidate (it is about to run
    it), publishes its Triton target for the workers (COMPILE_TARGET_FILE) and, before each
    candidate's warm-up, waits for the worker that compiles it, if one does."""

    def __init__(self, directory, first, target, max_wait):
        self.directory = directory
        self.max_wait = max_wait
        self.own = {first} if claim_candidate(directory, first) else set()
        write_json_atomic(os.path.join(directory, COMPILE_TARGET_FILE), target)

    def wait(self, entry):
        """Returns (outcome, the worker's compile seconds) for the candidate of `entry`, once
        its worker is done, ended, or after max_wait seconds (the plan's
        compile_ahead.max_wait_seconds: kprof makes it a quarter of a candidate's timeout, so
        that a worker that hangs costs the candidate that much, never its timeout); claims the
        candidate for the harness when no worker did. Never raises: compiling ahead decides no
        answer."""
        try:
            return self.wait_for_worker(entry["index"])
        except OSError as exc:
            return "not compiled ahead: %s" % clean_text(exc.strerror or type(exc).__name__), 0.0

    def wait_for_worker(self, index):
        if index in self.own:
            return FIRST_RUN_AT_ONCE, 0.0
        if claim_candidate(self.directory, index):
            return "not compiled ahead: no worker had started it", 0.0
        done_path = os.path.join(self.directory, COMPILE_DONE % index)
        owner = self.claimer(index)
        deadline = time.monotonic() + self.max_wait
        while True:
            done = read_json(done_path)
            if isinstance(done, dict) and isinstance(done.get("outcome"), str):
                seconds = done.get("seconds")
                return done["outcome"], seconds if isinstance(seconds, (int, float)) else 0.0
            if owner is None or not owner_alive(owner):
                if read_json(done_path) is None:  # it may have written it just before it ended
                    return "not compiled ahead: its worker ended while compiling it", 0.0
                continue
            if time.monotonic() > deadline:
                return "not compiled ahead: still compiling after %g s" % self.max_wait, 0.0
            time.sleep(0.002)

    def claimer(self, index):
        try:
            with open(os.path.join(self.directory, COMPILE_CLAIM % index), "r", encoding="utf-8") as f:
                return int(f.read().strip())
        except (OSError, ValueError):
            return None


def compiled_ahead(plan, status):
    """The harness's CompiledAhead when the plan asks for it and there is more than one candidate
    (else None). Without Triton the workers are told why, and stop. The status's
    compile_target_seconds is how long finding and publishing the target took (Triton makes its
    driver for it, which the first warm-up pays otherwise)."""
    settings = plan["compile_ahead"]
    first = plan["first_candidate"]
    if settings is None or len(plan["candidates"]) - first < 2:
        return None
    started = time.perf_counter()
    try:
        return publish_target(settings, first)
    finally:
        status["compile_target_seconds"] = time.perf_counter() - started


def publish_target(settings, first):
    """compiled_ahead's work: the Triton target found and written for the workers."""
    try:
        from triton.runtime import driver  # only with Triton

        active = driver.active.get_current_target()
        target = {"backend": active.backend, "arch": active.arch, "warp_size": active.warp_size}
    except Exception as exc:
        target = {"none": "no Triton target: %s" % clean_text(describe_exception(exc)["type"])}
    try:
        ahead = CompiledAhead(settings["dir"], first, target, settings["max_wait_seconds"])
    except OSError as exc:  # compiling ahead only saves time; the workers stop with the session
        log("no compile ahead: %s" % clean_text(exc))
        return None
    return ahead if "none" not in target else None
