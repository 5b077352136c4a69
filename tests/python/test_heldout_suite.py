"""The held-out suites (tests/heldout/, tests/heldout2/, tests/heldout3/, tests/heldout4/ and
tests/heldout5/, issue 44) are what their manifests say, and are new.

These checks need no GPU (nor torch or Triton: the sources are read, never imported). Each test
runs on every suite it applies to (SUITES): every expected answer points at what it claims (the
kernel is a @triton.jit function of its file, or a __global__ function of the suite's cuda/ source,
that kernel_function launches; the expected line holds the expected text inside that kernel), each
defect has a clean twin in its problem where one can exist, the suite covers the classes it was
written for, its kernels are not an earlier suite's under other names, its CUDA source (where it
has one) compiles without spills where nvcc is installed, and the recording scripts take the suite
through PLANTED_SUITE (the plan, the CUDA build or its absence, the score of a packed recording).
"""

import ast
import functools
import glob
import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from typing import Optional

import pytest

from test_planted_suite import check_twins

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PLANTED = os.path.join("tests", "planted")
BENCH = os.path.join(ROOT, "bench", "device")

# Defects that no clean kernel of the same problem can avoid: any kernel on the tiny input is as
# short, and a search or a tree descent takes its chain of dependent loads.
WITHOUT_TWIN = {"launch_bound", "memory_latency"}


@dataclass(frozen=True)
class ScoredPair:
    """The defect (and, through the manifest, its clean twin) that a packed recording is scored
    on: the category reported first on the defect's line, the parameter list ncu prints after the
    kernels' names ("" for Triton), and the folder the reported line's file lies under ("" for
    the path as the manifest writes it)."""

    defect: str
    category: str
    signature: str = ""
    reported_under: str = ""


@dataclass(frozen=True)
class HeldOutSuite:
    folder: str
    earlier: tuple  # the suites whose kernels these must not copy
    covered: frozenset  # the defect classes it was written to cover (its README)
    cuda_source: Optional[str]  # the .cu file of its cuda/ folder; None: Triton only, no cuda/
    about: tuple  # what its manifest's "about" says of it
    min_kernels: int
    min_problems: int
    min_clean_at_roof: int
    scored: ScoredPair

    @property
    def name(self):
        return os.path.basename(self.folder)

    @property
    def languages(self):
        return {"triton", "cuda"} if self.cuda_source else {"triton"}

    @property
    def cuda_folder(self):
        return os.path.join(self.folder, "cuda")

    @property
    def cuda_module(self):
        """The file the recorder builds the suite's CUDA extension from."""
        return os.path.join(self.cuda_folder, "planted_cuda.py")


