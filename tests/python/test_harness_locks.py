"""The harness's locks module: the profiled-call lock and a standby's GPU lock, opened only when
they are plain files kprof made, and never a condition of an answer."""

import fcntl
import os

import pytest

from harness_helpers import harness, sample_plan

locks = harness("locks")


def lock_file(tmp_path):
    path = tmp_path / "profiled-calls.lock"
    path.write_bytes(b"")
    return path


def test_without_a_lock_in_the_plan_nothing_is_taken():
    assert locks.take_call_lock(sample_plan()) == (None, None, 0.0)
    assert locks.take_gpu_lock(None, {}) is None
    locks.let_go(None)


def test_a_free_lock_is_held_until_it_is_let_go(tmp_path):
    path = lock_file(tmp_path)
    plan = sample_plan(profiled_call_lock={"path": str(path), "max_wait_seconds": 1})

    fd, what, waited = locks.take_call_lock(plan)
    other = os.open(path, os.O_RDONLY)
    try:
        with pytest.raises(BlockingIOError):
            fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
        locks.let_go(fd)
        fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
    finally:
        os.close(other)
    assert what == "held" and waited >= 0


def test_a_lock_held_elsewhere_past_the_wait_is_skipped_saying_so(tmp_path):
    path = lock_file(tmp_path)
    holder = os.open(path, os.O_RDONLY)
    fcntl.flock(holder, fcntl.LOCK_EX)
    try:
        fd, what, waited = locks.take_call_lock(
            sample_plan(profiled_call_lock={"path": str(path), "max_wait_seconds": 0.05}))
    finally:
        os.close(holder)

    assert fd is None and what.startswith("not held: still taken after") and waited >= 0.05


@pytest.mark.parametrize("kind, why", [
    ("missing", "No such file or directory"),
    ("symlink", "refused: a symbolic link"),
    ("fifo", "refused: not a regular file"),
    ("hardlink", "refused: 2 hard links"),
])
def test_a_lock_file_that_is_not_a_plain_file_kprof_made_is_refused(tmp_path, kind, why):
    path = tmp_path / "gpu0.lock"
    if kind == "symlink":
        lock_file(tmp_path)
        os.symlink(tmp_path / "profiled-calls.lock", path)
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "hardlink":
        os.link(lock_file(tmp_path), path)
    status = {}

    assert locks.take_gpu_lock(str(path), status) is None

    assert status["gpu_lock"].startswith("not held: cannot open %s: " % path) and why in status["gpu_lock"]
    assert not (kind == "missing" and path.exists())  # never created


def test_a_gpu_lock_adds_its_wait_to_the_status(tmp_path):
    status = {"gpu_lock_wait_seconds": 1.0}

    fd = locks.take_gpu_lock(str(lock_file(tmp_path)), status)
    locks.let_go(fd)

    assert status["gpu_lock"] == "held" and status["gpu_lock_wait_seconds"] >= 1.0
