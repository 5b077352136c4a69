#!/usr/bin/env python3
"""The checks of bench/device/steps/truth.sh (`bench/device/run truth`, issue 43), one subcommand each; each prints one line
per verdict ("PASS ..." / "FAIL ...") and exits 1 when any failed.

  do_bench CASE_DIR [CAST]          a plain process: triton.testing.do_bench's and
                                    do_bench_cudagraph's medians of the case's kernel_function
                                    called as kprof's harness calls it by default ((*inputs,
                                    *init_inputs); CAST bf16/fp16/fp32, or auto by the kernel's
                                    words: floating inputs cast), and kprof's own timing module
                                    (templates/kprof_harness/timing.py, eager and graph) in the
                                    same process; prints one JSON line
  compare REPORT BENCH_JSON TOL     the report's eager median against do_bench's (TOL: 0.03);
                                    a graph median shown beside do_bench_cudagraph's
  light REPORT CASE_DIR KIND TOL    the report's FLOPs (KIND matmul: 2*M*N*K of the inputs) or
                                    bytes (KIND bytes: inputs + output, each once) against the
                                    hand count, within TOL (0.01)
  wrong ROUND_JSON                  every candidate but the first is partial with wrong_output
  plant CASE_DIR OUT_DIR            writes off_by_one.py and nan.py: the case's kernel with one
                                    element changed (+1) or made NaN
"""

import importlib.util
import json
import os
import statistics
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
failures = []


def verdict(ok, text):
    print(("PASS " if ok else "FAIL ") + text)
    if not ok:
        failures.append(text)


def load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def case_inputs(case):
    import torch

    sys.path.append(case)
    problem = load("problem", os.path.join(case, "problem.py"))
    torch.manual_seed(0)
    with torch.device("cuda"):
        inputs = list(problem.get_inputs())
    return torch, problem, inputs


def do_bench(case, cast="none"):
    import triton.testing

    torch, problem, inputs = case_inputs(case)
    kernel = load("kernel", kernel_file(case)).kernel_function
    if cast == "auto":
        sys.path.insert(0, os.path.join(ROOT, "templates"))
        from kprof_harness.inputs import AUTO_CAST_WORDS

        source = open(kernel_file(case), encoding="utf-8").read().lower()
        cast = next((word for found, word in AUTO_CAST_WORDS if found in source), "none")
    dtype = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}.get(cast)
    if dtype is not None:
        inputs = [x.to(dtype) if torch.is_tensor(x) and x.is_floating_point() else x for x in inputs]
    get_init_inputs = getattr(problem, "get_init_inputs", None)
    args = list(inputs) + (list(get_init_inputs()) if get_init_inputs is not None else [])
    fn = lambda: kernel(*args)  # noqa: E731
    fn()
    torch.cuda.synchronize()
    bench_ms = triton.testing.do_bench(fn, warmup=25, rep=100, return_mode="median")
    graph_ms = triton.testing.do_bench_cudagraph(fn, rep=100, return_mode="median")
    timing = load("kprof_timing", os.path.join(ROOT, "templates", "kprof_harness", "timing.py"))
    ours = timing.time_call(torch, fn, timing.settings_of({"mode": "eager"}))
    graph = timing.time_call(torch, fn, timing.settings_of({"mode": "graph"}))
    print(json.dumps({"do_bench_median_us": bench_ms * 1000.0, "plain_median_us": ours["median_us"],
                      "plain_count": ours["count"], "do_bench_cudagraph_median_us": graph_ms * 1000.0,
                      "plain_graph_median_us": graph["median_us"]}))


def kernel_file(case):
    """The case's kernel: kernel.py, or input.py in KernelAgent's optimize examples."""
    path = os.path.join(case, "kernel.py")
    return path if os.path.exists(path) else os.path.join(case, "input.py")


def truth_of(report_path):
    with open(report_path, encoding="utf-8") as f:
        report = json.load(f)
    return report.get("truth") or {}


