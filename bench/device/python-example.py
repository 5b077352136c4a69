"""Profiles the example cases through kprof's Python API on a GPU machine (bench/device/run e2e).

Sequential profile_kernel calls, then a thread pool that profiles the four cases at once (they
queue on the per-GPU lock, or spread over GPUs when several are visible), then the History API.
"""
import os
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import kprof

root = Path(__file__).resolve().parents[2]
work = Path(os.environ.get("KPROF_E2E_WORK", "/tmp/kprof-python"))
clock = os.environ.get("KPROF_CLOCK", "none")
cases = ["vadd", "twostage", "softmax", "matmul"]


def case_files(case):
    return root / "examples" / case / "kernel.py", root / "examples" / case / "problem.py"


profiler = kprof.KernelProfiler(work / "seq", work / "seq-logs", clock_control=clock)
for rnd, case in enumerate(cases):
    t0 = time.perf_counter()
    results = profiler.profile_kernel(*case_files(case), round_num=rnd)
    wall = time.perf_counter() - t0
    if results is None:
        print(f"{case}: FAILED ({wall:.1f} s)")
        continue
    names = list(results.metrics.keys())
    verdicts = {name: results.roofline[name]["bottleneck"] for name in names}
    print(f"{case}: {len(names)} kernel(s) {verdicts} in {wall:.1f} s")
copies = sorted(p.name for p in (work / "seq-logs").glob("*_ncu_metrics.json"))
print(f"logs_dir copies (written by the C++ profiler): {copies}")
print()
print(profiler.profile(*case_files("twostage"), round_num=9).prompt())

try:
    profiler.profile(root / "examples/failures/syntax_error.py", case_files("softmax")[1], round_num=10)
except kprof.KernelImportError as e:
    print(f"typed error as expected: {type(e).__name__}: {e.message}")

ngpu = max(1, int(os.popen("nvidia-smi -L | grep -c '^GPU '").read().strip() or 1))


def job(i_case):
    i, case = i_case
    p = kprof.KernelProfiler(work / f"pool-{case}", work / f"pool-{case}-logs", gpu=i % ngpu,
                             clock_control=clock)
    t0 = time.perf_counter()
    r = p.profile(*case_files(case), round_num=0)
    return case, time.perf_counter() - t0, r.summary["total_duration_ns"]


t0 = time.perf_counter()
with ThreadPoolExecutor(max_workers=4) as pool:
    for case, wall, total in pool.map(job, enumerate(cases)):
        print(f"pool: {case} total {total} ns, {wall:.1f} s")
print(f"thread pool of 4 over {ngpu} GPU(s): {time.perf_counter() - t0:.1f} s")

history = kprof.History(work / "seq")
for row in history.rounds():
    print("history:", {k: row[k] for k in list(row)[:6]})
print("converged:", history.converged())
