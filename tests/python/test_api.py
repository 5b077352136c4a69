"""Tests of the Python package `kprof` (python/), run against a build tree:

    PYTHONPATH=<build>/python /usr/bin/python3 -m pytest tests/python/test_api.py

Values asserted below were read by hand from the recorded captures in
tests/fixtures/ncu/2025.3.1/ (see /work/shared/ncu-samples/README.md). The profiling tests use
the stand-in ncu (tests/standins/ncu) and fake torch (tests/standins/fake_torch); the test of the
real ncu is skipped, with the reason, where no GPU or ncu is present.
"""

import csv
import enum
import glob
import json
import logging
import os
import pathlib
import pickle
import shutil
import subprocess
import sys
import textwrap
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

import kprof

ROOT = pathlib.Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "ncu" / "2025.3.1"
STANDINS = ROOT / "tests" / "standins"
EXAMPLES = ROOT / "examples"
TWOSTAGE = FIXTURES / "curated_nvtx_twostage.csv"
TWOSTAGE_INSTANCES = FIXTURES / "curated_instances_twostage.csv"
BATCH4 = FIXTURES / "batch4_flat_regex_ranges.csv"
DETAILS_SOFTMAX = FIXTURES / "details_page_softmax.csv"
NO_KERNELS = FIXTURES / "no_kernels_profiled.txt"
FAKE_NCU = STANDINS / "ncu"
VADD_KERNEL = EXAMPLES / "vadd" / "kernel.py"
VADD_PROBLEM = EXAMPLES / "vadd" / "problem.py"
CASES = pathlib.Path(__file__).resolve().parent / "cases"


def kprof_binary() -> pathlib.Path:
    """The built CLI: $KPROF_BUILD_DIR/kprof, else the build tree this package was loaded from."""
    build = os.environ.get("KPROF_BUILD_DIR")
    base = pathlib.Path(build) if build else pathlib.Path(kprof.__file__).resolve().parents[2]
    binary = base / "kprof"
    if not binary.is_file():
        pytest.fail(f"the kprof CLI is not built at {binary} (build the kprof_exe target or set KPROF_BUILD_DIR)")
    return binary


def run_cli(*args: str) -> str:
    completed = subprocess.run(
        [str(kprof_binary()), *args], capture_output=True, text=True, check=False
    )
    assert completed.returncode == 0, completed.stderr
    return completed.stdout


def by_name(rows):
    return {row["Kernel Name"]: row for row in rows}


def write_repeated_capture(directory: pathlib.Path) -> pathlib.Path:
    """The twostage capture with another, longer launch of partial_sum_kernel (ID 2) before the
    recorded ones: gpu__time_duration.sum 7,000 ns, sm__cycles_active.avg 99,999 and
    dram__bytes_read.sum 1,234 (the recorded launch has 6,208 ns, 9,035.68 cycles and
    16,781,824 bytes)."""
    lines = TWOSTAGE.read_text(encoding="utf-8").splitlines(keepends=True)
    preamble = [line for line in lines if line.startswith("==")]
    table = list(csv.reader(line for line in lines if not line.startswith("==")))
    header, units, rows = table[0], table[1], table[2:]
    extra = list(rows[0])
    assert extra[header.index("Kernel Name")] == "partial_sum_kernel"
    extra[header.index("ID")] = "2"
    extra[header.index("gpu__time_duration.sum")] = "7,000"
    extra[header.index("sm__cycles_active.avg")] = "99,999"
    extra[header.index("dram__bytes_read.sum")] = "1,234"
    path = directory / "repeated.csv"
    with open(path, "w", encoding="utf-8", newline="") as handle:
        handle.writelines(preamble)
        writer = csv.writer(handle, quoting=csv.QUOTE_ALL, lineterminator="\n")
        writer.writerows([header, units, extra, *rows])
    return path


# ---- reading captures ---------------------------------------------------------------------------


def test_load_ncu_metrics_reads_both_kernels_of_the_twostage_capture():
    rows = kprof.load_ncu_metrics(TWOSTAGE)
    assert [row["Kernel Name"] for row in rows] == ["partial_sum_kernel", "scale_kernel"]
    named = by_name(rows)
    assert named["partial_sum_kernel"]["dram__bytes_read.sum"] == 16781824
    assert isinstance(named["partial_sum_kernel"]["dram__bytes_read.sum"], int)
    assert named["scale_kernel"]["gpu__time_duration.sum"] == 9856
    assert named["partial_sum_kernel"]["sm__cycles_active.avg"] == pytest.approx(9035.68)


def test_load_ncu_metrics_leaves_out_default_metrics_the_device_lacks():
    # sm__inst_executed_pipe_fp32 is one of KernelAgent's metrics that ncu drops on H200.
    rows = kprof.load_ncu_metrics(TWOSTAGE)
    assert "sm__inst_executed_pipe_fp32.avg.pct_of_peak_sustained_active" not in rows[0]
    assert rows.columns[0] == "Kernel Name"
    assert not rows.empty


def test_load_ncu_metrics_keeps_the_requested_columns_in_the_requested_order():
    columns = ["gpu__time_duration.sum", "dram__bytes_read.sum"]
    rows = kprof.load_ncu_metrics(str(TWOSTAGE), columns=columns)
    assert [list(row) for row in rows] == [["Kernel Name", *columns]] * 2


def test_load_ncu_metrics_keeps_only_the_kernel_names_when_none_of_the_columns_is_in_the_file():
    # KernelAgent's load_ncu_metrics returns the rows then, with their "Kernel Name" alone.
    rows = kprof.load_ncu_metrics(TWOSTAGE, columns=["no_such__metric.sum"])
    assert [list(row) for row in rows] == [["Kernel Name"]] * 2


def test_load_ncu_metrics_filters_kernels_by_name_substring():
    rows = kprof.load_ncu_metrics(TWOSTAGE, name_list=["scale"])
    assert [row["Kernel Name"] for row in rows] == ["scale_kernel"]


def test_load_ncu_metrics_returns_no_rows_when_no_name_matches():
    rows = kprof.load_ncu_metrics(TWOSTAGE, name_list=["no_such_kernel"])
    assert rows == [] and rows.empty


@pytest.mark.parametrize(
    "select, durations",
    [("first", [7000]), ("last", [6208]), ("max-cycles", [7000]), ("max_cycles", [7000]), ("all", [7000, 6208])],
)
def test_select_policy_picks_launches_per_kernel_name(tmp_path, select, durations):
    rows = kprof.load_ncu_metrics(write_repeated_capture(tmp_path), select=select)
    partial = [row["gpu__time_duration.sum"] for row in rows if row["Kernel Name"] == "partial_sum_kernel"]
    scale = [row for row in rows if row["Kernel Name"] == "scale_kernel"]
    assert partial == durations
    assert len(scale) == 1


def test_max_cycles_selects_by_cycles_even_when_other_columns_are_requested(tmp_path):
    rows = kprof.load_ncu_metrics(write_repeated_capture(tmp_path), columns=["dram__bytes_read.sum"], select="max-cycles")
    assert [list(row) for row in rows] == [["Kernel Name", "dram__bytes_read.sum"]] * 2
    assert by_name(rows)["partial_sum_kernel"]["dram__bytes_read.sum"] == 1234


def test_select_accepts_kernelagent_policy_enums(tmp_path):
    class MetricSelectionPolicy(enum.Enum):
        FIRST = "first"

    rows = kprof.load_ncu_metrics(write_repeated_capture(tmp_path), select=MetricSelectionPolicy.FIRST)
    assert by_name(rows)["partial_sum_kernel"]["gpu__time_duration.sum"] == 7000


def test_bad_select_word_raises_usage_error_listing_the_words():
    with pytest.raises(kprof.UsageError) as caught:
        kprof.load_ncu_metrics(TWOSTAGE, select="newest")
    error = caught.value
    assert isinstance(error, ValueError) and isinstance(error, kprof.KprofError)
    assert error.category == "usage"
    for word in ("first", "last", "max-cycles", "all"):
        assert word in error.message


def test_to_pandas_explains_that_pandas_is_missing(monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)  # makes `import pandas` fail
    rows = kprof.load_ncu_metrics(TWOSTAGE)
    with pytest.raises(ImportError, match="needs pandas"):
        rows.to_pandas()


# ---- metrics_to_prompt ----------------------------------------------------------------------------


def test_metrics_to_prompt_keys_metrics_by_kernel_name():
    text = kprof.metrics_to_prompt(kprof.load_ncu_metrics(TWOSTAGE))
    data = json.loads(text)
    assert list(data) == ["partial_sum_kernel", "scale_kernel"]
    assert data["partial_sum_kernel"]["dram__bytes_read.sum"] == 16781824
    assert "Kernel Name" not in data["scale_kernel"]
    assert text.startswith('{\n  "partial_sum_kernel": {\n    "')


def test_metrics_to_prompt_rounds_floats_to_round_digits():
    rows = kprof.load_ncu_metrics(TWOSTAGE, columns=["sm__cycles_active.avg", "gpu__time_duration.sum"])
    assert json.loads(kprof.metrics_to_prompt(rows, round_digits=1))["scale_kernel"] == {
        "sm__cycles_active.avg": 14184.7,
        "gpu__time_duration.sum": 9856,
    }
    unrounded = json.loads(kprof.metrics_to_prompt(rows, round_digits=None))
    assert unrounded["scale_kernel"]["sm__cycles_active.avg"] == 14184.72


def test_metrics_to_prompt_lists_rows_of_a_repeated_kernel_name(tmp_path):
    rows = kprof.load_ncu_metrics(write_repeated_capture(tmp_path), columns=["gpu__time_duration.sum"], select="all")
    data = json.loads(kprof.metrics_to_prompt(rows))
    assert data["partial_sum_kernel"] == [{"gpu__time_duration.sum": 7000}, {"gpu__time_duration.sum": 6208}]
    assert data["scale_kernel"] == {"gpu__time_duration.sum": 9856}


def test_metrics_to_prompt_compact_and_keep_cols():
    rows = kprof.load_ncu_metrics(TWOSTAGE)
    text = kprof.metrics_to_prompt(rows, compact=True, keep_cols=["gpu__time_duration.sum"])
    assert "\n" not in text
    assert json.loads(text) == {
        "partial_sum_kernel": {"gpu__time_duration.sum": 6208},
        "scale_kernel": {"gpu__time_duration.sum": 9856},
    }


def test_metrics_to_prompt_of_a_report_is_its_kernelagent_metrics_block():
    doc = kprof.report(TWOSTAGE)
    assert kprof.metrics_to_prompt(doc) == json.dumps(doc["metrics"], indent=2)


# ---- report and render ----------------------------------------------------------------------------


