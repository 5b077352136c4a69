"""The harness's own life: it dies with ncu (its parent) and with kprof (its owner), reaps what the
candidate leaves running, prints every thread's Python stack on a fatal signal, and ends without
the interpreter's teardown
(docs/harness.md, "Safety rules" and "What dies with kprof")."""

import os
import sys
import time

from .report import EXIT_INTERNAL


def die_with_parent():
    """Ask Linux to SIGKILL this process when its parent (ncu) dies, so that `kill -9` of kprof
    (which kills ncu through ncu's own death signal) leaves no harness running on the GPU. The
    parent may have died before this call: then exit at once. Best effort elsewhere."""
    if not sys.platform.startswith("linux"):
        return
    parent = os.getppid()
    try:
        import ctypes  # only here: the harness must start without it elsewhere

        libc = ctypes.CDLL(None, use_errno=True)
        pr_set_pdeathsig = 1
        libc.prctl(pr_set_pdeathsig, 9, 0, 0, 0)  # SIGKILL
    except (OSError, AttributeError, ImportError):
        return
    if os.getppid() != parent:
        os._exit(EXIT_INTERNAL)


PR_SET_CHILD_SUBREAPER = 36


def become_subreaper():
    """Make this process the reaper of the candidate's orphans: a child the candidate starts and
    leaves running, and a daemon it detaches (fork, setsid, fork), are re-parented here rather
    than to init, so that end_descendants finds them. Best effort outside Linux."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes  # only here, as in die_with_parent

        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    except (OSError, AttributeError, ImportError):
        pass


def children_of(pid):
    """The pids whose parent is `pid`, from /proc (empty where /proc cannot be read)."""
    children = []
    try:
        entries = os.listdir("/proc")
    except OSError:
        return children
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                fields = handle.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if len(fields) > 1 and fields[1] == str(pid).encode():
            children.append(int(entry))
    return children


def end_descendants(limit_s=2.0):
    """Kill (SIGKILL) and reap every process the candidate left behind: the real ncu waits for
    every process of the tree it profiles before it writes its rows and exits, so one `sleep` a
    kernel_function started held a round until kprof's --timeout (H100, 2026-12-06,
    docs/device-runs/2026-12-06-shared-host.md). Orphans come here through become_subreaper;
    each killed child's own children do too, hence the rounds, bounded by `limit_s`."""
    if not sys.platform.startswith("linux"):
        return
    import signal  # noqa: E402

    me = os.getpid()
    give_up = time.monotonic() + limit_s
    while time.monotonic() < give_up:
        children = children_of(me)
        if not children:
            return
        for child in children:
            try:
                os.kill(child, signal.SIGKILL)
            except OSError:
                pass
        while time.monotonic() < give_up:
            try:
                reaped, _ = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if reaped == 0:
                if not set(children).intersection(children_of(me)):
                    break
                time.sleep(0.01)


def owner_alive(pid):
    """False once process `pid` is gone or a zombie (its parent has not reaped it yet)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            state = handle.read().rsplit(b")", 1)[1].split()[0]
        return state not in (b"Z", b"X")
    except (OSError, IndexError):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True


def die_with_owner():
    """Watch kprof itself ($KPROF_OWNER_PID): the real ncu runs the harness under a process of
    its own, which a `kill -9` of kprof does not reach through parent-death signals (seen on the
    H200, 2026-11-30). When kprof is gone, kill this process group (ncu and the harness) and
    exit."""
    owner = os.environ.get("KPROF_OWNER_PID", "")
    if not owner.isdigit():
        return
    pid = int(owner)
    import signal
    import threading

    def watch():
        while owner_alive(pid):
            time.sleep(0.5)
        try:
            os.killpg(os.getpgrp(), signal.SIGKILL)
        finally:
            os._exit(EXIT_INTERNAL)

    threading.Thread(target=watch, name="kprof-owner-watch", daemon=True).start()


def report_crashes():
    """On a fatal signal (SIGSEGV, SIGFPE, SIGABRT, SIGBUS, SIGILL: a fault in native code the
    kernel ran) print the Python stack of every thread to stderr before the process dies of it,
    so that kprof's "crashed with SIGSEGV during <phase>" comes with the line that crashed. The
    status file already says the phase; the signal still ends the process."""
    try:
        import faulthandler

        faulthandler.enable(file=sys.stderr, all_threads=True)
    except (AttributeError, OSError, ValueError, RuntimeError):
        pass  # no usable stderr: the crash is reported without the stack


def exit_now(code):
    """Ends the process without the interpreter's teardown (module finalizers, torch's and
    Triton's atexit work, freeing the CUDA context): the status file is already written, and ncu
    writes its rows once the process is gone. Measured on the H200 (ncu 2025.3.1): a session ended
    0.27 s after the program's last line with os._exit against 0.78 s with sys.exit, with the same
    rows (docs/device-runs/2026-12-01-speed.md). Python's own streams are flushed first, and what
    the candidate left running is ended (end_descendants)."""
    end_descendants()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # a closed or broken stream: nothing left to keep
            pass
    os._exit(code)
