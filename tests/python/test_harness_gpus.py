"""The harness's gpus module: the GPUs CUDA shows, and the machine's count when it shows none."""

import pytest

from harness_helpers import FakeTorch, harness

gpus = harness("gpus")


def test_a_visible_gpu_is_counted_and_the_machine_is_not_asked(monkeypatch):
    monkeypatch.setattr(gpus, "machine_gpu_count", lambda: pytest.fail("asked the machine"))
    status = {"cuda_devices": None, "machine_gpus": None}

    gpus.count_gpus(FakeTorch(devices=2), status)

    assert status == {"cuda_devices": 2, "machine_gpus": None}


@pytest.mark.parametrize("machine, visible, message", [
    (1, "99", "CUDA shows no GPU under CUDA_VISIBLE_DEVICES=99; this machine has 1 GPU(s)"),
    (None, None, "CUDA shows no GPU; this machine has an unknown number of GPUs"),
])
def test_no_visible_gpu_names_the_machines_count(monkeypatch, machine, visible, message):
    monkeypatch.setattr(gpus, "machine_gpu_count", lambda: machine)
    if visible is None:
        monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    else:
        monkeypatch.setenv("CUDA_VISIBLE_DEVICES", visible)
    status = {}

    with pytest.raises(gpus.NoGpu) as raised:
        gpus.count_gpus(FakeTorch(devices=0), status)

    assert str(raised.value) == message
    assert status == {"cuda_devices": 0, "machine_gpus": machine}


def test_the_machines_count_is_a_number_or_unknown():
    count = gpus.machine_gpu_count()

    assert count is None or (isinstance(count, int) and count >= 0)
