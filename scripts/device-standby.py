"""The agent loop of issue 10 on a GPU machine (scripts/device-standby.sh runs it).

For each case of examples/ (vadd, twostage, softmax, matmul): 5 candidates profiled one after the
other through KernelProfiler.profile_kernel, with THINK seconds between calls (the agent's model
time), once with standby=False and once with standby=True. The candidates are copies of the
case's kernel.py in their own directories (same Triton kernel, so Triton's cache answers the
compile: what is timed is kprof's own cost). Prints the time of each call and the median of the
2nd to 5th, and whether each call ran on a standby.
"""
import os
import shutil
import statistics
import sys
import time
from pathlib import Path

import kprof

root = Path(__file__).resolve().parent.parent
work = Path(sys.argv[1])
clock = os.environ.get("KPROF_CLOCK", "none")
think = float(os.environ.get("THINK", "8"))
cases = os.environ.get("CASES", "vadd twostage softmax matmul").split()
modes = [m == "standby" for m in os.environ.get("MODES", "cold standby").split()]
source = os.environ.get("SOURCE", "0") == "1"


def candidates(case):
    files = []
    for i in range(5):
        directory = work / "candidates" / case / f"cand{i}"
        directory.mkdir(parents=True, exist_ok=True)
        target = directory / "kernel.py"
        shutil.copyfile(root / "examples" / case / "kernel.py", target)
        files.append(target)
    return files


rows = []
for standby in modes:
    for case in cases:
        problem = root / "examples" / case / "problem.py"
        out = work / ("standby" if standby else "cold") / case
        with kprof.KernelProfiler(out, clock_control=clock, standby=standby, source=source) as profiler:
            times, used = [], []
            for round_num, kernel in enumerate(candidates(case)):
                if round_num > 0:
                    time.sleep(think)
                started = time.perf_counter()
                results = profiler.profile_kernel(kernel, problem, round_num)
                times.append(time.perf_counter() - started)
                used.append(None if results is None else results.report["metadata"].get("standby"))
                if results is not None and os.environ.get("PHASES") == "1":
                    meta = results.report["metadata"]
                    print(f"  {case} cand{round_num}: " + ", ".join(
                        f"{k}={meta[k]}" for k in sorted(meta) if k.endswith("_seconds")), flush=True)
        median = statistics.median(times[1:])
        rows.append((case, standby, times, used, median))
        print(f"{case} standby={standby}: " + ", ".join(f"{t:.2f}" for t in times)
              + f" s; standby used: {used}; median of 2nd-5th {median:.2f} s", flush=True)

print()
print("| case | standby | calls (s) | median 2nd-5th (s) |")
print("|---|---|---|---|")
for case, standby, times, used, median in rows:
    print(f"| {case} | {'yes' if standby else 'no'} | {', '.join(f'{t:.2f}' for t in times)} | {median:.2f} |")
