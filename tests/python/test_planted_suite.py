"""The planted-defect suite (tests/planted/, docs/diagnosis.md) is what its manifest says.

These checks need no GPU: they read tests/planted/manifest.json and the kernel sources and make
sure that every expected answer points at what it claims (the kernel exists and is the one the
kernel file launches, the expected line holds the expected text), that each defect has a clean
twin in the same problem, and that the suite has the size issue 44 asks for.
"""

import ast
import json
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SUITE = os.path.join(ROOT, "tests", "planted")
CUDA_SOURCE = os.path.join(SUITE, "cuda", "planted.cu")
CUDA_MODULE = os.path.join(SUITE, "cuda", "planted_cuda.py")


def read(path):
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        return f.read()


@pytest.fixture(scope="module")
def manifest():
    return json.loads(read(os.path.join("tests", "planted", "manifest.json")))


@pytest.fixture(scope="module")
def kernels(manifest):
    return {k["id"]: k for k in manifest["kernels"]}


def cuda_launched_kernels():
    """{torch function name: the __global__ kernel its launcher starts}, read from the sources."""
    wrappers = dict(re.findall(r"torch::Tensor (\w+)\([^)]*\) \{ return \w+\([^;]*?(launch_\w+)\); \}",
                               read(CUDA_MODULE)))
    launchers = dict(re.findall(r"void (launch_\w+)\([^)]*\) \{[^}]*?(\w+)<<<", read(CUDA_SOURCE), re.S))
    return {name: launchers.get(launcher) for name, launcher in wrappers.items()}


def test_the_suite_has_the_size_issue_44_asks_for(manifest):
    """At least 60 kernels over at least 14 defect classes, each class in several kernels and in
    both languages where the class can be planted in both, at least 15 clean kernels at or near a
    roof, and issue 44's three unseen kernels."""
    entries = manifest["kernels"]
    assert len(entries) >= 60
    defects = {k["defect"] for k in entries if k["defect"]}
    assert len(defects) >= 14
    assert defects == set(manifest["categories"])
    assert {k["language"] for k in entries} == {"triton", "cuda"}
    for defect in defects:
        assert sum(1 for k in entries if k["defect"] == defect) >= 1, defect
    assert sum(1 for k in entries if k["defect"] is None and k.get("roof") in ("compute", "memory")) >= 15
    unseen = {k.get("unseen") for k in entries} - {None}
    assert unseen == {"a 2.7 us launch-bound kernel", "a streaming copy at ~90% of DRAM peak",
                      "a dependent-load chain"}


def test_every_defect_has_a_clean_twin_in_the_same_problem_and_back(kernels):
    for kid, k in kernels.items():
        assert k.get("roof") in (None, "compute", "memory"), kid
        if k["twin"] is None:
            # A kernel at a roof that no defect was planted in.
            assert k["defect"] is None and k.get("roof"), kid
            continue
        check_twins(kernels, kid, k)


def check_twins(kernels, kid, k):
    """A defect and its clean twin (also tests/heldout's): each other's twin, in one problem and
    language, one of them clean; the clean one names no line, the defect no roof."""
    twin = kernels[k["twin"]]
    assert twin["twin"] == kid, kid
    assert twin["problem"] == k["problem"], kid
    assert (k["defect"] is None) != (twin["defect"] is None), kid
    assert k["language"] == twin["language"], kid
    if k["defect"] is None:
        assert k["line"] is None, kid
    else:
        assert "roof" not in k, kid


def test_kernel_names_are_unique_so_launches_can_be_told_apart(manifest):
    names = [k["kernel"] for k in manifest["kernels"]]
    assert len(names) == len(set(names))
    for a in names:
        for b in names:
            assert a == b or a not in b, (a, b)


def test_every_kernel_file_of_a_problem_is_in_the_manifest(manifest):
    listed = {k["kernel_file"] for k in manifest["kernels"]}
    problems = {k["problem"] for k in manifest["kernels"]}
    on_disk = set()
    for problem in problems:
        folder = os.path.dirname(problem)
        assert os.path.exists(os.path.join(ROOT, problem))
        for name in os.listdir(os.path.join(ROOT, folder)):
            if name.endswith(".py") and name != "problem.py":
                on_disk.add(os.path.join(folder, name))
    assert on_disk == listed


