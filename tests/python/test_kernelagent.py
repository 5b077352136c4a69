"""The contract between kprof and KernelAgent's optimization loop (docs/kernelagent.md).

KernelAgent cannot be fetched here and none of its code is copied: the fakes below are written
from its interface, as read from meta-pytorch/KernelAgent's main branch:
- its platform registry hands a factory only the keyword arguments its signature names, or all
  of them when it takes **kwargs; an OptimizationWorker resolves its components with the bag
  logger, log_dir, artifacts_dir, ncu_bin_path, profiling_semaphore, openai_model, gpu_name,
  roofline_config;
- OptimizationManager hands each (forked) worker a multiprocessing.Semaphore(1);
- its orchestrator reads ProfilerResults.metrics ({kernel: {metric: value}}): the first kernel
  (one path), or the first whose name does not start with "at::" / "void at::" (the others), and
  the SOL keys of that kernel's dict; it passes the whole dict to the bottleneck analyzer and the
  flat dict of the first kernel to ``bottleneck_analyzer.roofline.analyze``.

Profiles run on the stand-in ncu (tests/standins/ncu) and fake torch, replaying recorded H200
output (tests/fixtures/ncu/2025.3.1/); the capture with a PyTorch op and a kernel launched twice
is derived from one, as its helper says.
"""

import csv
import dataclasses
import json
import logging
import multiprocessing
import os
import pathlib
import re
import shutil
import subprocess
import sys
import textwrap
import time

import pytest

import kprof
import kprof.kernelagent

ROOT = pathlib.Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "ncu" / "2025.3.1"
STANDINS = ROOT / "tests" / "standins"
FAKE_NCU = STANDINS / "ncu"
BATCH4 = FIXTURES / "batch4_flat_regex_ranges.csv"
DETAILS_SOFTMAX = FIXTURES / "details_page_softmax.csv"
VADD_KERNEL = ROOT / "examples" / "vadd" / "kernel.py"
VADD_PROBLEM = ROOT / "examples" / "vadd" / "problem.py"

ATEN_FILL = (
    "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
    "std::array<char *, 1>>(int, at::native::FillFunctor<float>, std::array<char *, 1>)"
)
MEMORY_SOL = "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"
COMPUTE_SOL = "sm__throughput.avg.pct_of_peak_sustained_elapsed"
DURATION = "gpu__time_duration.sum"

# ---- the fakes of KernelAgent's modules, written from its interface -----------------------------

FAKE_REGISTRY = '''
"""Stand-in for triton_kernel_agent.platform.registry: factories by (component, name); a
factory gets the keywords its signature names, or every keyword when it takes **kwargs."""
import inspect


def accepted(factory, bag):
    try:
        parameters = list(inspect.signature(factory).parameters.values())
    except (TypeError, ValueError):
        return dict(bag)
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters):
        return dict(bag)
    named = {p.name for p in parameters
             if p.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)}
    return {key: value for key, value in bag.items() if key in named}


class PlatformRegistry:
    def __init__(self):
        self.factories = {}

    def register(self, component, name, factory):
        self.factories.setdefault(component, {})[name] = factory

    def create(self, component, name, **bag):
        factory = self.factories[component][name]
        return factory(**accepted(factory, bag))

    def create_from_config(self, config, **bag):
        return {component: self.create(component, name, **bag) for component, name in config.items()}


registry = PlatformRegistry()
'''

FAKE_BOTTLENECK_ANALYZER = '''
"""Stand-in for KernelAgent's LLM bottleneck analyzer: remembers what it was given."""
import types

CREATED = []
CALLS = []


class BottleneckAnalyzer:
    def __init__(self, provider, model, gpu_specs, logs_dir=None, logger=None):
        CREATED.append({"provider": provider, "model": model, "gpu_specs": gpu_specs, "logs_dir": logs_dir})

    def analyze(self, kernel_code, ncu_metrics, round_num=0, roofline_result=None):
        CALLS.append({"kernel_code": kernel_code, "ncu_metrics": ncu_metrics, "round_num": round_num,
                      "roofline_result": roofline_result})
        return [types.SimpleNamespace(category=roofline_result.bottleneck, summary="", reasoning="",
                                      root_causes=[], recommended_fixes=[])]
'''

FAKE_PROVIDERS = '''
def get_model_provider(model):
    return ("fake provider", model)
'''


