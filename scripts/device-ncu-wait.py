"""Issue 10: where does a process profiled by ncu wait while another GPU profiles too?

Samples every thread of the given processes through /proc (state, wchan, the syscall it is in,
what that syscall's file descriptor or futex address points at) until STOP exists, and prints
a histogram: one line per distinct (process, thread, state, wchan, syscall, object) with how
often it was seen. A lock shared between processes shows as a futex in a shared mapping, a
flock/fcntl on a file, or an ioctl that waits in the driver (wchan).

usage: python3 device-ncu-wait.py STOP LABEL:PID [LABEL:PID ...]
"""
import collections
import os
import sys
import time

SYSCALLS = {0: "read", 1: "write", 7: "poll", 16: "ioctl", 23: "select", 35: "nanosleep",
            44: "sendto", 45: "recvfrom", 46: "sendmsg", 47: "recvmsg", 61: "wait4",
            65: "semop", 72: "fcntl", 73: "flock", 202: "futex", 220: "semtimedop",
            230: "clock_nanosleep", 232: "epoll_wait", 270: "pselect6", 271: "ppoll",
            281: "epoll_pwait", 9: "mmap", 11: "munmap", 10: "mprotect", 257: "openat"}
FD_SYSCALLS = {"read", "write", "ioctl", "fcntl", "flock", "sendto", "recvfrom", "sendmsg",
               "recvmsg"}


def read(path):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return ""


def mapping_of(pid, address):
    for line in read(f"/proc/{pid}/maps").splitlines():
        parts = line.split(None, 5)
        low, high = (int(x, 16) for x in parts[0].split("-"))
        if low <= address < high:
            name = parts[5] if len(parts) > 5 else "[anon]"
            return f"{parts[1]} {name}"
    return "?"


def thread_key(pid, tid):
    base = f"/proc/{pid}/task/{tid}"
    stat = read(f"{base}/stat")
    if not stat:
        return None
    comm = stat[stat.index("(") + 1:stat.rindex(")")]
    state = stat[stat.rindex(")") + 2]
    wchan = read(f"{base}/wchan") or "-"
    syscall = read(f"{base}/syscall").split()
    what, obj = "?", ""
    if syscall and syscall[0] == "running":
        what = "running"
    elif syscall and syscall[0].lstrip("-").isdigit():
        nr = int(syscall[0])
        what = SYSCALLS.get(nr, f"sys{nr}") if nr >= 0 else "user"
        if what in FD_SYSCALLS and len(syscall) > 1:
            fd = int(syscall[1], 16)
            try:
                obj = os.readlink(f"/proc/{pid}/fd/{fd}")
            except OSError:
                obj = f"fd{fd}"
            if what == "ioctl" and len(syscall) > 2:
                obj += f" req={syscall[2]}"
        elif what == "futex" and len(syscall) > 1:
            obj = mapping_of(pid, int(syscall[1], 16))
    stack = read(f"{base}/stack").splitlines()
    frames = ",".join(line.split()[-1].split("+")[0] for line in stack[:4]) or "-"
    return (comm, state, wchan, what, obj, frames)


def main():
    stop, targets = sys.argv[1], [a.split(":", 1) for a in sys.argv[2:]]
    counts = collections.Counter()
    samples = 0
    while not os.path.exists(stop) and samples < 3000:
        for label, pid in targets:
            try:
                tids = os.listdir(f"/proc/{pid}/task")
            except OSError:
                continue
            for tid in tids:
                key = thread_key(pid, tid)
                if key:
                    main_thread = "main" if tid == pid else "other"
                    counts[(label, main_thread) + key] += 1
        samples += 1
        time.sleep(0.01)
    print(f"{samples} samples")
    for key, n in sorted(counts.items(), key=lambda kv: (kv[0][0], -kv[1])):
        if n * 50 >= samples or key[1] == "main":  # drop threads seen in under 2% of the samples
            print(f"{n:6d}  {' | '.join(key)}")


if __name__ == "__main__":
    main()
