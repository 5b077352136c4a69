"""kprof: Nsight Compute profiles of Triton kernels, as facts an optimizer can act on.

The names mirror KernelAgent's profiler (``KernelProfiler.profile_kernel``, ``ProfilerResults``,
``load_ncu_metrics``, ``metrics_to_prompt``) so that switching is a one-line import change. All
the work is done by the C++ library (libkprof) through the ``_kprof`` extension; this file only
adapts KernelAgent's names and Python types (paths, enums, None on failure). See docs/python.md.
"""

from __future__ import annotations

import contextlib
import dataclasses
import enum
import json
import logging
import math
import os
import sys
from typing import Any, Dict, Iterator, List, Mapping, Optional, Sequence, Union

from . import _kprof
from ._errors import (
    DatabaseError,
    GpuBusy,
    SlurmError,
    InputNotFound,
    InternalError,
    KernelImportError,
    KernelRuntimeError,
    KprofError,
    MalformedOutput,
    NcuFailed,
    NcuNotFound,
    NoKernelsProfiled,
    OutOfMemory,
    OutputError,
    PermissionDenied,
    ProblemInvalid,
    ProgramCrashed,
    Timeout,
    UnknownMetric,
    UsageError,
    WrongOutput,
    error_from_dict,
)

__version__: str = _kprof.version()

__all__ = [
    "__version__",
    "KernelProfiler",
    "ProfilerResults",
    "ProfilerMetadata",
    "KernelMetrics",
    "MetricRows",
    "History",
    "Diff",
    "Convergence",
    "profile_batch",
    "profile_model",
    "load_ncu_metrics",
    "metrics_to_prompt",
    "report",
    "render",
    "diff",
    "KprofError",
    "UsageError",
    "InputNotFound",
    "MalformedOutput",
    "NoKernelsProfiled",
    "NcuNotFound",
    "PermissionDenied",
    "KernelImportError",
    "ProblemInvalid",
    "KernelRuntimeError",
    "UnknownMetric",
    "Timeout",
    "NcuFailed",
    "OutputError",
    "DatabaseError",
    "GpuBusy",
    "SlurmError",
    "ProgramCrashed",
    "OutOfMemory",
    "WrongOutput",
    "InternalError",
]

PathLike = Union[str, "os.PathLike[str]"]
Report = Dict[str, Any]

_KERNEL_NAME = "Kernel Name"
_LOGGER = logging.getLogger("kprof")
# KernelAgent's profiler waits this long for its profiling semaphore, then skips the round.
_SEMAPHORE_TIMEOUT_SECONDS = 900


# ---- small helpers -----------------------------------------------------------------------------


def _path(value: Any, what: str = "path") -> str:
    """A str path from str or os.PathLike (bytes paths are decoded as the OS does), checked by
    the library as every path it is given (a NUL byte is a UsageError naming ``what``)."""
    try:
        path = os.fsdecode(os.fspath(value))
    except TypeError:
        raise TypeError(f"{what} must be a str or os.PathLike, not {type(value).__name__}") from None
    _kprof.check_path(os.fsencode(path), what)
    return path


def _native_path(value: Any, what: str = "path") -> bytes:
    """A path as the OS bytes, for the native layer: names that are not UTF-8 cross unchanged."""
    return os.fsencode(_path(value, what))


def _word(value: Any, what: str) -> str:
    """An enum-like word: a str, or an Enum whose value is one (KernelAgent's
    MetricSelectionPolicy). The C++ parsers validate it and list the valid words."""
    word = value.value if isinstance(value, enum.Enum) else value
    if not isinstance(word, str):
        raise TypeError(f"{what} must be a str, not {type(value).__name__}")
    return word


def _int(value: Any, what: str) -> int:
    """An int argument (bool is not one)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{what} must be an int, not {type(value).__name__}")
    return value


def _names(value: Any, what: str) -> List[str]:
    """A list of names: None is none, a str is one name (never its characters)."""
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, (bytes, Mapping)) or not hasattr(value, "__iter__"):
        raise TypeError(f"{what} must be a str or a list of str, not {type(value).__name__}")
    names = list(value)
    for name in names:
        if not isinstance(name, str):
            raise TypeError(f"{what} must hold str names, not {type(name).__name__}")
    return names


def _is_report(value: Any) -> bool:
    return isinstance(value, Mapping) and all(key in value for key in ("schema_version", "metadata", "kernels"))


def _report_of(value: Any, what: str) -> Report:
    """The report document of a ProfilerResults or a report dict (the parameter ``what``)."""
    if isinstance(value, ProfilerResults):
        return value.report
    if _is_report(value):
        return dict(value)
    raise TypeError(f"{what} must be a kprof report dict or ProfilerResults, not {type(value).__name__}")


def _dumps(doc: Any, what: str = "the document") -> str:
    """JSON text for the native layer (ASCII, so any str crosses; NaN is refused)."""
    try:
        return json.dumps(doc, allow_nan=False)
    except ValueError as error:
        raise MalformedOutput(f"{what} cannot be written as JSON: {error}") from None


def _round_ref(ref: Any, what: str) -> str:
    """3 -> "3", "3:1" -> "3:1", (3, 1) -> "3:1" (the parameter ``what``); parse_round_ref
    validates the text."""
    if isinstance(ref, tuple) and len(ref) == 2:
        return f"{_int(ref[0], f'{what}[0]')}:{_int(ref[1], f'{what}[1]')}"
    if isinstance(ref, bool) or not isinstance(ref, (int, str)):
        raise TypeError(f"{what} must be a round: an int, 'N', 'N:C' or (N, C), not {type(ref).__name__}")
    return str(ref)


@dataclasses.dataclass
class ProfilerMetadata:
    """KernelAgent's ProfilerMetadata: what roundNNN_ncu_metrics.json's "metadata" holds.
    ``dataclasses.asdict()`` works on it; the fields also read as keys (``metadata["round_num"]``,
    ``.get()``, ``dict(metadata)``). kprof's own run facts are in ``ProfilerResults.report``."""

    kernel_file: Optional[str]
    problem_file: Optional[str]
    round_num: Optional[int]
    timestamp: Optional[str]
    ncu_version: Optional[str]

    def keys(self) -> List[str]:
        return [field.name for field in dataclasses.fields(self)]

    def __getitem__(self, key: str) -> Any:
        if key not in self.keys():
            raise KeyError(key)
        return getattr(self, key)

    def get(self, key: str, default: Any = None) -> Any:
        return getattr(self, key) if key in self.keys() else default


