"""The agent loop of issue 10 on a GPU machine (bench/device/run standby runs it).

For each case of examples/ (vadd, twostage, softmax, matmul): 5 candidates profiled one after the
other through KernelProfiler.profile_kernel, with THINK seconds between calls (the agent's model
time), once with standby=False and once with standby=True. The candidates are copies of the
case's kernel.py in their own directories (same Triton kernel, so Triton's cache answers the
compile: what is timed is kprof's own cost). With UNIQUE=1 each copy gets a comment line of its
own in the body of every @triton.jit function, so Triton compiles each candidate afresh, as an
agent's new kernels are: what is timed is then a real round, the compile included. Prints the time of each call and the median of the
2nd to 5th, and whether each call ran on a standby; with standbys, after the 5th call, the
standbys kept (how many, their processes' resident memory, their GPU memory per nvidia-smi).
"""
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

import kprof

root = Path(__file__).resolve().parents[2]
work = Path(sys.argv[1])
clock = os.environ.get("KPROF_CLOCK", "none")
think = float(os.environ.get("THINK", "8"))
cases = os.environ.get("CASES", "vadd twostage softmax matmul").split()
modes = [m == "standby" for m in os.environ.get("MODES", "cold standby").split()]
source = os.environ.get("SOURCE", "0") == "1"
unique = os.environ.get("UNIQUE", "0") == "1"
# TRUTH=0 turns each candidate's check and timing off (issue 43): their cost is the difference.
truth = os.environ.get("TRUTH", "1") == "1"


def made_unique(text, tag):
    """`text` with a comment line "# <tag>" first in the body of every @triton.jit function
    (after its `def` line, or after the line that ends a signature spread over several)."""
    out, jit, in_def = [], False, False
    for line in text.splitlines(True):
        out.append(line)
        stripped = line.strip()
        if stripped.startswith("@triton.jit"):
            jit = True
        elif jit and stripped.startswith("def "):
            in_def, indent = True, line[:len(line) - len(line.lstrip())] + "    "
        if in_def and stripped.endswith(":"):
            out.append(f"{indent}# {tag}\n")
            jit = in_def = False
    return "".join(out)


def candidates(case):
    files = []
    for i in range(5):
        directory = work / "candidates" / case / f"cand{i}"
        directory.mkdir(parents=True, exist_ok=True)
        target = directory / "kernel.py"
        text = (root / "examples" / case / "kernel.py").read_text(encoding="utf-8")
        if unique:
            text = made_unique(text, f"kprof loop {os.getpid()} {case} candidate {i}")
        target.write_text(text, encoding="utf-8")
        files.append(target)
    return files


def standby_memory(out):
    """(standbys, resident MiB of their processes, GPU MiB of their processes) of `out`."""
    root_dir = str(out / ".standby") + "/"
    pids, dirs = set(), set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            words = (entry / "cmdline").read_bytes().decode("utf-8", "replace").split("\0")
        except OSError:
            continue
        for word in words:
            if root_dir in word:
                pids.add(int(entry.name))
                dirs.add(word.split(root_dir, 1)[1].split("/", 1)[0])
    rss = 0
    for pid in pids:
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    rss += int(line.split()[1])
        except OSError:
            pass
    gpu = 0
    try:
        text = subprocess.run(["nvidia-smi", "--query-compute-apps=pid,used_memory", "--format=csv,noheader,nounits"],
                              capture_output=True, text=True, timeout=20).stdout
        for line in text.splitlines():
            pid, used = [w.strip() for w in line.split(",")]
            if int(pid) in pids:
                gpu += int(used)
    except Exception:  # noqa: BLE001 - memory is reported when it can be read
        gpu = None
    return len(dirs), round(rss / 1024), gpu


rows = []
for standby in modes:
    for case in cases:
        problem = root / "examples" / case / "problem.py"
        out = work / ("standby" if standby else "cold") / case
        with kprof.KernelProfiler(out, clock_control=clock, standby=standby, source=source, check=truth,
                                  timing=truth) as profiler:
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
                        f"{k}={meta[k]}" for k in sorted(meta) if k.endswith("_seconds"))
                        + f"; primer: {meta.get('primer')}; triton primer: {meta.get('triton_primer')}"
                        + (f"; hot lines: {str(meta.get('hot_lines'))[:160]}" if source else ""), flush=True)
            if standby:
                time.sleep(2)  # the standbys started beside the last call get going
                kept, rss_mib, gpu_mib = standby_memory(out)
                print(f"  {case} standbys kept after the 5th call: {kept}, resident {rss_mib} MiB, "
                      f"GPU {gpu_mib} MiB", flush=True)
        median = statistics.median(times[1:])
        rows.append((case, standby, times, used, median))
        print(f"{case} standby={standby}: " + ", ".join(f"{t:.2f}" for t in times)
              + f" s; standby used: {used}; median of 2nd-5th {median:.2f} s", flush=True)

print()
print("| case | standby | calls (s) | median 2nd-5th (s) |")
print("|---|---|---|---|")
for case, standby, times, used, median in rows:
    print(f"| {case} | {'yes' if standby else 'no'} | {', '.join(f'{t:.2f}' for t in times)} | {median:.2f} |")
