"""The reference's FLOP counts kept across processes (issue 43): FlopCounterMode's first use costs
about 5 s of CPU in a fresh process (5.15 s on the H100 host of 2026-12-06), which a one-shot
`kprof profile` pays in every round although the problem's counts do not change between rounds.

kprof names a directory in the plan (truth.flop_cache: the out dir's .cache/flops, made private,
0700, by kprof; null: no cache). One file per problem there, named by a hash of the problem's
text and torch's version, `{"version": 1, "problem": PATH, "torch": VERSION, "digest": the
SHA-256 of both, "counts": {CAST: count_flops's result}}`: the counts of each cast word the
reference was counted in. A file is
read only when it is a regular file of this user that no other user can write (opened without
following a symbolic link), and only for the problem text and torch it names; anything else reads
as absent, which costs the count, never a wrong one. A problem whose shapes depend on more than
its own text (another file it imports, the environment) would keep its old counts: edit the
problem, or remove the directory.
"""

import hashlib
import json
import os
import stat

from .status import write_json_atomic

VERSION = 1
MAX_BYTES = 1 << 20


def file_of(directory, problem_path, torch_version):
    """(path of the problem's file in `directory`, the problem's text hash), or None when the
    problem cannot be read."""
    try:
        with open(problem_path, "rb") as f:
            text = f.read()
    except OSError:
        return None
    digest = hashlib.sha256(text + b"\0" + str(torch_version).encode()).hexdigest()
    return os.path.join(directory, digest[:32] + ".json"), digest


def read_own_json(path):
    """The JSON object at `path` when it is a regular file of this user that nobody else may
    write, at most MAX_BYTES; None otherwise."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if (not stat.S_ISREG(info.st_mode) or info.st_uid != os.geteuid()
                or info.st_mode & (stat.S_IWGRP | stat.S_IWOTH) or info.st_size > MAX_BYTES):
            return None
        with os.fdopen(fd, "r", encoding="utf-8") as f:
            fd = None
            value = json.load(f)
    except (OSError, ValueError):
        return None
    finally:
        if fd is not None:
            os.close(fd)
    return value if isinstance(value, dict) else None


def stored(directory, problem_path, torch_version):
    """The problem's stored {cast word: counts} ({} when none can be trusted)."""
    if directory is None:
        return {}
    found = file_of(directory, problem_path, torch_version)
    if found is None:
        return {}
    path, digest = found
    value = read_own_json(path)
    if (value is None or value.get("version") != VERSION or value.get("digest") != digest
            or not isinstance(value.get("counts"), dict)):
        return {}
    return {cast: counts for cast, counts in value["counts"].items() if isinstance(counts, dict)}


def store(directory, problem_path, torch_version, cast, counts):
    """Keeps `counts` (count_flops's result without an error) for cast word `cast`. Best effort:
    an unwritable directory is no error."""
    if directory is None or counts.get("error") is not None:
        return
    found = file_of(directory, problem_path, torch_version)
    if found is None:
        return
    path, digest = found
    kept = stored(directory, problem_path, torch_version)
    kept[cast] = counts
    try:
        write_json_atomic(path, {"version": VERSION, "problem": str(problem_path), "torch": str(torch_version),
                                 "digest": digest, "counts": kept})
    except OSError:
        pass