class KernelMetrics(Dict[str, Any]):
    """ProfilerResults.metrics: {kernel name: {metric: value}} in KernelAgent's layout, a dict
    that also carries the report it came from (``.report``), so that a component handed only the
    metrics (KernelAgent's bottleneck analyzer) can still read kprof's facts, such as hot lines."""

    def __init__(self, metrics: Mapping[str, Any], report: Optional[Report] = None) -> None:
        super().__init__(metrics)
        self.report = report


# ---- reading ncu output ------------------------------------------------------------------------


class MetricRows(List[Dict[str, Any]]):
    """The rows load_ncu_metrics() returns: a list of {"Kernel Name": ..., metric: value}."""

    @property
    def empty(self) -> bool:
        """True when no launch was kept (pandas' DataFrame.empty)."""
        return len(self) == 0

    @property
    def columns(self) -> List[str]:
        """"Kernel Name" and the metric names, in order (pandas' DataFrame.columns)."""
        names: List[str] = []
        for row in self:
            for key in row:
                if key not in names:
                    names.append(key)
        return names

    def to_pandas(self) -> Any:
        """The rows as a pandas DataFrame. ImportError when pandas is not installed."""
        try:
            import pandas
        except ImportError as error:
            raise ImportError(
                "MetricRows.to_pandas() needs pandas, which is not installed "
                "(pip install pandas); the rows themselves are plain dicts"
            ) from error
        return pandas.DataFrame(list(self), columns=self.columns)


def load_ncu_metrics(
    csv_path: PathLike,
    columns: Union[None, str, Sequence[str]] = None,
    name_list: Optional[Sequence[str]] = None,
    select: Any = "last",
) -> MetricRows:
    """Reads ncu ``--csv`` output (raw or details page, or an .ncu-rep through ``ncu --import``)
    into one row per kept launch: {"Kernel Name": name, metric: number | str | None}.

    columns: the metrics to keep, in order: a list of names, a metric-set name ("default",
    "lean", "deep") or a comma-separated list; None means the "default" set (KernelAgent's
    metrics). Names the file lacks are left out (none there, e.g. metric names on a details
    page: the rows keep only their "Kernel Name", as KernelAgent's do). name_list: keep kernels
    whose name contains one of these substrings. select: which launches of each kernel name to
    keep (first, last, max-cycles, longest, all); unlike KernelAgent, the policy applies per
    kernel name, so a file with two kernels gives two rows.

    Raises InputNotFound, MalformedOutput (not ncu output), NoKernelsProfiled (ncu profiled
    nothing), UsageError (a bad select word).
    """
    # A str is a set name or a comma-separated list, as for ``kprof report --metrics``.
    column_text = "default" if columns is None else columns if isinstance(columns, str) else ",".join(_names(columns, "columns"))
    names = _names(name_list, "name_list")
    text = _kprof.load_metrics(_native_path(csv_path, "csv_path"), column_text, names, _word(select, "select"))
    return MetricRows(json.loads(text))


def _plain_rows(value: Any) -> List[Dict[str, Any]]:
    """Python row containers as plain JSON-ready dicts: a pandas DataFrame's records or any
    iterable of mappings; NaN and infinities (pandas' missing values) become None."""
    if hasattr(value, "to_dict") and hasattr(value, "columns"):  # a pandas DataFrame
        value = value.to_dict(orient="records")
    if isinstance(value, (str, bytes, Mapping)) or not hasattr(value, "__iter__"):
        raise TypeError(
            "rows_or_report must be rows (a list of dicts, a DataFrame), a kprof report dict or "
            f"ProfilerResults, not {type(value).__name__}")
    rows = []
    for row in value:
        if not isinstance(row, Mapping):
            raise TypeError(f"rows_or_report must hold mappings, not {type(row).__name__}")
        rows.append({str(key): None if isinstance(cell, float) and not math.isfinite(cell) else cell for key, cell in row.items()})
    return rows


