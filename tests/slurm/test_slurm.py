"""`kprof batch --slurm` against a real one-host Slurm (tests/slurm/cluster.sh: Debian's
slurm-wlm and munge, started here as root). The GPU side is the stand-in ncu and the fake torch
of tests/standins, as in the other end-to-end tests.

Run by scripts/test.sh (and so by CI) after the other suites:
    KPROF_BUILD_DIR=build /usr/bin/python3 -m pytest -q tests/slurm
The tests of the cluster are skipped, with the reason, where Slurm cannot be started (not root,
packages missing). Those of what kprof checks and writes before it submits (refused sbatch
options, the job script of --dry-run) run everywhere, against a stand-in scontrol, sinfo and
sbatch (the `fake_slurm` fixture).
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, Iterator, List, Optional

import pytest

ROOT = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("KPROF_BUILD_DIR", ROOT / "build")).resolve()
KPROF = BUILD / "kprof"
STANDINS = ROOT / "tests" / "standins"
CASES = ROOT / "tests" / "python" / "cases"
FIXTURE = ROOT / "tests" / "fixtures" / "ncu" / "2025.3.1" / "batch4_flat_regex_ranges.csv"
CLUSTER = ROOT / "tests" / "slurm" / "cluster.sh"

HANG = "import time\n\n\ndef kernel_function(x, y):\n    time.sleep(600)\n    return x\n"
# Hangs on its first run only (a marker file beside it says it ran), then is the good kernel:
# for --requeue. Made from the good kernel by hang_once().
HANG_ONCE_PREFIX = (
    "import os\nimport time\n\n"
    "MARK = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'ran-once')\n\n\n"
    "def hang_once():\n"
    "    if not os.path.exists(MARK):\n"
    "        open(MARK, 'w').close()\n"
    "        time.sleep(600)\n\n\n"
)


def why_not() -> Optional[str]:
    if not KPROF.exists():
        return f"no kprof binary at {KPROF} (set KPROF_BUILD_DIR)"
    return why_no_cluster()


def why_no_cluster() -> Optional[str]:
    if os.geteuid() != 0:
        return "a one-host Slurm needs root to start munged, slurmctld and slurmd"
    for program in ("slurmctld", "slurmd", "munged", "sbatch"):
        if shutil.which(program) is None and not Path("/usr/sbin", program).exists():
            return f"{program} is not installed (Debian packages slurm-wlm and munge)"
    return None


pytestmark = pytest.mark.skipif(not KPROF.exists(), reason=f"no kprof binary at {KPROF} (set KPROF_BUILD_DIR)")


@pytest.fixture(scope="module")
def cluster() -> Iterator[Dict[str, str]]:
    """The cluster's environment (SLURM_CONF and the stand-ins), for the module's tests."""
    if why_not() is not None:
        pytest.skip(str(why_not()))
    # Under the build directory: on the same disk as the sources, never a memory filesystem,
    # so the node-local check has nothing to refuse (the one node is this host).
    base = BUILD / "slurm-test"
    shutil.rmtree(base, ignore_errors=True)
    base.mkdir(parents=True)
    state = base / "state"
    started = subprocess.run(["bash", str(CLUSTER), "start", str(state)], capture_output=True, text=True)
    if started.returncode != 0:
        pytest.fail(f"cluster.sh start failed:\n{started.stdout}\n{started.stderr}")
    env = dict(os.environ)
    env["SLURM_CONF"] = str(state / "etc" / "slurm.conf")
    env["PYTHONPATH"] = str(STANDINS / "fake_torch")
    env["KPROF_FAKE_NCU_CSV"] = str(FIXTURE)
    # The fake torch's machine has as many GPUs as the cluster's node (cluster.sh's NGPUS), so the
    # CUDA_VISIBLE_DEVICES each task gets from Slurm (0 to N-1) names one of them.
    env["KPROF_FAKE_GPU_COUNT"] = os.environ.get("KPROF_SLURM_GPUS", "4")
    env["KPROF_LOCK_DIR"] = str(base / "locks")
    env["XDG_CACHE_HOME"] = str(base / "cache")
    env["KPROF_SLURM_TEST_BASE"] = str(base)
    try:
        yield env
    finally:
        subprocess.run(["bash", str(CLUSTER), "stop", str(state)], capture_output=True, text=True)


def workdir(env: Dict[str, str], name: str) -> Path:
    path = Path(env["KPROF_SLURM_TEST_BASE"]) / name
    shutil.rmtree(path, ignore_errors=True)
    path.mkdir(parents=True)
    return path


def candidates(base: Path, sources: List[str]) -> List[str]:
    """One directory per candidate (kernel.py), as an agent writes them."""
    paths = []
    for i, source in enumerate(sources):
        directory = base / f"k{i}"
        directory.mkdir(parents=True, exist_ok=True)
        (directory / "kernel.py").write_text(source)
        paths.append(str(directory / "kernel.py"))
    return paths


def good() -> str:
    return (CASES / "positional" / "kernel.py").read_text()


def hang_once() -> str:
    source = good()
    assert "def kernel_function(x, y):\n" in source
    return HANG_ONCE_PREFIX + source.replace("def kernel_function(x, y):\n", "def kernel_function(x, y):\n    hang_once()\n")


def raises() -> str:
    return (CASES / "raises" / "kernel.py").read_text()


def batch_argv(kernels: List[str], out: Path, *extra: str, format: str = "json") -> List[str]:
    return [
        str(KPROF), "batch", str(CASES / "vector" / "problem.py"), *kernels, "--slurm",
        "--ncu", str(STANDINS / "ncu"), "--python", "/usr/bin/python3", "--out", str(out),
        "--format", format, *extra,
    ]  # fmt: skip


def squeue(env: Dict[str, str]) -> str:
    return subprocess.run(["squeue", "-h", "-r", "-o", "%i|%T"], capture_output=True, text=True, env=env).stdout


def wait_for(predicate, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.2)
    pytest.fail(f"timed out after {timeout} s waiting for {what}")


def running_task(env: Dict[str, str], task: int) -> Optional[str]:
    for line in squeue(env).splitlines():
        job, _, state = line.partition("|")
        if job.endswith(f"_{task}") and state == "RUNNING":
            return job
    return None


def processes_under(path: Path) -> List[str]:
    """Command lines of live processes that name `path` (a harness, ncu, a task's kprof)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if str(path) in cmdline:
            found.append(f"{entry.name}: {cmdline}")
    return found


def test_eight_candidates_in_four_tasks_make_one_round_in_the_history(cluster: Dict[str, str]) -> None:
    base = workdir(cluster, "eight")
    sources = [good()] * 8
    sources[3] = raises()
    kernels = candidates(base, sources)
    out = base / "out"
    run = subprocess.run(batch_argv(kernels, out, "--tasks", "4", "--round", "2"), capture_output=True, text=True, env=cluster, timeout=300)
    assert run.returncode == 0, run.stderr
    batch = json.loads((out / "round002" / "batch.json").read_text())
    statuses = [c["status"] for c in batch["candidates"]]
    assert statuses == ["ok", "ok", "ok", "failed", "ok", "ok", "ok", "ok"], batch["candidates"]
    assert batch["candidates"][3]["error"]["category"] == "kernel_raised"
    assert batch["metadata"]["slurm"]["tasks"] == 4
    # Each candidate's report names its task; two candidates per task, in order.
    for index in (0, 1, 2, 4, 5, 6, 7):
        report = json.loads((out / "round002" / f"cand{index}" / "report.json").read_text())
        assert report["metadata"]["candidate"] == index
        assert report["metadata"]["slurm"]["task"] == index // 2
        assert report["metadata"]["slurm"]["state"] == "COMPLETED"
    # The history holds the round, written by the submitter alone.
    history = subprocess.run([str(KPROF), "history", str(out), "--format", "json"], capture_output=True, text=True, env=cluster)
    assert history.returncode == 0, history.stderr
    rows = json.loads(history.stdout)["rows"]
    assert sorted(row["candidate"] for row in rows if row["round"] == 2) == list(range(8))
    job_dirs = list((out / "slurm").iterdir())
    assert len(job_dirs) == 1
    assert (job_dirs[0] / "job.sbatch").read_text().startswith("#!/bin/bash")
    assert sorted(p.name for p in job_dirs[0].glob("task-*")) == ["task-0", "task-1", "task-2", "task-3"]
    assert list(job_dirs[0].rglob("kprof.db")) == []
    # The ranked table on stdout: the same round.
    assert len(json.loads(run.stdout)["candidates"]) == 8
    assert squeue(cluster).strip() == ""


def test_a_task_killed_midway_fails_its_candidates_with_slurm_state(cluster: Dict[str, str]) -> None:
    base = workdir(cluster, "killed")
    kernels = candidates(base, [good(), good(), HANG, good()])
    out = base / "out"
    kprof = subprocess.Popen(batch_argv(kernels, out, "--tasks", "2"), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=cluster)
    try:
        wait_for(lambda: running_task(cluster, 1) is not None, 60, "task 1 to run")
        # Let task 1 reach the hanging candidate, then kill the task as a node failure would.
        time.sleep(3)
        job = running_task(cluster, 1)
        assert job is not None
        subprocess.run(["scancel", job], check=True, env=cluster)
        stdout, stderr = kprof.communicate(timeout=120)
    finally:
        if kprof.poll() is None:
            kprof.kill()
    assert kprof.returncode == 0, stderr
    batch = json.loads((out / "round000" / "batch.json").read_text())
    first, second, hung, last = batch["candidates"]
    assert (first["status"], second["status"]) == ("ok", "ok")
    for candidate in (hung, last):
        assert candidate["status"] == "failed"
        assert candidate["error"]["category"] == "slurm", candidate
        assert "CANCELLED" in candidate["error"]["message"], candidate
    error = json.loads((out / "round000" / "cand2" / "error.json").read_text())
    assert error["metadata"]["slurm"]["state"] == "CANCELLED"
    assert squeue(cluster).strip() == ""


def test_ctrl_c_cancels_the_job_and_leaves_nothing_running(cluster: Dict[str, str]) -> None:
    base = workdir(cluster, "interrupted")
    kernels = candidates(base, [HANG, HANG, HANG, HANG])
    out = base / "out"
    kprof = subprocess.Popen(batch_argv(kernels, out, "--tasks", "2"), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=cluster)
    try:
        wait_for(lambda: running_task(cluster, 0) is not None and running_task(cluster, 1) is not None, 60, "both tasks to run")
        time.sleep(2)
        kprof.send_signal(signal.SIGINT)
        stdout, stderr = kprof.communicate(timeout=120)
    finally:
        if kprof.poll() is None:
            kprof.kill()
    assert kprof.returncode == 130, stderr
    assert squeue(cluster).strip() == ""
    wait_for(lambda: processes_under(base) == [], 30, "the tasks' processes to end")
    batch = json.loads((out / "round000" / "batch.json").read_text())
    assert batch["metadata"]["slurm"]["interrupted"] is True
    assert all(c["status"] == "failed" and c["error"]["category"] == "slurm" for c in batch["candidates"])


def test_dry_run_prints_the_plan_and_the_script_and_submits_nothing(cluster: Dict[str, str]) -> None:
    base = workdir(cluster, "dry")
    kernels = candidates(base, [good()] * 8)
    out = base / "out"
    options = ["--tasks", "3", "--gpus-per-task", "2", "--slurm-opt", "--time=10 --qos='normal'", "--dry-run"]
    text = subprocess.run(batch_argv(kernels, out, *options, format="table"), capture_output=True, text=True, env=cluster)
    assert text.returncode == 0, text.stderr
    assert "in 3 array task(s) (3 asked), 2 GPU(s) per task" in text.stdout
    assert f"task 0: 3 candidate(s): cand0 ({kernels[0]}) cand1 ({kernels[1]}) cand2 ({kernels[2]})" in text.stdout
    assert "task 2: 2 candidate(s)" in text.stdout
    assert "Would run: sbatch --parsable --time=10 --qos=normal " in text.stdout
    assert "#SBATCH --array=0-2\n" in text.stdout
    assert "#SBATCH --gres=gpu:2\n" in text.stdout
    assert "--gpus 0,1" in text.stdout
    plan = subprocess.run(batch_argv(kernels, out, *options), capture_output=True, text=True, env=cluster)
    assert plan.returncode == 0, plan.stderr
    document = json.loads(plan.stdout)
    assert document["kind"] == "slurm_plan"
    assert [t["candidates"] for t in document["tasks"]] == [[0, 1, 2], [3, 4, 5], [6, 7]]
    assert document["sbatch"][:4] == ["sbatch", "--parsable", "--time=10", "--qos=normal"]
    assert document["script_text"].startswith("#!/bin/bash\n")
    assert not out.exists()
    assert squeue(cluster).strip() == ""


def test_a_node_local_path_is_refused_before_submitting(cluster: Dict[str, str]) -> None:
    base = workdir(cluster, "local")
    kernels = candidates(base, [good(), good()])
    # The `remote` partition also has far-node, another host: this machine's disk is not shared.
    remote = subprocess.run(batch_argv(kernels, base / "out", "--slurm-opt", "--partition=remote"), capture_output=True, text=True, env=cluster)
    assert remote.returncode == 2, remote.stderr
    assert "is on a local disk" in remote.stderr and "far-node" in remote.stderr, remote.stderr
    # A memory filesystem is refused even when every node is this host.
    kind = subprocess.run(["stat", "-f", "-c", "%T", "/dev/shm"], capture_output=True, text=True).stdout.strip()
    if kind != "tmpfs":
        pytest.skip(f"/dev/shm is not a tmpfs here ({kind or 'missing'}); the remote case passed")
    shm = Path("/dev/shm") / f"kprof-slurm-test-{os.getpid()}"
    shm.mkdir(exist_ok=True)
    try:
        (shm / "kernel.py").write_text(good())
        memory = subprocess.run(batch_argv([kernels[0], str(shm / "kernel.py")], base / "out"), capture_output=True, text=True, env=cluster)
        assert memory.returncode == 2, memory.stderr
        assert f"the kernel file {shm / 'kernel.py'} is on tmpfs, in this node's memory" in memory.stderr
    finally:
        shutil.rmtree(shm, ignore_errors=True)
    assert not (base / "out").exists()
    assert squeue(cluster).strip() == ""


def test_requeue_resubmits_a_shard_whose_task_died_once(cluster: Dict[str, str]) -> None:
    base = workdir(cluster, "requeue")
    kernels = candidates(base, [good(), good(), hang_once(), good()])
    out = base / "out"
    kprof = subprocess.Popen(batch_argv(kernels, out, "--tasks", "2", "--requeue"), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=cluster)
    try:
        wait_for(lambda: (base / "k2" / "ran-once").exists(), 60, "the hanging candidate to start")
        # SIGKILL to the task's kprof, as if its node died: it writes nothing, the task fails.
        task_kprof = [p for p in processes_under(out / "slurm") if f"{KPROF} batch" in p and "/task-1" in p]
        assert len(task_kprof) == 1, task_kprof
        os.kill(int(task_kprof[0].split(":")[0]), signal.SIGKILL)
        stdout, stderr = kprof.communicate(timeout=180)
    finally:
        if kprof.poll() is None:
            kprof.kill()
    assert kprof.returncode == 0, stderr
    batch = json.loads((out / "round000" / "batch.json").read_text())
    assert [c["status"] for c in batch["candidates"]] == ["ok", "ok", "ok", "ok"], batch["candidates"]
    assert len(batch["metadata"]["slurm"]["jobs"]) == 2
    report = json.loads((out / "round000" / "cand2" / "report.json").read_text())
    assert report["metadata"]["slurm"]["requeued"] is True
    assert squeue(cluster).strip() == ""


def test_python_profile_batch_with_slurm(cluster: Dict[str, str]) -> None:
    base = workdir(cluster, "python")
    kernels = candidates(base, [good(), raises(), good()])
    script = f"""
import json, sys
import kprof
kernels = {kernels!r}
plan = kprof.profile_batch({str(CASES / 'vector' / 'problem.py')!r}, kernels, 1, out_dir={str(base / 'out')!r},
                           slurm={{"tasks": 2, "dry_run": True, "kprof": {str(KPROF)!r}}},
                           ncu_bin_path={str(STANDINS / 'ncu')!r}, python_executable="/usr/bin/python3")
outcomes = kprof.profile_batch({str(CASES / 'vector' / 'problem.py')!r}, kernels, 1, out_dir={str(base / 'out')!r},
                               slurm={{"tasks": 2, "kprof": {str(KPROF)!r}, "poll_seconds": 0.5}},
                               ncu_bin_path={str(STANDINS / 'ncu')!r}, python_executable="/usr/bin/python3")
print(json.dumps({{"plan": [t["candidates"] for t in plan["tasks"]],
                  "kinds": [type(o).__name__ for o in outcomes],
                  "slurm_task": outcomes[2].report["metadata"]["slurm"]["task"]}}))
"""
    env = dict(cluster)
    env["PYTHONPATH"] = os.pathsep.join([str(BUILD / "python"), str(STANDINS / "fake_torch")])
    run = subprocess.run([sys.executable if sys.executable else "/usr/bin/python3", "-c", script], capture_output=True, text=True, env=env, timeout=300)
    assert run.returncode == 0, run.stderr
    said = json.loads(run.stdout.strip().splitlines()[-1])
    assert said["plan"] == [[0, 1], [2]]
    assert said["kinds"] == ["ProfilerResults", "KernelRuntimeError", "ProfilerResults"]
    assert said["slurm_task"] == 1


def test_no_slurm_configuration_is_said_plainly() -> None:
    if why_not() is not None:
        pytest.skip(str(why_not()))
    if Path("/etc/slurm/slurm.conf").exists():
        pytest.skip("this machine has /etc/slurm/slurm.conf")
    env = {key: value for key, value in os.environ.items() if key != "SLURM_CONF"}
    kernel = CASES / "positional" / "kernel.py"
    run = subprocess.run([str(KPROF), "batch", str(CASES / "vector" / "problem.py"), str(kernel), "--slurm"], capture_output=True, text=True, env=env)
    assert run.returncode == 17, run.stderr
    assert "scontrol found no Slurm configuration (no SLURM_CONF" in run.stderr, run.stderr


def test_an_output_directory_with_spaces_quotes_hashes_and_percent_runs(cluster: Dict[str, str]) -> None:
    # sbatch reads the job script's #SBATCH --output line itself: this is what its quoting is for.
    base = workdir(cluster, "named")
    kernels = candidates(base, [good()])
    out = base / """out dir 'q' "d" #1 50%"""
    run = subprocess.run(batch_argv(kernels, out), capture_output=True, text=True, env=cluster, timeout=300)
    assert run.returncode == 0, run.stderr
    batch = json.loads((out / "round000" / "batch.json").read_text())
    assert [c["status"] for c in batch["candidates"]] == ["ok"], batch["candidates"]
    (job_dir,) = list((out / "slurm").iterdir())
    logs = list((job_dir / "task-0").glob("slurm-*_0.out"))
    assert len(logs) == 1, sorted(p.name for p in (job_dir / "task-0").iterdir())
    assert squeue(cluster).strip() == ""


# ---- before submitting: no cluster needed ------------------------------------------------------------------

FAKE_SCONTROL = "#!/bin/sh\nprintf 'MaxArraySize            = 1001\\nMaxJobCount             = 10000\\n'\n"
FAKE_SINFO = "#!/bin/sh\necho '{host}|{host}|debug*'\n"
FAKE_SBATCH = "#!/bin/sh\necho \"$@\" >>'{calls}'\necho 'sbatch: error: a stand-in submits nothing' >&2\nexit 1\n"


@pytest.fixture
def fake_slurm(tmp_path: Path) -> Iterator[Dict[str, str]]:
    """An environment whose scontrol and sinfo answer as a one-node cluster of this host and
    whose sbatch records its arguments and refuses: what kprof checks and writes before it
    submits, without a cluster. KPROF_SLURM_TEST_BASE is a directory on the build disk (the
    node-local check refuses a memory filesystem), SBATCH_CALLS the file of sbatch's calls."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    calls = tmp_path / "sbatch-calls"
    for name, text in (("scontrol", FAKE_SCONTROL), ("sinfo", FAKE_SINFO.format(host=socket.gethostname())), ("sbatch", FAKE_SBATCH.format(calls=calls))):
        (bin_dir / name).write_text(text)
        (bin_dir / name).chmod(0o755)
    base = BUILD / "slurm-edges" / tmp_path.name
    shutil.rmtree(base, ignore_errors=True)
    base.mkdir(parents=True)
    env = {key: value for key, value in os.environ.items() if key != "SLURM_CONF"}
    env["PATH"] = os.pathsep.join([str(bin_dir), env.get("PATH", "")])
    env["KPROF_SLURM_TEST_BASE"] = str(base)
    env["SBATCH_CALLS"] = str(calls)
    env["PYTHONPATH"] = str(BUILD / "python")
    try:
        yield env
    finally:
        shutil.rmtree(base, ignore_errors=True)


def sbatch_argument(line: str) -> str:
    """The first argument of an #SBATCH line as sbatch reads it (its documented rules: quotes
    group, a backslash escapes the next character, an unquoted # starts a comment)."""
    text = line[len("#SBATCH "):]
    word, quote, escaped = "", "", False
    for c in text:
        if escaped:
            word, escaped = word + c, False
        elif c == "\\":
            escaped = True
        elif quote:
            if c == quote:
                quote = ""
            else:
                word += c
        elif c in "\"'":
            quote = c
        elif c == "#" or c.isspace():
            break
        else:
            word += c
    return word


@pytest.mark.parametrize(
    "options, said",
    [
        ("--partition=gpu; rm -rf x", "'--partition=gpu;' holds ';', which only a shell reads"),
        ("-p gpu", "'gpu' is not an sbatch option"),
        ("--comment='$(touch x)'", "'--comment=$(touch x)' holds '$'"),
        ("--array=0-3", "'--array=0-3' sets the job array"),
        ("--time=10 --wrap=hostname", "'--wrap=hostname' replaces the job's script"),
    ],
)
def test_sbatch_options_kprof_cannot_pass_on_are_refused_before_anything_is_written(fake_slurm: Dict[str, str], options: str, said: str) -> None:
    base = Path(fake_slurm["KPROF_SLURM_TEST_BASE"])
    kernels = candidates(base, [good()])
    out = base / "out"
    run = subprocess.run(batch_argv(kernels, out, "--slurm-opt", options), capture_output=True, text=True, env=fake_slurm)
    assert run.returncode == 2, run.stderr
    assert f"kprof: error: slurm options: {said}" in run.stderr, run.stderr
    assert not out.exists()
    assert not Path(fake_slurm["SBATCH_CALLS"]).exists()


def test_gpus_per_task_0_is_refused_before_anything_is_written(fake_slurm: Dict[str, str]) -> None:
    base = Path(fake_slurm["KPROF_SLURM_TEST_BASE"])
    out = base / "out"
    run = subprocess.run(batch_argv(candidates(base, [good()]), out, "--gpus-per-task", "0"), capture_output=True, text=True, env=fake_slurm)
    assert run.returncode == 2, run.stderr
    assert "slurm gpus_per_task must be a whole number from 1 to 64, not 0" in run.stderr
    assert not out.exists()
    assert not Path(fake_slurm["SBATCH_CALLS"]).exists()


def test_an_output_directory_other_users_could_swap_is_refused_before_anything_is_written(fake_slurm: Dict[str, str]) -> None:
    # The job script and the tasks' files live under --out and Slurm runs them as this user: under
    # a directory other users may write (not sticky), they could be swapped.
    base = Path(fake_slurm["KPROF_SLURM_TEST_BASE"])
    kernels = candidates(base, [good()])
    shared = base / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    out = shared / "out"
    run = subprocess.run(batch_argv(kernels, out), capture_output=True, text=True, env=fake_slurm)
    assert run.returncode == 14, run.stderr
    assert f"{shared} is writable by other users" in run.stderr, run.stderr
    assert list(out.iterdir()) == [], "nothing is written under it"
    assert not Path(fake_slurm["SBATCH_CALLS"]).exists()


def test_the_job_script_names_an_output_directory_with_spaces_quotes_and_percent_as_sbatch_reads_it(fake_slurm: Dict[str, str]) -> None:
    base = Path(fake_slurm["KPROF_SLURM_TEST_BASE"])
    out = base / """out dir 'q' "d" #1 50%"""
    run = subprocess.run(batch_argv(candidates(base, [good()]), out, "--dry-run"), capture_output=True, text=True, env=fake_slurm)
    assert run.returncode == 0, run.stderr
    plan = json.loads(run.stdout)
    (line,) = [line for line in plan["script_text"].splitlines() if line.startswith("#SBATCH --output=")]
    pattern = plan["dir"].replace("%", "%%") + "/task-%a/slurm-%A_%a.out"
    assert sbatch_argument(line) == "--output=" + pattern, line
    assert plan["dir"].startswith(str(out) + "/slurm/round000-")
    (dir_line,) = [line for line in plan["script_text"].splitlines() if line.startswith("dir=")]
    assert shlex.split(dir_line) == ["dir=" + plan["dir"]]
    assert not out.exists(), "--dry-run writes nothing"


@pytest.mark.parametrize("name, why", [("a\nb", "a control character"), ("a\\b", "a backslash")])
def test_an_output_directory_no_sbatch_line_can_name_is_refused(fake_slurm: Dict[str, str], name: str, why: str) -> None:
    base = Path(fake_slurm["KPROF_SLURM_TEST_BASE"])
    out = base / name
    run = subprocess.run(batch_argv(candidates(base, [good()]), out, "--dry-run"), capture_output=True, text=True, env=fake_slurm)
    assert run.returncode == 2, run.stderr
    assert f"holds {why}, which the job script's #SBATCH --output line cannot name" in run.stderr, run.stderr
    assert not out.exists()


def test_a_newline_in_the_problem_path_does_not_end_a_comment_of_the_job_script(fake_slurm: Dict[str, str]) -> None:
    base = Path(fake_slurm["KPROF_SLURM_TEST_BASE"])
    problem_dir = base / "p\ntouch INJECTED"
    problem_dir.mkdir()
    shutil.copy(CASES / "vector" / "problem.py", problem_dir / "problem.py")
    argv = batch_argv(candidates(base, [good()]), base / "out", "--dry-run")
    argv[2] = str(problem_dir / "problem.py")
    run = subprocess.run(argv, capture_output=True, text=True, env=fake_slurm)
    assert run.returncode == 0, run.stderr
    script = json.loads(run.stdout)["script_text"]
    header = script.splitlines()[1 : script.splitlines().index("set -u")]
    assert all(line.startswith("#") for line in header), script
    assert "p\\x0atouch INJECTED/problem.py in 1 array task(s)" in header[0]
    assert f"'{problem_dir / 'problem.py'}'" in script  # the command's word, newline and all


def test_python_max_retries_reaches_the_tasks_as_their_retries(fake_slurm: Dict[str, str]) -> None:
    base = Path(fake_slurm["KPROF_SLURM_TEST_BASE"])
    kernels = candidates(base, [good()])
    script = f"""
import json, kprof
for given in ({{}}, {{"max_retries": 4}}):
    plan = kprof.profile_batch({str(CASES / 'vector' / 'problem.py')!r}, {kernels!r}, 1, out_dir={str(base / 'out')!r},
                               slurm={{"dry_run": True, "kprof": {str(KPROF)!r}}}, **given)
    words = plan["script_text"].split()
    print(json.dumps(words[words.index("--retries") + 1]))
"""
    run = subprocess.run([sys.executable or "/usr/bin/python3", "-c", script], capture_output=True, text=True, env=fake_slurm)
    assert run.returncode == 0, run.stderr
    # KernelAgent's max_retries counts attempts (default 2), as without Slurm.
    assert [json.loads(line) for line in run.stdout.split()] == ["1", "3"]
