#!/usr/bin/env python3
"""Scores the diagnoses of a live recording of the planted-defect suite (docs/diagnosis.md).

    python3 bench/device/score-planted.py [--suite SUITE_DIR] PLANTED_DIR

PLANTED_DIR is what bench/device/run record-planted packs (planted/<problem>/reports/<kernel
file stem>.report.json, the reports kprof wrote on the GPU during its batches). SUITE_DIR (else
the environment's PLANTED_SUITE, else tests/planted; relative to the repository root) is the
suite that was recorded: tests/heldout for the held-out suite. Each report's
kernels[].diagnosis is scored against SUITE_DIR/manifest.json with the rules of
tests/unit/diagnosis/planted_suite_test.cpp (which scores the reports kprof builds from the
recorded pages): a defect is named first when its first cause is the planted category; its line
is found when one of the first three causes is on the planted line (or an accepted one); a clean
twin is clean when no cause has its twin's category, and must never lead with it; a clean kernel
at a roof leads with it when its first cause is that roof's verdict (shown, not a target).
Prints a Markdown table per kernel and per class with the targets (per class: named first on at
least 90%, the line in the first three on at least 80%, a false defect on at most 10% of the
clean twins and never first). A kernel without a report is listed as skipped, never scored.
Exits 1 when a recorded class misses a target, 2 when nothing was recorded.
"""
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


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


def leads_with_roof(causes, roof):
    if not causes:
        return False
    first = causes[0].get("category")
    return first == "compute_bound" if roof == "compute" else first in ("dram_bound", "cache_bound")


def new_score():
    return {"kernels": 0, "first": 0, "lines": 0, "lines_scored": 0, "twins": 0, "clean": 0,
            "twins_first": 0, "roofs": 0, "roofs_first": 0, "skipped": []}


def fraction(part, whole):
    return "-" if whole == 0 else "%d/%d (%d%%)" % (part, whole, (100 * part + whole // 2) // whole)


def load_entry(planted, kernel):
    problem = kernel["id"].split("/")[0]
    stem = os.path.splitext(os.path.basename(kernel["kernel_file"]))[0]
    path = os.path.join(planted, problem, "reports", stem + ".report.json")
    try:
        with open(path, encoding="utf-8") as f:
            return entry_of(json.load(f), kernel["kernel"])
    except (OSError, ValueError):
        return None


def score_kernel(kernel, causes, twin_defect, scores):
    first = line = twin = roof = ""
    if kernel["defect"]:
        for s in scores:
            s["kernels"] += 1
        named = bool(causes) and causes[0].get("category") == kernel["defect"]
        for s in scores:
            s["first"] += named
        first = "yes" if named else "NO"
        if isinstance(kernel["line"], dict):
            found = any(line_matches(c, kernel["line"]) for c in causes[:3])
            for s in scores:
                s["lines_scored"] += 1
                s["lines"] += found
            line = ("yes" if found else "NO") + " (%d)" % kernel["line"]["line"]
    elif twin_defect:
        clean = not any(c.get("category") == twin_defect for c in causes)
        led = bool(causes) and causes[0].get("category") == twin_defect
        for s in scores:
            s["twins"] += 1
            s["clean"] += clean
            s["twins_first"] += led
        twin = "clean" if clean else ("FIRST " if led else "FALSE ") + twin_defect
    if kernel.get("roof"):
        leads = leads_with_roof(causes, kernel["roof"])
        for s in scores:
            s["roofs"] += 1
            s["roofs_first"] += leads
        roof = "%s %s" % (kernel["roof"], "first" if leads else "not first")
    return first, line, twin, roof


def misses(score):
    """The targets this class misses (empty when none)."""
    out = []
    if 10 * score["first"] < 9 * score["kernels"]:
        out.append("named first")
    if 10 * score["lines"] < 8 * score["lines_scored"]:
        out.append("line")
    if 10 * (score["twins"] - score["clean"]) > score["twins"]:
        out.append("false defects")
    if score["twins_first"]:
        out.append("a twin led by the class")
    return out


def main():
    args = sys.argv[1:]
    suite = os.environ.get("PLANTED_SUITE") or os.path.join("tests", "planted")
    if args[:1] == ["--suite"] and len(args) >= 2:
        suite, args = args[1], args[2:]
    if len(args) != 1:
        sys.exit("usage: score-planted.py [--suite SUITE_DIR] PLANTED_DIR")
    planted = args[0]
    with open(os.path.join(ROOT, suite, "manifest.json"), encoding="utf-8") as f:
        manifest = json.load(f)
    defect_of = {k["id"]: k["defect"] for k in manifest["kernels"]}
    total = new_score()
    by_class = {}
    print("| kernel | planted | first three causes | first | line | twin | roof |")
    print("|---|---|---|---|---|---|---|")
    for kernel in manifest["kernels"]:
        twin_defect = defect_of[kernel["twin"]] if kernel["twin"] else None
        name = kernel["defect"] or twin_defect or "roof: " + kernel["roof"]
        cls = by_class.setdefault(name, new_score())
        entry = load_entry(planted, kernel)
        if entry is None:
            cls["skipped"].append(kernel["id"])
            total["skipped"].append(kernel["id"])
            print("| `%s` | %s | skipped: no report | | | | |" % (kernel["id"], kernel["defect"] or "(clean)"))
            continue
        causes = entry.get("diagnosis") or []
        top = ", ".join(c.get("category", "?") for c in causes[:3])
        first, line, twin, roof = score_kernel(kernel, causes, twin_defect, [cls, total])
        print("| `%s` | %s | %s | %s | %s | %s | %s |" % (kernel["id"], kernel["defect"] or "(clean)", top,
                                                       first, line, twin, roof))
    print()
    print("| class | defects | named first | line in the first three | clean twins without the class "
          "| twins led by the class | roofs first | skipped | misses |")
    print("|---|---|---|---|---|---|---|---|---|")
    failed = []
    for name in sorted(by_class) + ["all"]:
        s = total if name == "all" else by_class[name]
        missed = misses(s)
        if missed and name != "all":
            failed.append(name)
        print("| %s | %d | %s | %s | %s | %s | %s | %d | %s |" % (
            name, s["kernels"], fraction(s["first"], s["kernels"]), fraction(s["lines"], s["lines_scored"]),
            fraction(s["clean"], s["twins"]), s["twins_first"] if s["twins"] else "-",
            fraction(s["roofs_first"], s["roofs"]), len(s["skipped"]), ", ".join(missed) or "-"))
    if total["skipped"]:
        print("\nskipped, no report (%d): %s" % (len(total["skipped"]), ", ".join(total["skipped"])))
    if total["kernels"] == 0 and total["twins"] == 0:
        return 2
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
