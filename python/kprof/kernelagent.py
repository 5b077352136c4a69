"""kprof inside KernelAgent's own optimization loop, through its platform registry.

``register()`` puts kprof's components into KernelAgent's registry
(``triton_kernel_agent.platform.registry``) under the name ``kprof``; a config then selects them::

    platform:
      verifier: nvidia
      benchmarker: nvidia
      worker_runner: nvidia
      profiler: kprof
      roofline_analyzer: kprof
      bottleneck_analyzer: kprof
      specs_provider: kprof
      rag_prescriber: nvidia

Every component is written against KernelAgent's interface (the registry's keyword arguments,
the calls its orchestrator makes); none of KernelAgent's code is copied. The decisions (which
kernel KernelAgent's loop reads, the roofline verdict, the stop rule, the GPU table, the number
types) are kprof's C++ library's (include/kprof/kernelagent.hpp); this file only forwards. See
docs/kernelagent.md for what changes in KernelAgent's loop and what does not.

``import kprof`` never imports KernelAgent; ``register()`` without a registry imports it and says
what is missing when it cannot.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Tuple

from . import KernelMetrics, KernelProfiler, UsageError, _dumps, _kprof

__all__ = [
    "COMPONENTS",
    "register",
    "RooflineConfig",
    "RooflineResult",
    "RooflineAnalyzer",
    "BottleneckAnalyzer",
    "SpecsProvider",
]

#: The registry components kprof provides.
COMPONENTS = ("profiler", "roofline_analyzer", "bottleneck_analyzer", "specs_provider")

_LOGGER = logging.getLogger("kprof")
# The key under which the bottleneck analyzer hands kprof's hot lines to KernelAgent's prompt
# (its "Other Metrics" section lists the keys it has no label for).
_HOT_LINES_KEY = "kprof hot lines"
# The key under which it hands the candidate's truth (measured time, check, speed of light).
_TRUTH_KEY = "kprof measured, checked and speed of light"
_ROOFLINE_DEFAULTS: Dict[str, Any] = json.loads(_kprof.kernelagent_roofline_defaults())


def register(registry: Any = None, name: str = "kprof", **profiler_options: Any) -> Any:
    """Registers kprof's profiler, roofline analyzer, bottleneck analyzer and GPU specs provider
    in ``registry`` (default: KernelAgent's global ``triton_kernel_agent.platform.registry``
    registry) under ``name``, and returns the registry.

    ``profiler_options`` go to every profiler the registry makes: KernelProfiler's keywords
    (``standby=True``, ``metrics="deep"``, ``gpu=1``, ...), checked here, at once. KernelAgent's
    own values (``ncu_bin_path``, ``ncu_timeout_seconds``) win where it passes them.

    Call it at the top level of the script that starts KernelAgent, so that worker processes
    started with spawn or forkserver (which import that script again) register too; forked
    workers inherit the registration.

    ImportError, saying what is missing, when ``registry`` is None and KernelAgent cannot be
    imported.
    """
    if registry is None:
        try:
            from triton_kernel_agent.platform.registry import registry as found  # type: ignore
        except ImportError as error:
            raise ImportError(
                "kprof.kernelagent.register() needs KernelAgent's platform registry "
                f"(triton_kernel_agent.platform.registry), which cannot be imported: {error}. "
                "Install KernelAgent (pip install -e <its checkout>) or put its checkout on "
                "PYTHONPATH, or pass the registry: register(registry)"
            ) from error
        registry = found
    if not callable(getattr(registry, "register", None)):
        raise TypeError(f"registry must have register(component, name, factory), not {type(registry).__name__}")
    # The options are checked now, with the messages KernelProfiler gives, not in a worker.
    KernelProfiler(os.curdir, **profiler_options).close()
    registry.register("profiler", name, _profiler_factory(dict(profiler_options)))
    registry.register("roofline_analyzer", name, RooflineAnalyzer)
    registry.register("bottleneck_analyzer", name, BottleneckAnalyzer)
    registry.register("specs_provider", name, SpecsProvider)
    return registry


def _profiler_factory(options: Dict[str, Any]) -> Any:
    """A factory with KernelAgent's profiler parameters spelled out, so that its registry hands
    it exactly these (it passes a factory only the keywords its signature names)."""

    def kprof_profiler(
        logger: Optional[logging.Logger] = None,
        log_dir: Any = None,
        artifacts_dir: Any = None,
        ncu_bin_path: Any = None,
        ncu_timeout_seconds: Optional[int] = None,
        profiling_semaphore: Any = None,
    ) -> KernelProfiler:
        """kprof's KernelProfiler for a KernelAgent worker: ``log_dir`` is its logs_dir (where
        roundNNN_ncu_metrics.json goes), ``artifacts_dir`` defaults to log_dir/artifacts (and
        log_dir to the current directory), as KernelAgent's own factory does."""
        logs = Path(log_dir) if log_dir else Path(os.curdir)
        artifacts = Path(artifacts_dir) if artifacts_dir else logs / "artifacts"
        keywords = dict(options)
        given = {"ncu_bin_path": ncu_bin_path, "ncu_timeout_seconds": ncu_timeout_seconds}
        keywords.update({key: value for key, value in given.items() if value is not None})
        return KernelProfiler(artifacts, logs, logger=logger, profiling_semaphore=profiling_semaphore, **keywords)

    return kprof_profiler


