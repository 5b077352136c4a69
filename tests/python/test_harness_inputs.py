"""The harness's inputs module: seeding, inputs made on the GPU or the CPU, casts."""

import types

import pytest

from harness_helpers import FakeTensor, FakeTorch, harness, sample_plan

inputs = harness("inputs")
problem_module = harness("problem")


def test_tensors_go_to_the_gpu_and_only_floating_ones_are_cast():
    torch = FakeTorch()
    x = inputs.prepare_input(torch, FakeTensor("float32"), "bfloat16")
    labels = inputs.prepare_input(torch, FakeTensor("int64"), "bfloat16")

    assert (x.device, x.dtype) == ("cuda", "bfloat16")
    assert (labels.device, labels.dtype) == ("cuda", "int64")
    assert inputs.prepare_input(torch, 3, "bfloat16") == 3


def kernel_bf16(x):
    return x.to(torch_dtype="bfloat16")  # the word is what counts


def kernel_half(x):
    return x.half()


def kernel_plain(x):
    return x


@pytest.mark.parametrize("function, asked, expected", [
    (kernel_plain, "none", ("none", "asked for cast none: inputs as the problem made them")),
    (kernel_plain, "fp16", ("fp16", "asked for cast fp16")),
    (kernel_bf16, "auto", ("bf16", "kernel_function's source mentions 'bfloat16'")),
    (kernel_half, "auto", ("fp16", "kernel_function's source mentions 'half'")),
    (kernel_plain, "auto", ("none", "no dtype named in kernel_function's source: inputs as the problem made them")),
])
def test_the_cast_is_the_asked_one_or_kernelagents_rule(function, asked, expected):
    assert inputs.choose_cast(function, asked) == expected


def test_a_function_without_source_keeps_the_inputs_and_says_why():
    namespace = {}
    exec("def kernel_function(x):\n    return x.bfloat16()\n", namespace)

    assert inputs.choose_cast(namespace["kernel_function"], "auto") == (
        "none", "could not read kernel_function's source (OSError): inputs as the problem made them")


def fake_problem(torch, get_inputs, **plan):
    module = types.SimpleNamespace(get_inputs=get_inputs, get_init_inputs=lambda: [7])
    return problem_module.Problem(torch, module, sample_plan(**plan))


def test_inputs_are_made_seeded_moved_to_the_gpu_and_synchronized():
    torch = FakeTorch()
    problem = fake_problem(torch, lambda: [FakeTensor(name="x")], seed=5)
    status = {"inputs_on": "gpu", "inputs_fallback": None}

    inputs.make_inputs(problem, status)

    assert [t.device for t in problem.inputs("none")] == ["cuda"] and problem.init_inputs == [7]
    assert torch.events == ["seed 5", "sync"]
    assert status == {"inputs_on": "gpu", "inputs_fallback": None, "gpu_name": "Fake GPU"}


def test_inputs_that_cannot_be_made_on_the_gpu_are_made_again_on_the_cpu(capsys):
    torch = FakeTorch()
    made = []

    def get_inputs():
        made.append(1)
        if len(made) == 1:
            raise RuntimeError("needs the CPU")
        return [FakeTensor(name="x")]

    status = {"inputs_on": "gpu", "inputs_fallback": None}

    inputs.make_inputs(fake_problem(torch, get_inputs), status)

    assert status["inputs_on"] == "cpu" and status["inputs_fallback"] == "RuntimeError: needs the CPU"
    assert torch.events == ["seed 0", "seed 0", "sync"]  # reseeded: the same inputs as on the GPU
    assert "inputs on the GPU failed (RuntimeError)" in capsys.readouterr().err
