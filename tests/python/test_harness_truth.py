"""The harness's truth (templates/kprof_harness/truth.py) end to end under the fake torch: each
candidate's check against the reference and its timing, in the status kprof reads."""

import json

import pytest

from test_harness import CASES, run_harness

TRUTH = CASES / "truth"
PLAN_TRUTH = {"timing_settings": {"budget_seconds": 0.005, "flush_bytes": 1024}}


def timing_calls(candidate):
    """Calls the timing made at least: warm-up, the launch's cost, the estimate, the timed ones."""
    return candidate["timing"]["warmup"] + 1 + 5 + candidate["timing"]["count"]


def run_truth(tmp_path, *kernels, truth=None, **env):
    tmp_path.mkdir(parents=True, exist_ok=True)
    return run_harness(tmp_path, TRUTH / "problem.py", [TRUTH / k for k in kernels],
                       truth=PLAN_TRUTH if truth is None else truth, env=dict(env))


def test_a_right_candidate_passes_and_is_timed_beside_the_reference(tmp_path):
    run = run_truth(tmp_path, "right.py", KPROF_FAKE_EVENT_MS="0.5")
    assert run.code == 0, run.stderr
    cand = run.candidate(0)
    assert cand["ok"] and cand["phase"] == "done"
    assert cand["check"]["verdict"] == "pass"
    assert cand["timing"]["median_us"] == pytest.approx(500.0)
    assert cand["timing"]["count"] == 10  # 5 ms / 0.5 ms
    assert cand["timing"]["timed_in"] == "plain_process"
    reference = cand["reference"]
    assert reference["error"] is None and reference["timing"]["median_us"] == pytest.approx(500.0)
    assert reference["speed_of_light"]["flops"] == 2 * 8 * 8 * 8
    assert reference["speed_of_light"]["dtype"] == "float32"
    assert reference["speed_of_light"]["bytes"] == 3 * 4 + 3 * 4


def test_the_timed_calls_are_outside_the_profiled_range(tmp_path):
    run = run_truth(tmp_path, "right.py", KPROF_FAKE_EVENT_MS="1")
    pushes = [i for i, e in enumerate(run.events) if e.startswith("push kprof:cand")]
    assert len(pushes) == 1
    pop = run.events.index("pop", pushes[0])
    # the timing's flush buffer writes (launch zero) come only after the range is popped
    assert "launch zero" not in run.events[pushes[0]:pop]
    assert "launch zero" in run.events[pop:]
    # one launch inside the range; the timed calls' launches all after it
    assert run.events[pushes[0]:pop].count("launch touch_kernel") == 1
    assert run.events[pop:].count("launch touch_kernel") >= timing_calls(run.candidate(0))


@pytest.mark.parametrize("kernel, reason", [
    ("off_by_one.py", "1 of 3 elements differ by more than atol 0.01 + rtol 0.01"),
    ("nan.py", "1 NaN where the reference has none"),
    ("wrong_shape.py", "shape [4], the reference's [3]"),
])
def test_a_wrong_candidate_is_profiled_timed_and_marked_failed_by_its_check(tmp_path, kernel, reason):
    run = run_truth(tmp_path, kernel, KPROF_FAKE_EVENT_MS="1")
    assert run.code == 0, run.stderr  # the harness ran it; kprof classifies it
    cand = run.candidate(0)
    assert cand["ok"] and cand["error"] is None
    assert cand["check"]["verdict"] == "fail"
    assert cand["check"]["reason"].startswith(reason)
    assert cand["timing"]["count"] >= 1


def test_a_candidate_raising_in_its_timing_keeps_its_profile_and_says_why(tmp_path):
    run = run_truth(tmp_path, "raises_when_timed.py", "right.py", KPROF_FAKE_EVENT_MS="1")
    assert run.code == 0, run.stderr
    cand = run.candidate(0)
    assert cand["ok"] and cand["check"]["verdict"] == "pass"
    assert cand["timing"] == {"error": "RuntimeError: call 5: out of workspace"}
    assert run.candidate(1)["timing"]["count"] >= 1