SUITES = [
    # About 16 Triton kernels over 4 or more problems (issue 44), written after the rules.
    HeldOutSuite(
        folder=os.path.join("tests", "heldout"),
        earlier=(PLANTED,),
        covered=frozenset({"register_spills", "too_few_blocks", "uncoalesced_access", "atomic_contention",
                           "tensor_cores_unused", "tail_effect", "memory_latency", "launch_bound"}),
        cuda_source=None,
        about=("held-out", "never used to tune"),
        min_kernels=14, min_problems=4, min_clean_at_roof=4,
        scored=ScoredPair("argmax_f16/argmax_lane_per_row", "uncoalesced_access"),
    ),
    # About 20 kernels over 6 or more problems, in Triton and CUDA C++, written without reading
    # the rules.
    HeldOutSuite(
        folder=os.path.join("tests", "heldout2"),
        earlier=(PLANTED, os.path.join("tests", "heldout")),
        covered=frozenset({"warp_divergence", "low_occupancy", "load_imbalance", "bank_conflicts",
                           "barrier_stalls", "mio_pressure", "memory_latency", "launch_bound",
                           "uncoalesced_access"}),
        cuda_source=os.path.join("tests", "heldout2", "cuda", "heldout2.cu"),
        about=("held-out", "never used to tune", "without reading the diagnosis rules"),
        min_kernels=20, min_problems=6, min_clean_at_roof=5,
        # ncu prints a CUDA kernel with its parameters, and its line under the build's own root.
        scored=ScoredPair("cumsum_f32/row_scan_unpadded", "bank_conflicts",
                          signature="(const float *, float *, int)", reported_under="/somewhere"),
    ),
    # About 20 kernels over 11 problems, in Triton and CUDA C++, written without reading the rules,
    # in ops, dtypes and sizes none of the three earlier suites has, stressing the classes the
    # second one did not (spills, tail, atomics, tensor cores, too few blocks).
    HeldOutSuite(
        folder=os.path.join("tests", "heldout3"),
        earlier=(PLANTED, os.path.join("tests", "heldout"), os.path.join("tests", "heldout2")),
        covered=frozenset({"register_spills", "tail_effect", "atomic_contention", "tensor_cores_unused",
                           "too_few_blocks", "warp_divergence", "uncoalesced_access", "bank_conflicts",
                           "low_occupancy", "launch_bound"}),
        cuda_source=os.path.join("tests", "heldout3", "cuda", "heldout3.cu"),
        about=("held-out", "never used to tune", "without reading the diagnosis rules"),
        min_kernels=20, min_problems=10, min_clean_at_roof=5,
        scored=ScoredPair("dct8_f32/dct8_lane_block", "bank_conflicts",
                          signature="(const float *, float *, int)", reported_under="/elsewhere"),
    ),
    # About 28 kernels over 16 problems, in Triton and CUDA C++, written without reading the rules,
    # in ops, dtypes and sizes none of the four earlier suites has, covering all 14 classes and
    # weighted to hard shapes (a few-microsecond launch, a linked-list walk, atomics on 10
    # addresses, bf16 scores by scalar FMAs).
    HeldOutSuite(
        folder=os.path.join("tests", "heldout4"),
        earlier=(PLANTED, os.path.join("tests", "heldout"), os.path.join("tests", "heldout2"),
                 os.path.join("tests", "heldout3")),
        covered=frozenset({"uncoalesced_access", "atomic_contention", "too_few_blocks", "launch_bound",
                           "warp_divergence", "bank_conflicts", "register_spills", "tail_effect",
                           "load_imbalance", "barrier_stalls", "mio_pressure", "tensor_cores_unused",
                           "memory_latency", "low_occupancy"}),
        cuda_source=os.path.join("tests", "heldout4", "cuda", "heldout4.cu"),
        about=("held-out", "never used to tune", "without reading the diagnosis rules"),
        min_kernels=26, min_problems=12, min_clean_at_roof=6,
        scored=ScoredPair("cosine_bf16/cosine_tree_barriers", "barrier_stalls",
                          signature="(const __nv_bfloat16 *, const __nv_bfloat16 *, float *, int)",
                          reported_under="/another/root"),
    ),
    # About 34 kernels over 19 problems, in Triton and CUDA C++, written without reading the rules,
    # in ops, dtypes and sizes none of the five earlier suites has, covering all 14 classes and the
    # weak ones (load imbalance, low occupancy, launch-bound, tensor cores unused) twice each, in
    # two shapes.
    HeldOutSuite(
        folder=os.path.join("tests", "heldout5"),
        earlier=(PLANTED, os.path.join("tests", "heldout"), os.path.join("tests", "heldout2"),
                 os.path.join("tests", "heldout3"), os.path.join("tests", "heldout4")),
        covered=frozenset({"atomic_contention", "bank_conflicts", "barrier_stalls", "launch_bound",
                           "load_imbalance", "low_occupancy", "memory_latency", "mio_pressure",
                           "register_spills", "tail_effect", "tensor_cores_unused", "too_few_blocks",
                           "uncoalesced_access", "warp_divergence"}),
        cuda_source=os.path.join("tests", "heldout5", "cuda", "heldout5.cu"),
        about=("held-out", "never used to tune", "without reading the diagnosis rules"),
        min_kernels=32, min_problems=17, min_clean_at_roof=10,
        scored=ScoredPair("bitrev_f32/bitrev_rows_direct", "bank_conflicts",
                          signature="(const float *, float *)", reported_under="/yet/another/root"),
    ),
]