def test_report_builds_the_versioned_document():
    doc = kprof.report(TWOSTAGE)
    assert doc["schema_version"] == 4
    assert doc["metadata"]["select"] == "all"
    assert [kernel["name"] for kernel in doc["kernels"]] == ["partial_sum_kernel", "scale_kernel"]
    assert doc["summary"]["total_duration_ns"] == 6208 + 9856
    assert doc["summary"]["dominant_kernel"] == "scale_kernel"
    assert doc["metrics"]["scale_kernel"]["gpu__time_duration.sum"] == 9856
    assert set(doc["roofline"]) == {"partial_sum_kernel", "scale_kernel"}


@pytest.mark.parametrize("capture", [TWOSTAGE, DETAILS_SOFTMAX, BATCH4])
def test_prompt_is_identical_to_the_cli_prompt(capture):
    expected = run_cli("report", str(capture), "--format", "prompt")
    assert kprof.render(kprof.report(capture), "prompt") == expected


def test_prompt_with_select_and_kernel_filter_matches_the_cli(tmp_path):
    capture = write_repeated_capture(tmp_path)
    expected = run_cli("report", str(capture), "--format", "prompt", "--select", "first", "--kernel", "partial")
    doc = kprof.report(capture, select="first", kernels=["partial"])
    assert kprof.render(doc, "prompt") == expected


def test_report_of_a_report_json_analyses_it_again_with_its_own_selection(tmp_path):
    capture = write_repeated_capture(tmp_path)
    first = kprof.report(capture, select="first", kernels=["partial"])
    path = tmp_path / "round" / "report.json"
    path.parent.mkdir()
    path.write_text(json.dumps(first))
    again = kprof.report(path.parent)
    assert again["metadata"]["select"] == "first"
    assert again["metadata"]["reanalysis"]["report"] == str(path)
    assert again["kernels"] == first["kernels"]
    assert kprof.render(again, "prompt") == run_cli("report", str(path), "--format", "prompt")


def test_a_report_json_analysed_again_keeps_its_workload_and_truth_as_written(tmp_path):
    """Its rows are analysed again; the call's timeline and the timed, checked call are not made
    again, so the members the round wrote are kept (Python, CLI JSON and prompt alike)."""
    first = kprof.report(write_repeated_capture(tmp_path))
    first["workload"] = {"launches": 202, "kernels": [], "note": "as the round wrote it"}
    first["truth"] = {"check": {"verdict": "pass"}, "timing": {"median_us": 12.5}}
    path = tmp_path / "round" / "report.json"
    path.parent.mkdir()
    path.write_text(json.dumps(first))
    again = kprof.report(path)
    assert (again["workload"], again["truth"]) == (first["workload"], first["truth"])
    cli = json.loads(run_cli("report", str(path), "--format", "json"))
    assert (cli["workload"], cli["truth"]) == (first["workload"], first["truth"])


def test_render_json_parses_back_to_the_document():
    doc = kprof.report(TWOSTAGE)
    assert json.loads(kprof.render(doc, "json")) == doc


def test_render_rejects_an_unknown_format_listing_the_formats():
    with pytest.raises(kprof.UsageError, match="json, csv, prompt, table"):
        kprof.render(kprof.report(TWOSTAGE), "yaml")


def test_render_rejects_a_document_that_is_not_a_report():
    doc = kprof.report(TWOSTAGE)
    del doc["metadata"]["metric_set"]
    with pytest.raises(kprof.MalformedOutput, match="metric_set"):
        kprof.render(doc, "prompt")


# ---- errors ---------------------------------------------------------------------------------------


def test_missing_file_raises_input_not_found(tmp_path):
    missing = tmp_path / "absent.csv"
    with pytest.raises(kprof.InputNotFound) as caught:
        kprof.load_ncu_metrics(missing)
    assert isinstance(caught.value, FileNotFoundError)
    assert str(missing) in caught.value.message
    with pytest.raises(kprof.InputNotFound):
        kprof.report(missing)


def test_csv_that_is_not_ncu_output_raises_malformed_output(tmp_path):
    other = tmp_path / "other.csv"
    other.write_text("name,value\nalpha,1\nbeta,2\n", encoding="utf-8")
    with pytest.raises(kprof.MalformedOutput) as caught:
        kprof.load_ncu_metrics(other)
    assert caught.value.category == "malformed_input"
    with pytest.raises(kprof.MalformedOutput):
        kprof.report(other)


def test_ncu_output_without_kernels_raises_no_kernels_profiled():
    with pytest.raises(kprof.NoKernelsProfiled) as caught:
        kprof.report(NO_KERNELS)
    assert caught.value.category == "no_kernels"
    with pytest.raises(kprof.NoKernelsProfiled):
        kprof.load_ncu_metrics(NO_KERNELS)


def test_every_error_class_has_its_own_category_and_exit_code():
    classes = [
        kprof.UsageError, kprof.InputNotFound, kprof.MalformedOutput, kprof.NoKernelsProfiled,
        kprof.NcuNotFound, kprof.PermissionDenied, kprof.KernelImportError, kprof.ProblemInvalid,
        kprof.KernelRuntimeError, kprof.UnknownMetric, kprof.Timeout, kprof.NcuFailed,
        kprof.OutputError, kprof.DatabaseError, kprof.GpuBusy, kprof.SlurmError,
        kprof.ProgramCrashed, kprof.OutOfMemory, kprof.WrongOutput, kprof.InternalError,
    ]
    assert all(issubclass(cls, kprof.KprofError) for cls in classes)
    assert len({cls.category for cls in classes}) == len(classes)
    codes = {cls("x").exit_code for cls in classes}
    assert len(codes) == len(classes) and 0 not in codes
    assert kprof.UsageError("x").exit_code == 2 and kprof.InputNotFound("x").exit_code == 3
    assert kprof.ProgramCrashed("x").exit_code == 18
    assert kprof.OutOfMemory("x").exit_code == 19 and isinstance(kprof.OutOfMemory("x"), MemoryError)
    assert kprof.WrongOutput("x").exit_code == 20


def test_the_error_classes_are_the_librarys_categories_one_for_one():
    # README's exit-code table is the library's (a C++ test compares them): every code of an
    # error category there has its class, and every class's category is one the library knows.
    readme = (pathlib.Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    table = readme.split("## Exit codes", 1)[1].split("\n\n", 2)[1]
    cells = [line.split("|")[1].strip() for line in table.splitlines() if line.startswith("| ")]
    documented = {int(cell) for cell in cells if cell.isdigit()}
    not_errors = {0, 1, 130}  # success, not converged, interrupted
    classes = set(kprof._errors.ERROR_CLASSES.values())
    assert {cls("x").exit_code for cls in classes} == documented - not_errors
    known = [cls for cls in classes if cls is kprof.InternalError or cls("x").exit_code != 70]
    assert len(known) == len(classes)


def test_errors_survive_pickling_for_process_pools():
    error = kprof.PermissionDenied("no counters", "ERR_NVGPUCTRPERM")
    copy = pickle.loads(pickle.dumps(error))
    assert type(copy) is kprof.PermissionDenied
    assert (copy.message, copy.detail, copy.category) == ("no counters", "ERR_NVGPUCTRPERM", "permission_denied")


# ---- history --------------------------------------------------------------------------------------


@pytest.fixture
def two_rounds(tmp_path):
    """DIR with round 1 = curated_nvtx_twostage (16,064 ns) and round 2 =
    curated_instances_twostage (6,272 + 9,664 = 15,936 ns), recorded through the CLI."""
    out = tmp_path / "rounds"
    run_cli("report", str(TWOSTAGE), "--round", "1", "--out", str(out), "--format", "json")
    run_cli("report", str(TWOSTAGE_INSTANCES), "--round", "2", "--out", str(out), "--format", "json")
    return out


def test_history_lists_the_recorded_rounds(two_rounds):
    rows = kprof.History(two_rounds).rounds()
    assert [row["round"] for row in rows] == [1, 2]
    assert [row["status"] for row in rows] == ["ok", "ok"]
    assert rows[0]["total_duration_ns"] == 16064
    assert rows[1]["total_duration_ns"] == 15936
    assert [row["best"] for row in rows] == [False, True]
    assert kprof.History(str(two_rounds)).best()["round"] == 2
    assert kprof.History(two_rounds / "kprof.db").results(2).summary["total_duration_ns"] == 15936


def test_history_diff_compares_two_rounds(two_rounds):
    history = kprof.History(two_rounds)
    result = history.diff(1, "2")
    assert result["total"]["duration_ns"] == {"a": 16064, "b": 15936}
    assert result["total"]["speedup"] == pytest.approx(16064 / 15936)
    scale = next(kernel for kernel in result["kernels"] if kernel["name"] == "scale_kernel")
    assert scale["duration_ns"] == {"a": 9856, "b": 9664}
    assert result.prompt() == run_cli("diff", str(two_rounds), "1", "2", "--format", "prompt")


def test_diff_compares_two_report_documents():
    result = kprof.diff(kprof.report(TWOSTAGE), kprof.report(TWOSTAGE_INSTANCES))
    assert result["total"]["duration_ns"] == {"a": 16064, "b": 15936}
    assert "scale_kernel" in result.table()
    assert kprof.render(result, "json") == result.render("json")


def test_history_diff_of_an_unrecorded_round_raises_input_not_found(two_rounds):
    with pytest.raises(kprof.InputNotFound):
        kprof.History(two_rounds).diff(1, 7)


def test_history_diff_rejects_a_malformed_round_reference(two_rounds):
    with pytest.raises(kprof.UsageError):
        kprof.History(two_rounds).diff("1:", 2)


def test_history_converged_judges_the_rounds(two_rounds):
    history = kprof.History(two_rounds)
    verdict = history.converged()
    assert not verdict and verdict.reason == "improving" and verdict.rounds == 2
    # The best round's dominant kernel (scale_kernel) runs at under 40 % memory SOL.
    assert verdict.best_sol_pct is not None and 30 < verdict.best_sol_pct < 40
    at_roofline = history.converged(sol_threshold=30)
    assert at_roofline and at_roofline.reason == "at_roofline"
    assert at_roofline.best is not None and at_roofline.best["round"] == 2


def test_history_converged_rejects_a_window_below_one(two_rounds):
    with pytest.raises(kprof.UsageError):
        kprof.History(two_rounds).converged(window=0)


def test_reading_a_history_from_python_writes_nothing(two_rounds):
    # A run directory may be another user's or on a read-only disk: History only reads, as
    # `kprof history` does (no -wal or -shm beside the database, the file untouched).
    database = two_rounds / "kprof.db"
    for leftover in ("kprof.db-wal", "kprof.db-shm"):
        (two_rounds / leftover).unlink(missing_ok=True)
    before = sorted(p.name for p in two_rounds.iterdir()), database.stat().st_mtime_ns
    history = kprof.History(two_rounds)
    assert history.best()["round"] == 2 and len(history.rounds()) == 2
    history.diff(1, 2)
    del history
    assert (sorted(p.name for p in two_rounds.iterdir()), database.stat().st_mtime_ns) == before


def test_history_of_a_directory_without_database_raises_input_not_found(tmp_path):
    with pytest.raises(kprof.InputNotFound, match="no history"):
        kprof.History(tmp_path)


# ---- profiling with the stand-in ncu --------------------------------------------------------------


@pytest.fixture
def fake_gpu(monkeypatch, tmp_path):
    """The stand-in ncu replaying batch4_flat_regex_ranges.csv (candidate 0 is add_kernel,
    181,088 ns), fake torch on the harness's path, and a private GPU lock directory."""
    path = os.environ.get("PYTHONPATH", "")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(p for p in [str(STANDINS / "fake_torch"), path] if p))
    monkeypatch.setenv("KPROF_FAKE_NCU_CSV", str(BATCH4))
    monkeypatch.delenv("KPROF_FAKE_NCU_SCENARIO", raising=False)
    monkeypatch.setenv("KPROF_LOCK_DIR", str(tmp_path / "locks"))
    monkeypatch.delenv("KPROF_NCU_USE_SUDO", raising=False)
    return tmp_path


