#!/usr/bin/env python3
"""Scores the diagnoses of a live recording of the planted-defect suite (docs/diagnosis.md).

    python3 scripts/score-planted.py PLANTED_DIR

PLANTED_DIR is what scripts/device-record-planted.sh packs (planted/<problem>/reports/<kernel
file stem>.report.json, the reports kprof wrote on the GPU during its batches). Each report's
kernels[].diagnosis is scored against tests/planted/manifest.json with the rules of
tests/unit/diagnosis/planted_suite_test.cpp (which scores the reports kprof builds from the
recorded pages): a defect is named first when its first cause is the planted category; its line
is found when one of the first three causes is on the planted line (or an accepted one); a clean
twin is clean when no cause has its twin's category. Prints a Markdown table per kernel and the
totals; exits 1 when a report is missing.
"""
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def entry_of(report, kernel):
    for entry in report.get("kernels", []):
        name = entry.get("name", "")
        if name == kernel or name.startswith(kernel + "("):
            return entry
    return None


def line_matches(cause, expected):
    line = cause.get("line")
    if not isinstance(line, dict) or not str(line.get("file", "")).endswith(expected["file"]):
        return False
    return line.get("line") == expected["line"] or line.get("line") in expected.get("accept", [])


def main():
    planted = sys.argv[1]
    with open(os.path.join(ROOT, "tests", "planted", "manifest.json"), encoding="utf-8") as f:
        manifest = json.load(f)
    defect_of = {k["id"]: k["defect"] for k in manifest["kernels"]}
    totals = {"kernels": 0, "first": 0, "lines": 0, "lines_scored": 0, "twins": 0, "clean": 0}
    missing = []
    print("| kernel | planted | first three causes | first | line | twin |")
    print("|---|---|---|---|---|---|")
    for kernel in manifest["kernels"]:
        problem = kernel["id"].split("/")[0]
        stem = os.path.splitext(os.path.basename(kernel["kernel_file"]))[0]
        path = os.path.join(planted, problem, "reports", stem + ".report.json")
        try:
            with open(path, encoding="utf-8") as f:
                entry = entry_of(json.load(f), kernel["kernel"])
        except (OSError, ValueError):
            entry = None
        if entry is None:
            missing.append(kernel["id"])
            continue
        causes = entry.get("diagnosis") or []
        top = ", ".join(c.get("category", "?") for c in causes[:3])
        first = line = twin = ""
        if kernel["defect"]:
            totals["kernels"] += 1
            named = bool(causes) and causes[0].get("category") == kernel["defect"]
            totals["first"] += named
            first = "yes" if named else "NO"
            if isinstance(kernel["line"], dict):
                found = any(line_matches(c, kernel["line"]) for c in causes[:3])
                totals["lines_scored"] += 1
                totals["lines"] += found
                line = ("yes" if found else "NO") + f" ({kernel['line']['line']})"
        else:
            twin_defect = defect_of[kernel["twin"]]
            totals["twins"] += 1
            clean = not any(c.get("category") == twin_defect for c in causes)
            totals["clean"] += clean
            twin = "clean" if clean else "FALSE " + twin_defect
        print(f"| `{kernel['id']}` | {kernel['defect'] or '(clean)'} | {top} | {first} | {line} | {twin} |")
    print()
    print(f"named first {totals['first']}/{totals['kernels']}; line in the first three "
          f"{totals['lines']}/{totals['lines_scored']}; clean twins without the class "
          f"{totals['clean']}/{totals['twins']}")
    if missing:
        print("missing reports: " + ", ".join(missing))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
