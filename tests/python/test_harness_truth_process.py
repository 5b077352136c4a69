"""The truth's own process (`harness.py PLAN --truth GATE SECONDS`,
templates/kprof_harness/truth_process.py) under the fake torch: nothing on the GPU before the
gate, only the candidates the gate names measured, a failure outside ncu never a crash."""

import json
import subprocess
import sys
import threading
import time

from test_harness import CASES, FAKE_TORCH, write_plan

TRUTH = CASES / "truth"
PLAN_TRUTH = {"timing_settings": {"budget_seconds": 0.005, "flush_bytes": 1024}}


def gate_of(kernels, indices):
    """The gate kprof writes: the candidates (of `kernels`, names in tests/python/cases/truth) to measure."""
    return json.dumps({"candidates": [{"index": i, "kernel": str(TRUTH / kernels[i]), "range": "kprof:cand%d" % i}
                                      for i in indices]})


def run_truth_process(tmp_path, kernels, gate_text, gate_after=0.0, max_wait="30", problem="problem.py"):
    """Runs the truth mode, started as kprof starts a truth standby (its plan names no
    candidates), writing `gate_text` as the gate `gate_after` seconds after it waits at its gate
    (None: never); (process, status, events, events before the gate, seconds)."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    script, plan_path = write_plan(tmp_path, TRUTH / problem, [], truth=PLAN_TRUTH)
    gate = tmp_path / "gate"
    log = tmp_path / "events.log"
    env = {"PYTHONPATH": str(FAKE_TORCH), "KPROF_FAKE_TORCH_LOG": str(log), "KPROF_FAKE_EVENT_MS": "0.5",
           "PATH": "/usr/bin:/bin"}
    events_at_gate = []

    status_path = plan_path.parent / "status.json"

    def waiting():
        try:
            return json.loads(status_path.read_text())["phase"] == "standby"
        except (OSError, ValueError):
            return False

    def open_gate():
        # Once the process waits at its gate (prepared), `gate_after` more seconds.
        deadline = time.perf_counter() + 60
        while not waiting() and time.perf_counter() < deadline:
            time.sleep(0.01)
        time.sleep(gate_after)
        events_at_gate.extend(log.read_text().splitlines() if log.exists() else [])
        # As kprof writes it (write_file_atomic): whole, by a rename. A plain write could be
        # read half-written, which kprof never makes it see.
        partial = tmp_path / "gate.partial"
        partial.write_text(gate_text)
        partial.replace(gate)

    opener = threading.Thread(target=open_gate) if gate_text is not None else None
    started = time.perf_counter()
    if opener:
        opener.start()
    done = subprocess.run([sys.executable, str(script), str(plan_path), "--truth", str(gate), max_wait],
                          cwd=str(tmp_path), env=env, capture_output=True, text=True, timeout=120)
    seconds = time.perf_counter() - started
    if opener:
        opener.join()
    status = json.loads(status_path.read_text())
    events = log.read_text().splitlines() if log.exists() else []
    return done, status, events, events_at_gate, seconds


def test_it_waits_for_the_gate_without_touching_the_gpu_then_measures_the_named_candidates(tmp_path):
    kernels = ["right.py", "off_by_one.py", "nan.py"]
    done, status, events, at_gate, _ = run_truth_process(tmp_path, kernels, gate_of(kernels, [0, 1]), gate_after=1.0)
    assert done.returncode == 0, done.stderr
    assert not [e for e in at_gate if e.startswith("launch")], at_gate  # no kernel before the gate
    assert status["phase"] == "done" and status["standby_wait_seconds"] >= 0.5
    assert status["prepare_seconds"] >= 0  # FlopCounterMode's first use and the context, before the gate
    right, off_by_one = status["candidates"]  # only those the gate names
    assert [c["index"] for c in status["candidates"]] == [0, 1]
    assert right["check"]["verdict"] == "pass"
    assert right["timing"]["timed_in"] == "plain_process" and right["timing"]["count"] == 10
    assert right["reference"]["timing"]["median_us"] > 0
    assert off_by_one["check"]["verdict"] == "fail"
    assert [e for e in events if e.startswith("push")] == []  # no NVTX range: nothing for ncu


def test_an_empty_gate_measures_nothing_and_no_gate_ends_at_the_limit(tmp_path):
    done, status, events, _, _ = run_truth_process(tmp_path / "empty", ["right.py"], gate_of(["right.py"], []))
    assert done.returncode == 0 and status["phase"] == "done" and status["candidates"] == []
    assert not [e for e in events if e.startswith("launch")]
    done, status, _, _, seconds = run_truth_process(tmp_path / "none", ["right.py"], None, max_wait="0.5")
    assert done.returncode == 0 and status["phase"] == "done" and seconds < 30 and status["candidates"] == []
    done, status, _, _, _ = run_truth_process(tmp_path / "bad", ["right.py"], "0,1")  # not JSON
    assert done.returncode == 0 and status["phase"] == "done" and status["candidates"] == []


def test_a_candidate_that_raises_outside_ncu_has_its_truth_missing_with_the_reason(tmp_path):
    kernels = ["raises_when_timed.py", "right.py"]
    done, status, _, _, _ = run_truth_process(tmp_path, kernels, gate_of(kernels, [0, 1]))
    assert done.returncode == 0, done.stderr
    raising, right = status["candidates"]
    assert "error" in raising["timing"], raising
    assert right["check"]["verdict"] == "pass" and right["timing"]["median_us"] > 0


def test_a_problem_without_model_still_times_the_candidates(tmp_path):
    done, status, _, _, _ = run_truth_process(tmp_path, ["right.py"], gate_of(["right.py"], [0]), problem="no_model.py")
    assert done.returncode == 0, done.stderr
    cand = status["candidates"][0]
    assert cand["check"]["verdict"] == "unchecked" and "no Model" in cand["check"]["reason"]
    assert cand["timing"]["median_us"] > 0


def test_a_worker_serves_gate_after_gate_with_one_reference_and_ends_when_none_comes(tmp_path):
    # A long-lived profiler keeps its truth process across rounds: each gate names its round's
    # status file and asks it to serve on; a gate seen already is not measured twice.
    # Round 1's candidate writes ones into its input; round 2's doubles its input and is right
    # only when the inputs were made again (zeros) for its round.
    (tmp_path / "doubles.py").write_text("def kernel_function(x):\n    return x * 2.0\n")
    kernels = [str(TRUTH / "writes_its_input.py"), str(tmp_path / "doubles.py")]
    script, plan_path = write_plan(tmp_path, TRUTH / "doubling_problem.py", [], truth=PLAN_TRUTH)
    gate = tmp_path / "gate"
    env = {"PYTHONPATH": str(FAKE_TORCH), "KPROF_FAKE_EVENT_MS": "0.5", "PATH": "/usr/bin:/bin"}
    worker = subprocess.Popen([sys.executable, str(script), str(plan_path), "--truth", str(gate), "2"],
                              cwd=str(tmp_path), env=env, stderr=subprocess.PIPE, text=True)

    def answered(path, sequence):
        deadline = time.perf_counter() + 60
        while time.perf_counter() < deadline:
            try:
                status = json.loads(path.read_text())
                if status.get("sequence") == sequence and status["phase"] == "done":
                    return status
            except (OSError, ValueError):
                pass
            time.sleep(0.01)
        raise AssertionError("no answer to gate %d" % sequence)

    def open_gate(sequence, indices, status_path, serve=True):
        text = json.loads(gate_of(kernels, indices))
        text.update({"sequence": sequence, "status": str(status_path), "serve": serve})
        temp = tmp_path / "gate.tmp"
        temp.write_text(json.dumps(text))
        temp.replace(gate)  # as kprof writes it: a new file whole

    try:
        open_gate(1, [0], tmp_path / "round1.json")
        first = answered(tmp_path / "round1.json", 1)
        open_gate(2, [1], tmp_path / "round2.json")
        second = answered(tmp_path / "round2.json", 2)
        assert first["pid"] == second["pid"] == worker.pid
        assert (first["rounds_served"], second["rounds_served"]) == (1, 2)
        assert first["serving"] and second["serving"]
        assert first["candidates"][0]["check"]["verdict"] == "fail"
        assert [c["index"] for c in second["candidates"]] == [1]
        assert second["candidates"][0]["check"]["verdict"] == "pass"  # the inputs made again
        # The reference was timed once, in the first round, and is reused.
        assert second["candidates"][0]["reference"] == first["candidates"][0]["reference"]
        assert second["measure_seconds"] > 0 and second["candidates"][0]["import_seconds"] > 0
        # The last gate rewritten with its own sequence is not measured again.
        open_gate(2, [0, 1], tmp_path / "round2-again.json")
        time.sleep(0.5)
        assert not (tmp_path / "round2-again.json").exists()
        # No gate within its limit (2 s): the worker ends by itself.
        assert worker.wait(timeout=30) == 0
    finally:
        worker.kill()
        worker.communicate()


def test_a_gate_that_does_not_ask_to_serve_ends_the_process_after_its_round(tmp_path):
    kernels = ["right.py"]
    text = json.loads(gate_of(kernels, [0]))
    text.update({"sequence": 1, "serve": False})
    done, status, _, _, _ = run_truth_process(tmp_path, kernels, json.dumps(text))
    assert done.returncode == 0, done.stderr
    assert status["sequence"] == 1 and status["serving"] is False and status["rounds_served"] == 1


def test_a_candidate_that_is_the_reference_itself_is_timed_once_as_the_reference(tmp_path):
    # kprof model's candidate (uncompiled), which kprof names in the gate ("reference_itself",
    # decided from the file's text): the truth times the reference once for both and never calls
    # the candidate (here it would raise). A candidate that only says it is the reference (the
    # attribute an earlier kprof trusted) is measured as any other: checked, the reference timed.
    tmp_path.mkdir(parents=True, exist_ok=True)
    itself = tmp_path / "itself.py"
    itself.write_text("def kernel_function(x):\n    raise RuntimeError('called')\n")
    other = tmp_path / "other.py"
    other.write_text("import torch\n\nKPROF_REFERENCE_ITSELF = %r\n\ndef kernel_function(x):\n"
                     "    return torch.tensor([1.0, 2.0, 3.0])\n" % str(TRUTH / "problem.py"))
    gate = json.dumps({"candidates": [{"index": i, "kernel": str(path), "range": "kprof:cand%d" % i,
                                       "reference_itself": i == 0}
                                      for i, path in enumerate([itself, other])]})
    done, status, _, _, _ = run_truth_process(tmp_path / "run", [], gate)
    assert done.returncode == 0, done.stderr
    same, measured = status["candidates"]
    assert same["timing"]["median_us"] > 0 and same["timing"]["timed_in"] == "plain_process"
    assert same["reference"]["same_as_candidate"] is True and same["reference"]["timing"] is None
    assert same["reference"]["speed_of_light"]["flops"] == 1024  # counted once, as a reference is
    assert same["check"]["verdict"] == "unchecked" and "Model itself" in same["check"]["reason"]
    assert same["warmup_seconds"] == 0  # never called
    assert measured["check"]["verdict"] == "pass" and "same_as_candidate" not in measured["reference"]
    assert measured["reference"]["timing"]["median_us"] > 0
