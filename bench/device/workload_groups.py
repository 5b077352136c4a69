"""Issue 42, bench/device/steps/workload.sh's first question: what does ncu's `--filter-mode
per-launch-config` count launches per? Compares the rows of `ncu --filter-mode per-launch-config
--launch-count 1` (a raw-page CSV) with the distinct launch shapes of the same call's timeline
(kprof's timeline.json, written by `harness.py PLAN --timeline`).

  workload_groups.py TIMELINE.json NCU.csv

Prints one JSON object: the timeline's distinct configurations (grid, block, shared memory) and
distinct (function name, configuration) pairs, ncu's rows and distinct row shapes, and the
verdict: "config" (rows = configurations), "name_and_config" (rows = name and configuration
pairs), or "neither".
"""

import csv
import json
import sys


def function_name(name):
    name = name.replace("(anonymous namespace)", "anonymous")
    depth, bare = 0, ""
    for c in name:
        if c == "<":
            depth += 1
        elif c == ">" and depth:
            depth -= 1
        elif depth == 0 and c == "(":
            break
        elif depth == 0:
            bare += c
    return bare.strip().split(" ")[-1].split("::")[-1]


def main(timeline_path, csv_path):
    launches = json.load(open(timeline_path))["launches"]
    configs = {(tuple(l["grid"]), tuple(l["block"]), l["shared_memory"]) for l in launches}
    named = {(function_name(l["name"]),) + (tuple(l["grid"]), tuple(l["block"]), l["shared_memory"])
             for l in launches}
    text = [line for line in open(csv_path, encoding="utf-8", errors="replace")
            if not line.startswith("==")]
    rows = [r for r in csv.DictReader(text) if r.get("ID", "").strip().isdigit()]
    shapes = {(function_name(r["Kernel Name"]), r["Grid Size"], r["Block Size"]) for r in rows}
    verdict = "neither"
    if len(configs) == len(named) and len(rows) == len(configs):
        verdict = "undecided (no two kernels share a configuration in this call)"
    elif len(rows) == len(configs):
        verdict = "config"
    elif len(rows) == len(named):
        verdict = "name_and_config"
    print(json.dumps({"timeline_launches": len(launches), "configs": len(configs),
                      "name_and_configs": len(named), "ncu_rows": len(rows),
                      "ncu_distinct_shapes": len(shapes), "verdict": verdict}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