def make_profiler(directory, **options):
    return kprof.KernelProfiler(directory / "artifacts", directory / "logs", ncu_bin_path=FAKE_NCU, **options)


def test_profile_kernel_writes_the_round_and_returns_its_metrics(fake_gpu):
    profiler = make_profiler(fake_gpu)
    results = profiler.profile_kernel(VADD_KERNEL, VADD_PROBLEM, 1)
    assert results is not None and results.status == "ok"
    artifacts = fake_gpu / "artifacts"
    for name in ("round001/report.json", "round001/metrics.csv", "round001/ncu.log", "kprof.db"):
        assert (artifacts / name).is_file(), name
    # KernelAgent's file goes where KernelAgent writes it: logs_dir only.
    assert not (artifacts / "round001_ncu_metrics.json").exists()
    logged = json.loads((fake_gpu / "logs" / "round001_ncu_metrics.json").read_text(encoding="utf-8"))
    assert logged == results.to_dict()
    assert list(results.metrics) == ["add_kernel"]
    assert results.metrics["add_kernel"]["gpu__time_duration.sum"] == 181088
    assert results.metrics["add_kernel"]["dram__bytes_read.sum"] == 536890112
    assert results.metadata.round_num == 1 and results.metadata["round_num"] == 1
    assert results.metadata.ncu_version == "2025.3.1.0"
    assert results.metadata.kernel_file == str(VADD_KERNEL)
    assert results.summary["dominant_kernel"] == "add_kernel"
    assert results.roofline["add_kernel"]["bottleneck"] in ("memory", "compute", "latency")
    assert results.prompt() == kprof.render(results.report, "prompt")
    assert json.loads(results.to_json()) == results.to_dict()
    assert kprof.History(artifacts).rounds()[0]["round"] == 1


def test_a_models_many_launches_report_their_progress_and_what_the_budget_left_out(fake_gpu, monkeypatch, caplog):
    """Issue 42: the call's 202 launches are timed outside ncu (launches="many": from the start,
    so the slow replays below are paid by the representatives alone); ncu replays 3 of them
    (--max-replayed 3) and the profiler's progress lines say what was planned, what is left out,
    and every 5 s how long ncu has been replaying (2.5 s a replay here)."""
    monkeypatch.setenv("KPROF_FAKE_STEPS", "100")
    monkeypatch.setenv("KPROF_FAKE_NCU_REPLAY_SECONDS", "2.5")
    logger = logging.getLogger("kprof-test-workload")
    profiler = kprof.KernelProfiler(logger, fake_gpu / "artifacts", fake_gpu / "logs", ncu_bin_path=FAKE_NCU,
                                    max_replayed=3, launches="many")
    with caplog.at_level(logging.INFO, logger="kprof-test-workload"):
        results = profiler.profile(CASES / "many_launches" / "kernel.py", VADD_PROBLEM, 1)
    lines = [record.getMessage() for record in caplog.records]
    assert any("202 launches of 4 distinct kernels timed" in line and "(--max-replayed 3 leaves 1 out)" in line
               for line in lines), lines
    assert any("ncu replaying 3 representatives: 5 s so far" in line for line in lines), lines
    workload = results.report["workload"]
    assert (workload["launches"], workload["replayed"], workload["left_out"]["kernels"]) == (202, 3, 1)
    assert "Workload: 202 launches of 4 distinct kernels" in results.prompt()


def test_an_agents_loop_on_a_model_is_timed_first_after_its_first_round_and_never_on_a_standby(
    fake_gpu, monkeypatch, caplog
):
    """Under launches="auto" a standby's ncu would replay every launch of a model's call (202
    here, 2 s each): the first round of a problem nothing has profiled is timed first (no capped
    session) and finds the call long, and the next rounds of that problem are timed first and
    replay representatives only, cold; a problem of few launches keeps its standby."""
    monkeypatch.setenv("KPROF_FAKE_STEPS", "100")
    logger = logging.getLogger("kprof-test-model-loop")
    kernel = CASES / "many_launches" / "kernel.py"
    with caplog.at_level(logging.INFO, logger="kprof-test-model-loop"):
        with kprof.KernelProfiler(logger, fake_gpu / "artifacts", fake_gpu / "logs", ncu_bin_path=FAKE_NCU,
                                  max_replayed=3, standby=True) as profiler:
            first = profiler.profile(kernel, VADD_PROBLEM, 1)
            assert eventually(lambda: standby_processes(fake_gpu)), "no standby was started"
            first_lines = [record.getMessage() for record in caplog.records]
            caplog.clear()
            monkeypatch.setenv("KPROF_FAKE_NCU_REPLAY_SECONDS", "2")  # a full replay would take 400 s
            second = profiler.profile(kernel, VADD_PROBLEM, 2)
            second_lines = [record.getMessage() for record in caplog.records]
            monkeypatch.delenv("KPROF_FAKE_NCU_REPLAY_SECONDS")
            third = profiler.profile(VADD_KERNEL, VADD_PROBLEM, 3)  # one launch: two tiers no more
            fourth = profiler.profile(VADD_KERNEL, VADD_PROBLEM, 4)
    assert not any("went on past" in line for line in first_lines), first_lines
    assert any("202 launches of" in line and "timed" in line for line in first_lines), first_lines
    assert first.report["workload"]["launches"] == 202
    assert not any("went on past" in line for line in second_lines), second_lines
    assert second.report["metadata"]["standby"] is False
    assert (second.report["workload"]["launches"], second.report["workload"]["replayed"]) == (202, 3)
    assert "workload" not in third.report and "workload" not in fourth.report
    assert fourth.report["metadata"]["standby"] is True


def test_profile_model_ranks_a_models_kernels_by_their_share_as_kprof_model_does(fake_gpu, monkeypatch):
    """kprof.profile_model (issue 42 item 4): the problem's Model written as the candidate under
    out_dir/model/ and profiled with the command's defaults (launches="many", no check), its
    kernels ranked by their share of the call; a missing problem is InputNotFound."""
    monkeypatch.setenv("KPROF_FAKE_STEPS", "100")
    out = fake_gpu / "model-out"
    results = kprof.profile_model(CASES / "model" / "problem.py", 1, out_dir=out, ncu_bin_path=FAKE_NCU, retries=0)
    assert results.status == "ok"
    candidate = out / "model" / "kernel.py"
    assert results.metadata.kernel_file == str(candidate) and "torch.compile" not in candidate.read_text()
    workload = results.report["workload"]
    assert workload["launches"] == 201 and workload["kernels"][0]["function"] == "gemv_kernel"
    assert results.truth["check"] is None and results.truth["timing"]["timed_in"] == "plain_process"
    assert "Optimize first, by share of the call's kernel time: gemv_kernel (59%)" in results.prompt()
    compiled = kprof.profile_model(CASES / "model" / "problem.py", 2, out_dir=out, compile=True, launches="all",
                                   ncu_bin_path=FAKE_NCU, retries=0)
    assert "torch.compile(_model)" in candidate.read_text()
    assert "workload" not in compiled.report  # launches as given, not the model's default
    with pytest.raises(kprof.InputNotFound, match="absent.py"):
        kprof.profile_model(fake_gpu / "absent.py", 3, out_dir=out, ncu_bin_path=FAKE_NCU)
    with pytest.raises(TypeError, match="compile"):
        kprof.profile_model(CASES / "model" / "problem.py", 3, out_dir=out, compile="yes", ncu_bin_path=FAKE_NCU)


def test_profile_model_extracts_the_costliest_triton_kernels_as_kprof_model_extract_does(fake_gpu, monkeypatch):
    """profile_model(extract_dir=...) (issue 42 items 3-4): after the round, the call's costliest
    Triton kernels written as cases; the results' `extracted` says where."""
    monkeypatch.setenv("KPROF_FAKE_STEPS", "100")
    out, cases = fake_gpu / "model-out", fake_gpu / "cases"
    results = kprof.profile_model(CASES / "model" / "problem.py", 1, out_dir=out, ncu_bin_path=FAKE_NCU,
                                  retries=0, extract_dir=cases, extract_top=1)
    assert results.status == "ok"
    assert [k["name"] for k in results.extracted["kernels"]] == ["gemv_kernel"]
    assert results.extracted["kernels"][0]["directory"] == str(cases / "gemv_kernel")
    assert (cases / "gemv_kernel" / "kernel.py").is_file() and (cases / "gemv_kernel" / "problem.py").is_file()
    assert kprof.profile_model(CASES / "model" / "problem.py", 2, out_dir=out, ncu_bin_path=FAKE_NCU,
                               retries=0).extracted is None
    with pytest.raises(ValueError, match="extract_top"):
        kprof.profile_model(CASES / "model" / "problem.py", 3, out_dir=out, extract_dir=cases, extract_top=0)
    # The extraction runs the model on one GPU: several (which `kprof model`'s --gpu cannot name)
    # are refused by the library's round before it starts, for Python and MCP alike.
    with pytest.raises(kprof.UsageError, match="one GPU"):
        kprof.profile_model(CASES / "model" / "problem.py", 3, out_dir=out, ncu_bin_path=FAKE_NCU,
                            retries=0, gpus=[0, 1], extract_dir=cases)
    assert not (out / "round003").exists()
    # A cases directory others can write is refused after the round, which stands: its results
    # go with the error.
    open_cases = fake_gpu / "open-cases"
    open_cases.mkdir()
    open_cases.chmod(0o777)
    with pytest.raises(kprof.KprofError, match="--extract's directory") as refused:
        kprof.profile_model(CASES / "model" / "problem.py", 4, out_dir=out, ncu_bin_path=FAKE_NCU,
                            retries=0, extract_dir=open_cases)
    assert refused.value.results is not None and refused.value.results.status == "ok"
    assert (out / "round004" / "report.json").is_file()
    assert not any(open_cases.iterdir())