@pytest.fixture
def kernelagent(tmp_path, monkeypatch):
    """A fake KernelAgent on sys.path: the registry and bottleneck analyzer modules above."""
    base = tmp_path / "kernelagent"
    files = {
        "triton_kernel_agent/__init__.py": "",
        "triton_kernel_agent/platform/__init__.py": "",
        "triton_kernel_agent/platform/registry.py": FAKE_REGISTRY,
        "triton_kernel_agent/opt_worker_component/__init__.py": "",
        "triton_kernel_agent/opt_worker_component/prescribing/__init__.py": "",
        "triton_kernel_agent/opt_worker_component/prescribing/bottleneck_analyzer.py": FAKE_BOTTLENECK_ANALYZER,
        "utils/__init__.py": "",
        "utils/providers/__init__.py": FAKE_PROVIDERS,
    }
    for name, text in files.items():
        (base / name).parent.mkdir(parents=True, exist_ok=True)
        (base / name).write_text(textwrap.dedent(text), encoding="utf-8")
    monkeypatch.syspath_prepend(str(base))
    yield base
    for name in list(sys.modules):
        if name.split(".")[0] in ("triton_kernel_agent", "utils"):
            del sys.modules[name]


@dataclasses.dataclass
class KernelAgentRooflineConfig:
    """The fields of KernelAgent's RooflineConfig (its names), as a worker passes one."""

    threshold_pct: float = 95.0
    early_stop: bool = True
    convergence_rounds: int = 5
    min_improvement_pct: float = 0.1
    tensor_core_threshold: float = 5.0
    underutilized_threshold: float = 60.0


def worker_bag(directory, semaphore=None, **changes):
    """The keywords an OptimizationWorker hands its registry (KernelAgent's names)."""
    bag = {
        "logger": logging.getLogger("opt_worker_0"),
        "log_dir": directory / "logs",
        "artifacts_dir": directory / "artifacts",
        "ncu_bin_path": str(FAKE_NCU),
        "profiling_semaphore": semaphore,
        "openai_model": "gpt-5",
        "gpu_name": "NVIDIA H200",
        "roofline_config": KernelAgentRooflineConfig(),
    }
    bag.update(changes)
    return bag


def fresh_registry():
    from triton_kernel_agent.platform.registry import PlatformRegistry

    return kprof.kernelagent.register(PlatformRegistry())


# ---- what an orchestrator does with results.metrics ---------------------------------------------


def first_kernel(metrics):
    """The path of KernelAgent's orchestrator that takes the first kernel as it is."""
    return next(iter(metrics.values()), {})


def first_triton_kernel(metrics):
    """The path that skips names starting with at:: or void at::, else takes the first."""
    for name, values in metrics.items():
        if not name.startswith("at::") and not name.startswith("void at::"):
            return values
    return next(iter(metrics.values()), {})


# ---- the stand-in GPU -------------------------------------------------------------------------------


@pytest.fixture
def fake_gpu(monkeypatch, tmp_path):
    """The stand-in ncu replaying batch4_flat_regex_ranges.csv (candidate 0 is add_kernel,
    181,088 ns, memory SOL 90.16%), fake torch on the harness's path, a private GPU lock dir."""
    path = os.environ.get("PYTHONPATH", "")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(p for p in [str(STANDINS / "fake_torch"), path] if p))
    monkeypatch.setenv("KPROF_FAKE_NCU_CSV", str(BATCH4))
    monkeypatch.delenv("KPROF_FAKE_NCU_SCENARIO", raising=False)
    monkeypatch.delenv("KPROF_FAKE_NCU_SOURCE", raising=False)
    monkeypatch.setenv("KPROF_LOCK_DIR", str(tmp_path / "locks"))
    monkeypatch.delenv("KPROF_NCU_USE_SUDO", raising=False)
    return tmp_path


