"""The two locks a harness may take, each an exclusive flock on a file kprof made: the host's
profiled-call lock around each profiled call (plan "profiled_call_lock"; docs/harness.md, "The
profiled-call lock") and a standby's GPU lock around its GPU work (plan standby.gpu_lock). Neither
ever decides an answer: a lock that cannot be had is recorded and the work goes on without it."""

import errno
import fcntl
import os
import stat
import time


def open_lock_file(path):
    """A lock file opened for flock, as kprof's GpuLock opens it (src/util/gpu_lock.cpp): kprof
    made it and checked its directory before the harness started, so the harness never creates
    one; it opens it read-only (enough for flock) with O_NOFOLLOW and O_NONBLOCK, so that a link
    planted since is never followed and a FIFO never blocks, and uses it only when fstat finds a
    regular file with one link. Raises OSError saying what was found otherwise."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise OSError(errno.ELOOP, "refused: a symbolic link") from None
        raise
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise OSError(errno.EINVAL, "refused: not a regular file (uid %d)" % info.st_uid)
        if info.st_nlink != 1:
            raise OSError(errno.EINVAL, "refused: %d hard links" % info.st_nlink)
    except BaseException:
        os.close(fd)
        raise
    return fd


def let_go(fd):
    """Unlocks and closes a lock's fd (None: nothing). The unlock is explicit so that a copy of
    the fd a fork of the kernel holds lets go too."""
    if fd is not None:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


def take_call_lock(plan):
    """The host-wide turn for one profiled call (plan "profiled_call_lock"): returns (fd or None,
    what happened, seconds waited). Polls a non-blocking flock so that the wait stays bounded;
    a turn not had within max_wait_seconds is skipped, never an error."""
    lock = plan["profiled_call_lock"]
    if lock is None:
        return None, None, 0.0
    started = time.perf_counter()
    try:
        fd = open_lock_file(lock["path"])
    except OSError as exc:
        return None, "not held: cannot open %s: %s" % (lock["path"], exc.strerror), 0.0
    deadline = started + lock["max_wait_seconds"]
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return fd, "held", time.perf_counter() - started
        except BlockingIOError:
            if time.perf_counter() >= deadline:
                os.close(fd)
                waited = time.perf_counter() - started
                return None, "not held: still taken after %.1f s" % waited, waited
            time.sleep(0.002)
        except OSError as exc:
            os.close(fd)
            return None, "not held: cannot lock %s: %s" % (lock["path"], exc.strerror), 0.0


def take_gpu_lock(path, status):
    """The GPU's lock for a standby's setup (plan standby.gpu_lock): an exclusive flock on the
    file kprof locks for the GPU, waited for as long as it takes (kprof stops a standby that is
    not ready within its setup limit). Returns the fd, or None without a path; a file that cannot
    be opened or locked is recorded and the setup goes on without it (the lock keeps GPU work
    apart; it never decides an answer)."""
    if path is None:
        return None
    started = time.perf_counter()
    try:
        fd = open_lock_file(path)
    except OSError as exc:
        status["gpu_lock"] = "not held: cannot open %s: %s" % (path, exc.strerror)
        return None
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            status["gpu_lock"] = "held"
            waited = time.perf_counter() - started
            status["gpu_lock_wait_seconds"] = status.get("gpu_lock_wait_seconds", 0.0) + waited
            return fd
        except BlockingIOError:
            # Slower than kprof's 10 ms: a round waiting for the GPU goes first (gpu_lock.cpp).
            time.sleep(0.1)
        except OSError as exc:
            os.close(fd)
            status["gpu_lock"] = "not held: cannot lock %s: %s" % (path, exc.strerror)
            return None


def wait_for_timeline_gate(plan, entry):
    """Waits until the gate file exists (kprof read the timeline and keeps this session), at most
    max_wait_seconds: never a condition of an answer, a timeline that never comes costs only the
    wait. Only the first candidate of a session waits."""
    gate = plan.get("timeline_gate")
    if gate is None or entry["index"] != plan["first_candidate"]:
        return
    started = time.perf_counter()
    deadline = started + gate["max_wait_seconds"]
    while not os.path.exists(gate["path"]) and time.perf_counter() < deadline:
        time.sleep(0.01)
    entry["timeline_wait_seconds"] = time.perf_counter() - started