def test_relative_output_directories_are_kept_where_they_were_named(fake_gpu, monkeypatch):
    monkeypatch.chdir(fake_gpu)
    profiler = kprof.KernelProfiler("artifacts", "logs", ncu_bin_path=FAKE_NCU)
    monkeypatch.chdir(fake_gpu / "locks" if (fake_gpu / "locks").is_dir() else "/")
    results = profiler.profile(VADD_KERNEL, VADD_PROBLEM, 1)
    assert results.dir == str(fake_gpu / "artifacts" / "round001")
    assert (fake_gpu / "logs" / "round001_ncu_metrics.json").is_file()


def test_profile_kernel_returns_none_and_logs_when_counters_are_not_permitted(fake_gpu, monkeypatch, caplog):
    monkeypatch.setenv("KPROF_FAKE_NCU_SCENARIO", "permission")
    logger = logging.getLogger("kprof-test-agent")
    profiler = kprof.KernelProfiler(logger, fake_gpu / "artifacts", fake_gpu / "logs", ncu_bin_path=FAKE_NCU)
    with caplog.at_level(logging.ERROR, logger="kprof-test-agent"):
        assert profiler.profile_kernel(VADD_KERNEL, VADD_PROBLEM, 1) is None
    assert any("permission_denied" in record.getMessage() for record in caplog.records)
    assert not (fake_gpu / "logs" / "round001_ncu_metrics.json").exists()


def test_profile_raises_permission_denied_when_counters_are_not_permitted(fake_gpu, monkeypatch):
    monkeypatch.setenv("KPROF_FAKE_NCU_SCENARIO", "permission")
    with pytest.raises(kprof.PermissionDenied) as caught:
        make_profiler(fake_gpu).profile(VADD_KERNEL, VADD_PROBLEM, 1)
    assert "ERR_NVGPUCTRPERM" in caught.value.message + caught.value.detail
    assert caught.value.round_num == 1


def test_two_threads_profile_at_once(fake_gpu):
    profiler = make_profiler(fake_gpu)
    with ThreadPoolExecutor(max_workers=2) as pool:
        futures = [pool.submit(profiler.profile, VADD_KERNEL, VADD_PROBLEM, round_num) for round_num in (1, 2)]
        results = [future.result() for future in futures]
    assert [r.metadata.round_num for r in results] == [1, 2]
    assert all(r.metrics["add_kernel"]["gpu__time_duration.sum"] == 181088 for r in results)
    assert [row["round"] for row in kprof.History(fake_gpu / "artifacts").rounds()] == [1, 2]


HANDSHAKE_PROBLEM = textwrap.dedent(
    """
    # Imported by the harness under the stand-in ncu: says "ready", then waits for the test's
    # "go", which the test can only write while kprof runs ncu without holding the GIL.
    import os, pathlib, time
    import torch

    handshake = pathlib.Path(os.environ["KPROF_TEST_HANDSHAKE"])
    (handshake / "ready").write_text("")
    deadline = time.monotonic() + 60
    while not (handshake / "go").exists():
        if time.monotonic() > deadline:
            raise RuntimeError("no answer from the test: the GIL was held while ncu ran")
        time.sleep(0.01)

    def get_inputs():
        return [torch.rand(1024), torch.rand(1024)]

    def get_init_inputs():
        return []
    """
)


def test_python_threads_run_while_ncu_runs(fake_gpu, monkeypatch):
    handshake = fake_gpu / "handshake"
    handshake.mkdir()
    problem = fake_gpu / "problem.py"
    problem.write_text(HANDSHAKE_PROBLEM, encoding="utf-8")
    monkeypatch.setenv("KPROF_TEST_HANDSHAKE", str(handshake))
    profiler = make_profiler(fake_gpu)
    with ThreadPoolExecutor(max_workers=1) as pool:
        future = pool.submit(profiler.profile, VADD_KERNEL, problem, 1)
        while not (handshake / "ready").exists() and not future.done():
            time.sleep(0.01)  # polls a condition; this thread runs only if the GIL is free
        answered_before_done = not future.done()
        (handshake / "go").write_text("")
        results = future.result()
    assert answered_before_done
    assert results.metrics["add_kernel"]["gpu__time_duration.sum"] == 181088


def test_profile_batch_returns_results_or_the_error_per_candidate(fake_gpu):
    kernels = [VADD_KERNEL, EXAMPLES / "failures" / "raises.py"]
    outcomes = kprof.profile_batch(VADD_PROBLEM, kernels, 4, out_dir=fake_gpu / "batch", ncu_bin_path=FAKE_NCU)
    assert isinstance(outcomes[0], kprof.ProfilerResults)
    assert list(outcomes[0].metrics) == ["add_kernel"] and outcomes[0].candidate == 0
    assert isinstance(outcomes[1], kprof.KernelRuntimeError)
    assert outcomes[1].candidate == 1 and outcomes[1].kernel_file.endswith("raises.py")
    # It raised before launching anything, so no rows were profiled for it.
    assert outcomes[1].results is None
    assert outcomes[1].category == "kernel_raised"
    assert (fake_gpu / "batch" / "round004" / "cand0" / "report.json").is_file()


def test_a_batch_compiled_ahead_says_so_in_each_later_candidates_report(fake_gpu, monkeypatch):
    # With KPROF_COMPILE_AHEAD=1 kprof starts compile workers beside the session; each later
    # candidate's report says a worker compiled it, how long that took and how long the harness
    # waited for it (docs/harness.md, "Compiling ahead"). The fake kernels take 0.3 s a launch,
    # so that the worker, which starts with the harness, is ahead of it.
    monkeypatch.setenv("KPROF_COMPILE_AHEAD", "1")
    monkeypatch.setenv("KPROF_FAKE_TRITON_LAUNCH_SECONDS", "0.3")
    outcomes = kprof.profile_batch(VADD_PROBLEM, [VADD_KERNEL] * 3, 1, out_dir=fake_gpu / "batch",
                                   ncu_bin_path=FAKE_NCU)
    assert all(isinstance(outcome, kprof.ProfilerResults) for outcome in outcomes), outcomes
    reports = [json.loads((fake_gpu / "batch" / "round001" / ("cand%d" % i) / "report.json").read_text(encoding="utf-8"))
               for i in range(3)]
    first, second, third = (report["metadata"] for report in reports)
    assert first["compiled_ahead"] == "not compiled ahead: the harness's first candidate, run at once"
    assert first["compile_seconds"] == 0
    for later in (second, third):
        assert later["compiled_ahead"] == "compiled"
        assert later["compile_seconds"] > 0 and later["compile_wait_seconds"] >= 0
    # The workers (`harness.py PLAN --compile-worker`, PLAN in the session's directory) are gone
    # with the session.
    workers = [line for line in subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout.splitlines()
               if "--compile-worker" in line and str(fake_gpu / "batch") in line]
    assert workers == []
    assert list((fake_gpu / "batch").glob("**/compile-ahead/1.done"))  # where they met the harness


def test_compile_workers_waiting_for_a_harness_that_failed_are_stopped_with_the_session(fake_gpu, monkeypatch):
    # The problem has no get_inputs: the harness fails before it publishes its Triton target, so
    # the workers would wait for it forever; kprof stops them when the session ends.
    monkeypatch.setenv("KPROF_COMPILE_AHEAD", "1")
    problem = pathlib.Path(__file__).resolve().parent / "cases" / "no_get_inputs" / "problem.py"
    outcomes = kprof.profile_batch(problem, [VADD_KERNEL] * 3, 1, out_dir=fake_gpu / "batch", ncu_bin_path=FAKE_NCU)
    assert all(isinstance(outcome, kprof.ProblemInvalid) for outcome in outcomes), outcomes
    workers = [line for line in subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout.splitlines()
               if "--compile-worker" in line and str(fake_gpu / "batch") in line]
    assert workers == []
    assert list((fake_gpu / "batch").glob("**/compile-ahead"))  # they were started


def test_a_single_candidate_or_kprof_compile_ahead_0_starts_no_compile_worker(fake_gpu, monkeypatch):
    # Compiling ahead is on by default; it needs a later candidate to compile, and
    # KPROF_COMPILE_AHEAD=0 (or false, no, off, in any case) turns it off.
    monkeypatch.delenv("KPROF_COMPILE_AHEAD", raising=False)
    for setting, kernels in ((None, [VADD_KERNEL]), ("1", [VADD_KERNEL]), ("0", [VADD_KERNEL] * 2),
                             ("off", [VADD_KERNEL] * 2), ("False", [VADD_KERNEL] * 2)):
        if setting is not None:
            monkeypatch.setenv("KPROF_COMPILE_AHEAD", setting)
        out = fake_gpu / ("batch-" + str(setting))
        outcomes = kprof.profile_batch(VADD_PROBLEM, kernels, 1, out_dir=out, ncu_bin_path=FAKE_NCU)
        assert all(isinstance(outcome, kprof.ProfilerResults) for outcome in outcomes), outcomes
        assert all("compiled_ahead" not in metadata and "compile_target_seconds" not in metadata
                   for metadata in (json.loads(report.read_text(encoding="utf-8"))["metadata"]
                                    for report in out.glob("round001/cand*/report.json")))
        assert not list(out.glob("**/compile-ahead")), setting


def test_a_kprof_compile_ahead_that_is_no_boolean_word_is_a_usage_error_naming_it(fake_gpu, monkeypatch):
    monkeypatch.setenv("KPROF_COMPILE_AHEAD", "maybe")
    with pytest.raises(kprof.UsageError, match=r"KPROF_COMPILE_AHEAD='maybe' is not a boolean .*1, true, yes, on, 0, false, no, off"):
        kprof.profile_batch(VADD_PROBLEM, [VADD_KERNEL] * 2, 1, out_dir=fake_gpu / "batch", ncu_bin_path=FAKE_NCU)
    assert not (fake_gpu / "batch" / "round001").exists()


def test_a_batch_compiles_ahead_by_default(fake_gpu, monkeypatch):
    # Without KPROF_COMPILE_AHEAD a batch of several candidates has compile workers: every
    # candidate's report says whether it was compiled ahead.
    monkeypatch.delenv("KPROF_COMPILE_AHEAD", raising=False)
    outcomes = kprof.profile_batch(VADD_PROBLEM, [VADD_KERNEL] * 2, 1, out_dir=fake_gpu / "batch",
                                   ncu_bin_path=FAKE_NCU)
    assert all(isinstance(outcome, kprof.ProfilerResults) for outcome in outcomes), outcomes
    reports = [json.loads((fake_gpu / "batch" / "round001" / ("cand%d" % i) / "report.json").read_text(encoding="utf-8"))
               for i in range(2)]
    assert all("compiled_ahead" in report["metadata"] for report in reports)
    assert list((fake_gpu / "batch").glob("**/compile-ahead"))
    # Finding and publishing the Triton target is a part of the harness's setup, timed apart.
    metadata = reports[0]["metadata"]
    assert 0 < metadata["compile_target_seconds"] <= metadata["harness_setup_seconds"]


