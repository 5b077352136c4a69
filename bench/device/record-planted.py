#!/usr/bin/env python3
"""The Python half of bench/device/run record-planted (the planted-defect suite, docs/diagnosis.md).

    bench/device/record-planted.py plan [PROBLEM...]
        One line per problem of the suite's manifest.json, in manifest order:
        "<problem name> <problem.py> <kernel.py>..." (every kernel of that problem: defects and
        their clean twins share a problem, so one `kprof batch` records them in one process).
        PROBLEM names (vec_f32, ...) keep only those problems.

    bench/device/record-planted.py pack RUN_DIR TRITON_CACHE DEST ROUND:PROBLEM...
        Gathers what one recorded `kprof batch` round per problem left in RUN_DIR into
        DEST/<problem>/ (the fixture layout of tests/fixtures/ncu/2025.3.1/planted/):
          details.csv      ncu's details page (the session's rows.csv: sections and rule results)
          raw.csv          the raw page (exported by the .sh from the .ncu-rep)
          source.csv       the source page (kprof's export: per-line counters)
          batch.json       kprof's batch document
          reports/<kernel file stem>.report.json   each candidate's report
          ptx/<kernel>.ptx, ptx/<kernel>.json       Triton's PTX (and metadata) of each Triton kernel
        (several sessions of one round, when a candidate forced a fresh process, are numbered:
        details.1.csv, ...), and prints a Markdown summary per kernel: status, duration, top
        hot lines, ncu's rules with the largest estimated speedups.

The suite is the folder named by PLANTED_SUITE (relative to the repository root; default
tests/planted, the planted-defect suite; tests/heldout is the held-out one): its manifest.json
says the problems and kernels.

Only the standard library: it runs on the GPU machine's python3.
"""

import glob
import json
import os
import shutil
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MANIFEST = os.path.join(ROOT, os.environ.get("PLANTED_SUITE") or os.path.join("tests", "planted"), "manifest.json")


def load_manifest():
    with open(MANIFEST, encoding="utf-8") as f:
        return json.load(f)


def problems(manifest, wanted):
    """[(name, problem path, [kernel entries])] in manifest order."""
    order = []
    by_name = {}
    for entry in manifest["kernels"]:
        name = os.path.basename(os.path.dirname(entry["problem"]))
        if wanted and name not in wanted:
            continue
        if name not in by_name:
            by_name[name] = (name, entry["problem"], [])
            order.append(name)
        by_name[name][2].append(entry)
    unknown = [w for w in wanted if w not in by_name]
    if unknown:
        sys.exit("unknown problem(s): %s" % ", ".join(unknown))
    return [by_name[name] for name in order]


def cmd_plan(args):
    for name, problem, entries in problems(load_manifest(), args):
        print(" ".join([name, problem] + [e["kernel_file"] for e in entries]))


def find_ptx(cache, kernel):
    """The newest <cache>/*/<kernel>.ptx, or None."""
    hits = glob.glob(os.path.join(cache, "*", kernel + ".ptx"))
    return max(hits, key=os.path.getmtime) if hits else None


def rows_page(session):
    """The session's rows (the details page of a deep session), or None."""
    for name in ("rows.csv", "ncu.log"):
        path = os.path.join(session, name)
        if os.path.exists(path):
            return path
    return None


def copy_numbered(sources, dest_dir, stem, ext):
    for i, src in enumerate(sorted(sources)):
        name = "%s%s.%s" % (stem, "" if i == 0 else ".%d" % i, ext)
        shutil.copyfile(src, os.path.join(dest_dir, name))


