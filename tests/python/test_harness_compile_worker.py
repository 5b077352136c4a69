"""The harness's compile_worker module: a worker takes the candidates no other process claimed,
and says why for each when it cannot compile."""

import json
import os
import subprocess
import sys

from harness_helpers import FAKE_TORCH, CASES, harness, install_harness, sample_plan

worker = harness("compile_worker")


def candidates(n):
    return [{"kernel": "/k/k%d.py" % i, "range": "kprof:cand%d" % i} for i in range(n)]


def test_a_worker_whose_set_up_failed_says_why_for_each_candidate_it_claims(tmp_path, monkeypatch):
    def no_problem(plan):
        raise RuntimeError("get_inputs names the GPU\nsecond line")

    monkeypatch.setattr(worker, "prepare_compile_worker", no_problem)
    (tmp_path / "target.json").write_text(json.dumps({"backend": "cuda", "arch": 90, "warp_size": 32}))
    (tmp_path / "1.claim").write_text("1")  # the harness's, or another worker's
    plan = sample_plan(candidates=candidates(3), compile_ahead={"dir": str(tmp_path), "max_wait_seconds": 1})

    assert worker.run_compile_worker(plan) == worker.EXIT_OK

    for index in (0, 2):
        done = json.loads((tmp_path / ("%d.done" % index)).read_text(encoding="utf-8"))
        assert done["outcome"] == ("not compiled ahead: the compile worker could not start "
                                   "(RuntimeError: get_inputs names the GPU)")
    assert not (tmp_path / "1.done").exists()


def test_a_target_that_names_no_triton_stops_the_worker_saying_so(tmp_path, monkeypatch):
    monkeypatch.setattr(worker, "prepare_compile_worker", lambda plan: (lambda index: "compiled"))
    (tmp_path / "target.json").write_text(json.dumps({"none": "no Triton target: ImportError"}))
    plan = sample_plan(first_candidate=1, candidates=candidates(2),
                       compile_ahead={"dir": str(tmp_path), "max_wait_seconds": 1})
    sys.path.insert(0, str(FAKE_TORCH))  # triton.backends.compiler, as a worker imports it
    try:
        worker.run_compile_worker(plan)
    finally:
        sys.path.remove(str(FAKE_TORCH))

    done = json.loads((tmp_path / "1.done").read_text(encoding="utf-8"))
    assert done["outcome"] == ("not compiled ahead: the compile worker could not start "
                               "(RuntimeError: no Triton target: ImportError)")
    assert not (tmp_path / "0.claim").exists()  # before first_candidate: not its to compile


def test_a_worker_compiles_on_meta_tensors_and_launches_nothing(tmp_path):
    # The whole worker, as kprof starts it, against the fake torch and Triton: the harness's part
    # (the target, the first claim) played by this test.
    ahead_dir = tmp_path / "ahead"
    ahead_dir.mkdir()
    (ahead_dir / "target.json").write_text(json.dumps({"backend": "cuda", "arch": 90, "warp_size": 32}))
    (ahead_dir / "0.claim").write_text("1")
    kernel = str(CASES / "positional" / "kernel.py")
    plan = {"version": 1, "problem": str(CASES / "vector" / "problem.py"), "status_file": str(tmp_path / "s.json"),
            "candidates": [{"kernel": kernel, "range": "kprof:cand0"}, {"kernel": kernel, "range": "kprof:cand1"}],
            "compile_ahead": {"dir": str(ahead_dir)}}
    (tmp_path / "plan.json").write_text(json.dumps(plan))
    script = install_harness(tmp_path)
    log = tmp_path / "events.log"
    env = dict(os.environ, PYTHONPATH=str(FAKE_TORCH), KPROF_FAKE_TORCH_LOG=str(log), CUDA_VISIBLE_DEVICES="")

    done = subprocess.run([sys.executable, str(script), str(tmp_path / "plan.json"), "--compile-worker"],
                          env=env, capture_output=True, text=True, timeout=120)

    assert done.returncode == 0, done.stderr
    assert json.loads((ahead_dir / "1.done").read_text())["outcome"] == "compiled"
    assert not log.exists() or "launch" not in log.read_text()