BF16_ONLY_KERNEL = textwrap.dedent(
    """
    # KernelAgent's mat-vec in small: kernel_function insists on bf16 inputs and says so.
    import torch
    import triton
    import triton.language as tl


    @triton.jit
    def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
        pass


    def kernel_function(x, y):
        if x.dtype != torch.bfloat16 or y.dtype != torch.bfloat16:
            raise TypeError("A and B must be torch.bfloat16 tensors")
        out = torch.empty_like(x)
        add_kernel[(4,)](x, y, out, x.numel(), BLOCK=256)
        return out
    """
)


def test_kernel_profiler_casts_as_the_kernel_source_says_by_default_and_records_it(fake_gpu):
    kernel = fake_gpu / "bf16_kernel.py"
    kernel.write_text(BF16_ONLY_KERNEL, encoding="utf-8")
    profiler = make_profiler(fake_gpu)

    results = profiler.profile(kernel, VADD_PROBLEM, 1)
    plain = profiler.profile(VADD_KERNEL, VADD_PROBLEM, 2)

    assert results.report["metadata"]["cast"] == "auto"
    assert results.report["metadata"]["cast_applied"] == "bf16"
    assert results.report["metadata"]["cast_reason"] == "kernel_function's source mentions 'bfloat16'"
    assert plain.report["metadata"]["cast_applied"] == "none"
    assert plain.report["metadata"]["cast_reason"] == (
        "no dtype named in kernel_function's source: inputs as the problem made them")


def test_an_explicit_cast_replaces_the_automatic_one(fake_gpu):
    kernel = fake_gpu / "bf16_kernel.py"
    kernel.write_text(BF16_ONLY_KERNEL, encoding="utf-8")

    with pytest.raises(kprof.KernelRuntimeError, match="must be torch.bfloat16"):
        make_profiler(fake_gpu, cast="none").profile(kernel, VADD_PROBLEM, 1)
    results = make_profiler(fake_gpu, cast=None).profile(kernel, VADD_PROBLEM, 2)
    assert results.report["metadata"]["cast"] == "auto"
    with pytest.raises(kprof.UsageError, match=r"none, auto, bf16, fp16, fp32"):
        make_profiler(fake_gpu, cast="bfloat16")


def test_options_are_validated_at_construction(tmp_path):
    with pytest.raises(kprof.UsageError, match="base"):
        kprof.KernelProfiler(tmp_path, clock_control="fixed")
    with pytest.raises(kprof.UsageError, match="gpu"):
        kprof.KernelProfiler(tmp_path, inputs="tpu")
    with pytest.raises(kprof.UsageError, match="default"):
        kprof.KernelProfiler(tmp_path, metrics="everything")
    with pytest.raises(TypeError, match="artifacts_dir"):
        kprof.KernelProfiler(42)


def test_missing_ncu_is_reported_as_ncu_not_found(tmp_path):
    profiler = kprof.KernelProfiler(tmp_path / "artifacts", ncu_bin_path=tmp_path / "no-ncu")
    with pytest.raises(kprof.NcuNotFound):
        profiler.profile(VADD_KERNEL, VADD_PROBLEM, 1)
    assert profiler.profile_kernel(VADD_KERNEL, VADD_PROBLEM, 1) is None
    assert profiler.ncu_version is None


# ---- the real ncu ---------------------------------------------------------------------------------


def real_ncu():
    """A real ncu (not the stand-in) and a visible GPU, or the reason there is none."""
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return None, "nvidia-smi is not installed"
    listed = subprocess.run([smi, "-L"], capture_output=True, text=True, check=False)
    if listed.returncode != 0 or "GPU" not in listed.stdout:
        return None, "nvidia-smi -L lists no GPU"
    candidates = [os.environ.get("KPROF_NCU"), shutil.which("ncu"), "/usr/local/cuda/bin/ncu"]
    candidates += sorted(glob.glob("/opt/nvidia/nsight-compute/*/ncu"), reverse=True)
    for candidate in candidates:
        if candidate and os.access(candidate, os.X_OK):
            path = pathlib.Path(candidate).resolve()
            if STANDINS not in path.parents:
                return path, ""
    return None, "no real ncu (KPROF_NCU, PATH, /usr/local/cuda/bin, /opt/nvidia/nsight-compute)"


def test_profile_kernel_with_the_real_ncu_on_a_gpu(tmp_path):
    ncu, reason = real_ncu()
    if ncu is None:
        pytest.skip(f"needs a GPU and the real ncu: {reason}")
    python = os.environ.get("KPROF_PYTHON") or sys.executable
    probe = subprocess.run([python, "-c", "import torch, triton"], capture_output=True, check=False)
    if probe.returncode != 0:
        pytest.skip(f"needs torch and triton in {python}")
    results = kprof.KernelProfiler(tmp_path / "artifacts", tmp_path / "logs", ncu_bin_path=ncu).profile(
        VADD_KERNEL, VADD_PROBLEM, 1
    )
    assert list(results.metrics) == ["add_kernel"]
    assert results.metrics["add_kernel"]["dram__bytes_read.sum"] > 0
    assert results.roofline["add_kernel"]["bottleneck"] == "memory"


# ---- one options parser, one error family ----------------------------------------------------------


def test_options_get_the_same_range_check_as_the_cli_under_the_callers_name(tmp_path):
    with pytest.raises(kprof.UsageError) as caught:
        kprof.KernelProfiler(tmp_path, ncu_timeout_seconds=0)
    assert caught.value.message == "ncu_timeout_seconds must be a whole number from 1 to 604800, got '0'"
    completed = subprocess.run(
        [str(kprof_binary()), "profile", "k.py", "p.py", "--timeout", "0"], capture_output=True, text=True, check=False
    )
    assert completed.returncode == 2
    assert "--timeout must be a whole number from 1 to 604800, got '0'" in completed.stderr


def test_python_repeats_no_default_none_means_the_librarys_and_kernelagents_attempts(tmp_path):
    # The library holds every default: Python's None is "not given", and the profiler says what it
    # runs with; KernelAgent's two attempts come from kernelagent_option_defaults.
    profiler = kprof.KernelProfiler(tmp_path)
    values = json.loads(profiler._native.option_values())
    assert profiler.ncu_timeout_seconds == values["timeout"] == 300
    assert values["metrics"] == "default"
    assert values["retries"] == 1  # max_retries=2: two attempts
    assert (values["select"], values["cast"], values["kernelagent_logs_only"]) == ("longest", "auto", True)
    assert kprof.KernelProfiler(tmp_path, ncu_timeout_seconds=60).ncu_timeout_seconds == 60
    assert json.loads(kprof.KernelProfiler(tmp_path, retries=0)._native.option_values())["retries"] == 0
    assert json.loads(kprof.KernelProfiler(tmp_path, attempts=4)._native.option_values())["retries"] == 3


def test_negative_seed_is_refused_not_wrapped(tmp_path):
    with pytest.raises(kprof.UsageError, match="seed must be a whole number from 0 to"):
        kprof.KernelProfiler(tmp_path, seed=-1)


def test_a_gpu_beyond_the_visible_gpus_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "0")
    with pytest.raises(kprof.UsageError, match="gpu 1: only 1 GPU is visible"):
        kprof.KernelProfiler(tmp_path, gpu=1)
    with pytest.raises(kprof.UsageError, match="only 1 GPU is visible"):
        kprof.profile_batch(VADD_PROBLEM, [VADD_KERNEL], 1, gpus=[0, 2], out_dir=tmp_path)


@pytest.mark.parametrize(
    "call, parameter",
    [
        (lambda d: kprof.KernelProfiler(d, ncu_timeout_seconds="300"), "ncu_timeout_seconds"),
        (lambda d: kprof.KernelProfiler(d, warmup=2.5), "warmup"),
        (lambda d: kprof.KernelProfiler(d, gpu=[0.5]), "gpu"),
        (lambda d: kprof.KernelProfiler(d, kernels=[1, 2]), "kernels"),
        (lambda d: kprof.KernelProfiler(d, select=3), "select"),
        (lambda d: kprof.KernelProfiler(d, no_such_option=1), "no_such_option"),
        (lambda d: kprof.load_ncu_metrics(TWOSTAGE, name_list=[1]), "name_list"),
        (lambda d: kprof.load_ncu_metrics(TWOSTAGE, select=None), "select"),
        (lambda d: kprof.render(kprof.report(TWOSTAGE), round_digits="3"), "round_digits"),
        (lambda d: kprof.metrics_to_prompt([{"Kernel Name": "k"}], keep_cols=[3]), "keep_cols"),
        (lambda d: kprof.KernelProfiler(d).profile(VADD_KERNEL, VADD_PROBLEM, "1"), "round_num"),
        (lambda d: kprof.KernelProfiler(d).profile(VADD_KERNEL, VADD_PROBLEM, 1, max_retries="2"), "max_retries"),
        (lambda d: kprof.render(5), "^report_or_results must be"),
        (lambda d: kprof.diff(kprof.report(TWOSTAGE), 5), "^b must be"),
        (lambda d: kprof.diff([], kprof.report(TWOSTAGE)), "^a must be"),
        (lambda d: kprof.metrics_to_prompt(5), "^rows_or_report must be"),
        (lambda d: rounds_for(d).document(1.5), "^ref must be"),
        (lambda d: rounds_for(d).results(None), "^ref must be"),
        (lambda d: rounds_for(d).diff(1, [1]), "^b must be"),
        (lambda d: rounds_for(d).diff((1, "x"), 1), r"^a\[1\] must be"),
    ],
)
def test_a_wrong_python_type_is_a_type_error_naming_the_parameter(tmp_path, call, parameter):
    with pytest.raises(TypeError, match=parameter) as caught:
        call(tmp_path)
    assert not isinstance(caught.value, kprof.KprofError)


U64 = "18446744073709551615"
INT = "from -2147483648 to 2147483647"
NUL = "holds a NUL byte"


def profiler(directory, **options):
    return kprof.KernelProfiler(directory / "artifacts", **options)


def rounds_for(directory):
    """A history of one round (the twostage capture), recorded through the CLI."""
    run_cli("report", str(TWOSTAGE), "--round", "1", "--out", str(directory / "rounds"), "--format", "json")
    return kprof.History(directory / "rounds")