def metrics_to_prompt(
    rows_or_report: Any,
    title: str = "GPU Profiling Metrics:",
    round_digits: Optional[int] = 3,
    compact: bool = False,
    keep_cols: Optional[Sequence[str]] = None,
    key_by: str = _KERNEL_NAME,
) -> str:
    """KernelAgent's metrics JSON text: {kernel name: {metric: value}}, a list of such objects
    for a name with several rows, floats rounded to ``round_digits`` (None: unrounded), NaN and
    infinities as null, indented by 2 unless ``compact``. ``title`` is accepted for
    compatibility and not printed. Takes load_ncu_metrics() rows, a DataFrame, a report dict or
    ProfilerResults (their metric-set metrics, so metrics_to_prompt(report) is the report's
    "metrics" block as text)."""
    del title  # KernelAgent documents it as "not included in output"
    is_report = isinstance(rows_or_report, ProfilerResults) or _is_report(rows_or_report)
    data = _report_of(rows_or_report, "rows_or_report") if is_report else _plain_rows(rows_or_report)
    keep = None if keep_cols is None else _names(keep_cols, "keep_cols")
    digits = None if round_digits is None else _int(round_digits, "round_digits")
    return str(_kprof.metrics_text(_dumps(data), is_report, digits, bool(compact), keep, str(key_by)))


def report(
    csv_path: PathLike,
    select: Any = None,
    metrics: Optional[str] = None,
    kernels: Optional[Sequence[str]] = None,
) -> Report:
    """The report document of an ncu output, exactly as ``kprof report FILE --select S --metrics
    M [--kernel K]...`` builds it (schema in docs/json-schema.md); ``csv_path`` may also be a
    report.json kprof wrote (or its round directory), analysed again from what it was built
    from. ``select`` and ``metrics`` left None are kprof's defaults ("all", "default"), or a
    report.json's own. Raises like load_ncu_metrics(); NoKernelsProfiled when the filters leave
    nothing."""
    filters = _names(kernels, "kernels")
    text = _kprof.build_report(
        _native_path(csv_path, "csv_path"),
        None if select is None else _word(select, "select"),
        None if metrics is None else _word(metrics, "metrics"),
        filters,
    )
    result: Report = json.loads(text)
    return result


def render(
    report_or_results: Any,
    format: str = "prompt",
    round_digits: int = 3,
    compact: bool = False,
    max_rules: int = 5,
) -> str:
    """Renders a report (dict or ProfilerResults) with one of kprof's sinks: "json", "csv",
    "prompt" (text for an LLM, identical to ``kprof report --format prompt``) or "table". A Diff
    renders as ``kprof diff`` does. Raises UsageError for an unknown format, MalformedOutput
    for a dict that is not a kprof report."""
    if isinstance(report_or_results, Diff):
        return report_or_results.render(format)
    doc = _report_of(report_or_results, "report_or_results")
    return str(_kprof.render(_dumps(doc), _word(format, "format"), _int(round_digits, "round_digits"), bool(compact), _int(max_rules, "max_rules")))


# ---- profiling ---------------------------------------------------------------------------------

# KernelAgent's keyword -> kprof's option name (include/kprof/options.hpp). The one place where
# KernelAgent's names meet kprof's; every other keyword is an option name already.
_KERNELAGENT_OPTIONS = {
    "artifacts_dir": "out_dir",
    "ncu_bin_path": "ncu",
    "ncu_timeout_seconds": "timeout",
    "python_executable": "python",
    "gpu": "gpus",
    "round_num": "round",
    "max_retries": "attempts",  # KernelAgent counts attempts, kprof's retries the extra ones
}


def _option_value(value: Any) -> Any:
    """A Python option value as JSON: enums by their value, paths as str, sequences as lists."""
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, os.PathLike):
        return os.fsdecode(os.fspath(value))
    if isinstance(value, (list, tuple)):
        return [_option_value(item) for item in value]
    return value


def _option_values(kernelagent: Mapping[str, Any], options: Mapping[str, Any]) -> "tuple[Dict[str, Any], Dict[str, str]]":
    """The options keyed by the option table's names, for the native parser (which checks them
    all, NaN and ints beyond 64 bits included), and the keyword each option was given by (so
    messages name it). None means "not given"."""
    values: Dict[str, Any] = {}
    spelled: Dict[str, str] = {}
    for keyword, value in [*kernelagent.items(), *options.items()]:
        if value is None:
            continue
        name = _KERNELAGENT_OPTIONS.get(keyword, keyword)
        values[name] = _option_value(value)
        spelled[name] = keyword
    return values, spelled


def _call_options(round_num: Any, max_retries: Any) -> "tuple[Dict[str, Any], Dict[str, str]]":
    """One profiling call's round and attempts, checked by the option table like the others (a
    round of None included: it is not an int). max_retries None: the profiler's own attempts."""
    given = {"round_num": round_num} if max_retries is None else {"round_num": round_num, "max_retries": max_retries}
    return {_KERNELAGENT_OPTIONS[k]: v for k, v in given.items()}, {_KERNELAGENT_OPTIONS[k]: k for k in given}


