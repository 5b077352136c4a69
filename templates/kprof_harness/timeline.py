"""Many launches (issue 42, docs/harness.md "Many launches"): the timeline, and its gate

`harness.py PLAN --timeline OUT.json` is the first tier: run by kprof beside the ncu session,
NOT under ncu (under ncu PyTorch's profiler records no kernel: ncu holds CUPTI), it calls the
first candidate once under PyTorch's profiler and writes every kernel launch of that call, in
launch order: name, grid, block, registers, shared memory, stream, duration and the PyTorch op
that launched it. The session's harness waits at its profiled call until kprof has read the
timeline (plan "timeline_gate"): kprof either lets it go on (few launches: every launch is
replayed, as without the timeline) or stops the session and starts one that replays only
representatives.
"""

import bisect
import json
import os
import tempfile
import time

from .calls import first_candidate_call
from .report import EXIT_OK, exception_words
from .status import write_json_atomic

TIMELINE_VERSION = 1


def run_timeline(plan, out_path, started_process):
    """The timeline mode: writes OUT.json (atomically), `{"version": 1, "launches": [...]}`, or
    `{"version": 1, "error": "..."}` when the call could not be made or recorded. Exit 0 once the
    file is written."""
    started = time.perf_counter()
    try:
        result = timeline_of_call(plan, os.path.dirname(os.path.abspath(out_path)))
    except (Exception, SystemExit) as exc:
        result = {"version": TIMELINE_VERSION, "error": exception_words(exc)}
    result["process_seconds"] = time.perf_counter() - started_process
    result["timeline_seconds"] = time.perf_counter() - started
    write_json_atomic(out_path, result)
    return EXIT_OK


def timeline_of_call(plan, scratch_dir):
    """Problem, inputs and the first candidate's call as the session's harness makes them (same
    seed, cast and call style), warmed up once, then one call under PyTorch's profiler."""
    problem, kernel_function, args, kwargs = first_candidate_call(plan, "_kprof_timeline_kernel")
    torch = problem.torch
    # One warm-up (Triton's compile and autotuning, cuDNN's and cuBLAS's choices): the session's
    # harness waits for this process at its profiled call, so it must not take longer than needed.
    kernel_function(*args, **kwargs)
    torch.cuda.synchronize()

    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        called = time.perf_counter()
        kernel_function(*args, **kwargs)
        torch.cuda.synchronize()
        call_us = (time.perf_counter() - called) * 1e6
    fd, trace_path = tempfile.mkstemp(prefix=".kprof-trace-", suffix=".json", dir=scratch_dir)
    os.close(fd)
    try:
        prof.export_chrome_trace(trace_path)
        with open(trace_path, "r", encoding="utf-8") as f:
            events = json.load(f).get("traceEvents", [])
    finally:
        os.unlink(trace_path)
    return {"version": TIMELINE_VERSION, "call_us": call_us, "launches": trace_launches(events)}


def trace_launches(events):
    """Kernel launches of a chrome trace (PyTorch's profiler's export), in launch order (the
    correlation id of the launch's runtime call, else the start), each with the innermost CPU op
    around its runtime call on the same thread."""
    kernels = [e for e in events if e.get("cat") == "kernel" and e.get("ph") == "X"]
    runtime = {}
    for e in events:
        if e.get("cat") in ("cuda_runtime", "cuda_driver") and "correlation" in e.get("args", {}):
            runtime[e["args"]["correlation"]] = e
    ops_by_thread = {}
    for e in events:
        if e.get("cat") == "cpu_op" and e.get("ph") == "X":
            ops_by_thread.setdefault((e.get("pid"), e.get("tid")), []).append(e)
    starts_by_thread = {}
    for key, ops in ops_by_thread.items():
        ops.sort(key=lambda e: e.get("ts", 0))
        starts_by_thread[key] = [e.get("ts", 0) for e in ops]

    def op_of(call):
        if call is None:
            return None
        key = (call.get("pid"), call.get("tid"))
        ops, starts = ops_by_thread.get(key, []), starts_by_thread.get(key, [])
        at = bisect.bisect_right(starts, call.get("ts", 0)) - 1
        # Nested ops start later than their parents: the latest start still open is innermost.
        for i in range(at, max(-1, at - 256), -1):
            if ops[i].get("ts", 0) + ops[i].get("dur", 0) >= call.get("ts", 0):
                return ops[i].get("name")
        return None

    def order(e):
        args = e.get("args", {})
        return (args.get("correlation", 0), e.get("ts", 0))

    kernels.sort(key=order)
    first = min((e.get("ts", 0) for e in kernels), default=0)
    launches = []
    for e in kernels:
        args = e.get("args", {})
        launches.append({
            "name": e.get("name", ""),
            "grid": list(args.get("grid", [0, 0, 0])),
            "block": list(args.get("block", [0, 0, 0])),
            "registers": args.get("registers per thread"),
            "shared_memory": args.get("shared memory"),
            "stream": args.get("stream"),
            "start_us": e.get("ts", 0) - first,
            "duration_us": e.get("dur", 0),
            "op": op_of(runtime.get(args.get("correlation"))),
        })
    return launches