def write_op_then_two_launches(directory):
    """batch4's candidate 0 made into what the issue saw on the H200: a PyTorch op first, then the
    Triton kernel launched twice. Derived from the recording: candidate 1's partial_sum_kernel row
    (memory SOL 56.04%) renamed to a PyTorch fill kernel, moved into candidate 0's range and given
    400,000 ns, so that it is the longest kernel; then the recorded add_kernel (181,088 ns, memory
    SOL 90.16%) and a copy of it with ID 2, 200,000 ns and memory SOL 93.50%."""
    lines = BATCH4.read_text(encoding="utf-8").splitlines(keepends=True)
    preamble = [line for line in lines if line.startswith("==")]
    table = list(csv.reader(line for line in lines if not line.startswith("==")))
    header, units, rows = table[0], table[1], table[2:]
    name, ident = header.index("Kernel Name"), header.index("ID")
    by_name = {row[name]: row for row in rows}
    op, first = list(by_name["partial_sum_kernel"]), list(by_name["add_kernel"])
    nvtx = [i for i, column in enumerate(header) if "Push/Pop_Range" in column][0]
    op[nvtx] = first[nvtx]
    op[name], op[ident], op[header.index(DURATION)] = ATEN_FILL, "0", "400,000"
    first[ident] = "1"
    second = list(first)
    second[ident], second[header.index(DURATION)], second[header.index(MEMORY_SOL)] = "2", "200,000", "93.50"
    path = directory / "op_then_two_launches.csv"
    with open(path, "w", encoding="utf-8", newline="") as handle:
        handle.writelines(preamble)
        writer = csv.writer(handle, quoting=csv.QUOTE_ALL, lineterminator="\n")
        writer.writerows([header, units, op, first, second])
    return path


# ---- import and registration ------------------------------------------------------------------


def test_import_kprof_works_without_kernelagent_and_register_says_what_is_missing():
    code = textwrap.dedent(
        """
        import kprof, kprof.kernelagent
        try:
            kprof.kernelagent.register()
        except ImportError as error:
            print("ImportError:", error)
        """
    )
    env = dict(os.environ)
    env["PYTHONPATH"] = str(pathlib.Path(kprof.__file__).resolve().parents[1])  # kprof, no KernelAgent
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False)
    assert done.returncode == 0, done.stderr
    assert "ImportError:" in done.stdout
    assert "triton_kernel_agent.platform.registry" in done.stdout
    assert "PYTHONPATH" in done.stdout


def test_register_puts_the_four_components_into_kernelagents_global_registry(kernelagent, fake_gpu):
    registry = kprof.kernelagent.register()
    from triton_kernel_agent.platform.registry import registry as global_registry

    assert registry is global_registry
    config = {component: "kprof" for component in kprof.kernelagent.COMPONENTS}
    made = registry.create_from_config(config, **worker_bag(fake_gpu))
    assert isinstance(made["profiler"], kprof.KernelProfiler)
    assert made["roofline_analyzer"].config.early_stop is True
    assert made["bottleneck_analyzer"].roofline.config.threshold_pct == 95.0
    assert made["specs_provider"].get_specs("NVIDIA H200")["name"] == "NVIDIA H200"


def test_register_checks_the_profiler_options_at_once(kernelagent):
    with pytest.raises(TypeError, match="standby"):
        kprof.kernelagent.register(fresh_registry(), standby="yes")
    with pytest.raises(kprof.UsageError, match="biggest"):
        kprof.kernelagent.register(fresh_registry(), select="biggest")


def test_the_registry_hands_the_profiler_log_dir_as_logs_dir_and_defaults_artifacts_dir(kernelagent, fake_gpu):
    registry = fresh_registry()
    profiler = registry.create("profiler", "kprof", **worker_bag(fake_gpu))
    assert profiler.logs_dir == str(fake_gpu / "logs")
    assert profiler.artifacts_dir == str(fake_gpu / "artifacts")
    assert profiler.ncu_bin_path == str(FAKE_NCU)
    no_artifacts = worker_bag(fake_gpu)
    del no_artifacts["artifacts_dir"]
    assert registry.create("profiler", "kprof", **no_artifacts).artifacts_dir == str(fake_gpu / "logs" / "artifacts")


# ---- the profiling semaphore ---------------------------------------------------------------------


class RecordingSemaphore:
    """acquire(timeout=) / release() that records what the profiler's round looked like then."""

    def __init__(self, round_dir, grant=True):
        self.round_dir = round_dir
        self.grant = grant
        self.events = []

    def acquire(self, timeout=None):
        self.events.append(("acquire", timeout, self.round_dir.exists()))
        return self.grant

    def release(self):
        self.events.append(("release", None, self.round_dir.exists()))


def test_the_profiler_holds_the_semaphore_around_each_profile(kernelagent, fake_gpu):
    semaphore = RecordingSemaphore(fake_gpu / "artifacts" / "round001")
    profiler = fresh_registry().create("profiler", "kprof", **worker_bag(fake_gpu, semaphore))
    assert profiler.profile_kernel(VADD_KERNEL, VADD_PROBLEM, 1) is not None
    # Acquired before the round existed (KernelAgent's 900 s limit), released after it was written.
    assert semaphore.events == [("acquire", 900, False), ("release", None, True)]


