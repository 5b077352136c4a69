"""An agent's loop on a model (issue 42), on a GPU machine: ROUNDS rounds (default 3) of one
KernelBench problem's reference (`kprof model`'s candidate, out_dir/model/kernel.py) through one
KernelProfiler(standby=True) with launches="auto", THINK seconds between them. Prints each
round's wall time, whether it ran on a standby, the call's launches and the launches replayed:
the first round pays the capped session, the next ones are timed first (never on a standby,
whose ncu would replay every launch).

    python3 bench/device/model_loop.py PROBLEM.py OUT_DIR
"""
import os
import sys
import time
from pathlib import Path

import kprof
import kprof._kprof as native

problem, out = Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve()
rounds = int(os.environ.get("ROUNDS", "3"))
think = float(os.environ.get("THINK", "2"))
kernel = native.write_model_candidate(str(problem), str(out), False)
with kprof.KernelProfiler(out, clock_control="none", standby=True, check=False) as profiler:
    for number in range(1, rounds + 1):
        started = time.perf_counter()
        results = profiler.profile(kernel, problem, number)
        wall = time.perf_counter() - started
        workload = results.report.get("workload") or {}
        speedup = ((results.truth or {}).get("reference") or {}).get("speedup")
        print("%s round %d: %.2f s, status %s, standby %s, launches %s, replayed %s, speed-up %s"
              % (problem.stem, number, wall, results.status, results.report["metadata"].get("standby"),
                 workload.get("launches"), workload.get("replayed"), speedup), flush=True)
        time.sleep(think)
