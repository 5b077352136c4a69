"""The held-out suite (tests/heldout/, issue 44) is what its manifest says, and is new.

These checks need no GPU: they read tests/heldout/manifest.json and the kernel sources and make
sure that every expected answer points at what it claims (the kernel is a @triton.jit function
of its file that kernel_function launches, the expected line holds the expected text inside that
kernel), that each defect has a clean twin in the same problem where one can exist, that the
kernels are not the planted suite's under other names, and that the recording scripts take the
suite through PLANTED_SUITE (the plan, and the score of a packed recording).
"""

import ast
import json
import os
import subprocess
import sys

import pytest

from test_planted_suite import check_twins

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SUITE = os.path.join("tests", "heldout")
PLANTED = os.path.join("tests", "planted")
BENCH = os.path.join(ROOT, "bench", "device")

# Defects that no clean kernel of the same problem can avoid: any kernel on the tiny input is as
# short, and the searchsorted answer takes the chain of dependent loads.
WITHOUT_TWIN = {"launch_bound", "memory_latency"}


def read(path):
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        return f.read()


@pytest.fixture(scope="module")
def manifest():
    return json.loads(read(os.path.join(SUITE, "manifest.json")))


@pytest.fixture(scope="module")
def planted():
    return json.loads(read(os.path.join(PLANTED, "manifest.json")))


@pytest.fixture(scope="module")
def kernels(manifest):
    return {k["id"]: k for k in manifest["kernels"]}


def top_functions(path):
    tree = ast.parse(read(path), filename=path)
    return {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}


def test_the_manifest_has_the_planted_schema_and_says_it_is_held_out(manifest, planted):
    assert manifest["version"] == planted["version"]
    assert manifest["categories"] == planted["categories"]
    assert "held-out" in manifest["about"] and "never used to tune" in manifest["about"]
    required = {"id", "problem", "kernel_file", "language", "kernel", "defect", "twin", "line", "what"}
    known = set().union(*(set(k) for k in planted["kernels"]))
    for k in manifest["kernels"]:
        assert required <= set(k) <= known, k["id"]
        assert k["id"].split("/")[0] == os.path.basename(os.path.dirname(k["problem"])), k["id"]
        assert k["problem"].startswith(SUITE + "/") and k["kernel_file"].startswith(SUITE + "/"), k["id"]
        assert os.path.dirname(k["kernel_file"]) == os.path.dirname(k["problem"]), k["id"]


def test_the_suite_has_the_size_the_issue_asks_for(manifest):
    """About 16 Triton kernels over 4 or more problems: at least 8 defects over at least 8
    categories, at least 4 clean kernels at a roof, a clean twin for most defects."""
    entries = manifest["kernels"]
    assert len(entries) >= 14
    assert {k["language"] for k in entries} == {"triton"}
    assert len({k["problem"] for k in entries}) >= 4
    defects = [k["defect"] for k in entries if k["defect"]]
    assert len(defects) >= 8
    assert len(set(defects)) >= 8
    assert set(defects) <= set(manifest["categories"])
    assert sum(1 for k in entries if k["defect"] is None and k.get("roof") in ("compute", "memory")) >= 4
    assert sum(1 for k in entries if k["defect"] and k["twin"]) >= 6


def test_every_defect_has_a_clean_twin_in_the_same_problem_and_back(kernels):
    for kid, k in kernels.items():
        assert k.get("roof") in (None, "compute", "memory"), kid
        assert "unseen" not in k, kid  # every kernel here is unseen
        if k["twin"] is None:
            if k["defect"] is None:
                assert k.get("roof"), kid  # a kernel at a roof that no defect was planted in
            else:
                assert k["defect"] in WITHOUT_TWIN, kid
                assert "no twin" in k["what"], kid
            continue
        check_twins(kernels, kid, k)


def test_kernel_names_are_unique_and_none_is_a_planted_kernel(manifest, planted):
    names = [k["kernel"] for k in manifest["kernels"]]
    assert len(names) == len(set(names))
    for a in names:
        for b in names:
            assert a == b or a not in b, (a, b)
    assert not set(names) & {k["kernel"] for k in planted["kernels"]}


def test_every_kernel_file_of_a_problem_is_in_the_manifest(manifest):
    listed = {k["kernel_file"] for k in manifest["kernels"]}
    on_disk = set()
    for problem in {k["problem"] for k in manifest["kernels"]}:
        folder = os.path.dirname(problem)
        functions = top_functions(problem)
        assert {"get_inputs", "get_init_inputs"} <= set(functions), problem
        assert "class Model(nn.Module):" in read(problem), problem
        for name in os.listdir(os.path.join(ROOT, folder)):
            if name.endswith(".py") and name != "problem.py":
                on_disk.add(os.path.join(folder, name))
    assert on_disk == listed
    assert not os.path.exists(os.path.join(ROOT, SUITE, "cuda")), "Triton only: the recorder skips the CUDA build"


def test_each_kernel_file_launches_its_named_triton_kernel_from_kernel_function(kernels):
    for kid, k in kernels.items():
        text = read(k["kernel_file"])
        functions = top_functions(k["kernel_file"])
        assert "kernel_function" in functions, kid
        jit = functions.get(k["kernel"])
        assert jit is not None, kid
        assert any(ast.unparse(d) == "triton.jit" for d in jit.decorator_list), kid
        jitted = [name for name, node in functions.items()
                  if any(ast.unparse(d) == "triton.jit" for d in node.decorator_list)]
        assert jitted == [k["kernel"]], kid  # one kernel per file: ncu's launch is this one
        launcher = ast.unparse(functions["kernel_function"])
        assert launcher.count(k["kernel"] + "[") == 1, kid
        assert text.startswith("# Held-out ") or text.startswith("# Clean twin of "), kid


