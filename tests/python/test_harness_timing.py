"""templates/kprof_harness/timing.py: statistics, repetitions, graph mode and NVML, without a GPU
(the fake torch's events stamp the host's clock)."""

import pytest

from harness_helpers import fake_torch, harness  # noqa: F401  (fixture)

timing = harness("timing")


def test_summary_statistics_are_the_median_and_the_tenth_and_ninetieth_percentiles():
    samples = [0.001 * value for value in range(1, 12)]  # 1..11 us, in ms
    summary = timing.summarize(list(reversed(samples)))
    assert summary["median_us"] == pytest.approx(6.0)
    assert summary["p10_us"] == pytest.approx(2.0)
    assert summary["p90_us"] == pytest.approx(10.0)
    assert summary["min_us"] == pytest.approx(1.0)
    assert summary["max_us"] == pytest.approx(11.0)
    assert summary["count"] == 11
    assert summary["spread"] == pytest.approx((10.0 - 2.0) / 6.0)


def test_percentiles_interpolate_between_ranks_like_numpy():
    assert timing.percentile([1.0, 2.0, 3.0, 4.0], 0.5) == pytest.approx(2.5)
    assert timing.percentile([1.0, 2.0, 3.0, 4.0], 0.1) == pytest.approx(1.3)
    assert timing.percentile([7.0], 0.9) == 7.0
    with pytest.raises(ValueError):
        timing.summarize([])


def test_repetitions_fill_the_budget_within_the_count_and_never_below_the_minimum():
    settings = timing.settings_of({"budget_seconds": 0.1, "max_repetitions": 1000})
    assert timing.repetitions_for(0.5, settings) == 200  # 100 ms / 0.5 ms
    assert timing.repetitions_for(0.001, settings) == 1000  # the count caps it
    assert timing.repetitions_for(500.0, settings) == timing.MIN_REPETITIONS
    assert timing.repetitions_for(500.0, timing.settings_of({"max_repetitions": 2})) == 2


@pytest.mark.parametrize("bad", [{"budget_seconds": 0}, {"budget_seconds": True}, {"max_repetitions": 0},
                                 {"warmup": -1}, {"mode": "fast"}, {"flush_bytes": 1.5}])
def test_bad_settings_are_refused_by_name(bad):
    with pytest.raises(ValueError, match=list(bad)[0]):
        timing.settings_of(bad)


def test_time_call_warms_up_flushes_and_times_each_call(fake_torch, monkeypatch):
    monkeypatch.setenv("KPROF_FAKE_EVENT_MS", "0.25")
    calls = []
    settings = timing.settings_of({"budget_seconds": 0.01, "warmup": 2, "mode": "eager", "flush_bytes": 1024})
    summary = timing.time_call(fake_torch, lambda: calls.append(1), settings)
    assert summary["median_us"] == pytest.approx(250.0)
    assert summary["count"] == 40  # 10 ms / 0.25 ms
    # warm-up, the launch measurement, the estimate, then the timed calls
    assert len(calls) == 2 + 1 + timing.MIN_REPETITIONS + 40
    assert summary["mode"] == "eager" and summary["warmup"] == 2
    assert summary["timed_in"] == "plain_process"


def test_a_kernel_shorter_than_its_launch_is_timed_as_a_graph_in_auto_mode(fake_torch, monkeypatch, tmp_path):
    monkeypatch.setenv("KPROF_FAKE_EVENT_MS", "0.0001")  # 0.1 us: shorter than any host launch
    log = tmp_path / "log"
    monkeypatch.setenv("KPROF_FAKE_TORCH_LOG", str(log))
    summary = timing.time_call(fake_torch, lambda: None, timing.settings_of({"budget_seconds": 0.001}))
    assert summary["mode"] == "graph"
    assert "below the launch" in summary["mode_reason"]
    assert "graph capture" in log.read_text()
    assert summary["eager_median_us"] == pytest.approx(0.1)


def test_a_long_kernel_stays_eager_in_auto_mode(fake_torch, monkeypatch):
    monkeypatch.setenv("KPROF_FAKE_EVENT_MS", "50")
    summary = timing.time_call(fake_torch, lambda: None, timing.settings_of({"budget_seconds": 0.1}))
    assert summary["mode"] == "eager" and summary["count"] == timing.MIN_REPETITIONS


def test_a_candidate_raising_while_timed_is_a_timing_error(fake_torch):
    state = {"calls": 0}

    def flaky():
        state["calls"] += 1
        if state["calls"] > 4:
            raise ValueError("boom on call 5")

    with pytest.raises(timing.TimingError, match="ValueError: boom on call 5"):
        timing.time_call(fake_torch, flaky, timing.settings_of({"warmup": 1}))


def test_under_ncu_the_timing_says_so(fake_torch, monkeypatch):
    monkeypatch.setenv("CUDA_INJECTION64_PATH", "/opt/ncu/libInterceptorInjectionTarget.so")
    monkeypatch.setenv("KPROF_FAKE_EVENT_MS", "1")
    assert timing.time_call(fake_torch, lambda: None, timing.settings_of({}))["timed_in"] == "ncu_process"


def test_throttle_reasons_are_nvml_bits_in_words():
    assert timing.throttle_words(0) == []
    assert timing.throttle_words(0x1 | 0x4 | 0x40) == ["gpu_idle", "sw_power_cap", "hw_thermal_slowdown"]
    assert timing.throttle_words(0x10000) == ["0x10000"]


def test_moved_clocks_temperature_and_new_throttling_are_named():
    before = {"sm_clock_mhz": 1980, "memory_clock_mhz": 2619, "temperature_c": 40, "throttle_reasons": ["gpu_idle"]}
    same = dict(before, sm_clock_mhz=1970, temperature_c=44)
    assert timing.clock_moves(before, same) == []
    after = dict(before, sm_clock_mhz=1755, temperature_c=61, throttle_reasons=["sw_power_cap"])
    assert timing.clock_moves(before, after) == [
        "SM clock 1980 -> 1755 MHz", "temperature 40 -> 61 C", "throttled during timing: sw_power_cap"]
    assert timing.clock_moves({"unavailable": "no NVML"}, after) == []


def test_without_nvml_the_state_says_why():
    def no_library(name):
        raise OSError("%s: cannot open shared object file" % name)

    state = timing.gpu_state(timing.Nvml(loader=no_library))
    assert state == {"unavailable": "NVML unavailable (libnvidia-ml.so.1: cannot open shared object file)"}


def test_timed_with_state_reads_the_gpu_before_and_after(fake_torch, monkeypatch):
    monkeypatch.setenv("KPROF_FAKE_EVENT_MS", "1")
    readings = iter([{"sm_clock_mhz": 1980}, {"sm_clock_mhz": 1500}])

    class FakeNvml:
        lib = object()
        error = None

        def handle(self):
            return 0

        def read(self, handle):
            return next(readings)

    summary = timing.timed_with_state(fake_torch, lambda: None, timing.settings_of({}), FakeNvml())
    assert summary["gpu_before"] == {"sm_clock_mhz": 1980}
    assert summary["gpu_moved"] == ["SM clock 1980 -> 1500 MHz"]