# (entry point and parameter, the call, the error, what its message must say). Every public entry
# point that takes the parameter, every way into the option table (KernelAgent's names, kprof's
# own, the per-call round_num and max_retries, the Slurm settings).
BAD_VALUES = [
    ("KernelProfiler seed nan", lambda d: profiler(d, seed=float("nan")), kprof.UsageError, f"seed must be a whole number from 0 to {U64}, got 'nan'"),
    ("KernelProfiler seed inf", lambda d: profiler(d, seed=float("inf")), kprof.UsageError, f"seed must be a whole number from 0 to {U64}, got 'inf'"),
    ("KernelProfiler seed 2**70", lambda d: profiler(d, seed=2**70), kprof.UsageError, f"seed must be a whole number from 0 to {U64}, got '{2**70}'"),
    ("KernelProfiler seed 2**64", lambda d: profiler(d, seed=2**64), kprof.UsageError, f"got '{2**64}'"),
    ("KernelProfiler warmup -2**70", lambda d: profiler(d, warmup=-(2**70)), kprof.UsageError, f"warmup must be a whole number from 0 to 10000, got '-{2**70}'"),
    ("KernelProfiler ncu_timeout_seconds 10**30", lambda d: profiler(d, ncu_timeout_seconds=10**30), kprof.UsageError, f"ncu_timeout_seconds must be a whole number from 1 to 604800, got '{10**30}'"),
    ("KernelProfiler timeout 10**30", lambda d: profiler(d, timeout=10**30), kprof.UsageError, f"timeout must be a whole number from 1 to 604800, got '{10**30}'"),
    ("KernelProfiler retries 10**9", lambda d: profiler(d, retries=10**9), kprof.UsageError, "retries must be a whole number from 0 to 100, got '1000000000'"),
    ("KernelProfiler standby_idle_seconds nan", lambda d: profiler(d, standby_idle_seconds=float("nan")), kprof.UsageError, "standby_idle_seconds must be a whole number from 10 to 86400, got 'nan'"),
    ("KernelProfiler gpu 2**64", lambda d: profiler(d, gpu=2**64), kprof.UsageError, f"gpu must be a whole number from 0 to 1023, got '{2**64}'"),
    ("KernelProfiler gpu [0, 2**64]", lambda d: profiler(d, gpu=[0, 2**64]), kprof.UsageError, f"gpu must be a whole number from 0 to 1023, got '{2**64}'"),
    ("KernelProfiler gpu [0, 'a']", lambda d: profiler(d, gpu=[0, "a"]), TypeError, "gpu[1] must be an integer, not a string"),
    ("KernelProfiler gpus [0, None]", lambda d: profiler(d, gpus=[0, None]), TypeError, "gpus[1] must be an integer, not None"),
    ("KernelProfiler kernels ['a', 1]", lambda d: profiler(d, kernels=["a", 1]), TypeError, "kernels[1] must be a string, not an integer"),
    ("KernelProfiler artifacts_dir NUL", lambda d: kprof.KernelProfiler(str(d / "a\0b")), kprof.UsageError, f"artifacts_dir {NUL}"),
    ("KernelProfiler logs_dir NUL", lambda d: kprof.KernelProfiler(d, str(d / "l\0")), kprof.UsageError, f"logs_dir {NUL}"),
    ("KernelProfiler ncu_bin_path NUL", lambda d: profiler(d, ncu_bin_path="/usr/bin/ncu\0x"), kprof.UsageError, f"ncu_bin_path {NUL}"),
    ("KernelProfiler ncu NUL", lambda d: profiler(d, ncu="/usr/bin/ncu\0x"), kprof.UsageError, f"ncu {NUL}"),
    ("KernelProfiler python_executable NUL", lambda d: profiler(d, python_executable="/usr/bin/python3\0x"), kprof.UsageError, f"python_executable {NUL}"),
    ("KernelProfiler python NUL", lambda d: profiler(d, python="/usr/bin/python3\0x"), kprof.UsageError, f"python {NUL}"),
    ("profile round_num 2**70", lambda d: profiler(d).profile(VADD_KERNEL, VADD_PROBLEM, 2**70), kprof.UsageError, f"round_num must be a whole number from 0 to 999999, got '{2**70}'"),
    ("profile round_num nan", lambda d: profiler(d).profile(VADD_KERNEL, VADD_PROBLEM, float("nan")), kprof.UsageError, "round_num must be a whole number from 0 to 999999, got 'nan'"),
    ("profile max_retries 10**9", lambda d: profiler(d).profile(VADD_KERNEL, VADD_PROBLEM, 1, 10**9), kprof.UsageError, "max_retries must be a whole number from 1 to 101, got '1000000000'"),
    ("profile max_retries 0", lambda d: profiler(d).profile(VADD_KERNEL, VADD_PROBLEM, 1, 0), kprof.UsageError, "max_retries must be a whole number from 1 to 101, got '0'"),
    ("profile kernel_file NUL", lambda d: profiler(d).profile(str(VADD_KERNEL) + "\0.py", VADD_PROBLEM, 1), kprof.UsageError, f"kernel_file {NUL} after '{VADD_KERNEL}'"),
    ("profile problem_file NUL", lambda d: profiler(d).profile(VADD_KERNEL, str(VADD_PROBLEM) + "\0", 1), kprof.UsageError, f"problem_file {NUL}"),
    ("KernelProfiler.profile_batch round_num 2**70", lambda d: profiler(d).profile_batch(VADD_PROBLEM, [VADD_KERNEL], 2**70), kprof.UsageError, "round_num must be a whole number from 0 to 999999"),
    ("KernelProfiler.profile_batch max_retries 10**9", lambda d: profiler(d).profile_batch(VADD_PROBLEM, [VADD_KERNEL], 1, 10**9), kprof.UsageError, "max_retries must be a whole number from 1 to 101"),
    ("KernelProfiler.profile_batch kernel_files NUL", lambda d: profiler(d).profile_batch(VADD_PROBLEM, [VADD_KERNEL, "k\0.py"], 1), kprof.UsageError, f"kernel_files[1] {NUL}"),
    ("profile_batch round_num 2**70", lambda d: kprof.profile_batch(VADD_PROBLEM, [VADD_KERNEL], 2**70, out_dir=d), kprof.UsageError, "round_num must be a whole number from 0 to 999999"),
    ("profile_batch max_retries 10**9", lambda d: kprof.profile_batch(VADD_PROBLEM, [VADD_KERNEL], 1, out_dir=d, max_retries=10**9), kprof.UsageError, "max_retries must be a whole number from 1 to 101"),
    ("profile_batch seed nan", lambda d: kprof.profile_batch(VADD_PROBLEM, [VADD_KERNEL], 1, out_dir=d, seed=float("nan")), kprof.UsageError, "seed must be a whole number from 0 to"),
    ("profile_batch gpus [0, 'a']", lambda d: kprof.profile_batch(VADD_PROBLEM, [VADD_KERNEL], 1, out_dir=d, gpus=[0, "a"]), TypeError, "gpus[1] must be an integer, not a string"),
    ("profile_batch out_dir NUL", lambda d: kprof.profile_batch(VADD_PROBLEM, [VADD_KERNEL], 1, out_dir=str(d / "o\0")), kprof.UsageError, f"out_dir {NUL}"),
    ("profile_batch slurm round_num 2**70", lambda d: kprof.profile_batch(VADD_PROBLEM, [VADD_KERNEL], 2**70, out_dir=d, slurm={"dry_run": True}), kprof.UsageError, "round_num must be a whole number from 0 to 999999"),
    ("profile_batch slurm timeout 10**30", lambda d: kprof.profile_batch(VADD_PROBLEM, [VADD_KERNEL], 1, out_dir=d, slurm={"dry_run": True}, timeout=10**30), kprof.UsageError, "timeout must be a whole number from 1 to 604800"),
    ("profile_batch slurm max_retries 10**9", lambda d: kprof.profile_batch(VADD_PROBLEM, [VADD_KERNEL], 1, out_dir=d, slurm={"dry_run": True}, max_retries=10**9), kprof.UsageError, "max_retries must be a whole number from 1 to 101"),
    ("profile_batch slurm tasks -1", lambda d: kprof.profile_batch(VADD_PROBLEM, [VADD_KERNEL], 1, out_dir=d, slurm={"tasks": -1}), kprof.UsageError, "slurm tasks must be a whole number from 0 to 1000000, not -1"),
    ("profile_batch slurm tasks 2**70", lambda d: kprof.profile_batch(VADD_PROBLEM, [VADD_KERNEL], 1, out_dir=d, slurm={"tasks": 2**70}), kprof.UsageError, f"slurm tasks must be a whole number from 0 to 1000000, not {2**70}"),
    ("profile_batch slurm gpus_per_task 0", lambda d: kprof.profile_batch(VADD_PROBLEM, [VADD_KERNEL], 1, out_dir=d, slurm={"gpus_per_task": 0}), kprof.UsageError, "slurm gpus_per_task must be a whole number from 1 to 64, not 0"),
    ("profile_batch slurm poll_seconds nan", lambda d: kprof.profile_batch(VADD_PROBLEM, [VADD_KERNEL], 1, out_dir=d, slurm={"poll_seconds": float("nan")}), kprof.UsageError, "slurm poll_seconds must be a number of seconds from 0.05 to 600, not nan"),
    ("profile_batch slurm unknown key", lambda d: kprof.profile_batch(VADD_PROBLEM, [VADD_KERNEL], 1, out_dir=d, slurm={"taks": 2}), kprof.UsageError, "unknown slurm setting 'taks' (valid: tasks, gpus_per_task, options, requeue, dry_run, poll_seconds, kprof)"),
    ("profile_batch slurm options ;", lambda d: kprof.profile_batch(VADD_PROBLEM, [VADD_KERNEL], 1, out_dir=d, slurm={"options": "--partition=gpu; rm -rf x"}), kprof.UsageError, "slurm options: '--partition=gpu;' holds ';'"),
    ("profile_batch slurm kprof NUL", lambda d: kprof.profile_batch(VADD_PROBLEM, [VADD_KERNEL], 1, out_dir=d, slurm={"kprof": "/bin/kprof\0"}), kprof.UsageError, f"slurm kprof {NUL}"),
    ("profile_batch slurm gpus", lambda d: kprof.profile_batch(VADD_PROBLEM, [VADD_KERNEL], 1, out_dir=d, gpus=[0], slurm={"dry_run": True, "kprof": "/bin/true"}), kprof.UsageError, "gpus picks GPUs of this machine; with slurm, Slurm gives each task its GPUs (gpus_per_task)"),
    ("profile_batch slurm problem_file NUL", lambda d: kprof.profile_batch(str(VADD_PROBLEM) + "\0", [VADD_KERNEL], 1, out_dir=d, slurm={"dry_run": True}), kprof.UsageError, f"problem_file {NUL}"),
    ("load_ncu_metrics csv_path NUL", lambda d: kprof.load_ncu_metrics(str(TWOSTAGE) + "\0.txt"), kprof.UsageError, f"csv_path {NUL} after '{TWOSTAGE}'"),
    ("report csv_path NUL", lambda d: kprof.report(str(TWOSTAGE) + "\0"), kprof.UsageError, f"csv_path {NUL}"),
    ("render round_digits 2**70", lambda d: kprof.render(kprof.report(TWOSTAGE), round_digits=2**70), kprof.UsageError, f"round_digits must be a whole number {INT}, got '{2**70}'"),
    ("render max_rules -1", lambda d: kprof.render(kprof.report(TWOSTAGE), max_rules=-1), kprof.UsageError, f"max_rules must be a whole number from 0 to {U64}, got '-1'"),
    ("metrics_to_prompt round_digits 2**70", lambda d: kprof.metrics_to_prompt([{"Kernel Name": "k", "x": 1.5}], round_digits=2**70), kprof.UsageError, f"round_digits must be a whole number {INT}"),
    ("diff top_metrics 2**70", lambda d: kprof.diff(kprof.report(TWOSTAGE), kprof.report(TWOSTAGE), top_metrics=2**70), kprof.UsageError, f"top_metrics must be a whole number from 0 to {U64}, got '{2**70}'"),
    ("diff a NUL", lambda d: kprof.diff(str(d / "a\0.json"), kprof.report(TWOSTAGE)), kprof.UsageError, f"a {NUL}"),
    ("History dir NUL", lambda d: kprof.History(str(d / "h\0")), kprof.UsageError, f"dir {NUL}"),
    ("History.diff top_metrics 2**70", lambda d: rounds_for(d).diff(1, 1, top_metrics=2**70), kprof.UsageError, f"top_metrics must be a whole number from 0 to {U64}"),
    ("History.converged window 2**70", lambda d: rounds_for(d).converged(window=2**70), kprof.UsageError, f"window must be a whole number from 1 to 2147483647, got '{2**70}'"),
    ("History.converged window -2**70", lambda d: rounds_for(d).converged(window=-(2**70)), kprof.UsageError, f"window must be a whole number from 1 to 2147483647, got '-{2**70}'"),
    ("History.converged window 0", lambda d: rounds_for(d).converged(window=0), kprof.UsageError, "the convergence window must be at least 1 round, not 0"),
    ("History.converged min_improvement 10**400", lambda d: rounds_for(d).converged(min_improvement=10**400), kprof.UsageError, "the minimum improvement must be a fraction >= 0, not inf"),
]


