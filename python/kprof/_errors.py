"""kprof's exceptions: one class per kprof::ErrorCategory (include/kprof/error.hpp).

The native layer raises these through error_from_native(), the single place where a C++ error
category becomes a Python class. Decisions (retry, report, give up) should switch on the class
or on ``.category``, never on the message text.
"""

from __future__ import annotations

from typing import Any, Dict, Optional, Tuple, Type


class KprofError(Exception):
    """An expected kprof failure: ``.category`` (a kprof::ErrorCategory name such as
    ``"ncu_not_found"``), a one-line ``.message`` with its context, and an optional multi-line
    ``.detail`` (a Python traceback, the tail of ncu's log)."""

    category: str = "internal"
    #: For a failed profiling candidate: the partial results (rows kept, run failed after),
    #: the kernel file, the round and the batch candidate index. None otherwise.
    results: Optional[Any] = None
    kernel_file: Optional[str] = None
    round_num: Optional[int] = None
    candidate: Optional[int] = None

    def __init__(self, message: str, detail: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.detail = detail

    def __str__(self) -> str:
        return self.message

    def __reduce__(self) -> Tuple[Any, ...]:
        return (type(self), (self.message, self.detail))

    @property
    def exit_code(self) -> int:
        """The exit code the kprof CLI uses for this category."""
        from . import _kprof

        return int(_kprof.exit_code(self.category))

    def to_dict(self) -> Dict[str, str]:
        """{"category", "message", "detail"}, as kprof writes errors in its JSON files."""
        return {"category": self.category, "message": self.message, "detail": self.detail}


class UsageError(KprofError, ValueError):
    """A bad argument or option value (an unknown select/format/clock-control word, ...)."""

    category = "usage"


class InputNotFound(KprofError, FileNotFoundError):
    """A named input file is missing or unreadable."""

    category = "input_not_found"


class MalformedOutput(KprofError):
    """The input is not ncu output (truncated, binary, another CSV) or not a kprof report."""

    category = "malformed_input"


class NoKernelsProfiled(KprofError):
    """The input or the run holds no profiled kernel."""

    category = "no_kernels"


class NcuNotFound(KprofError):
    """No ncu executable could be located."""

    category = "ncu_not_found"


class PermissionDenied(KprofError):
    """ncu may not read the GPU performance counters (ERR_NVGPUCTRPERM)."""

    category = "permission_denied"


class KernelImportError(KprofError):
    """kernel.py could not be imported, or lacks kernel_function."""

    category = "kernel_import"


class ProblemInvalid(KprofError):
    """problem.py could not be imported, or lacks get_inputs/Model."""

    category = "problem_invalid"


class KernelRuntimeError(KprofError):
    """kernel_function raised during the warm-up or the profiled call."""

    category = "kernel_raised"


class UnknownMetric(KprofError):
    """A requested metric does not exist on the device."""

    category = "unknown_metric"


class Timeout(KprofError, TimeoutError):
    """The profiled program outlived its time limit."""

    category = "timeout"


class NcuFailed(KprofError):
    """ncu failed in a way not covered by another class."""

    category = "ncu_failed"


class OutputError(KprofError):
    """kprof could not write or create an output."""

    category = "io"


class DatabaseError(KprofError):
    """The history database is busy, corrupt or from a newer kprof."""

    category = "database"


class GpuBusy(KprofError):
    """The per-GPU lock could not be taken within the wait limit."""

    category = "gpu_busy"


class SlurmError(KprofError):
    """Slurm refused the job (profile_batch(slurm=...)), or a task ended without results."""

    category = "slurm"


class ProgramCrashed(KprofError):
    """The profiled program crashed (a signal such as SIGSEGV) or exited (os._exit) before
    kprof's harness finished; the message names the phase."""

    category = "program_crashed"


class OutOfMemory(KprofError, MemoryError):
    """An allocation failed: the input needs more memory than the host or the process's limit
    allows."""

    category = "out_of_memory"


class WrongOutput(KprofError):
    """The candidate's outputs differ from the reference's (Model(*get_init_inputs())); it was
    profiled, and its result is partial."""

    category = "wrong_output"


class InternalError(KprofError):
    """A bug in kprof."""

    category = "internal"


ERROR_CLASSES: Dict[str, Type[KprofError]] = {
    cls.category: cls
    for cls in (
        UsageError,
        InputNotFound,
        MalformedOutput,
        NoKernelsProfiled,
        NcuNotFound,
        PermissionDenied,
        KernelImportError,
        ProblemInvalid,
        KernelRuntimeError,
        UnknownMetric,
        Timeout,
        NcuFailed,
        OutputError,
        DatabaseError,
        GpuBusy,
        SlurmError,
        ProgramCrashed,
        OutOfMemory,
        WrongOutput,
        InternalError,
    )
}


def error_from_native(category: str, message: str, detail: str = "") -> KprofError:
    """The exception object for a C++ kprof::Error (an unknown category gives InternalError)."""
    return ERROR_CLASSES.get(category, InternalError)(message, detail)


def error_from_dict(error: Optional[Dict[str, Any]]) -> Optional[KprofError]:
    """The exception object for an error as kprof writes it in JSON ({category, message, detail})."""
    if error is None:
        return None
    return error_from_native(
        str(error.get("category", "internal")),
        str(error.get("message", "")),
        str(error.get("detail", "")),
    )
