"""python/kprof/_kprof.pyi against the native module it describes (python/module.cpp).

The stub is written by hand, so these tests keep it true: every public name of the module is in
the stub and every name of the stub is in the module; every function and method has the stub's
parameters (their number, their names where pybind11 knows them, which have defaults), read from
the signature line pybind11 writes at the top of each docstring; and mypy's stubtest agrees, where
python3-mypy is installed, with the differences that pybind11 makes for every class listed in
tests/python/stubtest-allowlist.txt.
"""

import ast
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import kprof._kprof as native

ROOT = Path(__file__).resolve().parents[2]
STUB = ROOT / "python" / "kprof" / "_kprof.pyi"
ALLOWLIST = ROOT / "tests" / "python" / "stubtest-allowlist.txt"


def split_top_level(text):
    """`text` split at the commas outside brackets."""
    parts, depth, current = [], 0, ""
    for char in text:
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        if char == "," and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += char
    if current.strip():
        parts.append(current.strip())
    return parts


def runtime_parameters(obj):
    """[(name, has_default)] of a pybind11 function, without self, from its docstring's first
    line ("name(arg0: str, flag: bool = False) -> str")."""
    line = (obj.__doc__ or "").splitlines()[0] if obj.__doc__ else ""
    match = re.match(r"^\w+\((.*)\)\s*->", line)
    assert match, f"{obj!r} has no pybind11 signature line: {line!r}"
    params = []
    for part in split_top_level(match.group(1)):
        name = part.split(":", 1)[0].strip()
        if name == "self":
            continue
        params.append((name, "=" in part))
    return params


def stub_parameters(node):
    """[(name, has_default)] of a stub function, without self."""
    args = node.args
    names = [a.arg for a in args.posonlyargs + args.args]
    defaults = [False] * (len(names) - len(args.defaults)) + [True] * len(args.defaults)
    return [(n, d) for n, d in zip(names, defaults) if n != "self"]


def stub_tree():
    return ast.parse(STUB.read_text(encoding="utf-8"))


def stub_functions():
    """(qualified name, runtime object, ast node) of every function and method of the stub."""
    found = []
    for node in stub_tree().body:
        if isinstance(node, ast.FunctionDef):
            found.append((node.name, getattr(native, node.name, None), node))
        elif isinstance(node, ast.ClassDef):
            cls = getattr(native, node.name, None)
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and not any(
                        isinstance(d, ast.Name) and d.id == "property" for d in item.decorator_list):
                    found.append((f"{node.name}.{item.name}", getattr(cls, item.name, None), item))
    return found


def test_the_stub_and_the_module_name_the_same_things():
    in_stub = {n.name for n in stub_tree().body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    in_module = {name for name in dir(native) if not name.startswith("_")}
    assert in_module - in_stub == set(), "in the module, not in the stub"
    assert in_stub - in_module == set(), "in the stub, not in the module"


@pytest.mark.parametrize("name,obj,node", stub_functions(), ids=[f[0] for f in stub_functions()])
def test_each_function_of_the_stub_has_the_modules_parameters(name, obj, node):
    assert obj is not None, f"{name} is in the stub but not in the module"
    runtime = runtime_parameters(obj)
    stub = stub_parameters(node)
    assert len(stub) == len(runtime), f"{name}: stub {stub}, module {runtime}"
    for (stub_name, stub_default), (runtime_name, runtime_default) in zip(stub, runtime):
        if not re.fullmatch(r"arg\d+", runtime_name):  # pybind11 knows this name
            assert stub_name == runtime_name, f"{name}: stub {stub}, module {runtime}"
        assert stub_default == runtime_default, f"{name}: defaults differ: stub {stub}, module {runtime}"


def test_mypy_stubtest_agrees_with_the_stub(tmp_path):
    if importlib.util.find_spec("mypy") is None:
        pytest.skip("python3-mypy is not installed (scripts/install-deps.sh installs it)")
    native_dir = Path(native.__file__).resolve().parent.parent
    # mypy's cache goes to tmp_path, never beside the package (an installed one stays as it was).
    env = dict(os.environ, PYTHONPATH=str(native_dir), MYPY_CACHE_DIR=str(tmp_path / "mypy-cache"))
    run = subprocess.run([sys.executable, "-m", "mypy.stubtest", "kprof._kprof", "--allowlist",
                          str(ALLOWLIST), "--concise"], capture_output=True, text=True, env=env,
                         cwd=str(tmp_path), timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