def test_a_semaphore_not_released_in_time_skips_the_round(kernelagent, fake_gpu, caplog):
    semaphore = RecordingSemaphore(fake_gpu / "artifacts" / "round001", grant=False)
    profiler = fresh_registry().create("profiler", "kprof", **worker_bag(fake_gpu, semaphore))
    with caplog.at_level(logging.ERROR, logger="opt_worker_0"):
        assert profiler.profile_kernel(VADD_KERNEL, VADD_PROBLEM, 1) is None
    assert any("semaphore" in record.getMessage() for record in caplog.records)
    assert semaphore.events == [("acquire", 900, False)]
    assert not (fake_gpu / "artifacts" / "round001").exists()


def _forked_worker(log_dir, semaphore, queue):
    """A KernelAgent worker process: resolves its profiler through the registry with the
    manager's semaphore and profiles one round."""
    from triton_kernel_agent.platform.registry import registry

    profiler = registry.create("profiler", "kprof", **worker_bag(pathlib.Path(log_dir), semaphore))
    results = profiler.profile_kernel(VADD_KERNEL, VADD_PROBLEM, 1)
    queue.put(None if results is None else list(results.metrics))


def test_a_forked_worker_profiles_with_the_managers_multiprocessing_semaphore(kernelagent, fake_gpu):
    kprof.kernelagent.register()  # before the fork, as a KernelAgent script would
    context = multiprocessing.get_context("fork")
    semaphore = context.Semaphore(1)
    queue = context.Queue()
    worker = context.Process(target=_forked_worker, args=(str(fake_gpu), semaphore, queue))
    worker.start()
    try:
        assert queue.get(timeout=120) == ["add_kernel"]
    finally:
        worker.join(timeout=30)
    assert worker.exitcode == 0
    assert semaphore.get_value() == 1  # released again


# ---- what the orchestrator reads ---------------------------------------------------------------


def test_the_orchestrator_reads_the_triton_kernel_first_and_one_dict_for_two_launches(kernelagent, fake_gpu, monkeypatch):
    monkeypatch.setenv("KPROF_FAKE_NCU_CSV", str(write_op_then_two_launches(fake_gpu)))
    profiler = fresh_registry().create("profiler", "kprof", **worker_bag(fake_gpu))
    results = profiler.profile_kernel(VADD_KERNEL, VADD_PROBLEM, 1)
    assert results is not None
    # The PyTorch op is the longest kernel, but the candidate's own kernel comes first.
    assert list(results.metrics) == ["add_kernel", ATEN_FILL]
    for read in (first_kernel, first_triton_kernel):
        flat = read(results.metrics)
        assert isinstance(flat, dict)
        assert flat[DURATION] == 200000.0  # the longer of add_kernel's two launches
        assert flat[MEMORY_SOL] == 93.5  # not the PyTorch op's 56.04
        assert isinstance(flat[COMPUTE_SOL], float)
    roofline = kprof.kernelagent.RooflineAnalyzer().analyze(first_kernel(results.metrics))
    assert roofline.bottleneck == "memory"
    assert roofline.memory_sol_pct == 93.5
    assert roofline.efficiency_pct > 0


def test_an_explicit_select_all_still_gives_a_list_per_repeated_kernel(kernelagent, fake_gpu, monkeypatch):
    monkeypatch.setenv("KPROF_FAKE_NCU_CSV", str(write_op_then_two_launches(fake_gpu)))
    profiler = kprof.KernelProfiler(fake_gpu / "artifacts", fake_gpu / "logs", ncu_bin_path=FAKE_NCU, select="all")
    metrics = profiler.profile(VADD_KERNEL, VADD_PROBLEM, 1).metrics
    assert [launch[DURATION] for launch in metrics["add_kernel"]] == [181088.0, 200000.0]


def test_the_kernelagent_file_has_its_keys_microseconds_and_lies_in_log_dir_only(kernelagent, fake_gpu):
    profiler = fresh_registry().create("profiler", "kprof", **worker_bag(fake_gpu))
    results = profiler.profile_kernel(VADD_KERNEL, VADD_PROBLEM, 1)
    logged = fake_gpu / "logs" / "round001_ncu_metrics.json"
    assert logged.is_file()
    assert not (fake_gpu / "artifacts" / "round001_ncu_metrics.json").exists()
    body = json.loads(logged.read_text(encoding="utf-8"))
    assert body == results.to_dict()
    assert list(body["metadata"]) == ["kernel_file", "problem_file", "round_num", "timestamp", "ncu_version"]
    assert dataclasses.asdict(results.metadata) == body["metadata"]
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z", results.metadata.timestamp)
    assert results.metadata.round_num == 1 and results.metadata["kernel_file"] == str(VADD_KERNEL)
    assert isinstance(body["metrics"]["add_kernel"][DURATION], float)
    assert isinstance(body["metrics"]["add_kernel"]["launch__registers_per_thread"], int)


