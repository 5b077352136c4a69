"""Runs the real harness (templates/harness.py and its package templates/kprof_harness/) against
the fake torch (tests/standins/fake_torch), end to end; each module's own tests are in
test_harness_<module>.py.

Each test writes a plan into its own temp directory, runs the harness in a child interpreter with
PYTHONPATH pointing at the fake torch, and checks the exit code, the status JSON and the event log
the fake torch writes ("sync", "push <range>", "pop", "launch <kernel>").

Run with: /usr/bin/python3 -m pytest tests/python/test_harness.py
"""

import csv
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from harness_helpers import CASES, FAKE_TORCH, ROOT, install_harness
EXAMPLES = ROOT / "examples"


class HarnessRun:
    def __init__(self, code, status, events, stderr, stdout):
        self.code = code
        self.status = status
        self.events = events
        self.stderr = stderr
        self.stdout = stdout

    def candidate(self, index):
        return next(c for c in self.status["candidates"] if c["index"] == index)


def run_harness(tmp_path, problem, kernels, real_torch=False, env=None, **settings):
    """Copies the harness into tmp_path (as kprof does into its run directory), writes the plan
    and runs it; `problem` and `kernels` are paths, `settings` override plan fields, `env` adds
    to the environment."""
    script, plan_path = write_plan(tmp_path, problem, kernels, **settings)
    return run_plan(tmp_path, script, plan_path, real_torch, env=env)


def write_plan(tmp_path, problem, kernels, **settings):
    """The harness copied into tmp_path/run and its plan beside it: (script, plan path)."""
    run_dir = tmp_path / "run"
    run_dir.mkdir(exist_ok=True)
    script = install_harness(run_dir)
    plan = {
        "version": 1,
        "problem": str(problem),
        "candidates": [{"kernel": str(k), "range": "kprof:cand%d" % i} for i, k in enumerate(kernels)],
        "status_file": str(run_dir / "status.json"),
        "warmup": 3,
        "inputs": "gpu",
        "cast": "none",
        "seed": 0,
        "first_candidate": 0,
    }
    plan.update(settings)
    plan_path = run_dir / "plan.json"
    plan_path.write_text(json.dumps(plan), encoding="utf-8")
    return script, plan_path


def run_plan(tmp_path, script, plan_path, real_torch=False, prefix=(), env=None):
    log = tmp_path / "events.log"
    extra = env or {}
    env = dict(os.environ, PYTHONPATH=str(FAKE_TORCH), KPROF_FAKE_TORCH_LOG=str(log))
    env.update(extra)  # PYTHONPATH too: a torch without Triton, say
    if real_torch:
        env = real_torch_env()
    argv = list(prefix) + [sys.executable, str(script), str(plan_path)]
    done = subprocess.run(argv, cwd=str(tmp_path), env=env, capture_output=True, text=True, timeout=600)
    status_path = plan_path.parent / "status.json"
    status = json.loads(status_path.read_text(encoding="utf-8")) if status_path.exists() else None
    events = log.read_text(encoding="utf-8").splitlines() if log.exists() else []
    return HarnessRun(done.returncode, status, events, done.stderr, done.stdout)


def profiled_events(range_name, launches):
    """What one healthy candidate logs once warm: sync, then exactly one call inside its range."""
    return ["sync", "push " + range_name] + launches + ["sync", "pop"]


def test_positional_kernel_runs_warmup_calls_outside_the_range_and_one_call_inside(tmp_path):
    run = run_harness(tmp_path, CASES / "vector/problem.py", [CASES / "positional/kernel.py"])

    assert run.code == 0, run.stderr
    assert run.status["phase"] == "done"
    assert run.status["problem_ok"] is True
    cand = run.candidate(0)
    assert cand["ok"] is True and cand["phase"] == "done" and cand["error"] is None
    assert cand["call_style"] == "positional"
    # inputs ready (sync), 3 warm-up launches, sync, then the ranged call synchronized before pop
    assert run.events == ["sync"] + ["launch add_kernel"] * 3 + profiled_events("kprof:cand0", ["launch add_kernel"])


def test_status_reports_versions_gpu_and_timings(tmp_path):
    run = run_harness(tmp_path, CASES / "vector/problem.py", [CASES / "positional/kernel.py"])

    assert run.status["version"] == 1
    assert run.status["torch_version"] == "0.0-fake"
    assert run.status["triton_version"] == "0.0-fake"
    assert run.status["gpu_name"] == "Fake GPU"
    assert run.status["python_version"] == "%d.%d.%d" % sys.version_info[:3]
    assert run.status["setup_seconds"] >= run.status["inputs_seconds"] >= 0
    assert run.candidate(0)["warmup_seconds"] >= 0 and run.candidate(0)["call_seconds"] >= 0


def test_stdout_stays_quiet_and_stderr_has_one_prefixed_line_per_phase(tmp_path):
    run = run_harness(tmp_path, CASES / "vector/problem.py", [CASES / "positional/kernel.py"])

    assert run.stdout == ""
    lines = run.stderr.splitlines()
    assert all(line.startswith("kprof-harness: ") for line in lines)
    assert "kprof-harness: cand0 profiled_call" in lines
    assert lines[-1] == "kprof-harness: done"


def test_warmup_count_comes_from_the_plan(tmp_path):
    run = run_harness(tmp_path, CASES / "vector/problem.py", [CASES / "positional/kernel.py"], warmup=0)

    assert run.code == 0, run.stderr
    assert run.events == ["sync"] + profiled_events("kprof:cand0", ["launch add_kernel"])


def test_init_inputs_are_appended_after_the_inputs(tmp_path):
    run = run_harness(tmp_path, CASES / "rmsnorm/problem.py", [CASES / "rmsnorm_kernel/kernel.py"])

    assert run.code == 0, run.status["candidates"]
    assert run.candidate(0)["call_style"] == "positional"


def test_conv_kernel_gets_weight_bias_and_settings_from_the_model_layer(tmp_path):
    run = run_harness(tmp_path, CASES / "conv/problem.py", [CASES / "conv_kernel/kernel.py"])

    assert run.code == 0, run.status["candidates"]
    assert run.candidate(0)["call_style"] == "layer_weights"
    assert run.candidate(0)["layer"] == "conv1"


def test_linear_kernel_gets_only_the_settings_its_layer_has(tmp_path):
    run = run_harness(tmp_path, CASES / "linear/problem.py", [CASES / "linear_kernel/kernel.py"])

    assert run.code == 0, run.status["candidates"]
    assert run.candidate(0)["layer"] == "fc"


def test_model_that_cannot_be_built_is_a_problem_error(tmp_path):
    run = run_harness(tmp_path, CASES / "bad_model/problem.py", [CASES / "conv_kernel/kernel.py"])

    assert run.code == 2
    assert run.status["problem_ok"] is False
    assert run.status["problem_error"]["type"] == "ValueError"
    assert "Model cannot be built" in run.status["problem_error"]["message"]


def test_kernel_that_raises_is_reported_and_the_next_candidate_still_runs(tmp_path):
    run = run_harness(tmp_path, CASES / "vector/problem.py",
                      [CASES / "raises/kernel.py", CASES / "positional/kernel.py"])

    assert run.code == 1
    failed = run.candidate(0)
    assert failed["ok"] is False and failed["phase"] == "warmup"
    assert failed["error"]["category"] == "kernel_raised"
    assert failed["error"]["type"] == "ValueError"
    assert failed["error"]["message"] == "the kernel rejects these inputs"
    assert "raise ValueError" in failed["error"]["traceback"]
    assert failed["cuda_context_poisoned"] is False
    assert run.candidate(1)["ok"] is True
    assert "push kprof:cand0" not in run.events
    assert run.events[-5:] == profiled_events("kprof:cand1", ["launch add_kernel"])


def test_kernel_that_raises_inside_the_range_still_pops_it(tmp_path):
    run = run_harness(tmp_path, CASES / "vector/problem.py", [CASES / "raises_in_profiled_call/kernel.py"])

    assert run.code == 1
    assert run.candidate(0)["phase"] == "profiled_call"
    assert run.candidate(0)["error"]["message"] == "the fourth call fails"
    assert run.events[-4:] == ["sync", "push kprof:cand0", "pop", "sync"]


def test_kernel_killed_by_sigsegv_leaves_its_phase_and_prints_the_python_line_that_crashed(tmp_path):
    run = run_harness(tmp_path, CASES / "vector/problem.py", [CASES / "segfault/kernel.py"])

    assert run.code == -11  # the signal still ends the process: kprof sees the crash
    assert run.status["phase"] == "candidates"
    assert run.candidate(0)["phase"] == "warmup"
    assert run.candidate(0)["error"] is None
    # faulthandler's stack: what kprof puts in the detail of "crashed with SIGSEGV during ..."
    assert "Fatal Python error: Segmentation fault" in run.stderr
    assert 'segfault/kernel.py", line 7 in kernel_function' in run.stderr


def test_kernel_that_calls_os_exit_leaves_the_profiled_call_as_its_last_phase(tmp_path):
    run = run_harness(tmp_path, CASES / "vector/problem.py", [CASES / "exits_in_call/kernel.py"])

    assert run.code == 0
    assert run.status["phase"] == "candidates"  # never "done": how kprof tells it exited
    assert run.candidate(0)["phase"] == "profiled_call"
    assert run.candidate(0)["ok"] is False and run.candidate(0)["error"] is None
    assert run.events[-1] == "push kprof:cand0"


def test_kernel_with_a_syntax_error_is_a_kernel_import_error(tmp_path):
    run = run_harness(tmp_path, CASES / "vector/problem.py", [CASES / "syntax_error/kernel.py"])

    assert run.code == 1
    cand = run.candidate(0)
    assert cand["phase"] == "import_kernel"
    assert cand["error"]["category"] == "kernel_import"
    assert cand["error"]["type"] == "SyntaxError"


def test_kernel_without_kernel_function_is_a_kernel_import_error(tmp_path):
    run = run_harness(tmp_path, CASES / "vector/problem.py", [CASES / "no_kernel_function/kernel.py"])

    assert run.code == 1
    assert run.candidate(0)["error"]["category"] == "kernel_import"
    assert "kernel_function" in run.candidate(0)["error"]["message"]


def test_missing_kernel_file_is_a_kernel_import_error(tmp_path):
    run = run_harness(tmp_path, CASES / "vector/problem.py", [tmp_path / "nowhere" / "kernel.py"])

    assert run.code == 1
    assert run.candidate(0)["error"]["category"] == "kernel_import"
    assert run.candidate(0)["error"]["type"] == "FileNotFoundError"