def test_each_kernel_file_defines_kernel_function_and_its_named_kernel(kernels):
    launched = cuda_launched_kernels()
    assert launched and all(launched.values())
    for kid, k in kernels.items():
        text = read(k["kernel_file"])
        tree = ast.parse(text, filename=k["kernel_file"])
        functions = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}
        assert "kernel_function" in functions, kid
        if k["language"] == "triton":
            jit = functions.get(k["kernel"])
            assert jit is not None, kid
            assert any(ast.unparse(d) == "triton.jit" for d in jit.decorator_list), kid
        else:
            called = re.findall(r"planted_cuda\.module\(\)\.(\w+)\(", text)
            assert len(called) == 1, kid
            assert launched[called[0]] == k["kernel"], kid
            assert re.search(r"__global__ void\s+(__launch_bounds__\([^)]*\)\s+)?%s\(" % k["kernel"],
                             read(CUDA_SOURCE)), kid


def test_each_expected_line_holds_the_expected_source_inside_its_kernel(kernels):
    for kid, k in kernels.items():
        line = k["line"]
        if line is None:
            continue
        lines = read(line["file"]).split("\n")
        assert lines[line["line"] - 1].strip() == line["source"], kid
        for accepted in line.get("accept", []):
            assert 1 <= accepted <= len(lines), kid
        # The line lies in the body of the manifest's kernel: after its definition and before
        # the next kernel's.
        if k["language"] == "triton":
            starts = [i + 1 for i, text in enumerate(lines) if text.startswith("def ")]
            own = next(i + 1 for i, text in enumerate(lines) if text.startswith("def %s(" % k["kernel"]))
        else:
            starts = [i + 1 for i, text in enumerate(lines)
                      if text.startswith("__global__") or text.startswith("__device__")]
            own = next(i + 1 for i, text in enumerate(lines)
                       if text.startswith("__global__") and re.search(r"\b%s\(" % k["kernel"], text))
        following = [s for s in starts if s > own]
        end = following[0] if following else len(lines) + 1
        for n in [line["line"]] + line.get("accept", []):
            assert own < n < end, (kid, n)


def test_cuda_kernels_go_through_load_inline_with_lineinfo_and_their_own_line_numbers():
    assert "inline_build.cached_loader(NAME, SOURCE, CPP_SOURCE, FUNCTIONS)" in read(CUDA_MODULE)
    build = read(os.path.join(os.path.dirname(CUDA_MODULE), "inline_build.py"))
    assert "load_inline(" in build
    assert '"-lineinfo"' in build
    assert '#line 1 "%s"' in build


RECORDINGS = os.path.join(ROOT, "tests", "fixtures", "ncu", "2025.3.1", "planted")


def recorded_functions(problem):
    """The functions of a problem's recorded source page, or None when the problem has none."""
    folder = os.path.join(RECORDINGS, problem)
    if not os.path.exists(os.path.join(folder, "source.csv")):
        return None
    for page in ("details.csv", "raw.csv", "source.csv"):
        assert os.path.getsize(os.path.join(folder, page)) > 0, (problem, page)
    with open(os.path.join(folder, "source.csv"), encoding="utf-8") as f:
        return set(re.findall(r'^"Function Name","([^"(]+)', f.read(), re.M))


def test_a_recorded_problem_has_the_pages_the_diagnosis_reads(manifest):
    """The recording (docs/device-runs/) holds, per recorded problem, the pages
    tests/unit/diagnosis/planted_suite_test.cpp scores; the kernels it has appear in the source
    page as functions with line info."""
    recorded = 0
    for problem in {k["id"].split("/")[0] for k in manifest["kernels"]}:
        functions = recorded_functions(problem)
        if functions is not None:
            recorded += 1
            assert functions, problem
    assert recorded >= 1


def test_every_kernel_of_the_manifest_is_recorded(manifest):
    """Kernels added since the last recording are skipped here, by name, until
    bench/device/run record-planted records them (docs/device-e2e.md); never passed."""
    missing = []
    for k in manifest["kernels"]:
        functions = recorded_functions(k["id"].split("/")[0])
        if functions is None or k["kernel"] not in functions:
            missing.append(k["id"])
    if missing:
        pytest.skip("%d of %d kernels have no recorded pages yet: %s" % (
            len(missing), len(manifest["kernels"]), ", ".join(missing)))


# ---- the recording scripts' plumbing, with the stand-in ncu ----------------------------------

