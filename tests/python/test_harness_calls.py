"""The harness's calls module: how kernel_function is called, and each candidate's warm-up and
one profiled call inside its range, failures contained to their candidate."""

import types

import pytest

from harness_helpers import FakeTensor, FakeTorch, harness, sample_plan

calls = harness("calls")
problem_module = harness("problem")
status_module = harness("status")


class Conv:
    def __init__(self):
        self.weight = FakeTensor(name="w")
        self.bias = FakeTensor(name="b")
        self.stride = (2, 2)
        self.padding = 1


class Model:
    def __init__(self, *init_inputs):
        self.conv2d = Conv()

    def cuda(self):
        return self


def problem_with(torch, model=Model, plan=None):
    module = types.SimpleNamespace(get_inputs=lambda: [], Model=model)
    problem = problem_module.Problem(torch, module, plan or sample_plan())
    problem.set_inputs([FakeTensor(name="x")])
    problem.init_inputs = [3]
    return problem


def test_a_kernel_without_a_weight_parameter_takes_the_inputs_then_the_init_inputs():
    problem = problem_with(FakeTorch())

    style, layer, args, kwargs = calls.choose_call(lambda x, n: None, problem, "none")

    assert (style, layer, kwargs) == ("positional", None, {})
    assert [a.name if isinstance(a, FakeTensor) else a for a in args] == ["x", 3]


def test_a_weight_parameter_takes_the_models_layer_with_the_settings_it_accepts():
    def kernel_function(x, weight, bias, stride=1):
        return x

    style, layer, args, kwargs = calls.choose_call(kernel_function, problem_with(FakeTorch()), "none")

    assert (style, layer) == ("layer_weights", "conv2d")
    assert [a.name for a in args] == ["x", "w", "b"]
    assert kwargs == {"stride": 2}  # a tuple setting passes its first element; padding not accepted


def test_a_weight_parameter_without_such_a_layer_is_positional():
    style, _, _, _ = calls.choose_call(lambda x, weight: x, problem_with(FakeTorch(), model=None), "none")

    assert style == "positional"


def kernel_file(tmp_path, body, name="kernel.py"):
    path = tmp_path / name
    path.write_text(body, encoding="utf-8")
    return str(path)


def run_all(tmp_path, kernels, torch=None, **plan):
    torch = torch or FakeTorch()
    plan = sample_plan(warmup=2, candidates=[{"kernel": kernel_file(tmp_path, body, "k%d.py" % i),
                                              "range": "kprof:cand%d" % i} for i, body in enumerate(kernels)],
                       **plan)
    status_file = status_module.StatusFile(str(tmp_path / "status.json"), status_module.new_status(plan))
    code = calls.run_candidates(problem_with(torch, plan=plan), plan, status_file, None)
    return code, status_file.status["candidates"], torch.events


CALLED = "CALLS = []\ndef kernel_function(x, n):\n    CALLS.append(n)\n"


def test_a_candidate_is_warmed_up_outside_its_range_and_called_once_inside_it(tmp_path):
    code, entries, events = run_all(tmp_path, [CALLED])

    assert code == calls.EXIT_OK and entries[0]["ok"] is True and entries[0]["phase"] == "done"
    assert entries[0]["call_style"] == "positional" and entries[0]["cast"] == "none"
    assert events == ["sync", "push kprof:cand0", "sync", "pop"]


def test_the_call_lock_is_taken_after_the_warmup_and_let_go_after_the_pop(tmp_path, monkeypatch):
    torch = FakeTorch()
    monkeypatch.setattr(calls, "take_call_lock", lambda plan: torch.events.append("lock") or (7, "held", 0.5))
    monkeypatch.setattr(calls, "let_go", lambda fd: torch.events.append("unlock %s" % fd))

    _, entries, events = run_all(tmp_path, [CALLED], torch=torch)

    assert events == ["sync", "lock", "push kprof:cand0", "sync", "pop", "unlock 7"]
    assert entries[0]["call_lock"] == "held" and entries[0]["call_lock_wait_seconds"] == 0.5


def test_a_candidate_that_raises_in_its_call_pops_its_range_and_the_next_one_runs(tmp_path):
    raising = "N = [0]\ndef kernel_function(x, n):\n    N[0] += 1\n    if N[0] == 3:\n        raise ValueError('bad')\n"

    code, entries, events = run_all(tmp_path, [raising, CALLED])

    assert code == calls.EXIT_CANDIDATE_FAILED
    assert entries[0]["error"]["category"] == "kernel_raised" and entries[0]["phase"] == "profiled_call"
    assert entries[0]["cuda_context_poisoned"] is False and entries[1]["ok"] is True
    assert events[:3] == ["sync", "push kprof:cand0", "pop"]


def test_a_kernel_without_kernel_function_is_an_import_error(tmp_path):
    code, entries, _ = run_all(tmp_path, ["X = 1\n"])

    assert code == calls.EXIT_CANDIDATE_FAILED
    assert entries[0]["error"]["category"] == "kernel_import" and entries[0]["phase"] == "import_kernel"


def test_a_sticky_error_stops_the_candidates_with_the_context_poisoned(tmp_path):
    poisoning = "def kernel_function(x, n):\n    raise RuntimeError('CUDA error: an illegal memory access was encountered')\n"

    code, entries, _ = run_all(tmp_path, [poisoning, CALLED])

    assert code == calls.EXIT_CUDA_POISONED
    assert entries[0]["cuda_context_poisoned"] is True and entries[1]["phase"] == "not_started"


def test_an_error_that_breaks_synchronize_counts_as_poisoned():
    assert calls.context_poisoned(FakeTorch(fail_sync=True), ValueError("anything")) is True
    assert calls.context_poisoned(FakeTorch(), ValueError("anything")) is False
    assert calls.context_poisoned(FakeTorch(), RuntimeError("device-side assert triggered")) is True


def test_a_model_that_cannot_be_built_is_the_problems_failure_not_the_candidates(tmp_path):
    def broken(*init_inputs):
        raise ValueError("bad init")

    plan = sample_plan(candidates=[{"kernel": kernel_file(tmp_path, "def kernel_function(x, weight):\n    pass\n"),
                                    "range": "kprof:cand0"}])
    status_file = status_module.StatusFile(str(tmp_path / "status.json"), status_module.new_status(plan))

    with pytest.raises(problem_module.ProblemError):
        calls.run_candidates(problem_with(FakeTorch(), model=broken, plan=plan), plan, status_file, None)
