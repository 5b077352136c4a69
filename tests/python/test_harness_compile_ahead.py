"""The harness's compile_ahead module: claims, the published target, and the bounded wait for a
candidate's worker."""

import json
import os
import subprocess
import sys

from harness_helpers import harness, sample_plan

ahead = harness("compile_ahead")


def test_a_candidate_is_claimed_once_by_the_first_process_and_names_its_pid(tmp_path):
    assert ahead.claim_candidate(str(tmp_path), 3) is True
    assert ahead.claim_candidate(str(tmp_path), 3) is False

    assert (tmp_path / "3.claim").read_text(encoding="utf-8") == str(os.getpid())
    assert sorted(p.name for p in tmp_path.iterdir()) == ["3.claim"]


def test_the_harness_claims_its_first_candidate_and_publishes_its_target(tmp_path):
    compiled = ahead.CompiledAhead(str(tmp_path), 0, {"backend": "cuda", "arch": 90, "warp_size": 32}, 1.0)

    assert json.loads((tmp_path / "target.json").read_text(encoding="utf-8"))["arch"] == 90
    assert compiled.wait({"index": 0}) == (ahead.FIRST_RUN_AT_ONCE, 0.0)
    assert compiled.wait({"index": 1}) == ("not compiled ahead: no worker had started it", 0.0)


def test_a_workers_outcome_is_taken_once_it_is_written(tmp_path):
    compiled = ahead.CompiledAhead(str(tmp_path), 0, {}, 1.0)
    assert ahead.claim_candidate(str(tmp_path), 1)  # this process plays the worker
    (tmp_path / "1.done").write_text(json.dumps({"outcome": "compiled", "seconds": 0.25}), encoding="utf-8")

    assert compiled.wait({"index": 1}) == ("compiled", 0.25)


def test_a_worker_still_compiling_costs_the_plans_wait_and_no_more(tmp_path):
    compiled = ahead.CompiledAhead(str(tmp_path), 0, {}, 0.05)
    assert ahead.claim_candidate(str(tmp_path), 1)

    assert compiled.wait({"index": 1}) == ("not compiled ahead: still compiling after 0.05 s", 0.0)


def test_a_worker_that_ended_without_an_outcome_is_not_waited_for(tmp_path):
    compiled = ahead.CompiledAhead(str(tmp_path), 0, {}, 30.0)
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True).stdout.strip()
    (tmp_path / "1.claim").write_text(gone, encoding="utf-8")

    assert compiled.wait({"index": 1}) == ("not compiled ahead: its worker ended while compiling it", 0.0)


def test_one_candidate_or_no_compile_ahead_in_the_plan_compiles_nothing_ahead(tmp_path):
    two = [{"kernel": "/k/a.py", "range": "kprof:cand0"}, {"kernel": "/k/b.py", "range": "kprof:cand1"}]

    assert ahead.compiled_ahead(sample_plan(candidates=two), {}) is None
    status = {}
    plan = sample_plan(candidates=two, first_candidate=1, compile_ahead={"dir": str(tmp_path), "max_wait_seconds": 1})
    assert ahead.compiled_ahead(plan, status) is None and status == {}
    assert list(tmp_path.iterdir()) == []


def test_without_triton_the_workers_are_told_why_and_nothing_is_waited_for(tmp_path, monkeypatch):
    for name in ("triton", "triton.runtime"):  # None: its import raises, even when made earlier
        monkeypatch.setitem(sys.modules, name, None)
    two = [{"kernel": "/k/a.py", "range": "kprof:cand0"}, {"kernel": "/k/b.py", "range": "kprof:cand1"}]
    status = {}

    result = ahead.compiled_ahead(sample_plan(candidates=two, compile_ahead={"dir": str(tmp_path),
                                                                             "max_wait_seconds": 1}), status)

    assert result is None and status["compile_target_seconds"] >= 0
    target = json.loads((tmp_path / "target.json").read_text(encoding="utf-8"))
    assert target["none"].startswith("no Triton target: ")
