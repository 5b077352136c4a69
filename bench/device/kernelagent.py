"""KernelAgent's own profiler against kprof through KernelAgent's platform registry, on a GPU
machine (bench/device/run kernelagent runs it; docs/kernelagent.md).

For each case (KernelAgent's three optimize examples, input.py + problem.py, and the cases of
--cases, kernel.py + problem.py: the same kernel files for every profiler) and each mode:
- kernelagent: KernelAgent's KernelProfiler (triton_kernel_agent.opt_worker_component.profiling),
  as its OptimizationWorker builds it;
- kprof: kprof.kernelagent.register() into KernelAgent's registry, the profiler made by
  registry.create("profiler", "kprof", <the worker's keywords>);
- kprof-standby: the same with register(standby=True);
CALLS profile_kernel calls (rounds 1..CALLS), each timed. kprof runs with clock control
$KPROF_CLOCK (default base: ncu's default, which KernelAgent's profiler runs with). Per case it prints the kernels each
found, the memory and compute SOL of the kernel KernelAgent's orchestrator reads (the first whose
name does not start with at::), each profiler's roofline verdict of it, and the seconds per call;
--json gets the whole summary, rewritten after every case so that a timeout keeps what was done.

KernelAgent's LLM-side dependencies (openai, anthropic, dotenv, gradio, omegaconf, requests) are
replaced by empty modules when they are missing, since importing its package pulls them in and no
model is called here; its profiler needs torch, numpy, pandas and jinja2 for real, and a mode
that cannot run says why in its "error".
"""

import argparse
import importlib
import importlib.abc
import importlib.machinery
import json
import logging
import multiprocessing
import os
import shutil
import statistics
import sys
import time
import traceback
import types
from pathlib import Path

LLM_SIDE = ("openai", "anthropic", "dotenv", "gradio", "omegaconf", "requests")
MEMORY_SOL = "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"
COMPUTE_SOL = "sm__throughput.avg.pct_of_peak_sustained_elapsed"
EXAMPLES = ("optimize_01_matvec", "optimize_02_rmsnorm", "optimize_03_max_pooling")


class _Anything:
    """What a stubbed module gives for any name: callable, subscriptable, with any attribute."""

    def __init__(self, *args, **kwargs):
        pass

    def __call__(self, *args, **kwargs):
        return _Anything()

    def __getattr__(self, name):
        return _Anything()

    def __getitem__(self, key):
        return _Anything()

    def __mro_entries__(self, bases):
        return (object,)


class _StubModule(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _Anything()


class _StubFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds the LLM-side packages that are not installed, as empty modules."""

    def __init__(self, missing):
        self.missing = set(missing)

    def find_spec(self, fullname, path=None, target=None):
        if fullname.split(".")[0] in self.missing:
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        return None

    def create_module(self, spec):
        module = _StubModule(spec.name)
        module.__path__ = []
        return module

    def exec_module(self, module):
        pass


def stub_missing_llm_side():
    missing = []
    for name in LLM_SIDE:
        try:
            importlib.import_module(name)
        except ImportError:
            missing.append(name)
    if missing:
        sys.meta_path.append(_StubFinder(missing))
    return missing


def pandas_strings_as_objects():
    """KernelAgent's load_ncu_metrics drops ncu's units row by testing `tok in x` for each x of
    `row.astype(str)`. On the device (2026-12-01) that failed in every call with "TypeError:
    argument of type 'float' is not iterable": a missing value that stays a float NaN after
    astype(str), as with pandas 3's string dtype (not confirmed: the pandas version was not
    recorded). When the option exists, pandas is asked for strings of object dtype, as pandas 1
    and 2 made them; the version and what was done go into the summary. KernelAgent's own code is
    not changed."""
    try:
        import pandas
    except ImportError as error:
        return f"no pandas: {error}"
    try:
        if not pandas.get_option("future.infer_string"):
            return f"pandas {pandas.__version__}: future.infer_string already off"
        pandas.set_option("future.infer_string", False)
        return f"pandas {pandas.__version__}: future.infer_string turned off"
    except Exception as error:  # noqa: BLE001 - an older pandas has no such option
        return f"pandas {pandas.__version__}: no future.infer_string ({type(error).__name__})"


def cases(kernelagent, cases_dir, only):
    found = []
    for name in EXAMPLES:
        directory = kernelagent / "examples" / name
        found.append({"case": name, "from": "KernelAgent examples", "kernel": directory / "input.py",
                      "problem": directory / "problem.py"})
    if cases_dir is not None:
        for directory in sorted(p for p in cases_dir.iterdir() if (p / "kernel.py").is_file()):
            found.append({"case": directory.name, "from": str(cases_dir), "kernel": directory / "kernel.py",
                          "problem": directory / "problem.py"})
    return [case for case in found if not only or case["case"] in only]


def read_kernel(metrics):
    """What KernelAgent's orchestrator reads: the first kernel whose name does not start with at::
    (else the first) and its dict (a list, which kprof gives only with select="all", is reported
    as such: KernelAgent's roofline finds no SOL in it)."""
    if not metrics:
        return None, {}
    for name, values in metrics.items():
        if not name.startswith("at::") and not name.startswith("void at::"):
            return name, values
    name = next(iter(metrics))
    return name, metrics[name]


def sol(values, key):
    return values.get(key) if isinstance(values, dict) else None


class LocalRegistry:
    """Used only when KernelAgent's registry cannot be imported: its documented rule (a factory
    gets the keywords its signature names, or all with **kwargs)."""

    def __init__(self):
        self.factories = {}

    def register(self, component, name, factory):
        self.factories.setdefault(component, {})[name] = factory

    def create(self, component, name, **bag):
        import inspect

        factory = self.factories[component][name]
        parameters = list(inspect.signature(factory).parameters.values())
        if not any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters):
            bag = {k: v for k, v in bag.items() if k in {p.name for p in parameters}}
        return factory(**bag)


