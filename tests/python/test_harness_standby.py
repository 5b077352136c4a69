"""The harness's standby module: the wait on the FIFO for the candidates."""

import json
import os

from harness_helpers import harness, sample_plan

standby = harness("standby")
status_module = harness("status")


def waiting(tmp_path, idle_seconds=30):
    fifo = tmp_path / "candidates.fifo"
    os.mkfifo(fifo)
    plan = sample_plan(candidates=[], standby={"fifo": str(fifo), "idle_seconds": idle_seconds})
    status_file = status_module.StatusFile(str(tmp_path / "status.json"), status_module.new_status(plan))
    return plan, status_file, fifo


def send(fifo, text):
    """Writes `text` into the FIFO and keeps it there (a reader and writer of its own)."""
    fd = os.open(fifo, os.O_RDWR | os.O_NONBLOCK)
    os.write(fd, text.encode("utf-8"))
    return fd


def test_the_candidates_written_into_the_fifo_become_the_plans(tmp_path):
    plan, status_file, fifo = waiting(tmp_path)
    message = {"candidates": [{"kernel": "/k/a.py", "range": "kprof:cand0"},
                              {"kernel": "/k/b.py", "range": "kprof:cand1"}], "first_candidate": 1,
               "compile_ahead": {"dir": "/d"}}
    fd = send(fifo, json.dumps(message) + "\n")
    try:
        assert standby.wait_in_standby(plan, status_file) is None
    finally:
        os.close(fd)

    assert plan["candidates"] == message["candidates"] and plan["first_candidate"] == 1
    assert plan["compile_ahead"] == {"dir": "/d", "max_wait_seconds": 30.0}
    assert [c["index"] for c in status_file.status["candidates"]] == [1]
    assert status_file.status["phase"] == "standby" and status_file.status["standby_wait_seconds"] >= 0


def test_a_standby_left_waiting_ends_idle(tmp_path):
    plan, status_file, _ = waiting(tmp_path, idle_seconds=0.05)

    assert standby.wait_in_standby(plan, status_file) == standby.EXIT_STANDBY_IDLE
    assert status_file.status["phase"] == "idle"


def test_garbage_in_the_fifo_is_an_unreadable_plan(tmp_path, capsys):
    plan, status_file, fifo = waiting(tmp_path)
    fd = send(fifo, "[1, 2]\n")
    try:
        assert standby.wait_in_standby(plan, status_file) == standby.EXIT_PROBLEM_INVALID
    finally:
        os.close(fd)

    assert "standby: the candidates must be a JSON object" in capsys.readouterr().err