def over(suites):
    return pytest.mark.parametrize("suite", suites, ids=lambda s: s.name)


EVERY_SUITE = over(SUITES)
WITH_CUDA = over([s for s in SUITES if s.cuda_source])
TRITON_ONLY = over([s for s in SUITES if not s.cuda_source])


def read(path):
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        return f.read()


@functools.lru_cache(maxsize=None)
def load_manifest(folder):
    return json.loads(read(os.path.join(folder, "manifest.json")))


def kernels_of(suite):
    return {k["id"]: k for k in load_manifest(suite.folder)["kernels"]}


def earlier_kernels(suite):
    """The kernels of every suite these must not copy."""
    return [k for folder in suite.earlier for k in load_manifest(folder)["kernels"]]


def problem_folders(manifest):
    return {os.path.dirname(k["problem"]) for k in manifest["kernels"]}


def top_functions(path):
    tree = ast.parse(read(path), filename=path)
    return {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}


def is_jit(node):
    return any(ast.unparse(d) == "triton.jit" for d in node.decorator_list)


# ---- reading the CUDA sources -----------------------------------------------------------------

def cuda_functions(path):
    """{name: (first line, body text)} of the __global__ and __device__ functions of a .cu file,
    each body running to the next such function or the launchers' namespace."""
    lines = read(path).split("\n")
    starts = [i for i, text in enumerate(lines) if text.startswith(("__global__", "__device__"))]
    stops = starts + [i for i, text in enumerate(lines) if text.startswith("namespace {")] + [len(lines)]
    functions = {}
    for start in starts:
        end = min(s for s in stops if s > start)
        text = "\n".join(lines[start:end])
        name = re.search(r"(\w+)\(", text.split("{", 1)[0].replace("__launch_bounds__(", "")).group(1)
        functions[name] = (start + 1, text)
    return functions


def cuda_globals(path):
    return [name for name, (_, text) in cuda_functions(path).items() if text.startswith("__global__")]


def cuda_body(text):
    """A function's body without comments and whitespace, for comparing kernels."""
    body = text.split("{", 1)[1]
    body = re.sub(r"//[^\n]*", "", body)
    return re.sub(r"\s+", "", body)


def cuda_launched_kernels(module_path, source_path):
    """{torch function name: the __global__ kernel its launcher starts}, read from the sources."""
    wrappers = dict(re.findall(r"^torch::Tensor (\w+)\([^)]*\) \{ return \w+\([^;]*?(launch_\w+)\); \}$",
                               read(module_path), re.M))
    launchers = dict(re.findall(r"^void (launch_\w+)\([^)]*\) \{.*?(\w+)<<<", read(source_path), re.M | re.S))
    return {name: launchers.get(launcher) for name, launcher in wrappers.items()}


def kernel_start(k, lines):
    """The line (1-based) that opens the manifest's kernel in its file, and the starts of all the
    functions of that file."""
    if k["language"] == "triton":
        starts = [i + 1 for i, text in enumerate(lines) if text.startswith("def ")]
        own = next(i + 1 for i, text in enumerate(lines) if text.startswith("def %s(" % k["kernel"]))
    else:
        starts = [i + 1 for i, text in enumerate(lines) if text.startswith(("__global__", "__device__"))]
        starts.append(next(i + 1 for i, text in enumerate(lines) if text.startswith("namespace {")))
        own = next(i + 1 for i, text in enumerate(lines)
                   if text.startswith("__global__") and re.search(r"\b%s\(" % k["kernel"], text))
    return own, starts


# ---- the manifest -----------------------------------------------------------------------------

