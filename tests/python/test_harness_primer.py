"""The harness's primer module: the primers, which only save time and never decide an answer."""

import inspect
import sys

from harness_helpers import FAKE_TORCH, FakeTorch, harness, sample_plan

primer = harness("primer")


def test_the_primer_kernel_is_profiled_in_a_range_of_its_own():
    torch = FakeTorch()
    torch.empty = lambda *args, **kwargs: type("Scratch", (), {"fill_": lambda self, value: None})()
    status = {}

    primer.run_primer(types_problem(torch), sample_plan(), status)

    assert torch.events == ["sync", "push kprof:primer", "sync", "pop"]
    assert status["primer"] == "ran" and status["primer_seconds"] >= 0 and status["primer_call_lock"] is None


def test_a_failing_primer_is_recorded_and_its_range_popped(capsys):
    torch = FakeTorch()

    class Scratch:
        def fill_(self, value):
            raise RuntimeError("no memory")

    torch.empty = lambda *args, **kwargs: Scratch()
    status = {}

    primer.run_primer(types_problem(torch), sample_plan(), status)

    assert torch.events == ["sync", "push kprof:primer", "pop"]
    assert status["primer"] == "failed: no memory"
    assert "kprof-harness: primer failed: no memory" in capsys.readouterr().err


def types_problem(torch):
    return type("Problem", (), {"torch": torch})()


def test_the_triton_primers_source_is_found_as_triton_reads_a_kernels_source():
    # Triton's JITFunction reads inspect.getsourcelines(fn) and keeps the text from the `def` on;
    # the primer's kernel has no file, and linecache serves its lines.
    sys.path.insert(0, str(FAKE_TORCH))
    try:
        kernel = primer.triton_primer_kernel()
    finally:
        sys.path.remove(str(FAKE_TORCH))
    assert kernel.__name__ == "kprof_triton_primer"
    assert kernel.src == "def kprof_triton_primer(out):\n    tl.store(out, 1.0)\n"
    assert kernel.starting_line_number == 5
    assert inspect.getsourcefile(kernel.fn) == primer.TRITON_PRIMER_FILE


def test_without_triton_the_triton_primer_launches_nothing_and_says_why(monkeypatch):
    monkeypatch.setattr(primer, "triton_primer_kernel", lambda: (_ for _ in ()).throw(ImportError("no triton")))
    torch = FakeTorch()
    status = {}

    primer.run_triton_primer(types_problem(torch), status)

    assert status["triton_primer"] == "no triton: no triton" and torch.events == []


def test_nvtx_libraries_are_looked_for_on_the_loaders_path_first():
    candidates = primer.nvtx_library_candidates()

    assert candidates[:2] == list(primer.NVTX_LIBRARIES)


def test_an_early_primer_without_a_usable_driver_records_why_and_never_raises(monkeypatch):
    def no_driver(self):
        raise OSError("libcuda.so.1: cannot open shared object file")

    monkeypatch.setattr(primer.EarlyPrimer, "load_primer", no_driver)
    status = {}

    waited = primer.EarlyPrimer(sample_plan()).join(status)

    assert status["primer"] == "failed: libcuda.so.1: cannot open shared object file"
    assert status["primer_seconds"] >= 0 and waited == 0.0
