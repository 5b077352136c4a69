# Type stubs of the public kprof API (python/kprof/__init__.py). Keep in step with it.
import logging
import os
from typing import Any, Dict, List, Optional, Sequence, Union, overload

from ._errors import DatabaseError as DatabaseError
from ._errors import GpuBusy as GpuBusy
from ._errors import InputNotFound as InputNotFound
from ._errors import InternalError as InternalError
from ._errors import KernelImportError as KernelImportError
from ._errors import KernelRuntimeError as KernelRuntimeError
from ._errors import KprofError as KprofError
from ._errors import MalformedOutput as MalformedOutput
from ._errors import NcuFailed as NcuFailed
from ._errors import NcuNotFound as NcuNotFound
from ._errors import NoKernelsProfiled as NoKernelsProfiled
from ._errors import OutputError as OutputError
from ._errors import PermissionDenied as PermissionDenied
from ._errors import ProblemInvalid as ProblemInvalid
from ._errors import Timeout as Timeout
from ._errors import UnknownMetric as UnknownMetric
from ._errors import UsageError as UsageError

__version__: str
__all__: List[str]

PathLike = Union[str, os.PathLike[str]]
Report = Dict[str, Any]

class MetricRows(List[Dict[str, Any]]):
    @property
    def empty(self) -> bool: ...
    @property
    def columns(self) -> List[str]: ...
    def to_pandas(self) -> Any: ...

def load_ncu_metrics(
    csv_path: PathLike,
    columns: Union[None, str, Sequence[str]] = None,
    name_list: Optional[Sequence[str]] = None,
    select: Any = "last",
) -> MetricRows: ...
def metrics_to_prompt(
    rows_or_report: Any,
    title: str = "GPU Profiling Metrics:",
    round_digits: Optional[int] = 3,
    compact: bool = False,
    keep_cols: Optional[Sequence[str]] = None,
    key_by: str = "Kernel Name",
) -> str: ...
def report(
    csv_path: PathLike,
    select: Any = "all",
    metrics: str = "default",
    kernels: Optional[Sequence[str]] = None,
) -> Report: ...
def render(
    report_or_results: Union[Report, ProfilerResults, Diff],
    format: str = "prompt",
    round_digits: int = 3,
    compact: bool = False,
    max_rules: int = 5,
) -> str: ...

class _AttrDict(Dict[str, Any]):
    def __getattr__(self, name: str) -> Any: ...

class ProfilerResults:
    report: Report
    status: str
    error: Optional[KprofError]
    dir: Optional[str]
    candidate: Optional[int]
    gpu: Optional[int]
    attempts: int
    def __init__(
        self,
        report: Report,
        status: str = "ok",
        error: Optional[KprofError] = None,
        directory: Optional[str] = None,
        candidate: Optional[int] = None,
        gpu: Optional[int] = None,
        attempts: int = 0,
    ) -> None: ...
    @property
    def metrics(self) -> Dict[str, Any]: ...
    @property
    def metadata(self) -> _AttrDict: ...
    @property
    def kernels(self) -> List[Dict[str, Any]]: ...
    @property
    def roofline(self) -> Dict[str, Any]: ...
    @property
    def summary(self) -> Dict[str, Any]: ...
    @property
    def metrics_df(self) -> Any: ...
    def to_dict(self) -> Dict[str, Any]: ...
    def to_json(self) -> str: ...
    def render(self, format: str = "prompt") -> str: ...
    def prompt(self) -> str: ...
    def table(self) -> str: ...

Outcome = Union[ProfilerResults, KprofError]

class KernelProfiler:
    artifacts_dir: str
    logs_dir: Optional[str]
    ncu_bin_path: Optional[str]
    ncu_timeout_seconds: int
    logger: logging.Logger
    @overload
    def __init__(
        self,
        artifacts_dir: PathLike,
        logs_dir: Optional[PathLike] = None,
        ncu_bin_path: Optional[PathLike] = None,
        ncu_timeout_seconds: int = 300,
        metrics: str = "default",
        python_executable: Optional[PathLike] = None,
        use_sudo: bool = False,
        gpu: Union[None, int, Sequence[int]] = None,
        clock_control: Optional[str] = None,
        logger: Optional[logging.Logger] = None,
        *,
        select: Any = "all",
        kernels: Optional[Sequence[str]] = None,
        warmup: int = 3,
        inputs: str = "gpu",
        cast: str = "none",
        seed: int = 0,
        check_metrics: bool = True,
        keep_ncu_report: bool = True,
        record_history: bool = True,
    ) -> None: ...
    @overload
    def __init__(
        self,
        logger: logging.Logger,
        artifacts_dir: PathLike,
        logs_dir: Optional[PathLike] = None,
        ncu_bin_path: Optional[PathLike] = None,
        ncu_timeout_seconds: int = 300,
        metrics: str = "default",
        python_executable: Optional[PathLike] = None,
        use_sudo: bool = False,
        gpu: Union[None, int, Sequence[int]] = None,
        clock_control: Optional[str] = None,
        *,
        select: Any = "all",
        kernels: Optional[Sequence[str]] = None,
        warmup: int = 3,
        inputs: str = "gpu",
        cast: str = "none",
        seed: int = 0,
        check_metrics: bool = True,
        keep_ncu_report: bool = True,
        record_history: bool = True,
    ) -> None: ...
    @property
    def ncu_version(self) -> Optional[str]: ...
    def profile(
        self, kernel_file: PathLike, problem_file: PathLike, round_num: int, max_retries: int = 2
    ) -> ProfilerResults: ...
    def profile_kernel(
        self, kernel_file: PathLike, problem_file: PathLike, round_num: int, max_retries: int = 2
    ) -> Optional[ProfilerResults]: ...
    def profile_batch(
        self,
        problem_file: PathLike,
        kernel_files: Sequence[PathLike],
        round_num: int,
        max_retries: int = 2,
    ) -> List[Outcome]: ...

def profile_batch(
    problem_file: PathLike,
    kernel_files: Sequence[PathLike],
    round_num: int,
    gpus: Optional[Sequence[int]] = None,
    out_dir: PathLike = "kprof-out",
    **options: Any,
) -> List[Outcome]: ...

class Diff(Dict[str, Any]):
    def render(self, format: str = "prompt") -> str: ...
    def prompt(self) -> str: ...
    def table(self) -> str: ...

def diff(a: Union[Report, ProfilerResults, PathLike], b: Union[Report, ProfilerResults, PathLike],
         top_metrics: int = 8) -> Diff: ...

class Convergence:
    converged: bool
    reason: str
    best: Optional[Dict[str, Any]]
    best_duration_ns: Optional[float]
    best_sol_pct: Optional[float]
    improvement: Optional[float]
    rounds: int
    details: str
    def __init__(self, verdict: Dict[str, Any]) -> None: ...
    def __bool__(self) -> bool: ...
    def to_dict(self) -> Dict[str, Any]: ...

RoundRef = Union[int, str, tuple[int, int]]

class History:
    def __init__(self, dir: PathLike) -> None: ...
    @property
    def path(self) -> str: ...
    def rounds(self) -> List[Dict[str, Any]]: ...
    def render(self, format: str = "table") -> str: ...
    def best(self) -> Optional[Dict[str, Any]]: ...
    def document(self, ref: RoundRef) -> Report: ...
    def results(self, ref: RoundRef) -> ProfilerResults: ...
    def diff(self, a: RoundRef, b: RoundRef, top_metrics: int = 8) -> Diff: ...
    def converged(
        self, sol_threshold: float = 95, window: int = 5, min_improvement: float = 0.01
    ) -> Convergence: ...
