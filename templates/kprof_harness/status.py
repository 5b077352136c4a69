"""The status: the JSON file the harness writes for kprof (docs/harness.md, "The status"), replaced
whole after every phase change, so that a crash or a kill leaves the last phase reached."""

import json
import os
import sys
import tempfile

from .report import clean_text, log

STATUS_VERSION = 1


def new_status(plan):
    first = plan["first_candidate"]
    return {
        "version": STATUS_VERSION,
        "phase": "start",
        "problem_ok": False,
        "problem_error": None,
        "inputs_on": plan["inputs"],
        "inputs_fallback": None,
        "candidates": [new_candidate_status(index, candidate)
                       for index, candidate in enumerate(plan["candidates"]) if index >= first],
        "setup_seconds": 0.0,
        "inputs_seconds": 0.0,
        "python_version": "%d.%d.%d" % sys.version_info[:3],
        "torch_version": None,
        "triton_version": None,
        "gpu_name": None,
        "cuda_devices": None,
        "machine_gpus": None,
    }


def new_candidate_status(index, candidate):
    return {
        "index": index,
        "range": candidate["range"],
        "kernel": clean_text(candidate["kernel"]),
        "phase": "not_started",
        "ok": False,
        "error": None,
        "cuda_context_poisoned": False,
        "import_seconds": 0.0,
        "warmup_seconds": 0.0,
        "call_seconds": 0.0,
        "call_style": None,
        "layer": None,
        "cast": None,
        "cast_reason": None,
        "call_lock": None,
        "call_lock_wait_seconds": 0.0,
        "compile_wait_seconds": 0.0,
        "compile_seconds": 0.0,
        "compiled_ahead": None,
        "check": None,
        "timing": None,
        "reference": None,
    }


def write_text_atomic(path, text, readable=False):
    """Writes `text` to `path` through a temp file beside it and a rename: a reader sees the old
    file or the new one, never a part. The file is this user's alone (mkstemp's 0600) unless
    `readable`: then it gets the mode open() would give it (0666 less the umask, read by setting
    it, so not for a process whose threads make files meanwhile: the extract mode has none)."""
    fd, temp = tempfile.mkstemp(prefix=".kprof-", suffix=".tmp", dir=os.path.dirname(path))
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        if readable:
            mask = os.umask(0)
            os.umask(mask)
            os.chmod(temp, 0o666 & ~mask)
        os.replace(temp, path)
    except BaseException:
        try:
            os.unlink(temp)
        except OSError:
            pass
        raise


def write_json_atomic(path, value):
    """Writes `value` as JSON to `path` as write_text_atomic does."""
    write_text_atomic(path, json.dumps(value, indent=1) + "\n")


class StatusFile:
    """The status JSON on disk, replaced whole (temp file + os.replace) on every write."""

    def __init__(self, path, status):
        self.path = os.path.abspath(path)
        self.status = status

    def write(self):
        write_json_atomic(self.path, self.status)

    def set_phase(self, phase):
        self.status["phase"] = phase
        self.write()
        log(phase)

    def set_candidate_phase(self, candidate, phase):
        candidate["phase"] = phase
        self.write()
        log("cand%d %s" % (candidate["index"], phase))
