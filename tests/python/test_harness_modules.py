"""The harness's modules module: files loaded by path, their directories on sys.path without
shadowing the standard library, a candidate's sibling modules forgotten after it."""

import sys

import pytest

from harness_helpers import harness

modules = harness("modules")


@pytest.fixture
def sys_path():
    saved = list(sys.path)
    yield
    sys.path[:] = saved


def test_an_import_directory_is_appended_once_never_put_first(tmp_path, sys_path):
    assert modules.add_import_dir(str(tmp_path)) is True
    assert modules.add_import_dir(str(tmp_path)) is False
    assert sys.path[-1] == str(tmp_path) and sys.path.count(str(tmp_path)) == 1


def test_a_file_of_any_name_loads_as_the_module_it_is_given(tmp_path):
    path = tmp_path / "it's \"odd\" ✓.py"
    path.write_text("VALUE = 42\n", encoding="utf-8")

    module = modules.load_module("_kprof_test_odd", str(path))

    assert module.VALUE == 42 and sys.modules["_kprof_test_odd"] is module
    del sys.modules["_kprof_test_odd"]


def test_a_file_that_raises_leaves_no_module_behind(tmp_path):
    path = tmp_path / "bad.py"
    path.write_text("raise ValueError('no')\n", encoding="utf-8")

    with pytest.raises(ValueError):
        modules.load_module("_kprof_test_bad", str(path))

    assert "_kprof_test_bad" not in sys.modules


def test_a_candidates_directory_and_its_sibling_modules_go_after_it(tmp_path, sys_path):
    kernel_dir = tmp_path / "cand"
    kernel_dir.mkdir()
    (kernel_dir / "kprof_test_helpers.py").write_text("NAME = 'a'\n", encoding="utf-8")

    with modules.candidate_imports(str(kernel_dir / "kernel.py")):
        assert str(kernel_dir) in sys.path
        import kprof_test_helpers
        assert kprof_test_helpers.NAME == "a"

    assert str(kernel_dir) not in sys.path
    assert "kprof_test_helpers" not in sys.modules