def test_problem_without_get_inputs_is_a_problem_error_and_runs_no_candidate(tmp_path):
    run = run_harness(tmp_path, CASES / "no_get_inputs/problem.py", [CASES / "positional/kernel.py"])

    assert run.code == 2
    assert run.status["phase"] == "import_problem"
    assert run.status["problem_ok"] is False
    assert "get_inputs" in run.status["problem_error"]["message"]
    assert run.candidate(0)["phase"] == "not_started"
    assert run.events == []


def test_inputs_fall_back_to_the_cpu_when_creating_them_on_the_gpu_raises(tmp_path):
    run = run_harness(tmp_path, CASES / "cpu_only/problem.py", [CASES / "positional/kernel.py"])

    assert run.code == 0, run.status
    assert run.status["inputs_on"] == "cpu"
    assert "builds its inputs on the CPU only" in run.status["inputs_fallback"]


def test_inputs_made_on_the_cpu_are_moved_to_the_gpu(tmp_path):
    run = run_harness(tmp_path, CASES / "vector/problem.py", [CASES / "positional/kernel.py"], inputs="cpu")

    assert run.code == 0, run.status["candidates"]
    assert run.status["inputs_on"] == "cpu" and run.status["inputs_fallback"] is None


@pytest.mark.parametrize("cast, expected", [("none", "float32"), ("bf16", "bfloat16"), ("fp16", "float16")])
def test_cast_changes_floating_inputs_only(tmp_path, cast, expected):
    run = run_harness(tmp_path, CASES / "mixed_dtypes/problem.py", [CASES / "cast_report/kernel.py"],
                      cast=cast, warmup=0)

    assert run.code == 0, run.status["candidates"]
    assert "dtypes %s int64 3" % expected in run.events


def test_an_explicit_cast_is_recorded_as_asked_for(tmp_path):
    run = run_harness(tmp_path, CASES / "mixed_dtypes/problem.py", [CASES / "cast_report/kernel.py"],
                      cast="bf16", warmup=0)

    assert run.code == 0, run.status["candidates"]
    assert run.candidate(0)["cast"] == "bf16"
    assert run.candidate(0)["cast_reason"] == "asked for cast bf16"
    # Cast once while the inputs are made, before any candidate is imported.
    assert run.events.index("cast bfloat16") < run.events.index("dtypes bfloat16 int64 3")


def write_auto_kernel(directory, name, body_comment, prelude=""):
    """A kernel.py whose kernel_function logs its inputs' dtypes and which input objects it got
    before (by identity, so shared inputs show), with `body_comment` inside kernel_function."""
    path = directory / name / "kernel.py"
    path.parent.mkdir(parents=True)
    path.write_text(prelude + (
        "import torch\n"
        "\n"
        "\n"
        "def kernel_function(x, labels, count):\n"
        "    # %s\n"
        "    seen = torch.__dict__.setdefault('_kprof_test_seen', [])\n"
        "    first = next((i for i, y in enumerate(seen) if y is x), len(seen))\n"
        "    seen.append(x)\n"
        "    torch._fake_log('dtypes %%s %%s %%r' %% (x.dtype.name, labels.dtype.name, count))\n"
        "    torch._fake_log('x first seen by call %%d' %% first)\n"
        "    return x\n") % body_comment, encoding="utf-8")
    return path


AS_MADE = "inputs as the problem made them"


@pytest.mark.parametrize("comment, dtype, cast, reason", [
    ("x: torch.bfloat16 [8, 8]", "bfloat16", "bf16", "kernel_function's source mentions 'bfloat16'"),
    ("x: torch.float16 [8, 8]", "float16", "fp16", "kernel_function's source mentions 'float16'"),
    ("x is Half precision", "float16", "fp16", "kernel_function's source mentions 'half'"),
    ("x: torch.float32 [8, 8]", "float32", "fp32", "kernel_function's source mentions 'float32'"),
    ("x: any floating type", "float32", "none", "no dtype named in kernel_function's source: " + AS_MADE),
])
def test_auto_cast_picks_the_dtype_kernel_function_names_and_casts_only_floating_inputs(
        tmp_path, comment, dtype, cast, reason):
    kernel = write_auto_kernel(tmp_path, "k", comment)
    run = run_harness(tmp_path, CASES / "mixed_dtypes/problem.py", [kernel], cast="auto", warmup=0)

    assert run.code == 0, run.status["candidates"]
    assert "dtypes %s int64 3" % dtype in run.events
    assert run.candidate(0)["cast"] == cast
    assert run.candidate(0)["cast_reason"] == reason
    casts = [event for event in run.events if event.startswith("cast ")]
    assert casts == ([] if dtype == "float32" else ["cast " + dtype])


def test_auto_cast_reads_only_kernel_function_not_the_rest_of_its_file(tmp_path):
    prelude = "# A Triton kernel of this file loads tl.bfloat16; kernel_function names no dtype.\n"
    kernel = write_auto_kernel(tmp_path, "k", "plain", prelude=prelude)
    run = run_harness(tmp_path, CASES / "mixed_dtypes/problem.py", [kernel], cast="auto", warmup=0)

    assert run.code == 0, run.status["candidates"]
    assert "dtypes float32 int64 3" in run.events
    assert run.candidate(0)["cast"] == "none"


def test_auto_cast_without_readable_source_leaves_the_inputs_and_says_why(tmp_path):
    kernel = tmp_path / "generated" / "kernel.py"
    kernel.parent.mkdir()
    kernel.write_text(
        "import torch\n"
        "source = ('def kernel_function(x, labels, count):\\n'\n"
        "          '    # x: torch.bfloat16\\n'\n"
        "          '    torch._fake_log(\"dtypes %s %s\" % (x.dtype.name, labels.dtype.name))\\n')\n"
        "namespace = {'torch': torch}\n"
        "exec(compile(source, '<generated>', 'exec'), namespace)\n"
        "kernel_function = namespace['kernel_function']\n", encoding="utf-8")
    run = run_harness(tmp_path, CASES / "mixed_dtypes/problem.py", [kernel], cast="auto", warmup=0)

    assert run.code == 0, run.status["candidates"]
    assert "dtypes float32 int64" in run.events
    assert run.candidate(0)["cast"] == "none"
    assert run.candidate(0)["cast_reason"] == "could not read kernel_function's source (OSError): " + AS_MADE


def test_auto_cast_gives_each_candidate_of_a_batch_its_own_inputs_and_shares_them_per_dtype(tmp_path):
    kernels = [write_auto_kernel(tmp_path, "bf16_a", "bfloat16"),
               write_auto_kernel(tmp_path, "plain", "no dtype here"),
               write_auto_kernel(tmp_path, "bf16_b", "torch.bfloat16 too"),
               write_auto_kernel(tmp_path, "fp16", "half")]
    run = run_harness(tmp_path, CASES / "mixed_dtypes/problem.py", kernels, cast="auto", warmup=0)

    assert run.code == 0, run.status["candidates"]
    assert [run.candidate(i)["cast"] for i in range(4)] == ["bf16", "none", "bf16", "fp16"]
    logged = [event for event in run.events if event.startswith(("dtypes", "x first", "cast"))]
    assert logged == [
        "cast bfloat16", "dtypes bfloat16 int64 3", "x first seen by call 0",
        "dtypes float32 int64 3", "x first seen by call 1",
        "dtypes bfloat16 int64 3", "x first seen by call 0",  # the first candidate's inputs
        "cast float16", "dtypes float16 int64 3", "x first seen by call 3",
    ]
    # Every cast happens before its candidate's range is pushed.
    for index, cast in ((0, "cast bfloat16"), (3, "cast float16")):
        assert run.events.index(cast) < run.events.index("push kprof:cand%d" % index)
        previous = run.events.index("pop") if index else 0
        assert run.events.index(cast) > previous


def write_conv_dtype_kernel(directory, name, comment):
    path = directory / name / "kernel.py"
    path.parent.mkdir(parents=True)
    path.write_text(
        "import torch\n"
        "\n"
        "\n"
        "def kernel_function(x, weight, bias, stride=1, padding=0, dilation=1, groups=1):\n"
        "    # %s\n"
        "    torch._fake_log('conv %%s %%s %%s' %% (x.dtype.name, weight.dtype.name, bias.dtype.name))\n"
        "    return x\n" % comment, encoding="utf-8")
    return path


def test_auto_cast_casts_the_model_layer_weights_per_candidate(tmp_path):
    kernels = [write_conv_dtype_kernel(tmp_path, "bf16", "bfloat16"),
               write_conv_dtype_kernel(tmp_path, "plain", "as made"),
               write_conv_dtype_kernel(tmp_path, "bf16_again", "bfloat16")]
    run = run_harness(tmp_path, CASES / "conv/problem.py", kernels, cast="auto", warmup=0)

    assert run.code == 0, run.status["candidates"]
    assert [run.candidate(i)["call_style"] for i in range(3)] == ["layer_weights"] * 3
    assert [event for event in run.events if event.startswith("conv ")] == [
        "conv bfloat16 bfloat16 bfloat16",
        "conv float32 float32 float32",  # the bf16 Model is a copy: the uncast one is untouched
        "conv bfloat16 bfloat16 bfloat16",
    ]
    # Input, weight and bias cast once each, for the first bf16 candidate only.
    assert [event for event in run.events if event.startswith("cast ")] == ["cast bfloat16"] * 3


def test_poisoned_context_stops_the_process_with_exit_code_3(tmp_path):
    kernels = [CASES / "positional/kernel.py", CASES / "poisoned/kernel.py", CASES / "positional/kernel.py"]
    run = run_harness(tmp_path, CASES / "vector/problem.py", kernels)

    assert run.code == 3
    assert run.status["phase"] == "candidates"
    assert run.candidate(0)["ok"] is True
    assert run.candidate(1)["cuda_context_poisoned"] is True
    assert run.candidate(1)["error"]["category"] == "kernel_raised"
    assert run.candidate(2)["phase"] == "not_started"
    assert "push kprof:cand2" not in run.events


def test_error_that_breaks_synchronize_counts_as_poisoned(tmp_path):
    kernels = [CASES / "poisoned_sync/kernel.py", CASES / "positional/kernel.py"]
    run = run_harness(tmp_path, CASES / "vector/problem.py", kernels)

    assert run.code == 3
    assert run.candidate(0)["cuda_context_poisoned"] is True
    assert run.candidate(0)["error"]["type"] == "ValueError"
    assert run.candidate(1)["phase"] == "not_started"


def test_restart_from_first_candidate_skips_the_earlier_ones(tmp_path):
    kernels = [CASES / "poisoned/kernel.py", CASES / "positional/kernel.py", CASES / "positional/kernel.py"]
    run = run_harness(tmp_path, CASES / "vector/problem.py", kernels, first_candidate=1)

    assert run.code == 0, run.status["candidates"]
    assert [c["index"] for c in run.status["candidates"]] == [1, 2]
    assert [e for e in run.events if e.startswith("push")] == ["push kprof:cand1", "push kprof:cand2"]