def summary_lines(entry, report, error=None):
    """Markdown lines about one kernel's report: the manifest's kernel (roofline, top hot lines,
    the rules with the largest estimated speedups) and any helper kernels the candidate
    launched (name and duration)."""
    if report is None:
        return ["- `%s`: NO REPORT%s" % (entry["id"], ": " + json.dumps(error)[:300] if error else "")]
    lines = []
    for k in report.get("kernels", []):
        name = k.get("name", "?")
        mine = entry["kernel"] in name
        metrics = k.get("metrics", {})
        duration = (metrics.get("Duration") or metrics.get("gpu__time_duration.sum") or {}).get("value")
        lines.append("- `%s`: %s`%s` %s ns, grid %s block %s" % (
            entry["id"], "" if mine else "helper ", name[:70], duration, k.get("grid"), k.get("block")))
        if not mine:
            continue
        roof = (report.get("roofline") or {}).get(name) or {}
        if roof.get("explanation"):
            lines.append("  - roofline: %s" % roof["explanation"])
        hot = k.get("hot_lines") or {}
        for line in (hot.get("lines") or [])[:3]:
            stalls = ", ".join("%s %.0f%%" % (s["reason"], 100 * s["share"]) for s in line.get("stalls", []))
            mem = line.get("memory") or {}
            lines.append("  - hot %s:%s %.1f%% `%s` [%s] L2 sectors %s, excessive %s; shared excessive %s" % (
                os.path.basename(line.get("file", "?")), line.get("line"), 100 * line.get("share", 0),
                (line.get("source") or "").strip()[:60], stalls, mem.get("l2_sectors"),
                mem.get("l2_sectors_excessive"), mem.get("shared_wavefronts_excessive")))
        rules = [r for r in k.get("rules") or [] if r.get("type") in ("OPT", "WRN")]
        rules.sort(key=lambda r: -(r.get("estimated_speedup") or 0))
        for r in rules[:4]:
            lines.append("  - rule %s %s %s%%: %s" % (r.get("name"), r.get("speedup_type"),
                                                     r.get("estimated_speedup"),
                                                     (r.get("description") or "")[:140]))
    return lines


def cmd_pack(args):
    if len(args) < 4:
        sys.exit("usage: pack RUN_DIR TRITON_CACHE DEST ROUND:PROBLEM...")
    run_dir, cache, dest = args[0], args[1], args[2]
    manifest = load_manifest()
    by_problem = {name: entries for name, _, entries in problems(manifest, [])}
    for spec in args[3:]:
        round_num, name = spec.split(":", 1)
        round_dir = os.path.join(run_dir, "round%03d" % int(round_num))
        out = os.path.join(dest, name)
        os.makedirs(os.path.join(out, "reports"), exist_ok=True)
        os.makedirs(os.path.join(out, "ptx"), exist_ok=True)
        print("\n### %s (round %s)\n" % (name, round_num))
        if not os.path.isdir(round_dir):
            print("- NO ROUND DIRECTORY %s" % round_dir)
            continue
        sessions = sorted(glob.glob(os.path.join(round_dir, "gpu*-part*")))
        # The details page: rows.csv (a session with source counters keeps the rows it imported
        # from its report there; its ncu.log holds the source page), else ncu.log (kprof before
        # rows.csv, whose deep sessions logged the details page).
        copy_numbered([rows_page(s) for s in sessions if rows_page(s)], out, "details", "csv")
        copy_numbered([os.path.join(s, "source.csv") for s in sessions if os.path.exists(os.path.join(s, "source.csv"))],
                      out, "source", "csv")
        copy_numbered([os.path.join(s, "raw.csv") for s in sessions if os.path.exists(os.path.join(s, "raw.csv"))],
                      out, "raw", "csv")
        if os.path.exists(os.path.join(round_dir, "batch.json")):
            shutil.copyfile(os.path.join(round_dir, "batch.json"), os.path.join(out, "batch.json"))
        for index, entry in enumerate(by_problem[name]):
            stem = os.path.splitext(os.path.basename(entry["kernel_file"]))[0]
            report = error = None
            for kind in ("report.json", "error.json"):
                src = os.path.join(round_dir, "cand%d" % index, kind)
                if os.path.exists(src):
                    shutil.copyfile(src, os.path.join(out, "reports", "%s.%s" % (stem, kind)))
                    with open(src, encoding="utf-8") as f:
                        document = json.load(f)
                    if kind == "report.json":
                        report = document
                    else:
                        error = document.get("error", document)
            if entry["language"] == "triton":
                ptx = find_ptx(cache, entry["kernel"])
                if ptx:
                    shutil.copyfile(ptx, os.path.join(out, "ptx", entry["kernel"] + ".ptx"))
                    meta = os.path.splitext(ptx)[0] + ".json"
                    if os.path.exists(meta):
                        shutil.copyfile(meta, os.path.join(out, "ptx", entry["kernel"] + ".json"))
                else:
                    print("- `%s`: NO PTX for %s in %s" % (entry["id"], entry["kernel"], cache))
            for line in summary_lines(entry, report, error):
                print(line)


def main(argv):
    if len(argv) < 2 or argv[1] not in ("plan", "pack"):
        sys.exit(__doc__)
    {"plan": cmd_plan, "pack": cmd_pack}[argv[1]](argv[2:])


if __name__ == "__main__":
    main(sys.argv)