def make_profilers(mode, work, logger, semaphore, notes):
    """A function (case dir) -> profiler with profile_kernel(kernel, problem, round)."""
    if mode == "kernelagent":
        from triton_kernel_agent.opt_worker_component.profiling.kernel_profiler import KernelProfiler

        # KernelAgent's ncu would run with ncu's default clock control (base), which changes the
        # GPU's clocks: on the shared device it runs through a wrapper that adds
        # --clock-control none, the only change to KernelAgent's profiler.
        real_ncu = shutil.which("ncu") or "/usr/local/cuda/bin/ncu"
        wrapper = work / "ncu-clock-none"
        wrapper.write_text(f'#!/bin/sh\nexec "{real_ncu}" --clock-control none "$@"\n', encoding="utf-8")
        wrapper.chmod(0o755)

        def build(directory):
            (directory / "artifacts").mkdir(parents=True, exist_ok=True)
            (directory / "logs").mkdir(parents=True, exist_ok=True)
            return KernelProfiler(logger=logger, artifacts_dir=directory / "artifacts", logs_dir=directory / "logs",
                                  ncu_bin_path=str(wrapper), profiling_semaphore=semaphore)

        return build
    import kprof.kernelagent

    try:
        from triton_kernel_agent.platform.registry import PlatformRegistry

        registry = PlatformRegistry()
    except Exception as error:  # noqa: BLE001 - said in the summary
        notes.append(f"KernelAgent's registry could not be imported ({error}); a local one with its rule was used")
        registry = LocalRegistry()
    # Both profilers run with --clock-control none (the device's clocks are left alone).
    clock = os.environ.get("KPROF_CLOCK", "none")
    kprof.kernelagent.register(registry, standby=(mode == "kprof-standby"), clock_control=clock)
    try:
        from kernel_perf_agent.kernel_opt.roofline.ncu_roofline import RooflineConfig

        roofline_config = RooflineConfig()
    except Exception:  # noqa: BLE001
        roofline_config = None

    def build(directory):
        bag = {"logger": logger, "log_dir": directory / "logs", "artifacts_dir": directory / "artifacts",
               "ncu_bin_path": None, "profiling_semaphore": semaphore, "openai_model": "gpt-5",
               "gpu_name": None, "roofline_config": roofline_config}
        return registry.create("profiler", "kprof", **bag)

    return build


def verdicts(values):
    """Each profiler's roofline verdict of the flat metrics: KernelAgent's RooflineAnalyzer and
    kprof's (kprof.kernelagent.RooflineAnalyzer)."""
    out = {}
    flat = values if isinstance(values, dict) else {}
    try:
        from kernel_perf_agent.kernel_opt.roofline.ncu_roofline import RooflineAnalyzer

        result = RooflineAnalyzer(logger=logging.getLogger("ka-roofline")).analyze(flat)
        out["kernelagent_roofline"] = {"bottleneck": result.bottleneck, "efficiency_pct": result.efficiency_pct,
                                       "uses_tensor_cores": result.uses_tensor_cores}
    except Exception as error:  # noqa: BLE001
        out["kernelagent_roofline"] = {"error": str(error)}
    import kprof.kernelagent

    result = kprof.kernelagent.RooflineAnalyzer().analyze(flat)
    out["kprof_roofline"] = {"bottleneck": result.bottleneck, "efficiency_pct": result.efficiency_pct,
                             "uses_tensor_cores": result.uses_tensor_cores, "explanation": result.explanation}
    return out


