"""The extract mode (`harness.py PLAN --extract SPEC`, templates/kprof_harness/extract.py): a
model's Triton kernels written as standalone cases that kprof's harness takes as they are. With the
fake torch and Triton (tests/standins/fake_torch): the model of tests/python/cases/model launches
@triton.jit kernels; the Inductor fixture (tests/python/cases/inductor_model) launches a kernel
module that torch.compile wrote on an H200, through the fake CachingAutotuner."""

import ast
import json
import os
import subprocess
import sys

from harness_helpers import CASES, FAKE_TORCH, harness
from test_harness import run_harness, write_plan

MODEL_KERNEL = '''import importlib.util

import torch

_spec = importlib.util.spec_from_file_location("_model_problem", %r)
_problem = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_problem)
_init = list(_problem.get_init_inputs())
_model = None


def kernel_function(*args):
    global _model
    if _model is None:
        _model = _problem.Model(*_init).cuda().eval()
    with torch.no_grad():
        return _model(*args[: len(args) - len(_init)])
'''


def run_extract_mode(tmp_path, problem, kernels, env=None, top=None):
    """`harness.py PLAN --extract SPEC` on `problem`'s Model with the fake torch: (completed
    process, extracted.json, the cases' directory)."""
    model_kernel = tmp_path / "model" / "kernel.py"
    model_kernel.parent.mkdir()
    model_kernel.write_text(MODEL_KERNEL % str(problem), encoding="utf-8")
    script, plan_path = write_plan(tmp_path, problem, [model_kernel])
    out = tmp_path / "cases"
    spec = plan_path.parent / "extract-spec.json"
    spec.write_text(json.dumps({"out_dir": str(out), "model": str(problem), "compile": False,
                                "top": top if top is not None else len(kernels), "kernels": kernels}),
                    encoding="utf-8")
    environment = dict(os.environ, PYTHONPATH=str(FAKE_TORCH), KPROF_FAKE_STEPS="3")
    environment.update(env or {})
    done = subprocess.run([sys.executable, str(script), str(plan_path), "--extract", str(spec)],
                          cwd=str(tmp_path), env=environment, capture_output=True, text=True, timeout=120)
    return done, json.loads((out / "extracted.json").read_text(encoding="utf-8")), out


def test_a_models_triton_kernels_become_cases_that_the_harness_takes_as_they_are(tmp_path):
    done, extracted, out = run_extract_mode(tmp_path, CASES / "model" / "problem.py", [
        {"name": "gemv_kernel", "share": 0.59, "launches": 3, "total_us": 9.0, "ops": []},
        {"name": "ampere_sgemm_128x64_nn", "share": 0.3, "launches": 1, "total_us": 5.0,
         "ops": ["aten::addmm"]},
        {"name": "cell_kernel", "share": 0.1, "launches": 3, "total_us": 6.0, "ops": []},
        {"name": "gemm_kernel", "share": 0.01, "launches": 1, "total_us": 5.0, "ops": []},
    ], top=2)
    assert done.returncode == 0, done.stderr
    # Costliest first until two cases are written: the library kernel between them is named.
    assert [k["name"] for k in extracted["kernels"]] == ["gemv_kernel", "ampere_sgemm_128x64_nn", "cell_kernel"]
    assert not (out / "gemm_kernel").exists()
    by_name = {kernel["name"]: kernel for kernel in extracted["kernels"]}
    gemv = by_name["gemv_kernel"]
    assert gemv["extracted"] is True, gemv
    assert gemv["kind"] == "triton" and gemv["launch"] == 1
    assert gemv["grid"] == [8] and gemv["options"] == {"FAKE_US": 3.0, "num_warps": 4}
    assert sorted(gemv["files"]) == ["kernel.py", "problem.py", "reference.py"]
    library = by_name["ampere_sgemm_128x64_nn"]
    assert library["extracted"] is False and "library kernel (launched by aten::addmm)" in library["why"]
    assert by_name["cell_kernel"]["extracted"] is True

    case = out / "gemv_kernel"
    kernel_text = (case / "kernel.py").read_text(encoding="utf-8")
    assert kernel_text == (case / "reference.py").read_text(encoding="utf-8")
    ast.parse(kernel_text)
    assert "@triton.jit\ndef gemv_kernel(x_ptr, n):" in kernel_text
    assert "gemv_kernel[GRID](*args, **OPTIONS)" in kernel_text
    words = " ".join(kernel_text.split())  # the docstring's lines joined
    assert "launch 1 of 3 of one forward call" in words
    assert "ran 3 times, 9.0 us in all (3.0 us a launch, 59% of the call's kernel time)" in words
    problem_text = (case / "problem.py").read_text(encoding="utf-8")
    ast.parse(problem_text)
    assert "'size': [1024]" in problem_text and "'value': 256" in problem_text

    # The case as kprof profile runs it: the reference is the kernel as extracted, so it checks.
    (tmp_path / "profile").mkdir()
    run = run_harness(tmp_path / "profile", case / "problem.py", [case / "kernel.py"])
    assert run.code == 0, run.stderr
    assert run.candidate(0)["ok"] is True
    assert [e for e in run.events if e.startswith("launch gemv_kernel")]


