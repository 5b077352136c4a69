#!/usr/bin/python3
"""The reference for docs/performance.md: KernelAgent's load_ncu_metrics, reproduced.

KernelAgent reads an ncu raw-page CSV with pandas in these steps, which this script repeats:
``pandas.read_csv(path, comment="=", low_memory=False)`` of the whole file (every column), then
the "Kernel Name" column plus those of its 29 metric names that the header has, the units row
dropped (the first row when one of its values looks like a unit), and the metric columns made
numeric (thousands separators and '%' removed, anything else NaN).

Usage: kernelagent_reader.py FILE   (prints rows, columns and seconds; run under /usr/bin/time -v)
"""

import sys
import time

import pandas as pd

# KernelAgent's 29 metric names as kprof's default set spells them (bench/big_csv.hpp's
# projection_29(): two of KernelAgent's own names do not exist on Hopper and were replaced; the
# cost of the read does not depend on which 29 are asked for).
METRICS = [
    "gpu__time_duration.sum",
    "sm__cycles_active.avg",
    "sm__throughput.avg.pct_of_peak_sustained_elapsed",
    "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
    "dram__bytes_read.sum",
    "dram__bytes_write.sum",
    "dram__bytes.sum.per_second",
    "dram__throughput.avg.pct_of_peak_sustained_elapsed",
    "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed",
    "l1tex__t_sector_hit_rate.pct",
    "l1tex__throughput.avg.pct_of_peak_sustained_active",
    "lts__t_sector_hit_rate.pct",
    "lts__throughput.avg.pct_of_peak_sustained_active",
    "sm__inst_executed.sum",
    "sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active",
    "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed",
    "sm__inst_executed_pipe_tensor.avg.pct_of_peak_sustained_active",
    "sm__warps_active.avg.pct_of_peak_sustained_active",
    "launch__registers_per_thread",
    "launch__shared_mem_per_block_allocated",
    "launch__occupancy_limit_blocks",
    "launch__occupancy_limit_registers",
    "launch__occupancy_limit_shared_mem",
    "smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct",
    "smsp__warp_issue_stalled_short_scoreboard_per_warp_active.pct",
    "smsp__warp_issue_stalled_lg_throttle_per_warp_active.pct",
    "smsp__warp_issue_stalled_mio_throttle_per_warp_active.pct",
    "smsp__warp_issue_stalled_barrier_per_warp_active.pct",
    "smsp__warp_issue_stalled_branch_resolving_per_warp_active.pct",
]
UNIT_WORDS = ("%", "inst", "cycle", "block", "register", "register/thread")


def load_ncu_metrics(path):
    frame = pd.read_csv(path, comment="=", low_memory=False)
    wanted = ["Kernel Name"] + [name for name in METRICS if name in frame.columns]
    table = frame[wanted].copy()
    if len(table) > 0:
        first = table.iloc[0].astype(str).str.lower()
        if first.apply(lambda text: any(word in text for word in UNIT_WORDS)).any():
            table = table.iloc[1:].reset_index(drop=True)
    metrics = [name for name in METRICS if name in table.columns]
    table[metrics] = (
        table[metrics].replace({",": "", "%": ""}, regex=True).apply(pd.to_numeric, errors="coerce")
    )
    return table


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: kernelagent_reader.py FILE")
    start = time.monotonic()
    table = load_ncu_metrics(sys.argv[1])
    seconds = time.monotonic() - start
    print(f"rows={len(table)} columns={len(table.columns)} seconds={seconds:.3f}")


if __name__ == "__main__":
    main()