@pytest.mark.parametrize("call, error, message", [case[1:] for case in BAD_VALUES], ids=[case[0] for case in BAD_VALUES])
def test_a_bad_value_is_refused_naming_the_parameter_and_its_range(tmp_path, monkeypatch, call, error, message):
    # No kprof on PATH: profile_batch(slurm=...) must still say what is wrong with the settings.
    monkeypatch.setenv("PATH", str(tmp_path / "empty-path"))
    with pytest.raises(error) as caught:
        call(tmp_path)
    assert message in str(caught.value)
    if error is TypeError:
        assert not isinstance(caught.value, kprof.KprofError)
    assert "JSON" not in str(caught.value) and "incompatible function arguments" not in str(caught.value)
    assert not (tmp_path / "artifacts").exists() and not (tmp_path / "slurm").exists()


def test_profile_kernel_logs_a_bad_round_num_by_name_and_returns_none(tmp_path, caplog):
    with caplog.at_level(logging.ERROR, logger="kprof"):
        assert profiler(tmp_path).profile_kernel(VADD_KERNEL, VADD_PROBLEM, 2**70) is None
    assert any("round_num must be a whole number from 0 to 999999" in r.getMessage() for r in caplog.records)


def test_every_other_failure_is_a_kprof_error(tmp_path, two_rounds):
    failures = [
        lambda: kprof.diff(tmp_path / "absent.json", tmp_path / "absent.json"),
        lambda: kprof.History(two_rounds).diff("x", 1),
        lambda: kprof.render({"schema_version": 1, "metadata": {}, "kernels": float("nan")}),
        lambda: kprof.KernelProfiler(tmp_path).profile(VADD_KERNEL, VADD_PROBLEM, 1, max_retries=0),
        lambda: kprof.KernelProfiler(tmp_path, metrics="everything"),
        lambda: kprof.load_ncu_metrics(tmp_path),
    ]
    for failure in failures:
        with pytest.raises(kprof.KprofError):
            failure()


def test_a_str_where_names_are_expected_is_one_name():
    assert [k["name"] for k in kprof.report(TWOSTAGE, kernels="scale")["kernels"]] == ["scale_kernel"]
    assert [row["Kernel Name"] for row in kprof.load_ncu_metrics(TWOSTAGE, name_list="scale")] == ["scale_kernel"]
    with pytest.raises(kprof.NoKernelsProfiled):
        kprof.report(TWOSTAGE, kernels="nomatch")
    assert kprof.load_ncu_metrics(TWOSTAGE, name_list="nomatch") == []


def test_kernels_nomatch_keeps_no_kernel_when_profiling(fake_gpu):
    profiler = make_profiler(fake_gpu, kernels="nomatch")
    with pytest.raises(kprof.NoKernelsProfiled):
        profiler.profile(VADD_KERNEL, VADD_PROBLEM, 1)


def test_profile_kernel_returns_none_for_a_kernel_path_that_is_not_utf8(fake_gpu, caplog):
    kernel = os.fsdecode(os.fsencode(str(fake_gpu)) + b"/kernel-\xff.py")
    with caplog.at_level(logging.ERROR, logger="kprof"):
        assert make_profiler(fake_gpu).profile_kernel(kernel, VADD_PROBLEM, 1) is None
    assert any("input_not_found" in record.getMessage() for record in caplog.records)


def test_profile_kernel_returns_none_for_every_profiling_failure(fake_gpu, monkeypatch, caplog):
    monkeypatch.setenv("KPROF_FAKE_NCU_SCENARIO", "permission")
    profiler = make_profiler(fake_gpu)
    with caplog.at_level(logging.ERROR, logger="kprof"):
        assert profiler.profile_kernel(VADD_KERNEL, VADD_PROBLEM, 1) is None
        assert profiler.profile_kernel(fake_gpu / "absent.py", VADD_PROBLEM, 2) is None
    assert len(caplog.records) >= 2


def test_metrics_to_prompt_of_a_dataframe_like_object_with_nan_is_null():
    class Frame:
        columns = ["Kernel Name", "x"]

        def to_dict(self, orient):
            assert orient == "records"
            return [{"Kernel Name": "k", "x": float("nan")}, {"Kernel Name": "j", "x": 1.23456}]

    assert json.loads(kprof.metrics_to_prompt(Frame(), round_digits=2)) == {"k": {"x": None}, "j": {"x": 1.23}}


def test_metrics_to_prompt_compact_has_pythons_separators():
    text = kprof.metrics_to_prompt([{"Kernel Name": "k", "a": 1, "b": 2.5}], compact=True)
    assert text == '{"k": {"a": 1, "b": 2.5}}'


def test_exit_codes_come_from_the_native_table():
    assert kprof.InternalError("x").exit_code == 70
    assert kprof.GpuBusy("x").exit_code == 16


# ---- standby (docs/standby.md) -------------------------------------------------------------------


def standby_processes(directory):
    """Live processes whose command line names a standby directory under `directory`."""
    found = []
    for entry in pathlib.Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().decode("utf-8", "replace")
        except OSError:
            continue
        if str(directory / "artifacts" / ".standby") in cmdline:
            found.append(int(entry.name))
    return found


def live_standbys(directory, truth=False):
    """The standby directories under `directory` that a live process names (ncu, its harness);
    with `truth`, the truth standbys' instead (the truth's own process kept for the next round)."""
    root = str(directory / "artifacts" / ".standby") + "/"
    found = set()
    for entry in pathlib.Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            words = (entry / "cmdline").read_bytes().decode("utf-8", "replace").split("\0")
        except OSError:
            continue
        for word in words:
            if root in word:
                found.add(word.split(root, 1)[1].split("/", 1)[0])
    return {name for name in found if ("-truth-" in name) == truth}


def eventually(predicate, seconds=30.0):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


def test_no_standby_runs_from_a_directory_another_user_made_in_a_shared_output_directory(fake_gpu):
    # The output directory is shared like /tmp (sticky, world-writable) and uid 65534 made its
    # .standby/ first: a standby there would run a harness script and read a FIFO that they can
    # swap. kprof makes none, says why in the metadata, and the rounds run cold.
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        pytest.skip("needs root and setpriv to act as uid 65534")
    import tempfile

    shared = pathlib.Path(tempfile.mkdtemp(prefix="kprof-shared-out-", dir="/tmp"))
    try:
        os.chmod(shared, 0o1777)
        subprocess.run(["setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups",
                        "mkdir", "-m", "0777", str(shared / ".standby")], check=True)
        with kprof.KernelProfiler(shared, fake_gpu / "logs", ncu_bin_path=FAKE_NCU, standby=True) as profiler:
            first = profiler.profile(VADD_KERNEL, VADD_PROBLEM, 1)
            time.sleep(1.0)  # a standby, if one were made, would be starting now
            second = profiler.profile(VADD_KERNEL, VADD_PROBLEM, 2)
            assert first.status == "ok" and second.status == "ok"
            assert second.report["metadata"]["standby"] is False
            why = second.report["metadata"]["standby_unavailable"]
            assert "is not a private directory" in why and "belongs to uid 65534" in why, why
            assert [p for p in (shared / ".standby").rglob("*") if p.lstat().st_uid != 65534] == []
            # Their directory gone, standbys come back, and the reason is not repeated.
            shutil.rmtree(shared / ".standby")
            third = profiler.profile(VADD_KERNEL, VADD_PROBLEM, 3)
            assert "standby_unavailable" not in third.report["metadata"]
            fourth = profiler.profile(VADD_KERNEL, VADD_PROBLEM, 4)
            assert fourth.report["metadata"]["standby"] is True
    finally:
        shutil.rmtree(shared, ignore_errors=True)