@EVERY_SUITE
def test_the_manifest_has_the_planted_schema_and_says_it_is_held_out(suite):
    manifest = load_manifest(suite.folder)
    planted = load_manifest(PLANTED)
    assert manifest["version"] == planted["version"]
    assert manifest["categories"] == planted["categories"]
    for words in suite.about:
        assert words in manifest["about"], words
    required = {"id", "problem", "kernel_file", "language", "kernel", "defect", "twin", "line", "what"}
    known = set().union(*(set(k) for k in planted["kernels"]))
    for k in manifest["kernels"]:
        assert required <= set(k) <= known, k["id"]
        assert k["language"] in suite.languages, k["id"]
        assert k["id"] == "%s/%s" % (os.path.basename(os.path.dirname(k["problem"])),
                                     os.path.splitext(os.path.basename(k["kernel_file"]))[0]), k["id"]
        assert k["problem"].startswith(suite.folder + "/") and k["kernel_file"].startswith(suite.folder + "/"), k["id"]
        assert os.path.dirname(k["kernel_file"]) == os.path.dirname(k["problem"]), k["id"]


@EVERY_SUITE
def test_the_suite_has_its_size_and_covers_the_classes_it_was_written_for(suite):
    """Its kernels over its problems, in its languages: a defect in each class it was written to
    cover and in no other, a clean twin for each defect that can have one, clean kernels at a roof
    (memory and compute)."""
    manifest = load_manifest(suite.folder)
    entries = manifest["kernels"]
    assert len(entries) >= suite.min_kernels
    assert {k["language"] for k in entries} == suite.languages
    assert len({k["problem"] for k in entries}) >= suite.min_problems
    defects = [k["defect"] for k in entries if k["defect"]]
    assert set(defects) == suite.covered
    assert set(defects) <= set(manifest["categories"])
    for k in entries:
        if k["defect"] and k["defect"] not in WITHOUT_TWIN:
            assert k["twin"], k["id"]
    assert sum(1 for k in entries if k["defect"] and k["twin"]) >= len(suite.covered - WITHOUT_TWIN)
    roofs = [k["roof"] for k in entries if k["defect"] is None and k.get("roof")]
    assert len(roofs) >= suite.min_clean_at_roof
    assert set(roofs) == {"compute", "memory"}


@EVERY_SUITE
def test_every_defect_has_a_clean_twin_in_the_same_problem_and_back(suite):
    kernels = kernels_of(suite)
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


@EVERY_SUITE
def test_kernel_names_are_unique_and_none_is_an_earlier_suites_kernel(suite):
    names = [k["kernel"] for k in load_manifest(suite.folder)["kernels"]]
    assert len(names) == len(set(names))
    for a in names:
        for b in names:
            assert a == b or a not in b, (a, b)
    assert not set(names) & {k["kernel"] for k in earlier_kernels(suite)}


@EVERY_SUITE
def test_every_kernel_file_of_a_problem_is_in_the_manifest(suite):
    manifest = load_manifest(suite.folder)
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
    folders = {name for name in os.listdir(os.path.join(ROOT, suite.folder))
               if os.path.isdir(os.path.join(ROOT, suite.folder, name)) and name != "__pycache__"}
    cuda = {"cuda"} if suite.cuda_source else set()
    assert folders == {os.path.basename(f) for f in problem_folders(manifest)} | cuda


# ---- the kernel files -------------------------------------------------------------------------

@EVERY_SUITE
def test_each_triton_kernel_file_launches_its_named_kernel_from_kernel_function(suite):
    for kid, k in kernels_of(suite).items():
        if k["language"] != "triton":
            continue
        functions = top_functions(k["kernel_file"])
        assert "kernel_function" in functions, kid
        assert k["kernel"] in functions and is_jit(functions[k["kernel"]]), kid
        jitted = [name for name, node in functions.items() if is_jit(node)]
        assert jitted == [k["kernel"]], kid  # one kernel per file: ncu's launch is this one
        assert ast.unparse(functions["kernel_function"]).count(k["kernel"] + "[") == 1, kid


