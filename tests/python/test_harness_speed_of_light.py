"""templates/kprof_harness/speed_of_light.py: FLOPs and bytes of known problems, with the fake torch
(its torch.matmul reports 2*M*N*K FLOPs as aten.mm, its softmax reports aten._softmax, which
FlopCounterMode cannot count)."""

import pytest

from harness_helpers import fake_torch, harness  # noqa: F401  (fixture)

speed_of_light = harness("speed_of_light")


def test_a_matmul_counts_two_m_n_k_on_the_tensor_cores(fake_torch):
    a, b = fake_torch.zeros(256, 512), fake_torch.zeros(512, 128)
    counted = speed_of_light.count_flops(fake_torch, lambda: fake_torch.matmul(a, b))
    assert counted["error"] is None
    assert counted["flops"] == 2 * 256 * 128 * 512
    assert counted["tensor_core_flops"] == counted["flops"] and counted["other_flops"] == 0
    assert counted["per_op"] == {"mm": 2 * 256 * 128 * 512}
    assert counted["uncounted_ops"] == {}


def test_softmax_is_named_as_uncounted(fake_torch):
    x = fake_torch.zeros(64, 1024)
    counted = speed_of_light.count_flops(fake_torch, lambda: fake_torch.softmax(x, dim=-1))
    assert counted["flops"] == 0
    assert counted["uncounted_ops"] == {"_softmax": 1}


def test_an_op_raising_under_the_counter_is_an_error_not_a_count(fake_torch):
    def broken():
        raise RuntimeError("no kernel image")

    counted = speed_of_light.count_flops(fake_torch, broken)
    assert counted["flops"] is None
    assert counted["error"] == "FlopCounterMode: RuntimeError: no kernel image"


def test_minimum_bytes_count_inputs_outputs_and_parameters_once(fake_torch):
    x = fake_torch.zeros(4096, 4096)  # 64 MiB of float32
    out = fake_torch.zeros(4096, 4096)
    assert speed_of_light.minimum_bytes(fake_torch, [x], out) == {
        "inputs_bytes": 4096 * 4096 * 4, "outputs_bytes": 4096 * 4096 * 4, "parameters_bytes": 0,
        "bytes": 2 * 4096 * 4096 * 4}
    # an output written into its input, and an input passed twice, count once
    assert speed_of_light.minimum_bytes(fake_torch, [x, x], x)["bytes"] == 4096 * 4096 * 4


def test_parameters_of_the_model_are_bytes_too(fake_torch):
    layer = fake_torch.nn.Linear(1024, 256)
    x = fake_torch.zeros(8, 1024, dtype=fake_torch.bfloat16)
    counted = speed_of_light.minimum_bytes(fake_torch, [x], fake_torch.zeros(8, 256, dtype=fake_torch.bfloat16), layer)
    assert counted["parameters_bytes"] == (1024 * 256 + 256) * 4
    assert counted["inputs_bytes"] == 8 * 1024 * 2


def test_measure_names_the_dtype_and_the_tf32_setting(fake_torch):
    a = fake_torch.zeros(16, 16, dtype=fake_torch.bfloat16)
    out = fake_torch.matmul(a, a)
    result = speed_of_light.measure(fake_torch, lambda: fake_torch.matmul(a, a), [a, a], out)
    assert result["dtype"] == "bfloat16" and result["allow_tf32"] is False
    assert result["flops"] == 2 * 16 * 16 * 16
    assert result["bytes"] == 16 * 16 * 2 * 2  # a once, the output once


def test_views_and_copies_are_not_listed_as_uncounted():
    assert speed_of_light.uncounted({"view": 3, "exp": 1, "mm": 1, "_to_copy": 2}, {"mm"}) == {"exp": 1}


def test_prepare_pays_the_counters_first_use_on_the_cpu_and_never_raises(fake_torch, monkeypatch):
    calls = []
    real_matmul = fake_torch.matmul
    monkeypatch.setattr(fake_torch, "matmul", lambda a, b: calls.append((a.device, b.device)) or real_matmul(a, b))
    speed_of_light.prepare(fake_torch)
    assert len(calls) == 1 and all("cpu" in str(d) for d in calls[0])  # under the counter, on the CPU

    def raising(a, b):
        raise RuntimeError("no BLAS")

    monkeypatch.setattr(fake_torch, "matmul", raising)
    speed_of_light.prepare(fake_torch)  # never raises: measure() says what is missing