def test_standby_answers_the_next_round_and_close_leaves_nothing_running(fake_gpu):
    with make_profiler(fake_gpu, standby=True) as profiler:
        first = profiler.profile(VADD_KERNEL, VADD_PROBLEM, 1)
        assert first.report["metadata"]["standby"] is False
        assert eventually(lambda: standby_processes(fake_gpu)), "no standby was started"
        second = profiler.profile(VADD_KERNEL, VADD_PROBLEM, 2)
        assert second.report["metadata"]["standby"] is True
        assert second.metrics == first.metrics
        # What the standby paid before the hand-over, and the candidate's own phases.
        metadata = second.report["metadata"]
        assert metadata["primer"] in ("ran", "ran at start") and metadata["triton_primer"] == "ran"
        assert metadata["triton_primer_seconds"] >= 0 and "triton_primer" not in first.report["metadata"]
        assert all(metadata[key] >= 0 for key in ("import_seconds", "warmup_seconds", "call_seconds"))
        # The session's files are in the round as for a cold one; its plan names the candidate.
        plan = json.loads((fake_gpu / "artifacts" / "round002" / "plan.json").read_text(encoding="utf-8"))
        assert [c["kernel"] for c in plan["candidates"]] == [str(VADD_KERNEL)]
        assert "standby" not in plan
        for name in ("ncu.log", "status.json", "report.ncu-rep"):
            assert (fake_gpu / "artifacts" / "round002" / name).is_file(), name
        # The truth came from the truth process kept ready since round 1 (its plan's status in
        # the standby root), outside ncu; its files joined the round's.
        truth_plan = json.loads((fake_gpu / "artifacts" / "round002" / "truth-plan.json").read_text())
        assert "/.standby/" in truth_plan["status_file"] and "-truth-" in truth_plan["status_file"]
        # One truth worker per problem and GPU served both rounds (its reference timed once).
        truth_status = [json.loads((fake_gpu / "artifacts" / name / "truth-status.json").read_text())
                        for name in ("round001", "round002")]
        assert truth_status[0]["pid"] == truth_status[1]["pid"]
        assert [s["rounds_served"] for s in truth_status] == [1, 2]
        assert all(s["serving"] and s["phase"] == "done" for s in truth_status)
        assert second.report["truth"]["timing"]["timed_in"] == "plain_process"
        assert first.report["truth"]["timing"]["timed_in"] == "plain_process"
    assert eventually(lambda: not standby_processes(fake_gpu))
    standby_root = fake_gpu / "artifacts" / ".standby"
    assert not standby_root.exists() or list(standby_root.iterdir()) == []


def test_a_round_right_after_the_last_waits_for_the_starting_standby_instead_of_going_cold(
    fake_gpu, monkeypatch
):
    # KernelAgent's loop profiles the current kernel and then the candidate back to back. The
    # standby started beside round 1 is still starting when round 2 comes: round 2 waits for it
    # (what is left of its start) rather than taking the GPU's lock first and going cold.
    # The standby's primer (a GPU fill under the GPU's lock) takes 1.5 s: the standby started
    # beside round 1 is still starting when round 2 comes.
    monkeypatch.setenv("KPROF_FAKE_TORCH_FILL_SECONDS", "1.5")
    progress = []

    class Lines(logging.Handler):
        def emit(self, record):
            progress.append(record.getMessage())

    logger = logging.getLogger("test-standby-wait")
    logger.setLevel(logging.INFO)
    logger.addHandler(Lines())
    with make_profiler(fake_gpu, standby=True, logger=logger) as profiler:
        first = profiler.profile(VADD_KERNEL, VADD_PROBLEM, 1)
        assert first.report["metadata"]["standby"] is False
        second = profiler.profile(VADD_KERNEL, VADD_PROBLEM, 2)
        assert second.report["metadata"]["standby"] is True, progress
        assert second.metrics == first.metrics
        assert any("for the standby of GPU 0 to be ready" in line for line in progress), progress


def test_candidates_back_to_back_keep_a_second_standby_in_flight_and_never_more(fake_gpu, monkeypatch):
    monkeypatch.setenv("KPROF_FAKE_TORCH_FILL_SECONDS", "1.0")  # each standby's primer
    with make_profiler(fake_gpu, standby=True) as profiler:
        profiler.profile(VADD_KERNEL, VADD_PROBLEM, 1)
        assert len(live_standbys(fake_gpu)) <= 1  # one standby after a plain round
        # The next round comes at once, waits for that standby, and from then on two are kept.
        assert profiler.profile(VADD_KERNEL, VADD_PROBLEM, 2).report["metadata"]["standby"] is True
        assert eventually(lambda: len(live_standbys(fake_gpu)) == 2), live_standbys(fake_gpu)
        for round_num in (3, 4, 5):
            assert profiler.profile(VADD_KERNEL, VADD_PROBLEM, round_num).report["metadata"]["standby"] is True
            assert len(live_standbys(fake_gpu)) <= 2
            assert len(live_standbys(fake_gpu, truth=True)) <= 2  # the next round's, and the one measuring now
    assert eventually(lambda: not live_standbys(fake_gpu) and not live_standbys(fake_gpu, truth=True))


def test_a_round_that_waits_for_its_standby_starts_the_second_one_before_the_hand_over(fake_gpu, monkeypatch):
    # Candidates a few seconds apart: round 2 comes while the standby started beside round 1 is
    # still in its primer (a 4 s GPU fill). The second standby starts as soon as round 2 begins to
    # wait, not once the first is ready, so that round 3 finds it further along.
    monkeypatch.setenv("KPROF_FAKE_TORCH_FILL_SECONDS", "4.0")
    standby_root = fake_gpu / "artifacts" / ".standby"
    with make_profiler(fake_gpu, standby=True) as profiler:
        profiler.profile(VADD_KERNEL, VADD_PROBLEM, 1)
        assert eventually(lambda: len(live_standbys(fake_gpu)) == 1)
        (first,) = live_standbys(fake_gpu)
        with ThreadPoolExecutor(max_workers=1) as pool:
            second = pool.submit(profiler.profile, VADD_KERNEL, VADD_PROBLEM, 2)
            assert eventually(lambda: len(live_standbys(fake_gpu)) >= 2), live_standbys(fake_gpu)
            phase = json.loads((standby_root / first / "status.json").read_text(encoding="utf-8"))["phase"]
            assert phase in ("start", "import_problem", "inputs", "primer"), phase  # not ready yet
            assert second.result().report["metadata"]["standby"] is True
    assert eventually(lambda: not live_standbys(fake_gpu))


def test_alternating_max_retries_keeps_the_warm_standby(fake_gpu):
    # The retries of a call change no session: the standby started for one value serves the next.
    with make_profiler(fake_gpu, standby=True) as profiler:
        profiler.profile(VADD_KERNEL, VADD_PROBLEM, 1, max_retries=1)
        assert eventually(lambda: live_standbys(fake_gpu))
        for round_num, retries in ((2, 3), (3, 1), (4, 2)):
            result = profiler.profile(VADD_KERNEL, VADD_PROBLEM, round_num, max_retries=retries)
            assert result.report["metadata"]["standby"] is True, (round_num, retries)


def test_standby_is_not_used_after_the_problem_file_changed(fake_gpu):
    problem = fake_gpu / "problem.py"
    shutil.copyfile(VADD_PROBLEM, problem)
    with make_profiler(fake_gpu, standby=True) as profiler:
        profiler.profile(VADD_KERNEL, problem, 1)
        assert eventually(lambda: standby_processes(fake_gpu))
        problem.write_text(problem.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
        later = time.time() + 5
        os.utime(problem, (later, later))
        again = profiler.profile(VADD_KERNEL, problem, 2)
        assert again.report["metadata"]["standby"] is False


def test_a_candidate_that_raises_on_a_standby_is_classified_and_the_next_round_works(fake_gpu):
    raising = ROOT / "tests" / "python" / "cases" / "raises" / "kernel.py"
    with make_profiler(fake_gpu, standby=True) as profiler:
        profiler.profile(VADD_KERNEL, VADD_PROBLEM, 1)
        assert eventually(lambda: standby_processes(fake_gpu))
        assert profiler.profile_kernel(raising, VADD_PROBLEM, 2) is None
        third = profiler.profile(VADD_KERNEL, VADD_PROBLEM, 3)
        assert third.status == "ok"


def test_source_true_adds_hot_lines_from_the_source_page(fake_gpu, monkeypatch):
    monkeypatch.setenv("KPROF_FAKE_NCU_SOURCE", str(FIXTURES / "source" / "vadd.source.csv"))
    results = make_profiler(fake_gpu, source=True).profile(VADD_KERNEL, VADD_PROBLEM, 1)
    hot = results.hot_lines["add_kernel"]
    assert hot["lines"][0]["file"].endswith("examples/vadd/kernel.py")
    assert 0 < hot["lines"][0]["share"] <= 1
    assert results.report["metadata"]["hot_lines"]["error"] is None
    assert "Hot lines" in results.prompt()
    assert (fake_gpu / "artifacts" / "round001" / "source.csv").is_file()


def test_kprof_serve_answers_profile_refuses_other_options_and_stops_on_ctrl_c(fake_gpu):
    out = fake_gpu / "served"
    common = ["--out", str(out), "--ncu", str(FAKE_NCU)]
    server = subprocess.Popen([str(kprof_binary()), "serve", str(VADD_PROBLEM), *common, "--idle-timeout", "120"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        socket = out / ".kprof-serve.sock"
        assert eventually(socket.exists), server.stderr.read() if server.poll() is not None else "no socket"
        assert eventually(lambda: any((out / ".standby").glob("*/status.json")))
        served = subprocess.run([str(kprof_binary()), "profile", str(VADD_KERNEL), str(VADD_PROBLEM), *common,
                                 "--round", "1", "--format", "json"], capture_output=True, text=True)
        assert served.returncode == 0, served.stderr
        assert "answered by kprof serve" in served.stderr
        assert json.loads(served.stdout)["metadata"]["standby"] is True
        other = subprocess.run([str(kprof_binary()), "profile", str(VADD_KERNEL), str(VADD_PROBLEM), *common,
                                "--round", "2", "--warmup", "1", "--format", "json"],
                               capture_output=True, text=True)
        assert other.returncode == 0, other.stderr
        assert "serves something else (warmup (server 3, this call 1))" in other.stderr
        assert json.loads(other.stdout)["metadata"]["standby"] is False
    finally:
        server.send_signal(2)  # SIGINT, as Ctrl-C
        _, err = server.communicate(timeout=60)
    assert server.returncode == 130, err
    assert "interrupted; stopping" in err
    assert not (out / ".kprof-serve.sock").exists()
    # Nothing of the server is left: no process names its output directory.
    assert eventually(lambda: not [
        p for p in pathlib.Path("/proc").iterdir() if p.name.isdigit() and str(out) in _cmdline(p)])


def _cmdline(entry):
    try:
        return (entry / "cmdline").read_bytes().decode("utf-8", "replace")
    except OSError:
        return ""


def test_hot_lines_are_those_of_each_names_longest_launch_as_kprof_mcp_picks_them():
    def launch(name, ns, hot):
        entry = {"name": name, "id": ns, "metrics": {"gpu__time_duration.sum": {"value": ns, "unit": "ns"}}}
        if hot is not None:
            entry["hot_lines"] = {"lines": hot}
        return entry

    report = {"schema_version": 2, "metadata": {}, "roofline": {},
              "kernels": [launch("k", 900, "short"), launch("k", 1200, "long"), launch("j", 5000, None),
                          launch("j", 10, "tiny")],
              "summary": {"launches": 4, "kernels": []}}
    picked = json.loads(kprof._kprof.hot_lines(json.dumps(report)))
    assert picked == {"k": {"lines": "long"}}  # j's longest launch has none