def test_a_kernel_generated_by_torch_compile_is_copied_with_its_module_and_its_written_arguments(tmp_path):
    done, extracted, out = run_extract_mode(tmp_path, CASES / "inductor_model" / "problem.py", [
        {"name": "triton_poi_fused_add_addmm_view_8", "share": 0.8, "launches": 1, "total_us": 4.0, "ops": []},
    ])
    assert done.returncode == 0, done.stderr
    kernel = extracted["kernels"][0]
    assert kernel["extracted"] is True, kernel
    assert kernel["kind"] == "inductor" and kernel["written"] == [0] and kernel["written_from"] == "inductor"
    case = out / "triton_poi_fused_add_addmm_view_8"
    kernel_text = (case / "kernel.py").read_text(encoding="utf-8")
    ast.parse(kernel_text)
    assert "@triton_heuristics.pointwise(" in kernel_text  # the module as Inductor wrote it
    assert "triton_poi_fused_add_addmm_view_8.run(*args, stream=" in kernel_text
    assert "'size': [65536, 768]" in (case / "problem.py").read_text(encoding="utf-8")
    (tmp_path / "profile").mkdir()
    run = run_harness(tmp_path / "profile", case / "problem.py", [case / "kernel.py"])
    assert run.code == 0, run.stderr
    assert run.candidate(0)["ok"] is True
    assert "launch triton_poi_fused_add_addmm_view_8" in run.events


def test_a_model_that_raises_writes_why_and_still_exits_zero(tmp_path):
    done, extracted, _ = run_extract_mode(tmp_path, CASES / "model" / "problem.py",
                                          [{"name": "gemv_kernel"}],
                                          env={"KPROF_FAKE_TRITON_FAIL_LAUNCH": "gemv_kernel"})
    assert done.returncode == 0, done.stderr
    assert "no launch here" in extracted["error"]


def test_a_kernel_that_refers_to_what_cannot_be_copied_says_what(tmp_path):
    extract = harness("extract")

    class Jit:
        def __init__(self, fn):
            self.fn, self.__name__, self.src = fn, fn.__name__, "def %s():\n    pass\n" % fn.__name__

    def kernel(text, **module_globals):  # a function of a module whose globals are these
        exec(text, module_globals)
        return Jit(module_globals[text.split()[1].split("(")[0]])

    try:
        extract.triton_source(kernel("def uses_helper():\n    return helper\n", helper=object()))
    except extract.CannotExtract as exc:
        assert "uses_helper refers to helper, a object" in str(exc)
    else:
        raise AssertionError("an object was copied")

    source = extract.triton_source(kernel("def names_module():\n    return os.sep, BLOCK\n", os=os, BLOCK=64))
    assert "import os" in source and "BLOCK = 64" in source and "@triton.jit\ndef names_module():" in source


def test_a_case_directory_is_named_by_the_kernel_with_safe_characters_only():
    extract = harness("extract")
    assert extract.case_name("void foo<float>(int*)") == "void_foo_float__int__"
    assert extract.case_name("../../etc") == "______etc"
    assert len(extract.case_name("k" * 500)) == extract.NAME_LENGTH