def test_the_current_kernel_and_the_candidate_of_one_round_are_two_history_entries(kernelagent, fake_gpu):
    # KernelAgent's round 1 profiles kernel_round_0.py (the current kernel), then
    # kernel_round_1_sol.py (the candidate), both as round 1.
    current, candidate = fake_gpu / "kernel_round_0.py", fake_gpu / "kernel_round_1_sol.py"
    for path in (current, candidate):
        shutil.copyfile(VADD_KERNEL, path)
    profiler = fresh_registry().create("profiler", "kprof", **worker_bag(fake_gpu))
    assert profiler.profile_kernel(current, VADD_PROBLEM, 1) is not None
    assert profiler.profile_kernel(candidate, VADD_PROBLEM, 1) is not None
    rows = kprof.History(fake_gpu / "artifacts").rounds()
    assert [(row["round"], row["label"], row["kept_at"]) for row in rows] == [
        (1, "kernel_round_0.py", "round001.kernel-1"),
        (1, "kernel_round_1_sol.py", None),
    ]
    assert (fake_gpu / "artifacts" / "round001.kernel-1" / "report.json").is_file()
    assert kprof.History(fake_gpu / "artifacts").document(1)["metadata"]["kernel_file"] == str(candidate)


def test_the_registry_profiler_keeps_standby_working(kernelagent, fake_gpu):
    registry = kprof.kernelagent.register(fresh_registry(), standby=True)
    profiler = registry.create("profiler", "kprof", **worker_bag(fake_gpu))
    try:
        first = profiler.profile(VADD_KERNEL, VADD_PROBLEM, 1)
        assert first.report["metadata"]["standby"] is False
        deadline = time.monotonic() + 30
        second = None
        while time.monotonic() < deadline:
            if any((fake_gpu / "artifacts" / ".standby").glob("*/status.json")):
                second = profiler.profile(VADD_KERNEL, VADD_PROBLEM, 2)
                break
            time.sleep(0.05)
        assert second is not None, "no standby was started"
        assert second.report["metadata"]["standby"] is True
        assert second.metrics == first.metrics
    finally:
        profiler.close()


# ---- roofline and bottleneck analysis -------------------------------------------------------------


def test_the_roofline_analyzer_answers_kernelagents_calls_with_kprofs_verdict(kernelagent):
    analyzer = fresh_registry().create("roofline_analyzer", "kprof", logger=None, roofline_config=KernelAgentRooflineConfig())
    assert analyzer.config.early_stop is True
    analyzer.reset_history()
    low = analyzer.analyze({COMPUTE_SOL: 7.7, MEMORY_SOL: 38.8})
    assert (low.bottleneck, low.at_roofline, low.headroom_pct) == ("underutilized", False, pytest.approx(61.2))
    assert set(low.to_dict()) >= {"compute_sol_pct", "memory_sol_pct", "efficiency_pct", "at_roofline",
                                  "headroom_pct", "bottleneck", "uses_tensor_cores", "warnings"}
    unknown = analyzer.analyze({})
    assert unknown.bottleneck == "unknown" and len(unknown.warnings) == 2
    at_roof = analyzer.analyze({COMPUTE_SOL: 20.0, MEMORY_SOL: 96.0})
    stop, reason = analyzer.should_stop(at_roof)
    assert stop and "roofline" in reason
    analyzer.reset_history()
    steady = [analyzer.should_stop(analyzer.analyze({COMPUTE_SOL: 20.0, MEMORY_SOL: 70.0}))[0] for _ in range(5)]
    assert steady == [False, False, False, False, True]


def test_tensor_cores_come_from_the_tensor_pipe_metric_kprof_collects():
    analyzer = kprof.kernelagent.RooflineAnalyzer()
    collected = {COMPUTE_SOL: 80.0, MEMORY_SOL: 40.0, "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed": 60.0}
    assert analyzer.analyze(collected).uses_tensor_cores is True
    # The metric KernelAgent's own roofline reads; its profiler never collects it.
    never = {COMPUTE_SOL: 80.0, MEMORY_SOL: 40.0, "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active": 60.0}
    assert analyzer.analyze(never).uses_tensor_cores is False


