"""Issue 42's first question, measured: what does it cost to time every launch of a model's call, and
to replay only a few of them? One KernelBench problem file (Model, get_inputs, get_init_inputs),
used as it is.

  workload_probe.py timeline PROBLEM.py   one call's launches from PyTorch's profiler (CUPTI
                                          activity records): count, distinct kernels, the sum of
                                          their durations, and what the profiler costs the call
  workload_probe.py call PROBLEM.py [--with-profiler]
                                          one warm-up call, then one call inside the NVTX range
                                          "kprof_call" (for ncu's --nvtx-include "kprof_call/");
                                          --with-profiler records the call with PyTorch's
                                          profiler too, to see whether CUPTI takes two
                                          subscribers under ncu

Prints one JSON object on its last line.
"""

import importlib.util
import json
import statistics
import sys
import time

import torch


def load(path):
    spec = importlib.util.spec_from_file_location("problem", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    torch.manual_seed(0)
    model = module.Model(*module.get_init_inputs()).cuda().eval()
    inputs = [x.cuda() if isinstance(x, torch.Tensor) else x for x in module.get_inputs()]
    return model, inputs


def call_ms(model, inputs, repeats=5):
    times = []
    with torch.no_grad():
        for _ in range(repeats):
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            start.record()
            model(*inputs)
            end.record()
            torch.cuda.synchronize()
            times.append(start.elapsed_time(end))
    return statistics.median(times)


def kernel_events(prof):
    kernels = []
    for event in prof.events():
        if event.device_type == torch.autograd.DeviceType.CUDA:
            kernels.append((event.name, event.device_time_total if hasattr(event, "device_time_total") else event.cuda_time_total))
    return kernels


def profiled_call(model, inputs):
    from torch.profiler import ProfilerActivity, profile

    with torch.no_grad():
        torch.cuda.synchronize()
        wall = time.perf_counter()
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            model(*inputs)
            torch.cuda.synchronize()
        wall = time.perf_counter() - wall
    parse = time.perf_counter()
    kernels = kernel_events(prof)
    parse = time.perf_counter() - parse
    return kernels, wall, parse


def timeline(path):
    model, inputs = load(path)
    with torch.no_grad():
        model(*inputs)
        model(*inputs)
    plain = call_ms(model, inputs)
    profiled_call(model, inputs)  # the profiler's own first-use cost, not counted
    kernels, wall, parse = profiled_call(model, inputs)
    names = {}
    for name, us in kernels:
        count, total = names.get(name, (0, 0.0))
        names[name] = (count + 1, total + us)
    top = sorted(names.items(), key=lambda item: -item[1][1])[:8]
    return {
        "mode": "timeline",
        "problem": path,
        "call_ms_plain_median5": round(plain, 3),
        "launches": len(kernels),
        "distinct_names": len(names),
        "kernel_sum_ms": round(sum(us for _, us in kernels) / 1000.0, 3),
        "profiled_call_wall_s": round(wall, 3),
        "events_parse_s": round(parse, 3),
        "top": [{"name": name[:90], "launches": c, "total_ms": round(t / 1000.0, 3)} for name, (c, t) in top],
    }


def trace(path, out):
    """One call's chrome trace from PyTorch's profiler: what each kernel event carries (grid,
    block, registers, shared memory, stream, the CPU op through its correlation), and its cost."""
    from torch.profiler import ProfilerActivity, profile

    model, inputs = load(path)
    with torch.no_grad():
        model(*inputs)
        profiled_call(model, inputs)
        torch.cuda.synchronize()
        wall = time.perf_counter()
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            model(*inputs)
            torch.cuda.synchronize()
        wall = time.perf_counter() - wall
    export = time.perf_counter()
    prof.export_chrome_trace(out)
    export = time.perf_counter() - export
    load_s = time.perf_counter()
    events = json.load(open(out))["traceEvents"]
    load_s = time.perf_counter() - load_s
    kernels = [e for e in events if e.get("cat") == "kernel"]
    sample = kernels[len(kernels) // 2] if kernels else {}
    return {
        "mode": "trace",
        "problem": path,
        "profiled_call_wall_s": round(wall, 3),
        "export_s": round(export, 3),
        "json_load_s": round(load_s, 3),
        "kernel_events": len(kernels),
        "with_grid": sum(1 for e in kernels if "grid" in e.get("args", {})),
        "sample_args": sample.get("args", {}),
    }


def call(path, with_profiler):
    model, inputs = load(path)
    with torch.no_grad():
        model(*inputs)
        torch.cuda.synchronize()
        started = time.perf_counter()
        torch.cuda.nvtx.range_push("kprof_call")
        if with_profiler:
            from torch.profiler import ProfilerActivity, profile

            with profile(activities=[ProfilerActivity.CUDA]) as prof:
                model(*inputs)
                torch.cuda.synchronize()
        else:
            model(*inputs)
            torch.cuda.synchronize()
        torch.cuda.nvtx.range_pop()
        seconds = time.perf_counter() - started
    result = {"mode": "call", "problem": path, "profiled_call_s": round(seconds, 3)}
    if with_profiler:
        result["profiler_kernel_events"] = len(kernel_events(prof))
    return result


def main(argv):
    if len(argv) >= 3 and argv[1] == "timeline":
        print(json.dumps(timeline(argv[2])))
        return 0
    if len(argv) >= 4 and argv[1] == "trace":
        print(json.dumps(trace(argv[2], argv[3])))
        return 0
    if len(argv) >= 3 and argv[1] == "call":
        print(json.dumps(call(argv[2], "--with-profiler" in argv[3:])))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