def run_mode(mode, case, work, calls, logger, semaphore, notes):
    entry = {"kernels": None, "read_kernel": None, "memory_sol_pct": None, "compute_sol_pct": None,
             "seconds": [], "error": None}
    try:
        build = make_profilers(mode, work, logger, semaphore, notes)
        directory = work / mode / case["case"]
        profiler = build(directory)
        try:
            last = None
            for round_num in range(1, calls + 1):
                started = time.perf_counter()
                results = profiler.profile_kernel(case["kernel"], case["problem"], round_num)
                entry["seconds"].append(round(time.perf_counter() - started, 2))
                if results is None:
                    entry["error"] = f"profile_kernel returned None in round {round_num} (see {directory}/logs)"
                    break
                last = results
        finally:
            close = getattr(profiler, "close", None)
            if close is not None:
                close()
        if last is not None:
            metrics = last.metrics
            name, values = read_kernel(metrics)
            entry.update({"kernels": list(metrics), "read_kernel": name,
                          "read_kind": type(values).__name__,
                          "memory_sol_pct": sol(values, MEMORY_SOL), "compute_sol_pct": sol(values, COMPUTE_SOL)})
            entry.update(verdicts(values))
            if hasattr(last, "report"):
                entry["standby_used"] = last.report["metadata"].get("standby")
    except Exception as error:  # noqa: BLE001 - a mode that cannot run says why
        entry["error"] = f"{type(error).__name__}: {error}"
        entry["traceback"] = traceback.format_exc(limit=6)
    later = entry["seconds"][1:]
    entry["median_after_first_s"] = round(statistics.median(later), 2) if later else None
    return entry


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--kernelagent", type=Path, required=True, help="a KernelAgent checkout")
    parser.add_argument("--cases", type=Path, help="a directory of <case>/kernel.py + problem.py")
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--json", type=Path, required=True)
    parser.add_argument("--calls", type=int, default=2)
    parser.add_argument("--modes", default="kernelagent kprof kprof-standby")
    parser.add_argument("--only", default="", help="case names to run (default: all)")
    args = parser.parse_args()

    sys.path.insert(0, str(args.kernelagent))
    stubbed = stub_missing_llm_side()
    pandas_mode = pandas_strings_as_objects()
    logging.basicConfig(level=logging.WARNING)
    logger = logging.getLogger("device-kernelagent")
    semaphore = multiprocessing.Semaphore(1)  # what OptimizationManager hands its workers
    import kprof

    summary = {"kprof_version": kprof.__version__, "kernelagent": str(args.kernelagent), "stubbed_modules": stubbed,
               "pandas": pandas_mode,
               "calls": args.calls, "modes": args.modes.split(), "notes": [], "cases": []}
    try:
        import torch

        summary["gpu"] = torch.cuda.get_device_name(0)
        import kprof.kernelagent

        summary["kprof_specs"] = kprof.kernelagent.SpecsProvider().get_specs(summary["gpu"])
    except Exception as error:  # noqa: BLE001
        summary["notes"].append(f"GPU specs: {error}")
    print(f"kprof {kprof.__version__}; KernelAgent at {args.kernelagent}; stubbed: {stubbed or 'none'}; "
          f"{pandas_mode}", flush=True)
    for case in cases(args.kernelagent, args.cases, set(args.only.split())):
        record = {"case": case["case"], "from": case["from"], "kernel": str(case["kernel"]),
                  "problem": str(case["problem"]), "modes": {}}
        for mode in args.modes.split():
            record["modes"][mode] = run_mode(mode, case, args.work, args.calls, logger, semaphore, summary["notes"])
            m = record["modes"][mode]
            print(f"{case['case']:<24} {mode:<14} kernels={m['kernels']} read={m['read_kernel']} "
                  f"memory SOL={m['memory_sol_pct']} compute SOL={m['compute_sol_pct']} "
                  f"seconds={m['seconds']}" + (f" ERROR {m['error']}" if m["error"] else ""), flush=True)
        summary["cases"].append(record)
        args.json.write_text(json.dumps(summary, indent=2, default=str), encoding="utf-8")

    print()
    print("| case | mode | kernels | kernel read | memory SOL % | compute SOL % | s per call | median after 1st |")
    print("|---|---|---|---|---|---|---|---|")
    for record in summary["cases"]:
        for mode, m in record["modes"].items():
            kernels = "; ".join(name[:40] for name in (m["kernels"] or [])) or (m["error"] or "")[:60]
            print(f"| {record['case']} | {mode} | {kernels} | {(m['read_kernel'] or '')[:40]} | {m['memory_sol_pct']} "
                  f"| {m['compute_sol_pct']} | {', '.join(str(s) for s in m['seconds'])} | {m['median_after_first_s']} |")
    args.json.write_text(json.dumps(summary, indent=2, default=str), encoding="utf-8")


if __name__ == "__main__":
    main()