def test_no_kernel_is_a_planted_kernel_under_another_name(manifest, planted):
    """The bodies of the held-out kernels differ from every planted Triton kernel's body."""
    def body(path, name):
        node = top_functions(path)[name]
        return ast.dump(ast.Module(body=node.body, type_ignores=[]))
    seen = {body(k["kernel_file"], k["kernel"]) for k in planted["kernels"] if k["language"] == "triton"}
    for k in manifest["kernels"]:
        assert body(k["kernel_file"], k["kernel"]) not in seen, k["id"]


def test_each_expected_line_holds_the_expected_source_inside_its_kernel(kernels):
    for kid, k in kernels.items():
        line = k["line"]
        if line is None:
            continue
        assert line["file"] == k["kernel_file"], kid
        lines = read(line["file"]).split("\n")
        assert lines[line["line"] - 1].strip() == line["source"], kid
        assert sum(1 for text in lines if text.strip() == line["source"]) == 1, kid
        starts = [i + 1 for i, text in enumerate(lines) if text.startswith("def ")]
        own = next(i + 1 for i, text in enumerate(lines) if text.startswith("def %s(" % k["kernel"]))
        following = [s for s in starts if s > own]
        end = following[0] if following else len(lines) + 1
        for n in [line["line"]] + line.get("accept", []):
            assert own < n < end, (kid, n)


# ---- the recording scripts take the suite through PLANTED_SUITE -------------------------------

def env_with(suite):
    env = dict(os.environ)
    env.pop("PLANTED_SUITE", None)
    if suite is not None:
        env["PLANTED_SUITE"] = suite
    return env


def plan(suite, *problems):
    return subprocess.run([sys.executable, os.path.join(BENCH, "record-planted.py"), "plan", *problems],
                          capture_output=True, text=True, check=True, env=env_with(suite)).stdout.splitlines()


def test_the_recording_plan_of_the_heldout_suite_batches_every_kernel_once(manifest):
    lines = plan(SUITE)
    problems = [line.split()[1] for line in lines]
    assert len(problems) == len(set(problems)) == len({k["problem"] for k in manifest["kernels"]})
    planned = [kernel for line in lines for kernel in line.split()[2:]]
    assert sorted(planned) == sorted(k["kernel_file"] for k in manifest["kernels"])
    assert plan(SUITE, "argmax_f16") == [" ".join(
        ["argmax_f16", SUITE + "/argmax_f16/problem.py"]
        + [k["kernel_file"] for k in manifest["kernels"] if k["id"].startswith("argmax_f16/")])]


def test_without_planted_suite_the_plan_is_the_planted_suites(planted):
    planned = [kernel for line in plan(None) for kernel in line.split()[2:]]
    assert sorted(planned) == sorted(k["kernel_file"] for k in planted["kernels"])


def test_the_device_script_skips_the_cuda_build_for_a_suite_without_one():
    text = read(os.path.join("bench", "device", "steps", "record-planted.sh"))
    assert 'suite=${PLANTED_SUITE:-tests/planted}' in text
    assert 'if [ -d "$suite/cuda" ]; then' in text
    assert 'cp "$suite/manifest.json" "$pack/planted/manifest.json"' in text
    assert "tests/planted/cuda" not in text.split("set -uo pipefail", 1)[1]


@pytest.mark.parametrize("how", ["environment", "option"])
def test_a_packed_heldout_recording_is_scored_against_the_heldout_manifest(manifest, kernels, tmp_path, how):
    """score-planted.py on a pack with two reports (a defect named first on its line, and its
    clean twin without the defect): those scored, every other kernel skipped by name."""
    defect = kernels["argmax_f16/argmax_lane_per_row"]
    twin = kernels[defect["twin"]]
    reports = tmp_path / "planted" / "argmax_f16" / "reports"
    reports.mkdir(parents=True)
    line = {"file": defect["line"]["file"], "line": defect["line"]["line"]}
    for k, causes in ((defect, [{"category": "uncoalesced_access", "line": line}]),
                      (twin, [{"category": "dram_bound"}])):
        stem = os.path.splitext(os.path.basename(k["kernel_file"]))[0]
        (reports / (stem + ".report.json")).write_text(json.dumps(
            {"kernels": [{"name": k["kernel"], "diagnosis": causes}]}))
    command = [sys.executable, os.path.join(BENCH, "score-planted.py")]
    if how == "option":
        command += ["--suite", SUITE]
    scored = subprocess.run(command + [str(tmp_path / "planted")], capture_output=True, text=True,
                            env=env_with(SUITE if how == "environment" else None))
    assert scored.returncode == 0, scored.stdout + scored.stderr
    out = scored.stdout
    assert "| `argmax_f16/argmax_lane_per_row` | uncoalesced_access | uncoalesced_access | yes | yes (%d) |" % (
        defect["line"]["line"]) in out
    assert "| `argmax_f16/argmax_lane_per_row_clean` | (clean) | dram_bound |  |  | clean | memory first |" in out
    assert "| `tiny_f16/bias_relu_tiny` | launch_bound | skipped: no report |" in out
    assert "skipped, no report (%d)" % (len(manifest["kernels"]) - 2) in out
    assert "vec_f32" not in out