def test_the_check_can_be_turned_off_and_tolerances_set(tmp_path):
    off = run_truth(tmp_path / "off", "off_by_one.py", truth=dict(PLAN_TRUTH, check=False), KPROF_FAKE_EVENT_MS="1")
    assert off.candidate(0)["check"] is None and off.candidate(0)["timing"]["count"] >= 1
    loose = run_truth(tmp_path / "loose", "off_by_one.py", truth=dict(PLAN_TRUTH, tolerances={"all": {"atol": 1.0}}),
                      KPROF_FAKE_EVENT_MS="1")
    assert loose.candidate(0)["check"]["verdict"] == "pass"


def test_without_truth_in_the_plan_nothing_is_measured(tmp_path):
    run = run_harness(tmp_path, TRUTH / "problem.py", [TRUTH / "right.py"])
    cand = run.candidate(0)
    assert cand["check"] is None and cand["timing"] is None and cand["reference"] is None


def test_a_bad_truth_setting_is_a_plan_error(tmp_path):
    run = run_truth(tmp_path, "right.py", truth={"timing_settings": {"mode": "fast"}})
    assert run.code == 2
    assert "timing.mode must be one of auto, eager, graph" in run.status["problem_error"]["message"]


def test_a_problem_without_model_is_profiled_and_unchecked(tmp_path):
    run = run_harness(tmp_path, TRUTH / "no_model.py", [TRUTH / "right.py"], truth=PLAN_TRUTH,
                      env={"KPROF_FAKE_EVENT_MS": "1"})
    assert run.code == 0, run.stderr
    cand = run.candidate(0)
    assert cand["check"]["verdict"] == "unchecked"
    assert cand["reference"]["error"] == "problem.py has no Model"


def test_a_candidate_returning_none_is_unchecked_not_wrong(tmp_path):
    run = run_truth(tmp_path, "returns_none.py", KPROF_FAKE_EVENT_MS="1")
    check = run.candidate(0)["check"]
    assert check == {"verdict": "unchecked", "reason": "kernel_function returned None"}


def test_the_reference_sees_the_inputs_before_any_call_of_the_candidate(tmp_path):
    run = run_harness(tmp_path, TRUTH / "doubling_problem.py", [TRUTH / "writes_its_input.py"], truth=PLAN_TRUTH,
                      env={"KPROF_FAKE_EVENT_MS": "1"})
    check = run.candidate(0)["check"]
    assert check["verdict"] == "fail" and check["max_abs_error"] == 2.0, check


def test_the_references_flop_counts_are_kept_for_the_next_process_of_the_same_problem(tmp_path):
    """truth.flop_cache (flop_cache.py): the first process counts and keeps the counts, the next
    one of the same problem reads them instead of paying FlopCounterMode; a file that other users
    may write, or one kept for another text of the problem, is not read."""
    cache = tmp_path / "flops"
    cache.mkdir(mode=0o700)
    truth = dict(PLAN_TRUTH, flop_cache=str(cache))

    def light(name, problem=TRUTH / "problem.py"):
        (tmp_path / name).mkdir()
        run = run_harness(tmp_path / name, problem, [TRUTH / "right.py"], truth=truth,
                          env={"KPROF_FAKE_EVENT_MS": "1"})
        assert run.code == 0, run.stderr
        return run.candidate(0)["reference"]["speed_of_light"]

    first = light("first")
    assert (first["counts_from"], first["flops"], first["bytes"]) == ("counted", 2 * 8 * 8 * 8, 24)
    [kept] = list(cache.iterdir())
    assert kept.stat().st_mode & 0o077 == 0
    stored = json.loads(kept.read_text())
    assert stored["counts"]["none"]["flops"] == 2 * 8 * 8 * 8 and "bytes" not in stored["counts"]["none"]
    stored["counts"]["none"]["flops"] = 12345  # what only a read of the file can give
    kept.write_text(json.dumps(stored))
    second = light("second")
    assert (second["counts_from"], second["flops"], second["bytes"]) == ("cache", 12345, 24)
    kept.chmod(0o666)
    assert light("open")["counts_from"] == "counted"
    edited = tmp_path / "problem.py"
    edited.write_text((TRUTH / "problem.py").read_text() + "\n# edited\n")
    assert light("edited", edited)["counts_from"] == "counted"