class ProfilerResults:
    """One profiled kernel (or batch candidate): the kprof report document and views of it.

    ``metrics`` and ``to_dict()`` have KernelAgent's layout; ``report`` is the whole document.
    """

    def __init__(
        self,
        report: Report,
        status: str = "ok",
        error: Optional[KprofError] = None,
        directory: Optional[str] = None,
        candidate: Optional[int] = None,
        gpu: Optional[int] = None,
        attempts: int = 0,
        served_by: Optional[Dict[str, Any]] = None,
    ) -> None:
        self.report: Report = report
        self.status = status
        self.error = error
        self.dir = directory
        self.candidate = candidate
        self.gpu = gpu
        self.attempts = attempts
        #: Who answered the round: {"who": "python"} for this process's own profiler, or
        #: {"who": "kprof serve", "socket": PATH} for a running `kprof serve` (docs/standby.md).
        self.served_by = served_by
        #: profile_model(extract_dir=...): extracted.json's document; None otherwise.
        self.extracted: Optional[Dict[str, Any]] = None
        agent = json.loads(_kprof.kernelagent_json(_dumps(report)))
        self._metrics = KernelMetrics(agent["metrics"], report)
        self._metadata = ProfilerMetadata(**agent["metadata"])

    @property
    def metrics(self) -> KernelMetrics:
        """{kernel name: {metric: value}}, KernelAgent's layout: the candidate's own kernels first
        (longest first), library kernels (at::, cub::, ...) after; one dict per kernel name
        unless several launches of it were kept (select="all"), then a list; floats except for
        counts (registers, blocks, instructions). The body of roundNNN_ncu_metrics.json."""
        return self._metrics

    @property
    def metadata(self) -> ProfilerMetadata:
        """KernelAgent's ProfilerMetadata (kernel_file, problem_file, round_num, timestamp with
        microseconds, ncu_version), a dataclass. The full run facts are in
        ``report["metadata"]``; ``candidate``, ``gpu`` and ``status`` are attributes here."""
        return self._metadata

    @property
    def kernels(self) -> List[Dict[str, Any]]:
        """Every kept launch: name, id, nvtx_range, grid, block, metrics {m: {value, unit}}."""
        result: List[Dict[str, Any]] = self.report["kernels"]
        return result

    @property
    def hot_lines(self) -> Dict[str, Any]:
        """{kernel name: hot_lines} of the launches profiled with ``source=True`` (the deep set
        implies it): the hottest source lines with their share of the stall samples, stall
        reasons and memory facts (docs/hot-lines.md), of each name's longest launch (the launch
        ``kprof mcp``'s hot_lines tool shows); a name whose longest launch has none is left out."""
        result: Dict[str, Any] = json.loads(_kprof.hot_lines(_dumps(self.report)))
        return result

    @property
    def roofline(self) -> Dict[str, Any]:
        """{kernel name: {compute_sol_pct, memory_sol_pct, bottleneck, headroom_pct, ...}}."""
        result: Dict[str, Any] = self.report["roofline"]
        return result

    @property
    def summary(self) -> Dict[str, Any]:
        """{total_duration_ns, launches, dominant_kernel, kernels [{name, duration_ns, share}]}."""
        result: Dict[str, Any] = self.report["summary"]
        return result

    @property
    def truth(self) -> Optional[Dict[str, Any]]:
        """The candidate's measured wall time, its check against the reference, the reference's
        time and the problem's speed of light (the report's "truth", docs/json-schema.md); None
        when it was neither timed nor checked (check=False, timing=False) or the report was
        analysed again."""
        result: Optional[Dict[str, Any]] = self.report.get("truth")
        return result

    @property
    def metrics_df(self) -> Any:
        """The launches' metric-set metrics as a pandas DataFrame (KernelAgent's metrics_df)."""
        return MetricRows(json.loads(_kprof.kernelagent_rows(_dumps(self.report)))).to_pandas()

    def to_dict(self) -> Dict[str, Any]:
        """{"metrics": ..., "metadata": ...}, the body of roundNNN_ncu_metrics.json."""
        return {"metrics": dict(self.metrics), "metadata": dataclasses.asdict(self.metadata)}

    def to_json(self) -> str:
        """to_dict() as JSON text, indented by 2 (as KernelAgent writes it)."""
        return json.dumps(self.to_dict(), indent=2)

    def render(self, format: str = "prompt") -> str:
        """The report through one of kprof's sinks: json, csv, prompt or table."""
        return render(self.report, format)

    def prompt(self) -> str:
        """Plain text for an LLM; identical to ``kprof report --format prompt``."""
        return self.render("prompt")

    def table(self) -> str:
        """Aligned text for a person."""
        return self.render("table")

    def __repr__(self) -> str:
        total = self.summary.get("total_duration_ns")
        return (
            f"ProfilerResults(round={self.metadata.round_num}, status={self.status!r}, "
            f"kernels={len(self.roofline)}, total_duration_ns={total})"
        )


Outcome = Union[ProfilerResults, KprofError]


