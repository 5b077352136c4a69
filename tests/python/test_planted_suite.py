"""The planted-defect suite (tests/planted/, docs/diagnosis.md) is what its manifest says.

These checks need no GPU: they read tests/planted/manifest.json and the kernel sources and make
sure that every expected answer points at what it claims (the kernel exists and is the one the
kernel file launches, the expected line holds the expected text), that each defect has a clean
twin in the same problem, and that the suite has the size the issue asks for.
"""

import ast
import json
import os
import re

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


def test_the_suite_has_at_least_24_kernels_over_8_defect_classes_in_triton_and_cuda(manifest):
    entries = manifest["kernels"]
    assert len(entries) >= 24
    defects = {k["defect"] for k in entries if k["defect"]}
    assert len(defects) >= 8
    assert defects == set(manifest["categories"])
    assert {k["language"] for k in entries} == {"triton", "cuda"}


def test_every_defect_has_a_clean_twin_in_the_same_problem_and_back(kernels):
    for kid, k in kernels.items():
        twin = kernels[k["twin"]]
        assert twin["twin"] == kid, kid
        assert twin["problem"] == k["problem"], kid
        assert (k["defect"] is None) != (twin["defect"] is None), kid
        assert k["language"] == twin["language"], kid
        if k["defect"] is None:
            assert k["line"] is None, kid


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
    text = read(CUDA_MODULE)
    assert "load_inline(" in text
    assert '"-lineinfo"' in text
    assert '#line 1 "%s"' in text


RECORDINGS = os.path.join(ROOT, "tests", "fixtures", "ncu", "2025.3.1", "planted")


def test_the_recording_has_every_kernel_of_the_manifest_with_the_pages_the_diagnosis_reads(manifest):
    """The H200 recording (docs/device-runs/2026-12-01-planted.md) holds, per problem, the pages
    tests/unit/diagnosis/planted_suite_test.cpp scores, and every manifest kernel appears in its
    problem's source page as a function with line info."""
    by_problem = {}
    for k in manifest["kernels"]:
        by_problem.setdefault(k["id"].split("/")[0], []).append(k["kernel"])
    for problem, names in by_problem.items():
        folder = os.path.join(RECORDINGS, problem)
        for page in ("details.csv", "raw.csv", "source.csv"):
            assert os.path.getsize(os.path.join(folder, page)) > 0, (problem, page)
        with open(os.path.join(folder, "source.csv"), encoding="utf-8") as f:
            functions = set(re.findall(r'^"Function Name","([^"(]+)', f.read(), re.M))
        for name in names:
            assert name in functions, (problem, name)