# ---- roofline ------------------------------------------------------------------------------------


@dataclasses.dataclass
class RooflineConfig:
    """KernelAgent's RooflineConfig fields, with kprof's defaults (the same numbers). A
    KernelAgent RooflineConfig may be given instead: its fields are read by name."""

    threshold_pct: float = _ROOFLINE_DEFAULTS["threshold_pct"]
    early_stop: bool = _ROOFLINE_DEFAULTS["early_stop"]
    convergence_rounds: int = _ROOFLINE_DEFAULTS["convergence_rounds"]
    min_improvement_pct: float = _ROOFLINE_DEFAULTS["min_improvement_pct"]
    tensor_core_threshold: float = _ROOFLINE_DEFAULTS["tensor_core_threshold"]
    underutilized_threshold: float = _ROOFLINE_DEFAULTS["underutilized_threshold"]


@dataclasses.dataclass(frozen=True)
class RooflineResult:
    """KernelAgent's RooflineResult fields, from kprof's verdict, plus kprof's one-sentence
    ``explanation``. ``bottleneck`` is "memory", "compute", "underutilized" or "unknown"."""

    compute_sol_pct: float
    memory_sol_pct: float
    efficiency_pct: float
    at_roofline: bool
    headroom_pct: float
    bottleneck: str
    uses_tensor_cores: bool
    warnings: List[str] = dataclasses.field(default_factory=list)
    explanation: str = ""

    def to_dict(self) -> Dict[str, Any]:
        return dataclasses.asdict(self)


def _config_json(config: Any) -> str:
    """The fields of a RooflineConfig (kprof's or KernelAgent's) that it has, as JSON."""
    values = {key: getattr(config, key) for key in _ROOFLINE_DEFAULTS if hasattr(config, key)}
    return _dumps(values, "the roofline config")


class RooflineAnalyzer:
    """KernelAgent's roofline analyzer interface (``analyze``, ``should_stop``,
    ``reset_history``, ``.config``) over kprof's verdict: the same SOL numbers, "underutilized"
    for what kprof calls latency-bound, tensor cores from the tensor pipe metric kprof collects
    (sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed)."""

    def __init__(self, logger: Optional[logging.Logger] = None, roofline_config: Any = None) -> None:
        self.logger = logger if logger is not None else _LOGGER
        self.config = roofline_config if roofline_config is not None else RooflineConfig()
        self._efficiencies: List[float] = []

    def analyze(self, ncu_metrics: Mapping[str, Any]) -> RooflineResult:
        """The verdict of one kernel's flat metrics ({metric: value}), as KernelAgent's loop
        passes them; ProfilerResults.metrics (per kernel) gives the kernel KernelAgent's loop
        should read."""
        metrics = dict(ncu_metrics)
        if isinstance(ncu_metrics, KernelMetrics):
            metrics = json.loads(_kprof.kernelagent_kernel_metrics(_dumps(metrics, "the metrics")))["metrics"]
        fields = json.loads(_kprof.kernelagent_roofline(_dumps(_numbers(metrics), "the metrics"), _config_json(self.config)))
        result = RooflineResult(**fields)
        for warning in result.warnings:
            self.logger.warning("kprof roofline: %s", warning)
        return result

    def should_stop(self, result: Any) -> Tuple[bool, str]:
        """KernelAgent's rule: stop at the roofline (with config.early_stop), or when the last
        config.convergence_rounds efficiencies moved less than config.min_improvement_pct."""
        self._efficiencies.append(float(result.efficiency_pct))
        stop, reason = _kprof.kernelagent_should_stop(self._efficiencies, bool(result.at_roofline), _config_json(self.config))
        return bool(stop), str(reason)

    def reset_history(self) -> None:
        self._efficiencies = []


