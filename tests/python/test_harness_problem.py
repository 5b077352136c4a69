"""The harness's problem module: problem.py loaded, its inputs and Model kept per cast word."""

import sys
import types

import pytest

from harness_helpers import FakeTensor, FakeTorch, harness, sample_plan

problem_module = harness("problem")


class Layer:
    def __init__(self):
        self.weight = FakeTensor(name="w")


class Model:
    built = 0

    def __init__(self, *init_inputs):
        Model.built += 1
        self.conv = Layer()
        self.dtype = None

    def cuda(self):
        return self

    def to(self, dtype):
        self.dtype = dtype
        return self


def problem_with(cast, model=Model):
    module = types.SimpleNamespace(get_inputs=lambda: [], Model=model)
    problem = problem_module.Problem(FakeTorch(), module, sample_plan(cast=cast))
    problem.set_inputs([FakeTensor("float32", name="x"), FakeTensor("int64", name="labels")])
    return problem


def test_an_explicit_cast_casts_the_inputs_once_as_they_are_made():
    problem = problem_with("fp16")

    assert [t.dtype for t in problem.inputs("fp16")] == ["float16", "int64"]


def test_under_auto_each_dtype_is_derived_once_from_the_inputs_as_made():
    problem = problem_with("auto")

    bf16 = problem.inputs("bf16")

    assert [t.dtype for t in problem.inputs("none")] == ["float32", "int64"]
    assert [t.dtype for t in bf16] == ["bfloat16", "int64"]
    assert problem.inputs("bf16") is bf16


def test_the_model_is_built_once_per_cast_each_a_copy_of_the_uncast_one():
    Model.built = 0
    problem = problem_with("auto")

    uncast = problem.model("none")
    bf16 = problem.model("bf16")

    assert Model.built == 1 and problem.model("none") is uncast and problem.model("bf16") is bf16
    assert bf16 is not uncast and bf16.dtype == "bfloat16" and uncast.dtype is None


def test_a_model_that_cannot_be_built_is_a_problem_error():
    def broken(*init_inputs):
        raise ValueError("bad init")

    with pytest.raises(problem_module.ProblemError) as raised:
        problem_with("none", model=broken).model("none")

    assert raised.value.error["type"] == "ValueError" and raised.value.error["message"] == "bad init"


def test_a_problem_without_a_model_has_none():
    problem = problem_with("none", model=None)

    assert problem.model("none") is None


def test_a_problem_is_loaded_after_torch_and_the_gpu_count(tmp_path, monkeypatch):
    order = []
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.setattr(problem_module, "import_torch", lambda status: order.append("torch") or FakeTorch())
    monkeypatch.setattr(problem_module, "count_gpus", lambda torch, status: order.append("gpus"))
    path = tmp_path / "problem.py"
    path.write_text("def get_inputs():\n    return []\n", encoding="utf-8")

    problem = problem_module.load_problem(sample_plan(problem=str(path)), {})

    assert order == ["torch", "gpus"] and callable(problem.module.get_inputs)


def test_a_problem_without_get_inputs_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.setattr(problem_module, "import_torch", lambda status: FakeTorch())
    path = tmp_path / "problem.py"
    path.write_text("X = 1\n", encoding="utf-8")

    with pytest.raises(AttributeError, match="no get_inputs"):
        problem_module.load_problem(sample_plan(problem=str(path)), {}, needs_gpu=False)