def _candidate_outcome(
    round_num: int, candidate: Dict[str, Any], batch: bool, served_by: Optional[Dict[str, Any]] = None
) -> Outcome:
    """One candidate of a round (the round's one JSON shape, docs/json-schema.md "The round"): its
    ProfilerResults when ok, else its KprofError carrying the partial results."""
    error = error_from_dict(candidate["error"])
    results = None
    if candidate["report"] is not None:
        results = ProfilerResults(
            candidate["report"],
            status=candidate["status"],
            error=error,
            directory=candidate["dir"],
            candidate=candidate["candidate"] if batch else None,
            gpu=candidate["gpu"],
            attempts=candidate["attempts"],
            served_by=served_by,
        )
    if candidate["status"] == "ok" and results is not None:
        return results
    if error is None:
        error = InternalError(f"candidate {candidate['candidate']} has status {candidate['status']}")
    error.results = results
    error.kernel_file = candidate["kernel_file"]
    error.round_num = round_num
    error.candidate = candidate["candidate"] if batch else None
    return error


class KernelProfiler:
    """Profiles kernel.py + problem.py rounds with ncu (KernelAgent's KernelProfiler).

    artifacts_dir receives the rounds (artifacts_dir/roundNNN/) and the history kprof.db;
    roundNNN_ncu_metrics.json goes where KernelAgent writes it, into logs_dir (into
    artifacts_dir when there is no logs_dir). Options are checked at once (UsageError lists the
    valid words); ncu and python are located at the first profile call. KernelAgent's positional
    order ``KernelProfiler(logger, artifacts_dir, logs_dir, ...)`` is accepted too, and so is its
    ``profiling_semaphore``: held around each profile (docs/kernelagent.md).

    One instance may be used from several threads: each call runs with its own copy of the C++
    profiler and without the GIL. kprof's per-GPU lock serialises calls on the same GPU.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if args and isinstance(args[0], logging.Logger):
            if "logger" in kwargs:
                raise TypeError("logger given twice (first argument and logger=)")
            kwargs["logger"] = args[0]
            args = args[1:]
        self._setup(*args, **kwargs)

    def _setup(
        self,
        artifacts_dir: PathLike,
        logs_dir: Optional[PathLike] = None,
        ncu_bin_path: Optional[PathLike] = None,
        ncu_timeout_seconds: Optional[int] = None,
        metrics: Optional[str] = None,
        python_executable: Optional[PathLike] = None,
        use_sudo: bool = False,
        gpu: Union[None, int, Sequence[int]] = None,
        clock_control: Optional[str] = None,
        logger: Optional[logging.Logger] = None,
        profiling_semaphore: Any = None,
        **options: Any,
    ) -> None:
        """KernelAgent's parameters, then any option of kprof's table by its own name (select,
        kernels, warmup, inputs, cast, seed, retries, check_metrics, keep_ncu_report,
        record_history, source, standby, standby_idle_seconds; see docs/python.md). Where
        KernelAgent's profiler behaves otherwise than kprof's CLI, the defaults here are
        KernelAgent's (kprof's kernelagent_option_defaults): ``select="longest"`` (one launch per
        kernel name), ``cast="auto"`` (the dtype kernel_function's source names, docs/harness.md)
        and roundNNN_ncu_metrics.json in logs_dir only. ``profiling_semaphore`` (KernelAgent's
        multiprocessing.Semaphore, or anything with acquire(timeout=) and release()) is held
        around each profile; waited for at most 900 s, as KernelAgent does."""
        # Absolute, so that a later os.chdir() of the agent does not move the outputs.
        self.artifacts_dir = os.path.abspath(_path(artifacts_dir, "artifacts_dir"))
        self.logs_dir = None if logs_dir is None else os.path.abspath(_path(logs_dir, "logs_dir"))
        self.ncu_bin_path = None if ncu_bin_path is None else _path(ncu_bin_path, "ncu_bin_path")
        self.logger = logger if logger is not None else _LOGGER
        if python_executable is None:
            python: Optional[str] = os.environ.get("KPROF_PYTHON") or sys.executable or None
        else:
            python = _path(python_executable, "python_executable")
        kernelagent = {
            "artifacts_dir": self.artifacts_dir,
            "logs_dir": None if self.logs_dir in (None, self.artifacts_dir) else self.logs_dir,
            "ncu_bin_path": self.ncu_bin_path,
            "ncu_timeout_seconds": ncu_timeout_seconds,
            "metrics": metrics,
            "python_executable": python,
            "use_sudo": use_sudo,
            "gpu": [gpu] if isinstance(gpu, int) and not isinstance(gpu, bool) else gpu,
            "clock_control": clock_control,
        }
        if profiling_semaphore is not None and not (
            callable(getattr(profiling_semaphore, "acquire", None)) and callable(getattr(profiling_semaphore, "release", None))
        ):
            raise TypeError(f"profiling_semaphore must have acquire() and release(), not {type(profiling_semaphore).__name__}")
        self.profiling_semaphore = profiling_semaphore
        values, spelled = _option_values(kernelagent, options)
        self._native = _kprof.Profiler(_kprof.profile_options(values, spelled, self._progress))
        # None means kprof's default (KernelAgent's where they differ): the value it runs with.
        self.ncu_timeout_seconds: int = json.loads(self._native.option_values())["timeout"]
        self._ncu_version: Optional[str] = None

    def _progress(self, line: str) -> None:
        self.logger.info("kprof: %s", line)

    def close(self) -> None:
        """Stops the standbys of ``standby=True`` (their harness processes under ncu exit at
        once instead of after ``standby_idle_seconds``). The profiler stays usable: the next
        call starts cold. Also called on leaving a ``with`` block."""
        self._native.close()

    def __enter__(self) -> "KernelProfiler":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    @property
    def ncu_version(self) -> Optional[str]:
        """The version of the ncu this profiler uses ("2025.3.1.0"), None when ncu cannot be
        found or does not say."""
        if self._ncu_version is None:
            try:
                self._ncu_version = self._native.ncu(1)[1] or None
            except KprofError:
                return None
        return self._ncu_version

    def _outcome(self, round_num: int, round_doc: Dict[str, Any], index: int, batch: bool) -> Outcome:
        return _candidate_outcome(round_num, round_doc["candidates"][index], batch, round_doc["served_by"])

    @contextlib.contextmanager
    def _profiling_turn(self, round_num: int) -> Iterator[None]:
        """Holds the profiling semaphore, when there is one, for one profile. GpuBusy when it
        was not released within KernelAgent's 900 s (its profiler then skips the round)."""
        semaphore = self.profiling_semaphore
        if semaphore is None:
            yield
            return
        self.logger.info("kprof: round %s waits for the profiling semaphore", round_num)
        if not semaphore.acquire(timeout=_SEMAPHORE_TIMEOUT_SECONDS):
            raise GpuBusy(
                f"round {round_num} was not profiled: the profiling semaphore was not released "
                f"within {_SEMAPHORE_TIMEOUT_SECONDS} s"
            )
        try:
            yield
        finally:
            semaphore.release()

    def profile(
        self, kernel_file: PathLike, problem_file: PathLike, round_num: int, max_retries: Optional[int] = None
    ) -> ProfilerResults:
        """Profiles ``kernel_function`` of kernel_file on problem_file's inputs as round
        ``round_num``. Returns the results; raises the KprofError subclass of the failure
        (e.g. PermissionDenied, KernelRuntimeError, Timeout). A run that failed after its
        kernels were profiled raises too, with the partial results in ``error.results``.
        ``max_retries`` counts attempts, as in KernelAgent (None: this profiler's, 2 unless it
        was made with ``retries`` or ``attempts``); only retryable failures (timeouts, transient
        ncu failures) are attempted again."""
        with self._profiling_turn(round_num):
            text = self._native.profile(
                _native_path(kernel_file, "kernel_file"),
                _native_path(problem_file, "problem_file"),
                *_call_options(round_num, max_retries),
            )
        outcome = self._outcome(round_num, json.loads(text), 0, batch=False)
        if isinstance(outcome, KprofError):
            raise outcome
        self.logger.info("kprof: round %d profiled (%s)", round_num, outcome.dir)
        return outcome

    def profile_kernel(
        self, kernel_file: PathLike, problem_file: PathLike, round_num: int, max_retries: Optional[int] = None
    ) -> Optional[ProfilerResults]:
        """profile(), KernelAgent style: returns None after logging the classified error (every
        profiling failure is a KprofError; a TypeError for a wrong argument type is raised)."""
        try:
            return self.profile(kernel_file, problem_file, round_num, max_retries)
        except KprofError as error:
            self.logger.error(
                "kprof: profiling round %s failed [%s]: %s", round_num, error.category, error.message
            )
            if error.detail:
                self.logger.debug("kprof: %s", error.detail)
            return None

    def profile_batch(
        self,
        problem_file: PathLike,
        kernel_files: Sequence[PathLike],
        round_num: int,
        max_retries: Optional[int] = None,
    ) -> List[Outcome]:
        """Profiles several candidate kernels of one problem in one round (one harness process
        per GPU; a failing candidate costs the others nothing). Returns, per candidate in
        order, its ProfilerResults or its KprofError (not raised). Raises only when the round
        could not be attempted (inputs missing, unknown metrics, GPU busy, ...)."""
        if isinstance(kernel_files, (str, bytes, os.PathLike)):
            kernel_files = [kernel_files]  # one file, never its characters
        with self._profiling_turn(round_num):
            text = self._native.profile_batch(
                _native_path(problem_file, "problem_file"),
                [_native_path(kernel, f"kernel_files[{i}]") for i, kernel in enumerate(kernel_files)],
                *_call_options(round_num, max_retries),
            )
        round_doc = json.loads(text)
        return [self._outcome(round_num, round_doc, i, batch=True) for i in range(len(round_doc["candidates"]))]


def profile_batch(
    problem_file: PathLike,
    kernel_files: Sequence[PathLike],
    round_num: int,
    gpus: Optional[Sequence[int]] = None,
    out_dir: PathLike = "kprof-out",
    slurm: Union[None, bool, Mapping[str, Any]] = None,
    **options: Any,
) -> Any:
    """KernelProfiler(out_dir, gpus=gpus, **options).profile_batch(...): candidates spread over
    ``gpus`` (default GPU 0). ``max_retries`` (attempts, default 2, with Slurm too) and every
    KernelProfiler option are accepted.

    ``slurm`` runs the batch as a Slurm job array instead (``kprof batch --slurm``,
    docs/slurm.md): True, or a mapping with ``tasks``, ``gpus_per_task``, ``options`` (sbatch
    options, a string or a list of words), ``requeue``, ``dry_run``, ``poll_seconds`` and
    ``kprof`` (the kprof executable the tasks run; default ``kprof`` on PATH). Returns the
    outcomes as without Slurm, or with ``dry_run`` the plan (a dict with ``tasks`` and
    ``script_text``); nothing is submitted then."""
    out_dir = _path(out_dir, "out_dir")
    max_retries = options.pop("max_retries", None)
    if slurm is None or slurm is False:
        profiler = KernelProfiler(out_dir, gpus=gpus, **options)  # messages name gpus
        return profiler.profile_batch(problem_file, kernel_files, round_num, max_retries)
    if not isinstance(slurm, (bool, Mapping)):
        raise TypeError(f"slurm must be True or a mapping, not {type(slurm).__name__}")
    settings = {} if slurm is True else {str(key): _option_value(value) for key, value in dict(slurm).items()}
    if isinstance(kernel_files, (str, bytes, os.PathLike)):
        kernel_files = [kernel_files]  # one file, never its characters
    # The library refuses gpus here (Slurm gives each task its GPUs) and gives KernelAgent's
    # attempts when neither max_retries nor retries is given, as without Slurm.
    run = {"out_dir": os.path.abspath(out_dir), "round_num": round_num, "max_retries": max_retries, "gpus": gpus}
    values, spelled = _option_values(run, options)
    text = _kprof.slurm_batch(
        values,
        spelled,
        _native_path(problem_file, "problem_file"),
        [_native_path(kernel, f"kernel_files[{i}]") for i, kernel in enumerate(kernel_files)],
        settings,
        lambda line: _LOGGER.info("kprof: %s", line),
    )
    result = json.loads(text)
    if settings.get("dry_run"):
        return result
    return [_candidate_outcome(round_num, candidate, True, result["served_by"]) for candidate in result["candidates"]]


# ---- history -----------------------------------------------------------------------------------


class Diff(Dict[str, Any]):
    """The comparison of two reports (docs/history.md "Diff"): a dict with total, kernels,
    only_in_a, only_in_b, and the renderings of ``kprof diff``."""

    def render(self, format: str = "prompt") -> str:
        """"prompt" (one line for an LLM), "table", "json" or "csv"."""
        return str(_kprof.render_diff(_dumps(dict(self)), _word(format, "format")))

    def prompt(self) -> str:
        return self.render("prompt")

    def table(self) -> str:
        return self.render("table")


def profile_model(
    problem_file: PathLike,
    round_num: int = 1,
    out_dir: PathLike = "kprof-out",
    compile: bool = False,  # noqa: A002  (torch.compile's word, as `kprof model --compile`)
    max_retries: Optional[int] = None,
    extract_dir: Optional[PathLike] = None,
    extract_top: int = 3,
    **options: Any,
) -> ProfilerResults:
    """``kprof model PROBLEM.py`` (docs/harness.md, "A model"): problem_file's ``Model`` profiled
    whole as the candidate (``<out_dir>/model/kernel.py``, written after out_dir passed a round's
    directory checks; through ``torch.compile`` with ``compile=True``), so that the report's
    ``workload`` ranks the kernels of its call by their share of the call's time. The defaults are
    the command's, not KernelAgent's: ``launches="many"`` (a model's call is known to be long),
    ``check=False`` (the candidate is the reference; its timing and the problem's speed of light
    stay), ``select="all"``, ``cast="none"``; any KernelProfiler option overrides them. Returns
    the results, or raises the KprofError of the failure, as KernelProfiler.profile does.

    ``extract_dir`` (``kprof model --extract``, docs/harness.md "Extracting a kernel"): after the
    round, the call's ``extract_top`` costliest Triton kernels are each written as a standalone
    case, ``extract_dir/<kernel>/kernel.py`` and ``problem.py``; the results'
    ``extracted`` holds extracted.json's document (per kernel, its ``directory`` or ``why``
    not), else None."""
    out_dir = _path(out_dir, "out_dir")
    problem = _path(problem_file, "problem_file")
    # kprof model's own defaults (the library's, as every shell's), then the command's defaults
    # where KernelProfiler's KernelAgent-shaped ones differ.
    for key, value in json.loads(_kprof.model_option_defaults()).items():
        options.setdefault(key, value)
    for key, value in (("select", "all"), ("cast", "none")):
        options.setdefault(key, value)
    if not isinstance(compile, bool):
        raise TypeError(f"compile must be True or False, not {type(compile).__name__}")
    extract = None if extract_dir is None else os.path.abspath(_path(extract_dir, "extract_dir"))
    top = _int(extract_top, "extract_top")
    if top < 1:
        raise ValueError(f"extract_top must be at least 1, not {top}")
    kernel = _kprof.write_model_candidate(problem, out_dir, compile)
    with KernelProfiler(out_dir, **options) as profiler:
        with profiler._profiling_turn(round_num):
            text = profiler._native.profile_model(
                _native_path(kernel, "kernel"),
                _native_path(problem, "problem_file"),
                *_call_options(round_num, max_retries),
                extract,
                top,
                compile,
            )
        round_doc = json.loads(text)
        outcome = profiler._outcome(round_num, round_doc, 0, batch=False)
        if isinstance(outcome, KprofError):
            raise outcome
        if "extract_error" in round_doc:  # the round stands: its results go with the error
            error = error_from_dict(round_doc["extract_error"])
            error.results = outcome
            raise error
        outcome.extracted = round_doc.get("extracted")
        return outcome


def diff(a: Any, b: Any, top_metrics: int = 8) -> Diff:
    """Compares report a (before) with report b (after); each a report dict, ProfilerResults
    or the path of a report.json."""

    def document(side: Any, what: str) -> str:
        if isinstance(side, (str, os.PathLike)):
            return str(_kprof.load_report(_native_path(side, what)))
        return _dumps(_report_of(side, what), "the report")

    return Diff(json.loads(_kprof.diff_reports(document(a, "a"), document(b, "b"), _int(top_metrics, "top_metrics"))))


class Convergence:
    """The verdict of History.converged(); true when optimising should stop."""

    def __init__(self, verdict: Dict[str, Any]) -> None:
        self.converged: bool = bool(verdict["converged"])
        self.reason: str = verdict["reason"]
        self.best: Optional[Dict[str, Any]] = verdict.get("best")
        self.best_duration_ns: Optional[float] = verdict.get("best_duration_ns")
        self.best_sol_pct: Optional[float] = verdict.get("best_sol_pct")
        self.improvement: Optional[float] = verdict.get("improvement")
        self.rounds: int = int(verdict.get("rounds", 0))
        self.details: str = verdict.get("details", "")
        self._verdict = verdict

    def __bool__(self) -> bool:
        return self.converged

    def to_dict(self) -> Dict[str, Any]:
        """{converged, reason, best, best_duration_ns, best_sol_pct, improvement, rounds, details}."""
        return dict(self._verdict)

    def __repr__(self) -> str:
        return f"Convergence(converged={self.converged}, reason={self.reason!r}, rounds={self.rounds})"


class History:
    """The rounds recorded in DIR/kprof.db (by KernelProfiler, ``kprof profile/batch``, or
    ``kprof report FILE --round N --out DIR``). ``dir`` may also name the database file.
    Raises InputNotFound when there is no history, DatabaseError when it cannot be read."""

    def __init__(self, dir: PathLike) -> None:
        self._native = _kprof.History(_native_path(dir, "dir"))  # read only; found as the CLI finds it

    @property
    def path(self) -> str:
        """The database file."""
        return str(self._native.path)

    def rounds(self) -> List[Dict[str, Any]]:
        """Every recorded row, by round then candidate: round, candidate, label, status,
        total_duration_ns, dominant_kernel, bottleneck, SOL values, best_so_far, best, ..."""
        rows: List[Dict[str, Any]] = json.loads(self._native.rows("json"))["rows"]
        return rows

    def render(self, format: str = "table") -> str:
        """The rows as ``kprof history DIR --format F`` prints them."""
        return str(self._native.rows(_word(format, "format")))

    def best(self) -> Optional[Dict[str, Any]]:
        """The best ok row (lowest total duration), None when no round succeeded."""
        return next((row for row in self.rounds() if row.get("best")), None)

    def document(self, ref: Any) -> Report:
        """The report recorded for round ``ref`` (3, "3", "3:1" or (3, 1)); a round with
        several candidates gives its best. InputNotFound when absent or failed."""
        doc: Report = json.loads(self._native.document(_round_ref(ref, "ref")))
        return doc

    def results(self, ref: Any) -> ProfilerResults:
        """document(ref) as ProfilerResults (prompt(), roofline, ...)."""
        return ProfilerResults(self.document(ref))

    def diff(self, a: Any, b: Any, top_metrics: int = 8) -> Diff:
        """Compares round a (before) with round b (after), as ``kprof diff DIR A B``."""
        return Diff(json.loads(self._native.diff(_round_ref(a, "a"), _round_ref(b, "b"), _int(top_metrics, "top_metrics"))))

    def converged(
        self, sol_threshold: float = 95, window: int = 5, min_improvement: float = 0.01
    ) -> Convergence:
        """Whether to stop optimising: the best round reached ``sol_threshold`` percent of
        peak (at_roofline), or the last ``window`` rounds improved the best duration by at most
        ``min_improvement`` (no_improvement). UsageError for out-of-range options."""
        for value, what in ((sol_threshold, "sol_threshold"), (min_improvement, "min_improvement")):
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise TypeError(f"{what} must be a number, not {type(value).__name__}")
        text = self._native.converged(sol_threshold, _int(window, "window"), min_improvement)
        return Convergence(json.loads(text))