def compare(report_path, bench_path, tolerance):
    """Like against like: kprof's eager median (its graph summary keeps one) against do_bench's
    and kprof's timing module in a plain process, both eager with the L2 flushed; a graph median
    is shown beside do_bench_cudagraph's (which flushes nothing between calls: no verdict)."""
    truth = truth_of(report_path)
    with open(bench_path, encoding="utf-8") as f:
        bench = json.loads(f.read().strip().splitlines()[-1])
    timing = truth.get("timing") or {}
    mode = timing.get("mode") or "eager"
    eager = timing.get("median_us") if mode == "eager" else timing.get("eager_median_us")
    timed_in = timing.get("timed_in")
    name = os.path.basename(os.path.dirname(report_path))
    if eager is None:
        verdict(False, "%s: the report has no measured eager median (%s)" % (name, timing))
        return
    for what, other in (("do_bench", bench["do_bench_median_us"]), ("plain-process timing", bench["plain_median_us"])):
        gap = abs(eager - other) / other
        verdict(gap <= tolerance, "%s: kprof %.2f us (eager, %s) vs %s %.2f us: %.1f%% (limit %.0f%%)"
                % (report_path, eager, timed_in, what, other, gap * 100, tolerance * 100))
    if mode == "graph":
        print("- %s: kprof's graph median %.2f us; do_bench_cudagraph %.2f us (no L2 flush); kprof's timing "
              "module in a plain process, graph: %.2f us" % (name, timing["median_us"],
                                                             bench["do_bench_cudagraph_median_us"],
                                                             bench["plain_graph_median_us"]))


def light(report_path, case, kind, tolerance):
    import torch  # noqa: F401  (the case's inputs give the shapes)

    torch, problem, inputs = case_inputs(case)
    sol = truth_of(report_path).get("speed_of_light") or {}
    if kind == "matmul":
        (m, k), (_, n) = inputs[0].shape, inputs[1].shape
        by_hand, got, what = 2.0 * m * n * k, sol.get("flops"), "FLOPs (2MNK)"
    else:
        out = problem.Model(*problem.get_init_inputs())(*inputs)
        by_hand = float(sum(t.numel() * t.element_size() for t in inputs) + out.numel() * out.element_size())
        got, what = sol.get("bytes"), "bytes (inputs + output)"
    ok = got is not None and abs(got - by_hand) / by_hand <= tolerance
    verdict(ok, "%s: %s %s by kprof, %s by hand; ideal %s us (%s bound), share %s"
            % (case, what, got, by_hand, sol.get("ideal_us"), sol.get("bound"), sol.get("share")))


def wrong(round_path):
    with open(round_path, encoding="utf-8") as f:
        doc = json.load(f)
    for cand in doc["candidates"]:
        error = cand.get("error") or {}
        if cand["candidate"] == 0:
            verdict(cand["status"] == "ok", "cand0 (the case's own kernel) %s %s" % (cand["status"], error.get("message")))
        else:
            verdict(cand["status"] == "partial" and error.get("category") == "wrong_output",
                    "cand%d %s %s: %s" % (cand["candidate"], cand["status"], error.get("category"), error.get("message")))
    ranks = {c["candidate"]: c["rank"] for c in doc["candidates"]}
    verdict(ranks.get(0) == 1, "the right candidate ranks first: %s" % ranks)


PLANT = '''import importlib.util, os
_spec = importlib.util.spec_from_file_location("_planted_base", {base!r})
_base = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_base)


def kernel_function(*args, **kwargs):
    out = _base.kernel_function(*args, **kwargs)
    flat = out.view(-1)
    {change}
    return out
'''


def plant(case, out_dir):
    base = os.path.abspath(kernel_file(case))
    for name, change in (("off_by_one", "flat[flat.numel() // 2] += 1"), ("nan", "flat[1] = float('nan')")):
        with open(os.path.join(out_dir, name + ".py"), "w", encoding="utf-8") as f:
            f.write(PLANT.format(base=base, change=change))


def main(argv):
    command, args = argv[1], argv[2:]
    if command == "do_bench":
        do_bench(*args)
    elif command == "compare":
        compare(args[0], args[1], float(args[2]))
    elif command == "light":
        light(args[0], args[1], args[2], float(args[3]))
    elif command == "wrong":
        wrong(args[0])
    elif command == "plant":
        plant(*args)
    else:
        sys.exit("unknown command " + command)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
