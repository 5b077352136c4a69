"""The harness's torch_import module: Triton before torch, its cache key computed beside torch's
import."""

import functools
import types

from harness_helpers import harness

torch_import = harness("torch_import")


def fake_modules(monkeypatch, with_triton=True, key=None):
    torch = types.ModuleType("torch")
    torch.__version__ = "9.9-test"
    monkeypatch.setitem(__import__("sys").modules, "torch", torch)
    if not with_triton:
        monkeypatch.setitem(__import__("sys").modules, "triton", None)  # import triton raises
        return
    triton = types.ModuleType("triton")
    triton.__version__ = "8.8-test"
    cache = types.ModuleType("triton.runtime.cache")
    cache.triton_key = key
    for name, module in (("triton", triton), ("triton.runtime", types.ModuleType("triton.runtime")),
                         ("triton.runtime.cache", cache),
                         ("triton.compiler", types.ModuleType("triton.compiler")),
                         ("triton.compiler.compiler", types.ModuleType("triton.compiler.compiler"))):
        monkeypatch.setitem(__import__("sys").modules, name, module)


def test_tritons_cache_key_is_computed_once_beside_torchs_import(monkeypatch):
    calls = []

    @functools.lru_cache(maxsize=None)
    def triton_key():
        calls.append(1)
        return "key"

    fake_modules(monkeypatch, key=triton_key)
    status = {}

    torch = torch_import.import_torch(status)

    assert torch.__version__ == "9.9-test"
    assert status["torch_version"] == "9.9-test" and status["triton_version"] == "8.8-test"
    assert calls == [1] and status["triton_key_seconds"] >= 0


def test_a_key_without_a_cache_gets_no_thread_and_no_figure(monkeypatch):
    fake_modules(monkeypatch, key=lambda: "key")
    status = {}

    torch_import.import_torch(status)

    assert status["triton_version"] == "8.8-test" and "triton_key_seconds" not in status


def test_a_key_that_fails_costs_only_its_figure(monkeypatch):
    @functools.lru_cache(maxsize=None)
    def triton_key():
        raise OSError("no library")

    fake_modules(monkeypatch, key=triton_key)
    status = {}

    torch_import.import_torch(status)

    assert status["torch_version"] == "9.9-test" and "triton_key_seconds" not in status


def test_without_triton_torch_is_imported_alone(monkeypatch):
    fake_modules(monkeypatch, with_triton=False)
    status = {}

    torch_import.import_torch(status)

    assert status["triton_version"] is None and status["torch_version"] == "9.9-test"
    assert "triton_key_seconds" not in status
