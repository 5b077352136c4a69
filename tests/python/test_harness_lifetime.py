"""The harness's lifetime module: what tells it kprof is gone, and its quick exit."""

import os
import subprocess
import sys

from harness_helpers import PACKAGE, harness

lifetime = harness("lifetime")


def test_a_running_process_is_alive_and_a_reaped_or_zombie_one_is_not():
    assert lifetime.owner_alive(os.getpid()) is True
    reaped = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                            capture_output=True, text=True, check=True).stdout.strip()
    assert lifetime.owner_alive(int(reaped)) is False
    zombie = subprocess.Popen([sys.executable, "-c", "pass"])
    os.waitid(os.P_PID, zombie.pid, os.WEXITED | os.WNOWAIT)  # ended, not reaped yet
    try:
        assert lifetime.owner_alive(zombie.pid) is False
    finally:
        zombie.wait()


def test_the_quick_exit_flushes_pythons_streams_and_keeps_the_code():
    code = ("import sys; sys.path[:0] = [%r]; import importlib.util as u;"
            "s = u.spec_from_file_location('kprof_harness', %r, submodule_search_locations=[%r]);"
            "m = u.module_from_spec(s); sys.modules['kprof_harness'] = m; s.loader.exec_module(m);"
            "from kprof_harness import lifetime; print('unflushed', end=''); lifetime.exit_now(3)"
            % (str(PACKAGE.parent), str(PACKAGE / "__init__.py"), str(PACKAGE)))

    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)

    assert done.returncode == 3 and done.stdout == "unflushed"


def test_an_owner_that_is_not_a_pid_is_not_watched(monkeypatch):
    monkeypatch.setenv("KPROF_OWNER_PID", "not-a-pid")

    lifetime.die_with_owner()  # returns without starting a watcher

    import threading
    assert "kprof-owner-watch" not in [t.name for t in threading.enumerate()]


def test_the_quick_exit_ends_a_child_and_a_detached_daemon_the_candidate_left_running():
    # The real ncu waits for every process of its tree, so what a candidate leaves running would
    # hold the round (docs/device-runs/2026-12-06-shared-host.md); the harness reaps it as it ends.
    code = ("import os, subprocess, sys; sys.path[:0] = [%r]; import importlib.util as u;"
            "s = u.spec_from_file_location('kprof_harness', %r, submodule_search_locations=[%r]);"
            "m = u.module_from_spec(s); sys.modules['kprof_harness'] = m; s.loader.exec_module(m);"
            "from kprof_harness import lifetime; lifetime.become_subreaper();"
            "child = subprocess.Popen(['sleep', '300']);"
            "daemon = subprocess.run([sys.executable, '-c', 'import os, subprocess, sys;"
            " os.setsid(); p = subprocess.Popen([\"sleep\", \"301\"], stdout=subprocess.DEVNULL,"
            " stderr=subprocess.DEVNULL);"
            " print(p.pid)'],"
            " capture_output=True, text=True, check=True).stdout.strip();"
            "print(child.pid, daemon, flush=True); lifetime.exit_now(0)"
            % (str(PACKAGE.parent), str(PACKAGE / "__init__.py"), str(PACKAGE)))

    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)

    assert done.returncode == 0, done.stderr
    pids = [int(word) for word in done.stdout.split()]
    assert len(pids) == 2
    for pid in pids:
        assert not lifetime.owner_alive(pid), "pid %d outlived the harness" % pid


def test_children_of_lists_a_running_child():
    child = subprocess.Popen(["sleep", "30"])
    try:
        assert child.pid in lifetime.children_of(os.getpid())
    finally:
        child.kill()
        child.wait()
    assert child.pid not in lifetime.children_of(os.getpid())