def test_a_kernelagent_roofline_config_sets_the_thresholds(kernelagent):
    analyzer = fresh_registry().create("roofline_analyzer", "kprof", roofline_config=KernelAgentRooflineConfig(threshold_pct=50.0))
    assert analyzer.analyze({COMPUTE_SOL: 7.0, MEMORY_SOL: 61.0}).at_roofline is True


def test_the_bottleneck_analyzer_hands_kernelagents_analyzer_the_flat_metrics_and_hot_lines(kernelagent, fake_gpu, monkeypatch):
    monkeypatch.setenv("KPROF_FAKE_NCU_SOURCE", str(FIXTURES / "source" / "vadd.source.csv"))
    registry = kprof.kernelagent.register(fresh_registry(), source=True)
    made = registry.create_from_config({"profiler": "kprof", "bottleneck_analyzer": "kprof"}, **worker_bag(fake_gpu))
    results = made["profiler"].profile_kernel(VADD_KERNEL, VADD_PROBLEM, 1)
    analyzer = made["bottleneck_analyzer"]
    # As KernelAgent's orchestrator does: the roofline of the first kernel, then the whole dict.
    roofline = analyzer.roofline.analyze(next(iter(results.metrics.values())))
    bottlenecks = analyzer.analyze("# kernel code", results.metrics, 1, roofline)
    assert bottlenecks[0].category == "memory"
    from triton_kernel_agent.opt_worker_component.prescribing import bottleneck_analyzer as fake

    (created,) = fake.CREATED
    assert created["gpu_specs"]["name"] == "NVIDIA H200"
    assert created["provider"] == ("fake provider", "gpt-5")
    (call,) = fake.CALLS
    flat = call["ncu_metrics"]
    # Metric names at the top level: KernelAgent's labelled prompt sections find them.
    assert flat[MEMORY_SOL] == results.metrics["add_kernel"][MEMORY_SOL]
    assert "dram__throughput.avg.pct_of_peak_sustained_elapsed" in flat
    assert "add_kernel" not in flat
    assert flat["kprof hot lines"].startswith("Hot lines")
    # The truth beside the counters, as the prompt's first lines (issue 43).
    truth = flat["kprof measured, checked and speed of light"]
    prompt = kprof.render(results.report, "prompt")
    assert all(line in prompt for line in truth.splitlines()), (truth, prompt)
    assert any(line.startswith("Measured:") for line in truth.splitlines()), truth
    assert call["roofline_result"] is roofline


def test_the_bottleneck_analyzer_leaves_hot_lines_out_when_none_were_collected(kernelagent, fake_gpu):
    registry = fresh_registry()
    made = registry.create_from_config({"profiler": "kprof", "bottleneck_analyzer": "kprof"}, **worker_bag(fake_gpu))
    results = made["profiler"].profile_kernel(VADD_KERNEL, VADD_PROBLEM, 1)
    made["bottleneck_analyzer"].analyze("# kernel code", results.metrics, 1)
    from triton_kernel_agent.opt_worker_component.prescribing import bottleneck_analyzer as fake

    (call,) = fake.CALLS
    assert "kprof hot lines" not in call["ncu_metrics"]
    assert call["roofline_result"].bottleneck == "memory"  # computed when none was given


def test_the_specs_provider_gives_kernelagents_keys_from_kprofs_gpu_table(kernelagent):
    provider = fresh_registry().create("specs_provider", "kprof", **worker_bag(pathlib.Path(".")))
    specs = provider.get_specs("NVIDIA H200")
    assert specs["peak_memory_bw_gbps"] == pytest.approx(4800)
    assert specs["sm_count"] == 132 and specs["architecture"] == "Hopper"
    assert provider.get_specs("NVIDIA H100 NVL 94GB")["peak_memory_bw_gbps"] == pytest.approx(3900)
    with pytest.raises(ValueError, match="NVIDIA H200"):
        provider.get_specs("NVIDIA GeForce 256")
    with pytest.raises(kprof.UsageError, match="gpu_name"):
        provider.get_specs(None)


# ---- reading captures as KernelAgent does -------------------------------------------------------


def test_load_ncu_metrics_of_a_details_page_with_columns_returns_the_kernel_rows():
    rows = kprof.load_ncu_metrics(DETAILS_SOFTMAX, columns=[DURATION, MEMORY_SOL])
    assert [row["Kernel Name"] for row in rows] == ["softmax_kernel"]
    assert list(rows[0]) == ["Kernel Name"]