@WITH_CUDA
def test_each_cuda_kernel_file_calls_the_wrapper_that_launches_its_named_kernel(suite):
    launched = cuda_launched_kernels(suite.cuda_module, suite.cuda_source)
    # Every kernel has a wrapper, and back.
    assert launched and set(launched.values()) == set(cuda_globals(suite.cuda_source))
    called = []
    for kid, k in kernels_of(suite).items():
        if k["language"] != "cuda":
            continue
        text = read(k["kernel_file"])
        assert "kernel_function" in top_functions(k["kernel_file"]), kid
        assert 'os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cuda")' in text, kid
        calls = re.findall(r"planted_cuda\.module\(\)\.(\w+)\(", text)
        assert len(calls) == 1, kid
        assert launched.get(calls[0]) == k["kernel"], kid
        called.append(calls[0])
    assert sorted(called) == sorted(launched)  # every wrapper is one kernel file's


@EVERY_SUITE
def test_each_kernel_file_says_what_it_is(suite):
    kernels = kernels_of(suite)
    for kid, k in kernels.items():
        text = read(k["kernel_file"])
        if k["defect"]:
            assert text.startswith("# Held-out defect: "), kid
        elif k["twin"]:
            assert text.startswith("# Clean twin of %s:" % os.path.basename(kernels[k["twin"]]["kernel_file"])), kid
        else:
            assert text.startswith("# Held-out clean kernel at the %s roof, no twin:" % k["roof"]), kid
        if k["language"] == "cuda":
            assert suite.cuda_source in text.split("\nimport", 1)[0], kid


@EVERY_SUITE
def test_each_expected_line_holds_the_expected_source_inside_its_kernel(suite):
    for kid, k in kernels_of(suite).items():
        line = k["line"]
        if line is None:
            continue
        expected_file = suite.cuda_source if k["language"] == "cuda" else k["kernel_file"]
        assert line["file"] == expected_file, kid
        lines = read(line["file"]).split("\n")
        assert lines[line["line"] - 1].strip() == line["source"], kid
        own, starts = kernel_start(k, lines)
        following = [s for s in starts if s > own]
        end = following[0] if following else len(lines) + 1
        inside = [text.strip() for text in lines[own:end - 1]]
        assert inside.count(line["source"]) >= 1, kid
        if k["language"] == "triton":
            assert sum(1 for text in lines if text.strip() == line["source"]) == 1, kid
        for n in [line["line"]] + line.get("accept", []):
            assert own < n < end, (kid, n)
        assert len(set(line.get("accept", []))) == len(line.get("accept", [])), kid
        assert line["line"] not in line.get("accept", []), kid


@WITH_CUDA
def test_each_planted_cuda_defect_is_marked_by_a_comment_in_its_source(suite):
    """A defect with a device line has a 'Planted:' comment just above it (within its kernel);
    a CUDA defect fixed by the launch has one above the kernel."""
    lines = read(suite.cuda_source).split("\n")
    for kid, k in kernels_of(suite).items():
        if not k["defect"] or k["language"] != "cuda":
            continue
        own, _ = kernel_start(k, lines)
        if k["line"]:
            above = lines[own:k["line"]["line"] - 1]
        else:
            above = lines[max(0, own - 3):own - 1]
        assert any(text.strip().startswith("// Planted") for text in above), kid


@EVERY_SUITE
def test_no_kernel_is_an_earlier_suites_kernel_under_another_name(suite):
    """The bodies of these kernels differ from every Triton kernel's body of the earlier suites,
    and from every CUDA kernel's body of their cuda/ sources (tests/planted/cuda/planted.cu)."""
    def triton_body(path, name):
        node = top_functions(path)[name]
        return ast.dump(ast.Module(body=node.body, type_ignores=[]))
    seen = {triton_body(k["kernel_file"], k["kernel"]) for k in earlier_kernels(suite) if k["language"] == "triton"}
    earlier_cuda = {cuda_body(text)
                    for folder in suite.earlier
                    for source in glob.glob(os.path.join(ROOT, folder, "cuda", "*.cu"))
                    for _, text in cuda_functions(os.path.relpath(source, ROOT)).values()}
    assert earlier_cuda  # tests/planted/cuda/planted.cu was read
    ours = cuda_functions(suite.cuda_source) if suite.cuda_source else {}
    for k in load_manifest(suite.folder)["kernels"]:
        if k["language"] == "triton":
            assert triton_body(k["kernel_file"], k["kernel"]) not in seen, k["id"]
        else:
            assert cuda_body(ours[k["kernel"]][1]) not in earlier_cuda, k["id"]