def test_paths_with_quotes_newlines_and_non_ascii_load_as_data_and_execute_nothing(tmp_path):
    weird_dir = tmp_path / "it's a \"dir\"\nwith ünïcödé ✓"
    weird_dir.mkdir()
    kernel = weird_dir / "'); import os; os.system('touch PWNED'); #.py"
    shutil.copyfile(CASES / "positional/kernel.py", kernel)
    problem = weird_dir / "pröblem \"x\".py"
    shutil.copyfile(CASES / "vector/problem.py", problem)

    run = run_harness(tmp_path, problem, [kernel])

    assert run.code == 0, run.stderr
    assert run.candidate(0)["ok"] is True
    assert run.candidate(0)["kernel"] == str(kernel)
    assert not list(tmp_path.rglob("PWNED")) and not (Path.cwd() / "PWNED").exists()


def test_kernel_directory_cannot_shadow_the_standard_library(tmp_path):
    run = run_harness(tmp_path, CASES / "vector/problem.py", [CASES / "shadow/kernel.py"])

    assert run.code == 0, run.status["candidates"]


def test_files_next_to_the_harness_script_cannot_shadow_the_standard_library(tmp_path):
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    for name in ("json.py", "colorsys.py"):
        (run_dir / name).write_text("raise ImportError('run directory shadowed the stdlib')\n", encoding="utf-8")
    run = run_harness(tmp_path, CASES / "vector/problem.py", [CASES / "shadow/kernel.py"])

    assert run.code == 0, run.stderr


def test_candidates_with_same_named_sibling_modules_each_import_their_own(tmp_path):
    kernels = [CASES / "sibling_a/kernel.py", CASES / "sibling_b/kernel.py"]
    run = run_harness(tmp_path, CASES / "vector/problem.py", kernels)

    assert run.code == 0, run.status["candidates"]


def test_no_bytecode_is_written_next_to_kernels(tmp_path):
    kernel_dir = tmp_path / "kernel"
    kernel_dir.mkdir()
    shutil.copytree(CASES / "shadow", kernel_dir, dirs_exist_ok=True)
    run = run_harness(tmp_path, CASES / "vector/problem.py", [kernel_dir / "kernel.py"])

    assert run.code == 0, run.status["candidates"]
    assert not (kernel_dir / "__pycache__").exists()


def test_status_file_is_replaced_whole_and_leaves_no_temp_files(tmp_path):
    run = run_harness(tmp_path, CASES / "vector/problem.py", [CASES / "positional/kernel.py"])

    assert run.status is not None
    assert sorted(p.name for p in (tmp_path / "run").iterdir()) == [
        "harness.py", "kprof_harness", "plan.json", "status.json"]


@pytest.mark.parametrize("example, launches", [
    ("vadd", ["launch add_kernel"]),
    ("twostage", ["launch partial_sum_kernel", "launch scale_kernel"]),
    ("softmax", ["launch softmax_kernel"]),
    ("matmul", ["launch matmul_kernel"]),
])
def test_examples_run_under_the_fake_torch(tmp_path, example, launches):
    run = run_harness(tmp_path, EXAMPLES / example / "problem.py", [EXAMPLES / example / "kernel.py"])

    assert run.code == 0, run.status["candidates"]
    assert run.events[-len(launches) - 4:] == profiled_events("kprof:cand0", launches)


def test_unreadable_plan_exits_2_without_a_status(tmp_path):
    script = install_harness(tmp_path)
    plan = tmp_path / "plan.json"
    plan.write_text("{not json", encoding="utf-8")

    run = run_plan(tmp_path, script, plan)

    assert run.code == 2
    assert run.status is None
    assert "kprof-harness:" in run.stderr


@pytest.mark.parametrize("field, value", [
    ("version", 2), ("warmup", -1), ("inputs", "tpu"), ("cast", "int8"), ("cast", "Auto"), ("candidates", "k.py"),
    ("first_candidate", True),
])
def test_plan_with_a_bad_field_exits_2_without_running_anything(tmp_path, field, value):
    run = run_harness(tmp_path, CASES / "vector/problem.py", [CASES / "positional/kernel.py"], **{field: value})

    assert run.code == 2
    assert run.status is None
    assert run.events == []


# ---------------------------------------------------------------------------------------------
# The profiled-call lock: one profiled call of the host at a time, never a condition of an answer.


def call_lock_plan(path, max_wait_seconds=30):
    """The plan's lock, its file made first as kprof makes it (GpuLock::prepare_dir): the harness
    never creates a lock file."""
    if Path(path).parent.is_dir() and not os.path.lexists(path):
        os.close(os.open(str(path), os.O_RDONLY | os.O_CREAT, 0o600))
    return {"path": str(path), "max_wait_seconds": max_wait_seconds}


def test_the_call_lock_is_held_around_the_profiled_call_and_free_during_warmup(tmp_path, monkeypatch):
    lock, probe = tmp_path / "profiled-calls.lock", tmp_path / "probe.log"
    monkeypatch.setenv("KPROF_TEST_CALL_LOCK", str(lock))
    monkeypatch.setenv("KPROF_TEST_PROBE_LOG", str(probe))
    run = run_harness(tmp_path, CASES / "vector/problem.py", [CASES / "call_lock_probe/kernel.py"] * 2,
                      profiled_call_lock=call_lock_plan(lock))

    assert run.code == 0, run.stderr
    # per candidate: 3 warm-up calls with the lock free, then the profiled call with it held
    assert probe.read_text(encoding="utf-8").split() == (["free"] * 3 + ["taken"]) * 2
    for index in (0, 1):
        assert run.candidate(index)["call_lock"] == "held"
        assert run.candidate(index)["call_lock_wait_seconds"] >= 0
    # taken before the range is pushed: the ranged call itself is unchanged
    assert run.events[-5:] == profiled_events("kprof:cand1", ["launch add_kernel"])


def test_without_a_call_lock_in_the_plan_the_status_says_none(tmp_path):
    run = run_harness(tmp_path, CASES / "vector/problem.py", [CASES / "positional/kernel.py"])

    assert run.code == 0, run.stderr
    assert run.candidate(0)["call_lock"] is None
    assert run.candidate(0)["call_lock_wait_seconds"] == 0


def hold_lock(path):
    import fcntl
    fd = os.open(str(path), os.O_RDWR | os.O_CREAT, 0o644)
    fcntl.flock(fd, fcntl.LOCK_EX)
    return fd


def test_a_call_lock_held_elsewhere_past_the_wait_is_skipped_and_the_call_still_profiled(tmp_path):
    lock = tmp_path / "profiled-calls.lock"
    fd = hold_lock(lock)
    try:
        run = run_harness(tmp_path, CASES / "vector/problem.py", [CASES / "positional/kernel.py"],
                          profiled_call_lock=call_lock_plan(lock, max_wait_seconds=0.3))
    finally:
        os.close(fd)

    assert run.code == 0, run.stderr
    cand = run.candidate(0)
    assert cand["ok"] is True
    assert cand["call_lock"].startswith("not held: still taken after")
    assert cand["call_lock_wait_seconds"] >= 0.3
    assert run.events[-5:] == profiled_events("kprof:cand0", ["launch add_kernel"])