BENCH = os.path.join(ROOT, "bench", "device")
STANDINS = os.path.join(ROOT, "tests", "standins")


def kprof_binary():
    build = os.environ.get("KPROF_BUILD_DIR") or os.path.join(ROOT, "build")
    binary = os.path.join(build, "kprof")
    if not os.path.isfile(binary):
        pytest.skip("the kprof CLI is not built at %s (set KPROF_BUILD_DIR)" % binary)
    return binary


def test_the_recording_plan_batches_every_kernel_once_one_batch_per_problem(manifest):
    plan = subprocess.run([sys.executable, os.path.join(BENCH, "record-planted.py"), "plan"],
                          capture_output=True, text=True, check=True).stdout.splitlines()
    problems = [line.split()[0] for line in plan]
    assert len(problems) == len(set(problems)) == len({k["problem"] for k in manifest["kernels"]})
    planned = [kernel for line in plan for kernel in line.split()[2:]]
    assert sorted(planned) == sorted(k["kernel_file"] for k in manifest["kernels"])


def test_a_deep_batch_with_the_standin_ncu_is_packed_and_scored(manifest, tmp_path):
    """The device script's Python half on a round that `kprof batch --metrics deep` made with the
    stand-in ncu replaying the recorded vec_f32 pages (its first 12 kernels, in manifest order):
    pack takes the details page from rows.csv (the session's ncu.log holds the source page),
    and score-planted.py scores the reports kprof wrote, the kernels without one skipped."""
    binary = kprof_binary()
    recorded = os.path.join(RECORDINGS, "vec_f32")
    entries = [k for k in manifest["kernels"] if k["id"].startswith("vec_f32/")][:12]
    kernels = []
    for k in entries:  # each candidate launches one fake kernel in its own NVTX range
        path = tmp_path / "kernels" / os.path.basename(k["kernel_file"])
        path.parent.mkdir(exist_ok=True)
        path.write_text(read(os.path.join("examples", "vadd", "kernel.py")))
        kernels.append(str(path))
    run = tmp_path / "run"
    env = dict(os.environ, PYTHONPATH=os.path.join(STANDINS, "fake_torch"),
               KPROF_FAKE_NCU_CSV=os.path.join(recorded, "details.csv"),
               KPROF_FAKE_NCU_SOURCE=os.path.join(recorded, "source.csv"),
               KPROF_LOCK_DIR=str(tmp_path / "locks"), XDG_CACHE_HOME=str(tmp_path / "cache"))
    batch = subprocess.run(
        [binary, "batch", os.path.join(ROOT, "examples", "vadd", "problem.py"), *kernels, "--out", str(run),
         "--round", "1", "--metrics", "deep", "--clock-control", "none", "--cast", "none", "--retries", "0",
         "--no-history", "--ncu", os.path.join(STANDINS, "ncu"), "--python", "/usr/bin/python3",
         "--format", "json"], capture_output=True, text=True, env=env, timeout=300)
    assert batch.returncode == 0, batch.stderr
    session = run / "round001" / "gpu0-part0"
    assert (session / "rows.csv").is_file() and (session / "source.csv").is_file()
    dest = tmp_path / "planted"
    packed = subprocess.run([sys.executable, os.path.join(BENCH, "record-planted.py"), "pack", str(run),
                             str(tmp_path / "triton"), str(dest), "1:vec_f32"],
                            capture_output=True, text=True, check=True)
    assert "### vec_f32 (round 1)" in packed.stdout
    with open(dest / "vec_f32" / "details.csv", encoding="utf-8") as f:
        assert '"Section Name"' in f.read(), "the details page, not the source page of ncu.log"
    assert (dest / "vec_f32" / "source.csv").is_file()
    for k in entries:
        stem = os.path.splitext(os.path.basename(k["kernel_file"]))[0]
        assert (dest / "vec_f32" / "reports" / (stem + ".report.json")).is_file(), k["id"]
    scored = subprocess.run([sys.executable, os.path.join(BENCH, "score-planted.py"), str(dest)],
                            capture_output=True, text=True)
    assert scored.returncode in (0, 1), scored.stdout + scored.stderr
    assert "| `vec_f32/strided_load` | uncoalesced_access | uncoalesced_access" in scored.stdout
    assert "| `chase_i32/pointer_chase` | memory_latency | skipped: no report |" in scored.stdout
    assert "skipped, no report (%d)" % (len(manifest["kernels"]) - 12) in scored.stdout