# ---- the CUDA extension -----------------------------------------------------------------------

@WITH_CUDA
def test_cuda_kernels_go_through_load_inline_with_lineinfo_and_their_own_line_numbers(suite):
    text = read(suite.cuda_module)
    assert "inline_build.cached_loader(NAME, SOURCE, CPP_SOURCE, FUNCTIONS)" in text
    build = read(os.path.join(PLANTED, "cuda", "inline_build.py"))
    assert "load_inline(" in build
    assert '"-lineinfo"' in build
    assert '#line 1 "%s"' in build
    assert 'SOURCE = os.path.join(HERE, "%s")' % os.path.basename(suite.cuda_source) in text
    # Its own name, so that its cached build never stands in for an earlier suite's.
    name = re.search(r'^NAME = "(\w+)"$', text, re.M).group(1)
    earlier_modules = [os.path.join(folder, "cuda", "planted_cuda.py") for folder in suite.earlier
                       if os.path.isfile(os.path.join(ROOT, folder, "cuda", "planted_cuda.py"))]
    assert os.path.join(PLANTED, "cuda", "planted_cuda.py") in earlier_modules
    for module in earlier_modules:
        assert name != re.search(r'^NAME = "(\w+)"$', read(module), re.M).group(1), module
    functions = re.search(r"^FUNCTIONS = \[(.*?)\]$", text, re.M | re.S).group(1)
    assert sorted(re.findall(r'"(\w+)"', functions)) == sorted(cuda_launched_kernels(suite.cuda_module,
                                                                                      suite.cuda_source))


