"""The harness's status module: the status document and its file, replaced whole."""

import json
import sys

import pytest

from harness_helpers import harness, sample_plan

status_module = harness("status")


def test_a_new_status_lists_the_candidates_from_the_first_one_on_not_started():
    plan = sample_plan(first_candidate=1, candidates=[
        {"kernel": "/k/a.py", "range": "kprof:cand0"}, {"kernel": "/k/b\udcff.py", "range": "kprof:cand1"}])

    status = status_module.new_status(plan)

    assert status["version"] == 1 and status["phase"] == "start" and status["problem_ok"] is False
    assert status["python_version"] == "%d.%d.%d" % sys.version_info[:3]
    assert [(c["index"], c["range"], c["phase"]) for c in status["candidates"]] == [(1, "kprof:cand1", "not_started")]
    assert status["candidates"][0]["kernel"] == "/k/b\\udcff.py"  # readable by strict UTF-8 readers


def test_a_status_file_is_written_whole_on_every_phase_and_logs_it(tmp_path, capsys):
    status_file = status_module.StatusFile(str(tmp_path / "status.json"), status_module.new_status(sample_plan()))

    status_file.set_phase("inputs")
    status_file.set_candidate_phase(status_file.status["candidates"][0], "warmup")

    written = json.loads((tmp_path / "status.json").read_text(encoding="utf-8"))
    assert written["phase"] == "inputs" and written["candidates"][0]["phase"] == "warmup"
    assert capsys.readouterr().err == "kprof-harness: inputs\nkprof-harness: cand0 warmup\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["status.json"]


def test_a_value_that_cannot_be_written_leaves_the_old_file_and_no_temp_file(tmp_path):
    path = tmp_path / "status.json"
    status_module.write_json_atomic(str(path), {"phase": "start"})

    with pytest.raises(TypeError):
        status_module.write_json_atomic(str(path), {"phase": object()})

    assert json.loads(path.read_text(encoding="utf-8")) == {"phase": "start"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["status.json"]
