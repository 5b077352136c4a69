"""The harness's own life: it dies with ncu (its parent) and with kprof (its owner), prints every
thread's Python stack on a fatal signal, and ends without the interpreter's teardown
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
    rows (docs/device-runs/2026-12-01-speed.md). Python's own streams are flushed first."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # a closed or broken stream: nothing left to keep
            pass
    os._exit(code)