@WITH_CUDA
def test_the_cuda_source_compiles_for_hopper_without_spills(suite, tmp_path):
    """nvcc alone (no torch headers): every kernel compiles for sm_90, none spills (a
    low-occupancy kernel is limited by its shared memory, not by registers)."""
    nvcc = shutil.which("nvcc") or ("/usr/local/cuda/bin/nvcc" if os.path.exists("/usr/local/cuda/bin/nvcc") else None)
    if nvcc is None:
        pytest.skip("nvcc is not installed")
    stem = os.path.splitext(os.path.basename(suite.cuda_source))[0]
    built = subprocess.run([nvcc, "-arch=sm_90", "-lineinfo", "-O3", "-Xptxas", "-v", "-c",
                            os.path.join(ROOT, suite.cuda_source), "-o", str(tmp_path / (stem + ".o"))],
                           capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stderr
    assert "warning" not in built.stderr.lower(), built.stderr
    entries = re.findall(r"Compiling entry function '(\w+)'", built.stderr)
    assert len(entries) == len(cuda_globals(suite.cuda_source))
    spills = re.findall(r"(\d+) bytes spill stores, (\d+) bytes spill loads", built.stderr)
    assert len(spills) == len(entries) and all(s == ("0", "0") for s in spills), built.stderr


# ---- the recording scripts take the suite through PLANTED_SUITE -------------------------------

def env_with(suite_folder):
    env = dict(os.environ)
    env.pop("PLANTED_SUITE", None)
    if suite_folder is not None:
        env["PLANTED_SUITE"] = suite_folder
    return env


def plan(suite_folder, *problems):
    return subprocess.run([sys.executable, os.path.join(BENCH, "record-planted.py"), "plan", *problems],
                          capture_output=True, text=True, check=True, env=env_with(suite_folder)).stdout.splitlines()


@EVERY_SUITE
def test_the_recording_plan_of_the_suite_batches_every_kernel_once(suite):
    """The whole plan, and the plan of one problem (the scored defect's)."""
    manifest = load_manifest(suite.folder)
    lines = plan(suite.folder)
    problems = [line.split()[1] for line in lines]
    assert len(problems) == len(set(problems)) == len({k["problem"] for k in manifest["kernels"]})
    planned = [kernel for line in lines for kernel in line.split()[2:]]
    assert sorted(planned) == sorted(k["kernel_file"] for k in manifest["kernels"])
    problem = suite.scored.defect.split("/")[0]
    assert plan(suite.folder, problem) == [" ".join(
        [problem, suite.folder + "/%s/problem.py" % problem]
        + [k["kernel_file"] for k in manifest["kernels"] if k["id"].startswith(problem + "/")])]


def test_without_planted_suite_the_plan_is_the_planted_suites():
    planned = [kernel for line in plan(None) for kernel in line.split()[2:]]
    assert sorted(planned) == sorted(k["kernel_file"] for k in load_manifest(PLANTED)["kernels"])


@TRITON_ONLY
def test_the_device_script_skips_the_cuda_build_for_a_suite_without_one(suite):
    text = read(os.path.join("bench", "device", "steps", "record-planted.sh"))
    assert 'suite=${PLANTED_SUITE:-tests/planted}' in text
    assert 'if [ -d "$suite/cuda" ]; then' in text
    assert 'cp "$suite/manifest.json" "$pack/planted/manifest.json"' in text
    assert "tests/planted/cuda" not in text.split("set -uo pipefail", 1)[1]
    assert not os.path.exists(os.path.join(ROOT, suite.cuda_folder)), "Triton only: the recorder skips the CUDA build"


@WITH_CUDA
def test_the_device_script_builds_the_suites_cuda_extension_where_it_looks_for_it(suite):
    text = read(os.path.join("bench", "device", "steps", "record-planted.sh"))
    assert 'if [ -d "$suite/cuda" ]; then' in text
    assert 'python3 "$suite/cuda/planted_cuda.py"' in text
    assert os.path.isfile(os.path.join(ROOT, suite.cuda_module))


@pytest.mark.parametrize("how", ["environment", "option"])
@EVERY_SUITE
def test_a_packed_recording_is_scored_against_the_suites_manifest(suite, tmp_path, how):
    """score-planted.py on a pack with two reports (a defect named first on its line, and its
    clean twin without the defect): those scored, every other kernel skipped by name, nothing of
    an earlier suite named."""
    manifest = load_manifest(suite.folder)
    kernels = kernels_of(suite)
    scored = suite.scored
    defect = kernels[scored.defect]
    assert defect["twin"] == scored.defect + "_clean"
    twin = kernels[defect["twin"]]
    problem = scored.defect.split("/")[0]
    reports = tmp_path / "planted" / problem / "reports"
    reports.mkdir(parents=True)
    file = defect["line"]["file"]
    line = {"file": os.path.join(scored.reported_under, file) if scored.reported_under else file,
            "line": defect["line"]["line"]}
    for k, causes in ((defect, [{"category": scored.category, "line": line}]),
                      (twin, [{"category": "dram_bound"}])):
        stem = os.path.splitext(os.path.basename(k["kernel_file"]))[0]
        (reports / (stem + ".report.json")).write_text(json.dumps(
            {"kernels": [{"name": k["kernel"] + scored.signature, "diagnosis": causes}]}))
    command = [sys.executable, os.path.join(BENCH, "score-planted.py")]
    if how == "option":
        command += ["--suite", suite.folder]
    result = subprocess.run(command + [str(tmp_path / "planted")], capture_output=True, text=True,
                            env=env_with(suite.folder if how == "environment" else None))
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    assert "| `%s` | %s | %s | yes | yes (%d) |" % (
        scored.defect, scored.category, scored.category, defect["line"]["line"]) in out
    assert "| `%s` | (clean) | dram_bound |  |  | clean | memory first |" % defect["twin"] in out
    launch_bound = [k["id"] for k in manifest["kernels"] if k["defect"] == "launch_bound"]
    assert launch_bound  # one or two a suite (tests/heldout5 has one in each language)
    for kid in launch_bound:
        assert "| `%s` | launch_bound | skipped: no report |" % kid in out
    assert "skipped, no report (%d)" % (len(manifest["kernels"]) - 2) in out
    for folder in suite.earlier:
        for earlier_problem in problem_folders(load_manifest(folder)):
            assert os.path.basename(earlier_problem) not in out, earlier_problem