def _numbers(metrics: Mapping[str, Any]) -> Dict[str, Any]:
    """The metrics that JSON can carry as numbers (NaN, pandas' missing value, left out)."""
    return {
        str(key): value
        for key, value in metrics.items()
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value == value
    }


# ---- bottleneck analysis -----------------------------------------------------------------------


class BottleneckAnalyzer:
    """KernelAgent's own LLM bottleneck analyzer, handed what it can read: the flat metrics of
    the kernel KernelAgent's loop should look at (not the {kernel: {metric: value}} dict its
    orchestrator passes, which leaves every labelled section of its prompt empty), plus kprof's
    hot lines of that kernel when they were collected (``source=True`` or ``metrics="deep"``),
    the candidate's truth when it was measured (its time beside PyTorch's, whether its output
    is right, its share of the problem's speed of light), and kprof's GPU specs. ``.roofline`` is kprof's RooflineAnalyzer. KernelAgent's analyzer and
    its model provider are imported at the first analyze()."""

    def __init__(
        self,
        logger: Optional[logging.Logger] = None,
        log_dir: Any = None,
        openai_model: str = "gpt-5",
        gpu_name: Optional[str] = None,
        roofline_config: Any = None,
    ) -> None:
        self.logger = logger if logger is not None else _LOGGER
        self.log_dir = Path(log_dir) if log_dir else None
        self.openai_model = openai_model
        self.gpu_name = gpu_name
        self.roofline = RooflineAnalyzer(logger=self.logger, roofline_config=roofline_config)
        self._delegate: Any = None

    def _analyzer(self) -> Any:
        if self._delegate is None:
            from triton_kernel_agent.opt_worker_component.prescribing.bottleneck_analyzer import (  # type: ignore
                BottleneckAnalyzer as KernelAgentAnalyzer,
            )
            from utils.providers import get_model_provider  # type: ignore

            self._delegate = KernelAgentAnalyzer(
                provider=get_model_provider(self.openai_model),
                model=self.openai_model,
                gpu_specs=SpecsProvider().get_specs(self.gpu_name),
                logs_dir=self.log_dir,
                logger=self.logger,
            )
        return self._delegate

    def analyze(
        self,
        kernel_code: str,
        ncu_metrics: Mapping[str, Any],
        round_num: int = 0,
        roofline_result: Any = None,
    ) -> List[Any]:
        picked = json.loads(_kprof.kernelagent_kernel_metrics(_dumps(dict(ncu_metrics), "the metrics")))
        flat: Dict[str, Any] = dict(picked["metrics"])
        if roofline_result is None:
            roofline_result = self.roofline.analyze(flat)
        report = getattr(ncu_metrics, "report", None)
        if report is not None and picked["kernel"] is not None:
            hot_lines = json.loads(_kprof.kernelagent_hot_lines(_dumps(report, "the report")))
            if picked["kernel"] in hot_lines:
                flat[_HOT_LINES_KEY] = hot_lines[picked["kernel"]]
        if report is not None:
            truth = _kprof.kernelagent_truth(_dumps(report, "the report"))
            if truth:
                flat[_TRUTH_KEY] = truth
        results: List[Any] = self._analyzer().analyze(kernel_code, flat, round_num, roofline_result)
        return results


# ---- GPU specs ---------------------------------------------------------------------------------


class SpecsProvider:
    """KernelAgent's specs provider over kprof's GPU table (the H200 included): get_specs(name)
    gives KernelAgent's keys (name, architecture, peak_memory_bw_gbps, peak_fp32_tflops,
    peak_fp16_tflops, peak_bf16_tflops, sm_count, l2_cache_mb)."""

    def __init__(self, logger: Optional[logging.Logger] = None) -> None:
        self.logger = logger if logger is not None else _LOGGER

    def get_specs(self, device_name: Optional[str] = None) -> Dict[str, Any]:
        """UsageError (a ValueError) naming the GPUs kprof knows when ``device_name`` is None
        (KernelAgent's gpu_name is not set) or not one of them."""
        known = ", ".join(_kprof.known_gpus())
        if not device_name:
            raise UsageError(f"name the GPU (KernelAgent's gpu_name, e.g. 'NVIDIA H200'); kprof knows: {known}")
        text = _kprof.kernelagent_gpu_specs(str(device_name))
        if text is None:
            raise UsageError(f"kprof's GPU table has no {device_name!r} (known: {known})")
        specs: Dict[str, Any] = json.loads(text)
        return specs