def test_a_call_lock_let_go_while_waiting_is_taken(tmp_path):
    import time
    lock = tmp_path / "profiled-calls.lock"
    fd = hold_lock(lock)
    script, plan_path = write_plan(tmp_path, CASES / "vector/problem.py", [CASES / "positional/kernel.py"],
                                   profiled_call_lock=call_lock_plan(lock))
    env = dict(os.environ, PYTHONPATH=str(FAKE_TORCH), KPROF_FAKE_TORCH_LOG=str(tmp_path / "events.log"))
    process = subprocess.Popen([sys.executable, str(script), str(plan_path)], cwd=str(tmp_path), env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        # The phase is written before the harness asks for the lock; hold it a while longer (the
        # harness asks a moment after the phase is written: on a loaded 2-core VM it measured
        # 0.299 s of a 0.3 s hold, so the hold is 0.5 s and the bound 0.3 s).
        assert wait_for_candidate_phase(plan_path.parent / "status.json", "profiled_call", process)
        time.sleep(0.5)
        os.close(fd)
        out, err = process.communicate(timeout=60)
    finally:
        process.kill()
    assert process.returncode == 0, err
    cand = json.loads((plan_path.parent / "status.json").read_text(encoding="utf-8"))["candidates"][0]
    assert cand["call_lock"] == "held"
    assert cand["call_lock_wait_seconds"] >= 0.3


def test_a_call_lock_that_cannot_be_opened_is_skipped_with_the_reason(tmp_path):
    lock = tmp_path / "no such directory" / "profiled-calls.lock"
    run = run_harness(tmp_path, CASES / "vector/problem.py", [CASES / "positional/kernel.py"],
                      profiled_call_lock=call_lock_plan(lock))

    assert run.code == 0, run.stderr
    assert run.candidate(0)["ok"] is True
    assert run.candidate(0)["call_lock"].startswith("not held: cannot open")
    assert "No such file or directory" in run.candidate(0)["call_lock"]


def test_the_harness_never_creates_a_missing_call_lock_file(tmp_path):
    lock = tmp_path / "profiled-calls.lock"
    run = run_harness(tmp_path, CASES / "vector/problem.py", [CASES / "positional/kernel.py"],
                      profiled_call_lock={"path": str(lock), "max_wait_seconds": 30})

    assert run.code == 0, run.stderr
    assert run.candidate(0)["call_lock"].startswith("not held: cannot open")
    assert not os.path.lexists(lock)


def plant(kind, path, target):
    if kind == "symlink":
        os.symlink(str(target), str(path))
    elif kind == "fifo":
        os.mkfifo(str(path))
    else:  # a second name of a file the harness must not lock (fs.protected_hardlinks aside)
        target.write_text("not a lock\n", encoding="utf-8")
        os.link(str(target), str(path))


@pytest.mark.parametrize("kind,why", [("symlink", "refused: a symbolic link"),
                                      ("fifo", "refused: not a regular file"),
                                      ("hardlink", "refused: 2 hard links")])
def test_a_planted_call_lock_is_refused_without_blocking_creating_or_following(tmp_path, kind, why):
    # Another user may plant the lock directory's names: a dangling link to a file root would
    # create (/etc/ld.so.preload), a FIFO that blocks an ordinary open(), a link to another file.
    lock, target = tmp_path / "profiled-calls.lock", tmp_path / "target"
    plant(kind, lock, target)
    started = time.monotonic()
    run = run_harness(tmp_path, CASES / "vector/problem.py", [CASES / "positional/kernel.py"],
                      profiled_call_lock={"path": str(lock), "max_wait_seconds": 30})

    assert run.code == 0, run.stderr
    assert time.monotonic() - started < 30
    assert run.candidate(0)["ok"] is True
    assert why in run.candidate(0)["call_lock"], run.candidate(0)["call_lock"]
    if kind == "symlink":
        assert not target.exists()
    if kind == "hardlink":
        assert target.read_text(encoding="utf-8") == "not a lock\n"


@pytest.mark.parametrize("lock", [{"path": ""}, {"path": "x", "max_wait_seconds": -1},
                                  {"path": "x", "max_wait_seconds": True}, "x"])
def test_call_lock_plan_fields_are_checked(tmp_path, lock):
    run = run_harness(tmp_path, CASES / "vector/problem.py", [CASES / "positional/kernel.py"],
                      profiled_call_lock=lock)
    assert run.code == 2
    assert "profiled_call_lock" in run.stderr
    assert run.events == []


# ---------------------------------------------------------------------------------------------
# On a GPU machine: the same harness with the real torch and triton (and ncu when present).


def real_torch_env():
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    env.pop("KPROF_FAKE_TORCH_LOG", None)
    return env


def has_real_cuda_torch():
    probe = "import torch, triton, sys; sys.exit(0 if torch.cuda.is_available() else 1)"
    try:
        done = subprocess.run([sys.executable, "-c", probe], env=real_torch_env(), capture_output=True, timeout=300)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


needs_gpu = pytest.mark.skipif(not has_real_cuda_torch(), reason="needs the real torch and triton with a CUDA GPU")
needs_ncu = pytest.mark.skipif(shutil.which("ncu") is None, reason="needs Nsight Compute (ncu) on PATH")


@needs_gpu
@pytest.mark.parametrize("example", ["vadd", "twostage", "softmax", "matmul"])
def test_real_gpu_runs_each_example_with_inputs_made_on_the_gpu(tmp_path, example):
    run = run_harness(tmp_path, EXAMPLES / example / "problem.py", [EXAMPLES / example / "kernel.py"],
                      real_torch=True)

    assert run.code == 0, run.stderr
    assert run.candidate(0)["ok"] is True
    assert run.status["inputs_on"] == "gpu" and run.status["inputs_fallback"] is None
    assert run.status["gpu_name"] not in (None, "Fake GPU")


@needs_gpu
def test_real_gpu_illegal_access_poisons_the_context_and_a_restart_runs_the_rest(tmp_path):
    kernels = [CASES / "gpu_illegal_access/kernel.py", EXAMPLES / "vadd/kernel.py"]
    run = run_harness(tmp_path, CASES / "vector/problem.py", kernels, real_torch=True)

    assert run.code == 3, run.stderr
    assert run.candidate(0)["cuda_context_poisoned"] is True
    assert "illegal memory access" in run.candidate(0)["error"]["message"]
    assert run.candidate(1)["phase"] == "not_started"

    restarted = run_harness(tmp_path, CASES / "vector/problem.py", kernels, real_torch=True, first_candidate=1)

    assert restarted.code == 0, restarted.stderr
    assert restarted.candidate(1)["ok"] is True


@needs_gpu
@needs_ncu
def test_real_ncu_profiles_exactly_the_launches_of_each_ranged_call(tmp_path):
    example = EXAMPLES / "twostage"
    run_harness(tmp_path, example / "problem.py", [example / "kernel.py"] * 2, real_torch=True, warmup=0)
    log = tmp_path / "ncu.csv"
    ncu = ["ncu", "--clock-control", "none", "--nvtx", "--nvtx-include", "regex:kprof:(cand[0-9]+|primer)/",
           "--csv", "--page", "raw", "--metrics", "gpu__time_duration.sum", "--log-file", str(log)]

    run = run_plan(tmp_path, tmp_path / "run" / "harness.py", tmp_path / "run" / "plan.json", True, ncu)

    assert run.code == 0, run.stderr
    rows = [row for row in csv.reader(log.read_text().splitlines()) if len(row) > 6]
    header = rows[0]
    nvtx = next(i for i, name in enumerate(header) if "Push/Pop_Range" in name)
    kernel = header.index("Kernel Name")
    profiled = [(row[nvtx].split(":")[1:3], row[kernel]) for row in rows[2:]]
    assert profiled == [(["kprof", "cand0"], "partial_sum_kernel"), (["kprof", "cand0"], "scale_kernel"),
                        (["kprof", "cand1"], "partial_sum_kernel"), (["kprof", "cand1"], "scale_kernel")]


def start_standby(tmp_path, problem, idle_seconds=60, primer=False, fake_torch=FAKE_TORCH, gpu_lock=None,
                  env=None, early_primer=False, defer_inputs=False):
    """Starts the harness with a standby plan (no candidates, a FIFO); returns (process, fifo,
    run_dir, events log)."""
    run_dir = tmp_path / "run"
    run_dir.mkdir(exist_ok=True)
    script = install_harness(run_dir)
    fifo = run_dir / "candidates.fifo"
    os.mkfifo(fifo)
    plan = {"version": 1, "problem": str(problem), "candidates": [],
            "status_file": str(run_dir / "status.json"), "warmup": 1, "inputs": "gpu", "cast": "none",
            "seed": 0, "first_candidate": 0, "early_primer": early_primer,
            "standby": {"fifo": str(fifo), "idle_seconds": idle_seconds, "primer": primer,
                        "defer_inputs": defer_inputs,
                        "gpu_lock": None if gpu_lock is None else str(gpu_lock)}}
    plan_path = run_dir / "plan.json"
    plan_path.write_text(json.dumps(plan), encoding="utf-8")
    log = tmp_path / "events.log"
    env = dict(os.environ, PYTHONPATH=str(fake_torch), KPROF_FAKE_TORCH_LOG=str(log), **(env or {}))
    process = subprocess.Popen([sys.executable, str(script), str(plan_path)], cwd=str(tmp_path), env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return process, fifo, run_dir, log


def wait_for_status(status_path, predicate, process, seconds=60):
    """Whether the status JSON satisfied `predicate` while `process` ran (within `seconds`)."""
    import time
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if status_path.exists():
            try:
                if predicate(json.loads(status_path.read_text(encoding="utf-8"))):
                    return True
            except ValueError:
                pass  # replaced while read
        if process.poll() is not None:
            return False
        time.sleep(0.01)
    return False


def wait_for_phase(status_path, phase, process, seconds=60):
    return wait_for_status(status_path, lambda status: status["phase"] == phase, process, seconds)


def wait_for_candidate_phase(status_path, phase, process, seconds=60):
    """Whether the first candidate of the status reached `phase` while `process` ran."""
    return wait_for_status(status_path, lambda status: bool(status["candidates"])
                           and status["candidates"][0]["phase"] == phase, process, seconds)


def test_standby_prepares_inputs_then_runs_the_candidates_written_into_its_fifo(tmp_path):
    process, fifo, run_dir, log = start_standby(tmp_path, CASES / "vector/problem.py")
    try:
        assert wait_for_phase(run_dir / "status.json", "standby", process), process.stderr.read()
        # Ready: the inputs are made and synchronized, nothing else ran, no range was opened.
        assert log.read_text(encoding="utf-8").splitlines() == ["sync"]
        message = {"candidates": [{"kernel": str(CASES / "positional/kernel.py"), "range": "kprof:cand0"},
                                  {"kernel": str(CASES / "positional/kernel.py"), "range": "kprof:cand1"}],
                   "first_candidate": 1}
        with open(fifo, "w", encoding="utf-8") as f:
            f.write(json.dumps(message) + "\n")
        out, err = process.communicate(timeout=60)
    finally:
        process.kill()
    assert process.returncode == 0, err
    status = json.loads((run_dir / "status.json").read_text(encoding="utf-8"))
    assert status["phase"] == "done"
    assert [c["index"] for c in status["candidates"]] == [1]
    assert status["candidates"][0]["ok"] is True
    events = log.read_text(encoding="utf-8").splitlines()
    assert events == ["sync", "launch add_kernel"] + profiled_events("kprof:cand1", ["launch add_kernel"])


def test_standby_profiles_its_primer_in_a_range_of_its_own_before_it_waits(tmp_path):
    process, fifo, run_dir, log = start_standby(tmp_path, CASES / "vector/problem.py", primer=True)
    try:
        assert wait_for_phase(run_dir / "status.json", "standby", process), process.stderr.read()
        # One kernel of the harness's own, synchronized inside the primer's range, then one Triton
        # kernel of its own in no range (ncu profiles none of it), before waiting.
        assert log.read_text(encoding="utf-8").splitlines() == ["sync", "sync", "push kprof:primer",
                                                                "launch fill", "sync", "pop",
                                                                "launch kprof_triton_primer", "sync"]
        status = json.loads((run_dir / "status.json").read_text(encoding="utf-8"))
        assert status["primer"] == "ran" and status["primer_seconds"] >= 0
        assert status["triton_primer"] == "ran" and status["triton_primer_seconds"] >= 0
        message = {"candidates": [{"kernel": str(CASES / "positional/kernel.py"), "range": "kprof:cand0"}],
                   "first_candidate": 0}
        with open(fifo, "w", encoding="utf-8") as f:
            f.write(json.dumps(message) + "\n")
        out, err = process.communicate(timeout=60)
    finally:
        process.kill()
    assert process.returncode == 0, err
    status = json.loads((run_dir / "status.json").read_text(encoding="utf-8"))
    assert status["candidates"][0]["ok"] is True and status["primer"] == "ran"


def test_standby_does_its_gpu_work_under_the_gpus_lock_and_waits_without_it(tmp_path):
    # kprof holds gpu<N>.lock for a session; a standby started beside it imports torch and its
    # problem, then waits for the lock before its first GPU work, and lets it go before waiting.
    import fcntl

    lock_file = tmp_path / "gpu0.lock"
    held = os.open(lock_file, os.O_RDONLY | os.O_CREAT, 0o600)
    fcntl.flock(held, fcntl.LOCK_EX)
    process, fifo, run_dir, log = start_standby(tmp_path, CASES / "vector/problem.py", primer=True,
                                                gpu_lock=lock_file)
    try:
        status_path = run_dir / "status.json"
        assert wait_for_phase(status_path, "import_problem", process), process.stderr.read()
        time.sleep(2.0)  # the problem's import (0.8 s of it on a loaded 2-core VM) then the wait
        status = json.loads(status_path.read_text(encoding="utf-8"))
        assert status["phase"] == "import_problem", status
        assert not log.exists() or log.read_text(encoding="utf-8") == "", "GPU work before the lock"
        fcntl.flock(held, fcntl.LOCK_UN)
        assert wait_for_phase(status_path, "standby", process), process.stderr.read()
        status = json.loads(status_path.read_text(encoding="utf-8"))
        assert status["gpu_lock"] == "held" and status["gpu_lock_wait_seconds"] >= 1.0
        assert status["primer"] == "ran"
        # Waiting, it holds no lock: kprof's next session can take it.
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        fcntl.flock(held, fcntl.LOCK_UN)
        with open(fifo, "w", encoding="utf-8") as f:
            f.write(json.dumps({"candidates": [{"kernel": str(CASES / "positional/kernel.py"),
                                                "range": "kprof:cand0"}], "first_candidate": 0}) + "\n")
        out, err = process.communicate(timeout=60)
    finally:
        process.kill()
        os.close(held)
    assert process.returncode == 0, err


def test_standby_takes_a_gpu_lock_file_another_user_made_in_a_shared_directory(tmp_path):
    # The lock directory is shared like /tmp (sticky, world-writable): uid 65534 made gpu0.lock
    # first. The harness opens it without O_CREAT (which fs.protected_regular refuses on another
    # user's file there) and holds it; gpu1.lock was made by kprof, 0644 in a shared directory.
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        pytest.skip("needs root and setpriv to act as uid 65534")
    import tempfile

    shared = Path(tempfile.mkdtemp(prefix="kprof-shared-locks-", dir="/tmp"))
    try:
        os.chmod(shared, 0o1777)
        theirs = shared / "gpu0.lock"
        subprocess.run(["setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups",
                        sys.executable, "-c",
                        "import os; os.close(os.open(%r, os.O_RDONLY | os.O_CREAT, 0o644))" % str(theirs)],
                       check=True)
        assert theirs.stat().st_uid == 65534
        os.close(os.open(str(shared / "gpu1.lock"), os.O_RDONLY | os.O_CREAT, 0o644))
        for lock_file, case in ((theirs, "theirs"), (shared / "gpu1.lock", "mine")):
            (tmp_path / case).mkdir()
            process, fifo, run_dir, log = start_standby(tmp_path / case, CASES / "vector/problem.py",
                                                        gpu_lock=lock_file)
            try:
                assert wait_for_phase(run_dir / "status.json", "standby", process), process.stderr.read()
                status = json.loads((run_dir / "status.json").read_text(encoding="utf-8"))
                assert status["gpu_lock"] == "held", status
            finally:
                process.kill()
                process.communicate(timeout=60)
    finally:
        shutil.rmtree(shared, ignore_errors=True)


def test_a_failing_primer_is_recorded_and_changes_nothing_else(tmp_path):
    # A copy of the fake torch whose fill_ raises.
    broken = tmp_path / "broken_torch"
    shutil.copytree(FAKE_TORCH, broken)
    init = broken / "torch" / "__init__.py"
    init.write_text(init.read_text(encoding="utf-8").replace(
        "    def fill_(self, value):\n", "    def fill_(self, value):\n        raise RuntimeError('no fill here')\n"),
        encoding="utf-8")
    process, fifo, run_dir, log = start_standby(tmp_path, CASES / "vector/problem.py", primer=True,
                                                fake_torch=broken)
    try:
        assert wait_for_phase(run_dir / "status.json", "standby", process), process.stderr.read()
        status = json.loads((run_dir / "status.json").read_text(encoding="utf-8"))
        assert status["primer"] == "failed: no fill here"
        # The range was closed again: nothing is left open for the candidates.
        events = log.read_text(encoding="utf-8").splitlines()
        assert events.count("push kprof:primer") == events.count("pop") == 1
        message = {"candidates": [{"kernel": str(CASES / "positional/kernel.py"), "range": "kprof:cand0"}],
                   "first_candidate": 0}
        with open(fifo, "w", encoding="utf-8") as f:
            f.write(json.dumps(message) + "\n")
        out, err = process.communicate(timeout=60)
    finally:
        process.kill()
    assert process.returncode == 0, err
    status = json.loads((run_dir / "status.json").read_text(encoding="utf-8"))
    assert status["candidates"][0]["ok"] is True


def write_candidate_and_finish(process, fifo, kernel):
    """Hands `kernel` to the standby as candidate 0 and waits for the process; (stdout, stderr)."""
    message = {"candidates": [{"kernel": str(kernel), "range": "kprof:cand0"}], "first_candidate": 0}
    with open(fifo, "w", encoding="utf-8") as f:
        f.write(json.dumps(message) + "\n")
    return process.communicate(timeout=60)


def test_a_failing_triton_primer_is_recorded_and_changes_nothing_else(tmp_path):
    process, fifo, run_dir, log = start_standby(tmp_path, CASES / "vector/problem.py", primer=True,
                                                env={"KPROF_FAKE_TRITON_FAIL_LAUNCH": "kprof_triton_primer"})
    try:
        assert wait_for_phase(run_dir / "status.json", "standby", process), process.stderr.read()
        status = json.loads((run_dir / "status.json").read_text(encoding="utf-8"))
        assert status["primer"] == "ran"
        assert status["triton_primer"] == "failed: no launch here"
        out, err = write_candidate_and_finish(process, fifo, CASES / "positional/kernel.py")
    finally:
        process.kill()
    assert process.returncode == 0, err
    assert "triton primer: failed: no launch here" in err
    status = json.loads((run_dir / "status.json").read_text(encoding="utf-8"))
    assert status["candidates"][0]["ok"] is True
    events = log.read_text(encoding="utf-8").splitlines()
    assert events[-len(profiled_events("kprof:cand0", ["launch add_kernel"])):] == \
        profiled_events("kprof:cand0", ["launch add_kernel"])


def test_without_triton_the_standby_launches_no_triton_primer(tmp_path):
    # A torch without Triton beside it: the primer says so and the candidate (torch only) runs.
    torch_only = tmp_path / "torch_only"
    shutil.copytree(FAKE_TORCH / "torch", torch_only / "torch")
    process, fifo, run_dir, log = start_standby(tmp_path, CASES / "vector/problem.py", primer=True,
                                                fake_torch=torch_only)
    try:
        assert wait_for_phase(run_dir / "status.json", "standby", process), process.stderr.read()
        status = json.loads((run_dir / "status.json").read_text(encoding="utf-8"))
        assert status["triton_primer"].startswith("no triton: "), status["triton_primer"]
        assert status["triton_version"] is None
        assert "launch kprof_triton_primer" not in log.read_text(encoding="utf-8")
        out, err = write_candidate_and_finish(process, fifo, CASES / "torch_only/kernel.py")
    finally:
        process.kill()
    assert process.returncode == 0, err
    status = json.loads((run_dir / "status.json").read_text(encoding="utf-8"))
    assert status["candidates"][0]["ok"] is True


def test_a_standby_without_its_primer_launches_no_triton_primer_either(tmp_path):
    process, fifo, run_dir, log = start_standby(tmp_path, CASES / "vector/problem.py", primer=False)
    try:
        assert wait_for_phase(run_dir / "status.json", "standby", process), process.stderr.read()
        status = json.loads((run_dir / "status.json").read_text(encoding="utf-8"))
        assert "triton_primer" not in status
        out, err = write_candidate_and_finish(process, fifo, CASES / "positional/kernel.py")
    finally:
        process.kill()
    assert process.returncode == 0, err
    assert "kprof_triton_primer" not in log.read_text(encoding="utf-8")


def test_standby_left_waiting_exits_with_code_4_without_running_anything(tmp_path):
    process, fifo, run_dir, log = start_standby(tmp_path, CASES / "vector/problem.py", idle_seconds=1)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 4, err
    status = json.loads((run_dir / "status.json").read_text(encoding="utf-8"))
    assert status["phase"] == "idle" and status["candidates"] == []
    assert not any(e.startswith("push") for e in log.read_text(encoding="utf-8").splitlines())


def test_standby_given_garbage_exits_as_an_unreadable_plan(tmp_path):
    process, fifo, run_dir, log = start_standby(tmp_path, CASES / "vector/problem.py")
    try:
        assert wait_for_phase(run_dir / "status.json", "standby", process)
        with open(fifo, "w", encoding="utf-8") as f:
            f.write("not json\n")
        out, err = process.communicate(timeout=60)
    finally:
        process.kill()
    assert process.returncode == 2
    assert "not JSON" in err


@pytest.mark.parametrize("standby", [{"fifo": ""}, {"fifo": "x", "idle_seconds": 0}, "x",
                                     {"fifo": "x", "gpu_lock": ""}, {"fifo": "x", "gpu_lock": 3}])
def test_standby_plan_fields_are_checked(tmp_path, standby):
    run = run_harness(tmp_path, CASES / "vector/problem.py", [], standby=standby)
    assert run.code == 2
    assert "standby" in run.stderr


# ---------------------------------------------------------------------------------------------
# The early primer (plan "early_primer"), against a fake CUDA driver and NVTX library

FAKE_CUDA_SOURCE = ROOT / "tests" / "standins" / "fake_cuda" / "fake_cuda.c"
PRIMER_EVENTS = ["cuda cuInit", "cuda cuDeviceGet", "cuda cuDevicePrimaryCtxRetain", "cuda cuCtxSetCurrent",
                 "cuda cuModuleLoadData", "cuda cuModuleGetFunction", "push kprof:primer", "cuda launch",
                 "cuda sync", "pop"]


@pytest.fixture(scope="module")
def fake_cuda(tmp_path_factory):
    """A folder with the fake libcuda.so.1, libnvtx3interop.so.1 and libnvidia-ml.so.1
    (tests/standins/fake_cuda)."""
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        pytest.skip("needs a C compiler to build the fake CUDA driver")
    folder = tmp_path_factory.mktemp("fake_cuda")
    for name, flags in (("libcuda.so.1", []), ("libnvtx3interop.so.1", ["-DKPROF_FAKE_NVTX"]),
                        ("libnvidia-ml.so.1", ["-DKPROF_FAKE_NVML"])):
        subprocess.run([compiler, "-shared", "-fPIC", "-O1", *flags, "-o", str(folder / name), str(FAKE_CUDA_SOURCE)],
                       check=True)
    return folder


def with_library_path(folder, **extra):
    return dict(extra, LD_LIBRARY_PATH=os.pathsep.join(filter(None, [str(folder), os.environ.get("LD_LIBRARY_PATH")])))


def test_the_early_primer_profiles_its_kernel_while_torch_is_imported(tmp_path, fake_cuda):
    # The context and the primer's kernel, in its own range with the profiled-call lock held, run in
    # a thread begun before `import torch` and end before the inputs' first GPU work.
    lock = tmp_path / "calls.lock"
    env = with_library_path(fake_cuda, KPROF_FAKE_TORCH_LOG_IMPORT="1", KPROF_FAKE_TORCH_IMPORT_SECONDS="1")
    run = run_harness(tmp_path, CASES / "vector/problem.py", [CASES / "positional/kernel.py"], env=env,
                      early_primer=True, profiled_call_lock=call_lock_plan(lock, max_wait_seconds=5))
    assert run.code == 0, run.stderr
    assert run.status["primer"] == "ran at start" and run.status["primer_seconds"] >= 0
    events = run.events
    assert events.index("cuda cuInit") < events.index("torch imported")
    assert [e for e in events if e.startswith("cuda ") or e in ("push kprof:primer", "pop")][:10] == PRIMER_EVENTS
    inputs = events.index("torch imported") + 1
    assert events[inputs:] == ["sync"] + ["launch add_kernel"] * 3 + profiled_events("kprof:cand0", ["launch add_kernel"])
    assert run.status["primer_call_lock"] == "held"  # as a candidate's call takes it


def test_tritons_cache_key_is_computed_beside_torchs_import_and_once(tmp_path):
    # Triton is imported first and its cache key computed in a thread while torch is imported
    # (1 s here); the launches after it find the key computed: it is computed once.
    env = {"KPROF_FAKE_TORCH_LOG_IMPORT": "1", "KPROF_FAKE_TORCH_IMPORT_SECONDS": "1",
           "KPROF_FAKE_TRITON_LOG_KEY": "1"}
    run = run_harness(tmp_path, CASES / "vector/problem.py", [CASES / "positional/kernel.py"] * 2, env=env)
    assert run.code == 0, run.stderr
    events = run.events
    assert sorted(events[:2]) == ["import torch", "triton key"] and events[2] == "torch imported"
    assert events.count("triton key") == 1 and events.count("launch add_kernel") == 8
    assert run.status["triton_key_seconds"] >= 0 and run.status["triton_version"] == "0.0-fake"


def test_the_harness_waits_for_tritons_cache_key_when_torch_is_imported_first(tmp_path):
    # A key slower than torch's import: the harness waits for the thread before it goes on, so
    # that no launch computes the key a second time.
    env = {"KPROF_FAKE_TORCH_LOG_IMPORT": "1", "KPROF_FAKE_TRITON_KEY_SECONDS": "1",
           "KPROF_FAKE_TRITON_LOG_KEY": "1"}
    run = run_harness(tmp_path, CASES / "vector/problem.py", [CASES / "positional/kernel.py"], env=env)
    assert run.code == 0, run.stderr
    assert run.events[:3] == ["import torch", "torch imported", "triton key"]
    assert run.events.count("triton key") == 1 and run.status["triton_key_seconds"] >= 1


def test_a_cache_key_that_fails_in_the_thread_changes_nothing_but_its_figure(tmp_path):
    # Triton's own computation at the first launch would raise the same error; here the fake key
    # raises every time, so the launches fail as they would without the thread.
    run = run_harness(tmp_path, CASES / "vector/problem.py", [], env={"KPROF_FAKE_TRITON_KEY_RAISES": "1"})
    assert run.code == 0, run.stderr
    assert run.status["problem_ok"] is True and run.status["triton_version"] == "0.0-fake"
    assert "triton_key_seconds" not in run.status
    assert "Traceback" not in run.stderr  # the thread said nothing either


def test_without_triton_no_cache_key_is_computed(tmp_path):
    fake = tmp_path / "torch_only"
    shutil.copytree(FAKE_TORCH / "torch", fake / "torch")
    run = run_harness(tmp_path, CASES / "vector/problem.py", [], env={"PYTHONPATH": str(fake)})
    assert run.code == 0, run.stderr
    assert run.status["torch_version"] == "0.0-fake"
    assert run.status["triton_version"] is None and "triton_key_seconds" not in run.status


def test_without_an_nvtx_library_the_early_primer_makes_the_context_only(tmp_path, fake_cuda):
    import ctypes

    for name in ("libnvtx3interop.so.1", "libnvToolsExt.so.1"):
        try:
            ctypes.CDLL(name)
        except OSError:
            continue
        pytest.skip("this machine's loader finds a real %s, which the harness would use" % name)
    only_driver = tmp_path / "driver"
    only_driver.mkdir()
    shutil.copyfile(fake_cuda / "libcuda.so.1", only_driver / "libcuda.so.1")
    run = run_harness(tmp_path, CASES / "vector/problem.py", [CASES / "positional/kernel.py"],
                      env=with_library_path(only_driver), early_primer=True)
    assert run.code == 0, run.stderr
    assert run.status["primer"].startswith("context only: no NVTX library"), run.status["primer"]
    assert "cuda launch" not in run.events and "cuda cuCtxSetCurrent" in run.events
    assert run.candidate(0)["ok"] is True


def test_a_failing_driver_call_is_recorded_and_changes_nothing_else(tmp_path, fake_cuda):
    run = run_harness(tmp_path, CASES / "vector/problem.py", [CASES / "positional/kernel.py"],
                      env=with_library_path(fake_cuda, KPROF_FAKE_CUDA_FAIL="launch"), early_primer=True)
    assert run.code == 0, run.stderr
    assert run.status["primer"] == "failed: cuLaunchKernel returned CUDA error 999"
    # The range is closed even so, and the candidate runs as without a primer.
    assert run.events.count("push kprof:primer") == run.events.count("pop") - 1
    assert run.candidate(0)["ok"] is True


def test_a_gpu_the_machine_lacks_stops_the_harness_before_the_problem_naming_the_machines_gpus(tmp_path, fake_cuda):
    # `kprof profile --gpu 99` sets CUDA_VISIBLE_DEVICES=99; CUDA then shows no GPU, and NVML
    # (here the fake libnvidia-ml) counts the machine's.
    run = run_harness(tmp_path, CASES / "vector/problem.py", [CASES / "positional/kernel.py"],
                      env=with_library_path(fake_cuda, CUDA_VISIBLE_DEVICES="99", KPROF_FAKE_GPU_COUNT="2"))
    assert run.code == 2, run.stderr
    assert run.status["cuda_devices"] == 0 and run.status["machine_gpus"] == 2, run.status
    assert run.status["phase"] == "import_problem" and run.status["problem_ok"] is False
    assert run.status["problem_error"]["type"] == "NoGpu"
    assert run.status["problem_error"]["message"] == (
        "CUDA shows no GPU under CUDA_VISIBLE_DEVICES=99; this machine has 2 GPU(s)")
    assert run.candidate(0)["phase"] == "not_started"
    assert "sync" not in run.events, "no inputs made on the CPU instead, no kernel run"


def test_a_machine_whose_gpus_nothing_can_count_is_said_to_have_an_unknown_number(tmp_path):
    run = run_harness(tmp_path, CASES / "vector/problem.py", [CASES / "positional/kernel.py"],
                      env={"CUDA_VISIBLE_DEVICES": "99", "LD_LIBRARY_PATH": str(tmp_path)})
    assert run.code == 2, run.stderr
    assert run.status["cuda_devices"] == 0
    if shutil.which("nvidia-smi") is None and not os.path.isdir("/proc/driver/nvidia/gpus"):
        assert run.status["machine_gpus"] is None
        assert run.status["problem_error"]["message"].endswith("this machine has an unknown number of GPUs")


def test_a_visible_gpu_is_counted_and_changes_nothing_else(tmp_path):
    run = run_harness(tmp_path, CASES / "vector/problem.py", [CASES / "positional/kernel.py"],
                      env={"KPROF_FAKE_GPU_COUNT": "2"})
    assert run.code == 0, run.stderr
    assert run.status["cuda_devices"] == 2 and run.status["machine_gpus"] is None
    assert run.candidate(0)["ok"] is True


def test_without_a_driver_the_early_primer_is_recorded_as_failed(tmp_path):
    run = run_harness(tmp_path, CASES / "vector/problem.py", [CASES / "positional/kernel.py"],
                      env={"LD_LIBRARY_PATH": str(tmp_path)}, early_primer=True)
    assert run.code == 0, run.stderr
    if shutil.which("nvidia-smi") is None:  # a machine with a real driver makes a real context
        assert run.status["primer"].startswith("failed: libcuda.so.1"), run.status["primer"]
    assert run.candidate(0)["ok"] is True


def test_a_standby_early_primer_waits_for_the_gpus_lock_and_skips_the_torch_primer(tmp_path, fake_cuda):
    import fcntl

    lock_file = tmp_path / "gpu0.lock"
    held = os.open(lock_file, os.O_RDONLY | os.O_CREAT, 0o600)
    fcntl.flock(held, fcntl.LOCK_EX)
    process, fifo, run_dir, log = start_standby(tmp_path, CASES / "vector/problem.py", primer=True,
                                                gpu_lock=lock_file, env=with_library_path(fake_cuda),
                                                early_primer=True)
    try:
        status_path = run_dir / "status.json"
        assert wait_for_phase(status_path, "import_problem", process), process.stderr.read()
        time.sleep(1.0)
        assert not log.exists() or log.read_text(encoding="utf-8") == "", "GPU work before the lock"
        fcntl.flock(held, fcntl.LOCK_UN)
        assert wait_for_phase(status_path, "standby", process), process.stderr.read()
        status = json.loads(status_path.read_text(encoding="utf-8"))
        assert status["primer"] == "ran at start" and status["gpu_lock"] == "held"
        # The early primer's wait for the lock is a wait, not setup.
        assert status["gpu_lock_wait_seconds"] >= 0.9
        events = log.read_text(encoding="utf-8").splitlines()
        assert events[:10] == PRIMER_EVENTS and "launch fill" not in events  # no second primer
        # Triton's first launch is still paid before the candidates come.
        assert events[-2:] == ["launch kprof_triton_primer", "sync"] and status["triton_primer"] == "ran"
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)  # waiting, it holds no lock
        fcntl.flock(held, fcntl.LOCK_UN)
        with open(fifo, "w", encoding="utf-8") as f:
            f.write(json.dumps({"candidates": [{"kernel": str(CASES / "positional/kernel.py"),
                                                "range": "kprof:cand0"}], "first_candidate": 0}) + "\n")
        out, err = process.communicate(timeout=60)
    finally:
        process.kill()
        os.close(held)
    assert process.returncode == 0, err


def test_a_deferred_standby_makes_no_early_primer(tmp_path, fake_cuda):
    # Deferred: started beside a session still profiling on its GPU, it does no GPU work at all
    # before the candidates come.
    process, fifo, run_dir, log = start_standby(tmp_path, CASES / "vector/problem.py", defer_inputs=True,
                                                env=with_library_path(fake_cuda), early_primer=True)
    try:
        assert wait_for_phase(run_dir / "status.json", "standby", process), process.stderr.read()
        time.sleep(0.5)
        assert not log.exists() or log.read_text(encoding="utf-8") == ""
    finally:
        process.kill()
        process.communicate(timeout=60)


# ---- compiling ahead: compile workers beside the harness ---------------------------------------

# Every fake Triton launch of the harness takes this long, so that a compile worker started
# beside it has claimed the later candidates before the harness reaches them.
SLOW_LAUNCH = "0.2"
FIRST = "not compiled ahead: the harness's first candidate, run at once"


class WorkedRun:
    """A harness run with compiling ahead on, and its compile workers: their exit codes, the
    compiles they logged (kernel name, pid) and the files they left in the compile directory."""

    def __init__(self, run, worker_codes, compiled, ahead_dir):
        self.run = run
        self.worker_codes = worker_codes
        self.compiled = compiled
        self.ahead_dir = ahead_dir


def run_with_workers(tmp_path, problem, kernels, workers=1, env=None, max_wait=None, worker_wait=10, **settings):
    """Writes a plan with "compile_ahead" (and its max_wait_seconds when given), starts `workers`
    compile workers as kprof does (each `harness.py PLAN --compile-worker`, CUDA_VISIBLE_DEVICES
    empty, beside the harness), runs the harness, then waits `worker_wait` seconds for the workers
    (kprof stops those still running once its session ends)."""
    ahead_dir = tmp_path / "ahead"
    ahead_dir.mkdir(mode=0o700)
    compile_ahead = {"dir": str(ahead_dir)}
    if max_wait is not None:
        compile_ahead["max_wait_seconds"] = max_wait
    script, plan_path = write_plan(tmp_path, problem, kernels, compile_ahead=compile_ahead, **settings)
    compile_log = tmp_path / "compiles.log"
    extra = dict({"KPROF_FAKE_TRITON_COMPILE_LOG": str(compile_log), "KPROF_FAKE_TRITON_LAUNCH_SECONDS": SLOW_LAUNCH},
                 **(env or {}))
    worker_env = dict(os.environ, PYTHONPATH=str(FAKE_TORCH), KPROF_FAKE_TORCH_LOG=str(tmp_path / "events.log"),
                      CUDA_VISIBLE_DEVICES="", **extra)
    started = [subprocess.Popen([sys.executable, str(script), str(plan_path), "--compile-worker"], cwd=str(tmp_path),
                                env=worker_env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
               for _ in range(workers)]
    try:
        run = run_plan(tmp_path, script, plan_path, env=extra)
        codes = []
        for worker in started:
            try:
                worker.communicate(timeout=worker_wait)
            except subprocess.TimeoutExpired:  # still waiting for a target that never came
                worker.kill()
                worker.communicate()
            codes.append(worker.returncode)
    finally:
        for worker in started:
            if worker.poll() is None:
                worker.kill()
                worker.communicate()
    return WorkedRun(run, codes, compiles(tmp_path), ahead_dir)


def compiles(tmp_path):
    """The fake Triton's compile-only runs: (kernel, pid) per line of its compile log."""
    log = tmp_path / "compiles.log"
    if not log.exists():
        return []
    return [(line.split()[1], int(line.split()[2])) for line in log.read_text(encoding="utf-8").splitlines()]


def test_compile_workers_compile_the_later_candidates_outside_the_harness_and_launch_nothing(tmp_path):
    kernels = [CASES / "positional/kernel.py"] * 3
    worked = run_with_workers(tmp_path, CASES / "vector/problem.py", kernels)
    run = worked.run

    assert run.code == 0, run.stderr
    assert worked.worker_codes == [0]
    # The harness claims its first candidate before it publishes its target: it runs it at once.
    assert [run.candidate(i)["compiled_ahead"] for i in range(3)] == [FIRST, "compiled", "compiled"]
    assert run.candidate(0)["compile_seconds"] == 0
    for i in (1, 2):
        assert 0 < run.candidate(i)["compile_seconds"] < 30, run.candidate(i)
        assert 0 <= run.candidate(i)["compile_wait_seconds"] <= 30, run.candidate(i)  # COMPILE_MAX_WAIT_SECONDS
    # Compiled by one worker, another process than the harness (whose launches are the events).
    assert [kernel for kernel, _ in worked.compiled] == ["add_kernel", "add_kernel"]
    assert len({pid for _, pid in worked.compiled}) == 1
    # The harness's events are exactly those of a run without compiling ahead: the worker, which
    # sees no GPU, synchronized and launched nothing.
    expected = ["sync"]
    for i in range(3):
        expected += ["launch add_kernel"] * 3 + profiled_events("kprof:cand%d" % i, ["launch add_kernel"])
    assert run.events == expected
    target = json.loads((worked.ahead_dir / "target.json").read_text(encoding="utf-8"))
    assert target == {"backend": "cuda", "arch": 90, "warp_size": 32}
    claims = {i: int((worked.ahead_dir / ("%d.claim" % i)).read_text(encoding="utf-8")) for i in range(3)}
    assert claims[1] == claims[2] == worked.compiled[0][1] != claims[0]


def test_two_workers_share_the_candidates_and_compile_each_once(tmp_path):
    kernels = [CASES / "positional/kernel.py"] * 5
    worked = run_with_workers(tmp_path, CASES / "vector/problem.py", kernels, workers=2)

    assert worked.run.code == 0, worked.run.stderr
    assert worked.worker_codes == [0, 0]
    assert [worked.run.candidate(i)["compiled_ahead"] for i in range(5)] == [FIRST] + ["compiled"] * 4
    assert len(worked.compiled) == 4  # each later candidate once, by whichever worker claimed it


def test_an_autotuned_kernel_compiled_ahead_compiles_every_config_and_launches_none(tmp_path):
    kernels = [CASES / "positional/kernel.py", CASES / "autotuned/kernel.py"]
    worked = run_with_workers(tmp_path, CASES / "vector/problem.py", kernels)

    assert worked.run.code == 0, worked.run.stderr
    assert worked.run.candidate(1)["compiled_ahead"] == "compiled"
    assert [kernel for kernel, _ in worked.compiled] == ["tuned_add_kernel", "tuned_add_kernel"]
    assert worked.run.events[-5:] == profiled_events("kprof:cand1", ["launch tuned_add_kernel"])


def test_a_kernel_given_a_model_layers_weights_is_compiled_ahead_with_the_same_call(tmp_path):
    # The worker calls kernel_function as the harness does (choose_call): the input, the conv
    # layer's weight and bias as CUDA-looking meta tensors, the layer's settings. The kernel
    # asserts all of them, so a different call would raise there instead of compiling.
    kernels = [CASES / "conv_kernel/kernel.py"] * 2
    worked = run_with_workers(tmp_path, CASES / "conv/problem.py", kernels)

    assert worked.run.code == 0, worked.run.stderr
    assert worked.run.candidate(1)["compiled_ahead"] == "compiled"
    assert worked.run.candidate(1)["call_style"] == "layer_weights"
    assert [kernel for kernel, _ in worked.compiled] == ["conv_kernel"]


def test_auto_cast_compiles_ahead_with_the_dtype_the_candidate_will_get(tmp_path):
    # Under cast "auto" each candidate's call casts the inputs as its source says; the worker's
    # call does the same, so what it compiles is what the warm-up asks Triton's cache for.
    bf16 = tmp_path / "bf16" / "kernel.py"
    bf16.parent.mkdir()
    bf16.write_text("import torch\nimport triton\n\n\n@triton.jit\ndef add_kernel(x_ptr, y_ptr):\n    pass\n\n\n"
                    "def kernel_function(x, y):\n"
                    "    assert x.dtype == torch.bfloat16 and y.dtype == torch.bfloat16, 'bf16 only'\n"
                    "    add_kernel[(1,)](x, y)\n    return x\n", encoding="utf-8")
    worked = run_with_workers(tmp_path, CASES / "vector/problem.py", [CASES / "positional/kernel.py", bf16],
                              cast="auto")

    assert worked.run.code == 0, worked.run.stderr
    assert worked.run.candidate(1)["cast"] == "bf16"
    assert worked.run.candidate(1)["compiled_ahead"] == "compiled"
    assert [kernel for kernel, _ in worked.compiled] == ["add_kernel"]


def test_a_candidate_that_crashes_its_worker_costs_the_harness_no_wait(tmp_path):
    kernels = [CASES / "positional/kernel.py", CASES / "segfault/kernel.py", CASES / "positional/kernel.py"]
    worked = run_with_workers(tmp_path, CASES / "vector/problem.py", kernels)
    run = worked.run

    assert worked.worker_codes == [-11]  # SIGSEGV, in the worker
    assert run.candidate(0)["ok"] is True and run.candidate(0)["phase"] == "done"
    crashed = run.candidate(1)
    assert crashed["compiled_ahead"] == "not compiled ahead: its worker ended while compiling it"
    assert crashed["compile_wait_seconds"] < 5  # it saw the worker gone, not a 30 s wait
    assert crashed["phase"] == "warmup"  # then its own warm-up crashed the harness, as without
    assert run.stderr.count("Fatal Python error") == 1  # the harness's own crash


def test_a_worker_that_hangs_on_a_candidate_costs_it_the_plans_wait_and_nothing_else(tmp_path):
    # The worker hangs compiling candidate 1 (only there: in the harness it runs as positional/).
    # The harness waits compile_ahead.max_wait_seconds for it, compiles it in its own warm-up and
    # profiles it; candidate 2 it claims itself. Every candidate is ok.
    kernels = [CASES / "positional/kernel.py", CASES / "hangs_when_compiled_ahead/kernel.py",
               CASES / "positional/kernel.py"]
    started = time.monotonic()
    worked = run_with_workers(tmp_path, CASES / "vector/problem.py", kernels, max_wait=0.5, worker_wait=0.1)
    run = worked.run

    assert run.code == 0, run.stderr
    assert all(run.candidate(i)["ok"] for i in range(3))
    hung = run.candidate(1)
    assert hung["compiled_ahead"] == "not compiled ahead: still compiling after 0.5 s"
    assert 0.5 <= hung["compile_wait_seconds"] < 5
    assert run.candidate(2)["compiled_ahead"] == "not compiled ahead: no worker had started it"
    assert worked.worker_codes == [-9]  # still hanging when the run ended: killed, as kprof does
    assert time.monotonic() - started < 30


@pytest.mark.parametrize("wait", [-1, True, "5"])
def test_compile_ahead_max_wait_seconds_must_be_a_non_negative_number(tmp_path, wait):
    run = run_harness(tmp_path, CASES / "vector/problem.py", [CASES / "positional/kernel.py"] * 2,
                      compile_ahead={"dir": str(tmp_path), "max_wait_seconds": wait})
    assert run.code == 2
    assert "compile_ahead.max_wait_seconds" in run.stderr
    assert run.events == []


def test_a_candidate_that_raises_in_its_worker_is_reported_by_its_own_run(tmp_path):
    kernels = [CASES / "positional/kernel.py", CASES / "raises/kernel.py", CASES / "positional/kernel.py"]
    worked = run_with_workers(tmp_path, CASES / "vector/problem.py", kernels)
    run = worked.run

    assert run.code == 1
    assert run.candidate(0)["ok"] is True
    failed = run.candidate(1)
    assert failed["compiled_ahead"] == "not compiled ahead: ValueError: the kernel rejects these inputs"
    assert failed["error"]["category"] == "kernel_raised" and failed["phase"] == "warmup"
    assert run.candidate(2)["compiled_ahead"] == "compiled" and run.candidate(2)["ok"] is True


def test_a_candidate_that_exits_when_compiled_ahead_is_profiled_as_before(tmp_path):
    # Its compile-only call counts in the worker's copy of the module, not in the harness's.
    kernels = [CASES / "positional/kernel.py", CASES / "exits_in_call/kernel.py"]
    worked = run_with_workers(tmp_path, CASES / "vector/problem.py", kernels, warmup=3)

    assert worked.run.candidate(0)["ok"] is True
    assert worked.run.candidate(1)["compiled_ahead"] == "compiled"
    assert worked.run.candidate(1)["phase"] == "profiled_call"  # its fourth call exits, as without


def test_a_worker_that_cannot_make_the_inputs_without_a_gpu_says_why_for_each_candidate(tmp_path):
    # get_inputs() names the GPU itself: the worker, which sees none, cannot make them as meta
    # tensors, so the harness compiles every candidate in its warm-up, as without.
    problem = tmp_path / "gpu_problem.py"
    problem.write_text("import torch\n\n\ndef get_inputs():\n"
                       "    return [torch.randn(1024, device='cuda'), torch.randn(1024, device='cuda')]\n",
                       encoding="utf-8")
    worked = run_with_workers(tmp_path, problem, [CASES / "positional/kernel.py"] * 3)

    assert worked.run.code == 0, worked.run.stderr
    why = "not compiled ahead: the compile worker could not start (RuntimeError: No CUDA GPUs are available)"
    assert [worked.run.candidate(i)["compiled_ahead"] for i in range(3)] == [FIRST, why, why]
    assert worked.compiled == []


def test_nothing_is_compiled_ahead_without_compile_ahead_in_the_plan(tmp_path):
    kernels = [CASES / "positional/kernel.py"] * 2
    run = run_harness(tmp_path, CASES / "vector/problem.py", kernels,
                      env={"KPROF_FAKE_TRITON_COMPILE_LOG": str(tmp_path / "compiles.log")})

    assert run.code == 0, run.stderr
    assert [run.candidate(i)["compiled_ahead"] for i in range(2)] == [None, None]
    assert compiles(tmp_path) == []
    assert "triton_primer" not in run.status and "launch kprof_triton_primer" not in run.events


def test_a_compile_worker_needs_compile_ahead_in_its_plan(tmp_path):
    script, plan_path = write_plan(tmp_path, CASES / "vector/problem.py", [CASES / "positional/kernel.py"] * 2)
    done = subprocess.run([sys.executable, str(script), str(plan_path), "--compile-worker"], capture_output=True,
                          text=True, timeout=60, env=dict(os.environ, PYTHONPATH=str(FAKE_TORCH)))

    assert done.returncode == 2
    assert "compile_ahead" in done.stderr


def test_the_target_is_published_before_the_inputs_are_made(tmp_path):
    # The workers compile while the harness makes its inputs: the target comes before them, so a
    # problem whose get_inputs fails has published it already.
    ahead_dir = tmp_path / "ahead"
    ahead_dir.mkdir()
    problem = tmp_path / "problem.py"
    problem.write_text("def get_inputs():\n    raise ValueError('no inputs')\n", encoding="utf-8")
    run = run_harness(tmp_path, problem, [CASES / "positional/kernel.py"] * 2,
                      compile_ahead={"dir": str(ahead_dir)})

    assert run.code == 2, run.stderr  # the problem is invalid
    assert run.status["problem_error"]["type"] == "ValueError"
    target = json.loads((ahead_dir / "target.json").read_text(encoding="utf-8"))
    assert target == {"backend": "cuda", "arch": 90, "warp_size": 32}
    assert sorted(path.name for path in ahead_dir.iterdir()) == ["0.claim", "target.json"]
    assert run.status["compile_target_seconds"] > 0  # how long finding and publishing it took


def test_a_single_candidate_is_not_compiled_ahead(tmp_path):
    ahead_dir = tmp_path / "ahead"
    ahead_dir.mkdir()
    run = run_harness(tmp_path, CASES / "vector/problem.py", [CASES / "positional/kernel.py"],
                      compile_ahead={"dir": str(ahead_dir)})

    assert run.code == 0, run.stderr
    assert run.candidate(0)["compiled_ahead"] is None
    assert list(ahead_dir.iterdir()) == []  # no target published: kprof starts no worker for one
    assert "compile_target_seconds" not in run.status


def test_a_compile_ahead_directory_that_is_gone_costs_the_candidates_nothing(tmp_path):
    # Compiling ahead only saves time: without its directory the harness runs as without it.
    run = run_harness(tmp_path, CASES / "vector/problem.py", [CASES / "positional/kernel.py"] * 2,
                      compile_ahead={"dir": str(tmp_path / "gone")})

    assert run.code == 0, run.stderr
    assert [run.candidate(i)["compiled_ahead"] for i in range(2)] == [None, None]
    assert all(run.candidate(i)["ok"] for i in range(2))
    assert "no compile ahead" in run.stderr


def test_a_compile_ahead_directory_removed_during_the_batch_costs_the_later_candidates_nothing(tmp_path):
    ahead_dir = tmp_path / "ahead"
    ahead_dir.mkdir()
    remover = tmp_path / "remover" / "kernel.py"
    remover.parent.mkdir()
    remover.write_text("import shutil\n\n\ndef kernel_function(x, y):\n"
                       "    shutil.rmtree(%r, ignore_errors=True)\n    return x\n" % str(ahead_dir), encoding="utf-8")
    run = run_harness(tmp_path, CASES / "vector/problem.py", [remover, CASES / "positional/kernel.py"],
                      compile_ahead={"dir": str(ahead_dir)})

    assert run.code == 0, run.stderr
    assert run.candidate(1)["compiled_ahead"] == "not compiled ahead: No such file or directory"
    assert run.candidate(1)["ok"] is True


# ---- Many launches: the timeline mode and its gate (docs/harness.md, "Many launches") ----------


def run_timeline_mode(tmp_path, problem, kernel, env=None, **settings):
    """`harness.py PLAN --timeline OUT` with the fake torch: (completed process, OUT's JSON)."""
    script, plan_path = write_plan(tmp_path, problem, [kernel], **settings)
    out = plan_path.parent / "timeline.json"
    environment = dict(os.environ, PYTHONPATH=str(FAKE_TORCH))
    environment.update(env or {})
    done = subprocess.run([sys.executable, str(script), str(plan_path), "--timeline", str(out)],
                          cwd=str(tmp_path), env=environment, capture_output=True, text=True, timeout=120)
    return done, json.loads(out.read_text(encoding="utf-8"))


def test_timeline_mode_records_every_launch_of_the_call_in_order_with_its_shape_time_and_op(tmp_path):
    done, timeline = run_timeline_mode(tmp_path, CASES / "vector" / "problem.py",
                                       CASES / "many_launches" / "kernel.py", env={"KPROF_FAKE_STEPS": "1000"})
    assert done.returncode == 0, done.stderr
    launches = timeline["launches"]
    assert len(launches) == 2002  # one call: not the warm-up's launches
    assert [l["name"] for l in launches[:3]] == ["fill_kernel", "gemv_kernel", "cell_kernel"]
    assert launches[-1]["name"] == "gemm_kernel" and launches[-1]["grid"] == [2, 2, 1]
    cell = launches[2]
    assert (cell["grid"], cell["block"], cell["shared_memory"], cell["duration_us"]) == ([16, 1, 1], [64, 1, 1], 1024, 2.0)
    assert cell["op"] == "aten::fake_op" and cell["stream"] == 7 and cell["registers"] == 32
    assert timeline["call_us"] > 0 and timeline["process_seconds"] > 0
    assert not list((tmp_path / "run").glob(".kprof-trace-*"))  # the chrome trace is not left behind


def test_timeline_mode_writes_why_when_the_call_raises_and_still_exits_zero(tmp_path):
    done, timeline = run_timeline_mode(tmp_path, CASES / "vector" / "problem.py", CASES / "raises" / "kernel.py")
    assert done.returncode == 0, done.stderr
    assert "launches" not in timeline
    assert "Error" in timeline["error"]


def test_the_first_candidates_profiled_call_waits_for_the_timeline_gate(tmp_path):
    gate = tmp_path / "gate"
    status = tmp_path / "run" / "status.json"

    def open_gate_once_warm():
        """kprof's part: the gate opens 0.5 s after the candidate reached its warm-up."""
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if json.loads(status.read_text(encoding="utf-8"))["candidates"][0]["phase"] in ("warmup", "profiled_call"):
                    break
            except (OSError, ValueError, KeyError, IndexError):
                pass
            time.sleep(0.01)
        time.sleep(0.5)
        gate.write_text("go on\n")

    opener = threading.Thread(target=open_gate_once_warm)
    opener.start()
    try:
        run = run_harness(tmp_path, CASES / "vector" / "problem.py", [CASES / "positional" / "kernel.py"],
                          timeline_gate={"path": str(gate), "max_wait_seconds": 30})
    finally:
        opener.join()
    assert run.code == 0, run.stderr
    assert run.candidate(0)["timeline_wait_seconds"] >= 0.3
    assert run.events[-4:-1] == ["push kprof:cand0", "launch add_kernel", "sync"]


def test_a_timeline_gate_that_never_opens_costs_only_its_wait(tmp_path):
    run = run_harness(tmp_path, CASES / "vector" / "problem.py", [CASES / "positional" / "kernel.py"],
                      timeline_gate={"path": str(tmp_path / "never"), "max_wait_seconds": 0.3})
    assert run.code == 0, run.stderr
    assert 0.25 <= run.candidate(0)["timeline_wait_seconds"] < 5


def test_a_timeline_gate_without_a_path_is_a_plan_error(tmp_path):
    run = run_harness(tmp_path, CASES / "vector" / "problem.py", [CASES / "positional" / "kernel.py"],
                      timeline_gate={"max_wait_seconds": 1})
    assert run.code == 2
    assert "timeline_gate" in run.stderr
