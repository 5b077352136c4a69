"""bench/device/steps/truth.sh (`bench/device/run truth`) in its dry run (DRY_RUN=1): the stand-in ncu and the fake torch drive
the built kprof through the checks' plumbing (the measured median reaches report.json, a planted
off-by-one and a NaN candidate come back partial with wrong_output, the right one first), and
bench/device/truth.py's verdicts can fail."""

import json
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def kprof_binary():
    build = Path(os.environ.get("KPROF_BUILD_DIR") or ROOT / "build")
    binary = build / "kprof"
    if not binary.exists():
        pytest.skip("the kprof CLI is not built at %s (set KPROF_BUILD_DIR)" % binary)
    return binary


def test_the_dry_run_passes_its_checks_and_writes_a_summary(tmp_path):
    env = dict(os.environ, DRY_RUN="1", KPROF=str(kprof_binary()), OUT=str(tmp_path))
    run = subprocess.run(["bash", str(ROOT / "bench" / "device" / "run"), "truth"], env=env, capture_output=True,
                         text=True, timeout=300)
    summary = (tmp_path / "summary.md").read_text()
    assert run.returncode == 0, summary + run.stderr
    assert "PASS cand1 partial wrong_output" in summary
    assert "PASS cand2 partial wrong_output" in summary
    assert "PASS the right candidate ranks first" in summary
    # Timed in the truth's own process, outside the stand-in ncu (which sets CUDA_INJECTION64_PATH)
    assert '"timed_in": "plain_process"' in summary
    assert "- failed checks: 0" in summary


def test_the_wrong_verdict_fails_a_round_whose_wrong_candidate_passed(tmp_path):
    doc = {"candidates": [
        {"candidate": 0, "status": "ok", "rank": 1, "error": None},
        {"candidate": 1, "status": "ok", "rank": 2, "error": None}]}
    path = tmp_path / "round.json"
    path.write_text(json.dumps(doc))
    run = subprocess.run(["python3", str(ROOT / "bench" / "device" / "truth.py"), "wrong", str(path)],
                         capture_output=True, text=True)
    assert run.returncode == 1
    assert "FAIL cand1 ok" in run.stdout


def test_compare_fails_beyond_the_tolerance(tmp_path):
    report = tmp_path / "round001" / "report.json"
    report.parent.mkdir()
    report.write_text(json.dumps({"truth": {"timing": {"median_us": 104.0, "timed_in": "ncu_process"}}}))
    bench = tmp_path / "bench.json"
    bench.write_text(json.dumps({"do_bench_median_us": 100.0, "plain_median_us": 102.0}) + "\n")
    run = subprocess.run(["python3", str(ROOT / "bench" / "device" / "truth.py"), "compare", str(report), str(bench),
                          "0.03"], capture_output=True, text=True)
    assert run.returncode == 1
    assert "FAIL" in run.stdout and "vs do_bench 100.00 us: 4.0%" in run.stdout
    assert "PASS" in run.stdout and "plain-process timing 102.00 us: 2.0%" in run.stdout
