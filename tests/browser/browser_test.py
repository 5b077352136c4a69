#!/usr/bin/env python3
"""The HTML pages of kprof in a real browser: Debian's chromium, headless, driven over the DevTools
protocol on a pipe (--remote-debugging-pipe), Python standard library plus PIL for the screenshots.

For each page (one kernel, a two-kernel op, a deep-set capture with findings, a capture with the
roofline metrics, a batch with a failed candidate, a model's call of many launches with its
workload and truth, a run directory with several rounds) it:
  - generates the page with the built kprof (`report --format html`, `view DIR`; the batch and the
    rounds run against the stand-in ncu of tests/standins, so no GPU is needed);
  - loads it from file:// and fails on any console error, uncaught exception, log error (a
    Content-Security-Policy refusal is one) or network request other than the page itself;
  - checks the DOM: one speed-of-light point per kernel carrying its name (hover title, legend),
    the kernel table, findings, roofline, rounds table (failed and best rows), hot lines;
  - loads it again with JavaScript disabled and checks that the tables are still there;
  - takes screenshots in the light and the dark scheme and checks they are not blank (not one
    colour) and differ; prints it to PDF.
A machine without chromium gets it from scripts/install-deps.sh; the test never skips.

Usage: browser_test.py --kprof build/kprof [--keep DIR] [--screenshot-dir DIR]
"""

import argparse
import base64
import csv
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "ncu" / "2025.3.1"
CAPTURES = ROOT / "examples" / "captures"
STANDINS = ROOT / "tests" / "standins"
CASES = ROOT / "tests" / "python" / "cases"


class Failure(Exception):
    pass


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def ensure_chromium():
    found = find_chromium()
    if found:
        return found
    print("browser_test: chromium not found; installing it with scripts/install-deps.sh",
          file=sys.stderr)
    subprocess.run([str(ROOT / "scripts" / "install-deps.sh")], check=True)
    found = find_chromium()
    if not found:
        raise Failure("chromium is still missing after scripts/install-deps.sh")
    return found


def ensure_pil():
    try:
        import PIL.Image  # noqa: F401
    except ImportError:
        subprocess.run([str(ROOT / "scripts" / "install-deps.sh")], check=True)
    import PIL.Image  # noqa: F401


class Browser:
    """Headless chromium spoken to over the DevTools protocol on fds 3 (in) and 4 (out)."""

    def __init__(self, executable, profile_dir):
        to_child_r, self.to_child = os.pipe()
        self.from_child, from_child_w = os.pipe()

        def wire():
            os.dup2(to_child_r, 3)
            os.dup2(from_child_w, 4)

        self.proc = subprocess.Popen(
            [executable, "--headless", "--no-sandbox", "--disable-gpu",
             "--remote-debugging-pipe", "--no-first-run", "--no-default-browser-check",
             "--disable-extensions", "--disable-background-networking", "--disable-sync",
             "--disable-component-update", "--disable-default-apps", "--mute-audio",
             "--hide-scrollbars", "--window-size=1280,1000",
             "--user-data-dir=" + str(profile_dir), "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            preexec_fn=wire, pass_fds=(3, 4))
        os.close(to_child_r)
        os.close(from_child_w)
        self.buffer = b""
        self.next_id = 0
        self.events = []
        self.session = None

    def close(self):
        try:
            self.send("Browser.close", session=False, timeout=10)
        except Exception:  # noqa: BLE001 - the browser may already be gone
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self.to_child)
        os.close(self.from_child)

    def _read_message(self, deadline):
        while b"\0" not in self.buffer:
            if time.monotonic() > deadline:
                raise Failure("chromium did not answer in time")
            import select
            ready, _, _ = select.select([self.from_child], [], [], 0.5)
            if not ready:
                if self.proc.poll() is not None:
                    err = self.proc.stderr.read().decode(errors="replace")
                    raise Failure(f"chromium exited with {self.proc.returncode}: {err[-2000:]}")
                continue
            chunk = os.read(self.from_child, 1 << 20)
            if not chunk:
                raise Failure("chromium closed the DevTools pipe")
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def send(self, method, params=None, session=True, timeout=60):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            message["sessionId"] = self.session
        os.write(self.to_child, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            reply = self._read_message(deadline)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise Failure(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def wait_for(self, method, timeout=60):
        deadline = time.monotonic() + timeout
        for i, event in enumerate(self.events):
            if event.get("method") == method:
                del self.events[i]
                return event
        while True:
            event = self._read_message(deadline)
            if event.get("method") == method:
                return event
            self.events.append(event)

    def open_page(self):
        targets = self.send("Target.getTargets", session=False)["targetInfos"]
        page = next(t for t in targets if t["type"] == "page")
        self.session = self.send("Target.attachToTarget",
                                 {"targetId": page["targetId"], "flatten": True},
                                 session=False)["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.send(domain + ".enable")

    def load(self, url, javascript=True, scheme="light"):
        """Navigates to `url`; returns the problems seen while loading (console errors, ...)."""
        self.send("Emulation.setScriptExecutionDisabled", {"value": not javascript})
        self.send("Emulation.setEmulatedMedia",
                  {"features": [{"name": "prefers-color-scheme", "value": scheme}]})
        self.events = []
        self.send("Page.navigate", {"url": url})
        self.wait_for("Page.loadEventFired")
        # Let late requests and errors arrive.
        time.sleep(0.3)
        self.send("Page.getLayoutMetrics")
        problems = []
        for event in self.events:
            method = event.get("method")
            params = event.get("params", {})
            if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert",
                                                                                 "warning"):
                text = " ".join(str(a.get("value", a.get("description", "")))
                                for a in params.get("args", []))
                problems.append(f"console {params['type']}: {text}")
            elif method == "Runtime.exceptionThrown":
                problems.append("exception: " + json.dumps(params.get("exceptionDetails"))[:500])
            elif method == "Log.entryAdded" and params["entry"]["level"] in ("error", "warning"):
                entry = params["entry"]
                problems.append(f"log {entry['level']} ({entry.get('source')}): {entry['text']}")
            elif method == "Network.requestWillBeSent":
                requested = params["request"]["url"]
                if requested != url:
                    problems.append("network request: " + requested)
            elif method == "Network.loadingFailed":
                problems.append("loading failed: " + json.dumps(params)[:300])
        return problems

    def evaluate(self, expression):
        result = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        if "exceptionDetails" in result:
            raise Failure("evaluate: " + json.dumps(result["exceptionDetails"])[:500])
        return result["result"].get("value")

    def screenshot(self):
        metrics = self.send("Page.getLayoutMetrics")
        height = min(int(metrics["cssContentSize"]["height"]), 6000)
        data = self.send("Page.captureScreenshot",
                         {"format": "png", "captureBeyondViewport": True,
                          "clip": {"x": 0, "y": 0, "width": 1280, "height": max(height, 200),
                                   "scale": 1}})["data"]
        return base64.b64decode(data)

    def print_pdf(self):
        return base64.b64decode(self.send("Page.printToPDF", {"printBackground": False})["data"])


# What each page's DOM holds, read by the browser itself.
DOM_FACTS = r"""
(() => {
  const text = (e) => (e ? e.textContent : null);
  const scopes = [];
  const reports = document.querySelectorAll('details.round');
  const roots = reports.length ? Array.from(reports) : [document.querySelector('main')];
  for (const root of roots) {
    const table = root.querySelector('table.kernel-table');
    scopes.push({
      id: root.id || 'main',
      points: Array.from(root.querySelectorAll('svg.sol-chart circle.sol-point')).map(c => ({
        kernel: c.getAttribute('data-kernel'), title: text(c.querySelector('title')),
        r: parseFloat(c.getAttribute('r')), visible: c.getBoundingClientRect().width > 0 ||
                                                     !root.open})),
      legend: Array.from(root.querySelectorAll('ol.sol-legend li')).map(li => li.textContent),
      table_rows: table ? Array.from(table.tBodies[0].rows).map(r => r.cells[1].textContent) : null,
      roofline_points: Array.from(root.querySelectorAll('circle.roofline-point'))
                         .map(c => c.getAttribute('data-kernel')),
      roofline_note: text(root.querySelector('.roofline-absent')),
      findings: root.querySelectorAll('tr.finding').length,
      hot_lines: root.querySelectorAll('tr.hot-line').length,
      heat_lines: root.querySelectorAll('tr.heat-line').length,
      details: root.querySelectorAll('details.kernel').length,
      failed_note: root.querySelector('.note') ? root.querySelector('.note').textContent : null,
    });
  }
  const rounds = document.querySelector('table.rounds');
  return {
    title: document.title,
    csp: document.querySelector('meta[http-equiv="Content-Security-Policy"]')?.content,
    header: Array.from(document.querySelectorAll('header dl.meta dt')).map(d => d.textContent),
    // The facts the document does not hold, named on one line ("ncu, clock control, command").
    unrecorded: Array.from(document.querySelectorAll('header dl.meta dt'))
      .filter(d => d.textContent === 'not recorded')
      .flatMap(d => d.nextElementSibling.textContent.split(', ')),
    scopes,
    rounds: rounds ? Array.from(rounds.tBodies[0].rows).map(r => ({
      cls: r.className, cells: Array.from(r.cells).map(c => c.textContent)})) : null,
    bars: Array.from(document.querySelectorAll('svg.rounds-chart rect.bar'))
            .map(b => b.getAttribute('class')),
    convergence: text(document.querySelector('.convergence')),
    diff: text(document.querySelector('.diff-total')) || text(document.querySelector('.diff-absent')),
    diff_rows: document.querySelectorAll('table.diff tbody tr').length,
    tables: document.querySelectorAll('table').length,
    workload_rows: Array.from(document.querySelectorAll('table.workload tbody tr')).map(r => ({
      kernel: r.cells[0].textContent,
      bar: r.querySelector('.share-bar') ? r.querySelector('.share-bar').getBoundingClientRect().width : 0})),
    timeline_lanes: Array.from(document.querySelectorAll('svg.timeline g.lane')).map(g => ({
      label: g.querySelector('text').textContent,
      busy: g.querySelectorAll('rect.busy').length,
      width: g.getBoundingClientRect().width})),
    truth: Array.from(document.querySelectorAll('ul.truth li')).map(li => li.textContent),
    body_color: getComputedStyle(document.body).backgroundColor,
  };
})()
"""

SORT_CHECK = r"""
(() => {
  const table = document.querySelector('table.kernel-table');
  if (!table || table.tBodies[0].rows.length < 2) { return 'skip'; }
  const th = table.tHead.rows[0].cells[3];  // time
  th.click();
  const asc = Array.from(table.tBodies[0].rows).map(r => parseFloat(r.cells[3].dataset.sort));
  th.click();
  const desc = Array.from(table.tBodies[0].rows).map(r => parseFloat(r.cells[3].dataset.sort));
  const sorted = (a, up) => a.every((v, i) => i === 0 || (up ? a[i-1] <= v : a[i-1] >= v));
  return sorted(asc, true) && sorted(desc, false) && th.getAttribute('aria-sort') === 'descending'
         ? 'ok' : JSON.stringify({asc, desc});
})()
"""


def check(condition, message):
    if not condition:
        raise Failure(message)


def not_blank(png, what):
    from PIL import Image
    image = Image.open(io.BytesIO(png)).convert("RGB")
    colors = image.getcolors(maxcolors=1 << 16)
    check(colors is None or len(colors) > 1, f"{what}: the screenshot is one colour")
    distinct = len(colors) if colors is not None else 1 << 16
    check(distinct >= 16, f"{what}: the screenshot has only {distinct} colours")
    return image


def run(cmd, env=None, ok_codes=(0,)):
    result = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if result.returncode not in ok_codes:
        raise Failure(f"{' '.join(map(str, cmd))} exited with {result.returncode}:\n"
                      f"{result.stdout[-2000:]}\n{result.stderr[-3000:]}")
    return result


def standin_env(work, csv):
    env = dict(os.environ)
    env.update({
        "PYTHONPATH": str(STANDINS / "fake_torch"),
        "KPROF_LOCK_DIR": str(work / "locks"),
        "XDG_CACHE_HOME": str(work / "cache"),
        "KPROF_FAKE_NCU_CSV": str(csv),
    })
    return env


def faster_capture(source, target, factor):
    """A copy of the recorded capture `source` whose kernels ran `factor` times faster."""
    lines = source.read_text().splitlines(keepends=True)
    header_at = next(i for i, line in enumerate(lines) if line.startswith('"ID"'))
    header = next(csv.reader([lines[header_at]]))
    column = header.index("gpu__time_duration.sum")
    out = lines[:header_at + 1]
    for line in lines[header_at + 1:]:
        row = next(csv.reader([line]), None)
        if row and len(row) == len(header) and row[0].isdigit():
            value = float(row[column].replace(",", "")) / factor
            row[column] = f"{value:.0f}"
            buffer = io.StringIO()
            csv.writer(buffer, quoting=csv.QUOTE_ALL, lineterminator="\n").writerow(row)
            line = buffer.getvalue()
        out.append(line)
    target.write_text("".join(out))
    return target


def report_names(kprof, capture, extra=()):
    doc = json.loads(run([kprof, "report", str(capture), "--format", "json", *extra]).stdout)
    return [k["name"] for k in doc["summary"]["kernels"]], doc


def make_pages(kprof, work):
    """Generates every page; returns [(name, path, expectations)]."""
    pages = []
    for name, capture, extra, expect in [
        ("one-kernel", CAPTURES / "h200_vadd.csv", [], {}),
        ("two-kernel-op", CAPTURES / "h200_twostage.csv", [], {}),
        ("deep-findings", CAPTURES / "h200_batch4_rules.csv", ["--metrics", "deep"],
         {"findings": True}),
        ("roofline", FIXTURES / "set_full_vadd.csv", [], {"roofline": True}),
        # Hot lines of the recorded H200 softmax run (docs/hot-lines.md): the page's source heat.
        ("hot-lines", FIXTURES / "source" / "softmax.raw.csv",
         ["--source-page", str(FIXTURES / "source" / "softmax.source.csv")], {"hot_lines": True}),
    ]:
        out = work / f"{name}.html"
        run([kprof, "report", str(capture), "--format", "html", "--out", str(out), *extra])
        names, _ = report_names(kprof, capture, extra)
        expect = dict(expect, kernels=[names], run=False)
        pages.append((name, out, expect))

    # The stand-in ncu replays recordings whose range is "kprof"; kprof's harness names its
    # ranges "kprof:cand<i>".
    twostage = work / "twostage_cand0.csv"
    twostage.write_text((FIXTURES / "curated_nvtx_twostage.csv").read_text().replace(
        "<default domain>:kprof:none", "<default domain>:kprof:cand0:none"))
    common = ["--ncu", str(STANDINS / "ncu"), "--python", "/usr/bin/python3", "--format", "json",
              "--retries", "0", "--no-metric-check"]

    # A batch with failed candidates: 0 and 3 healthy, 1 raises, 2 poisons the CUDA context.
    batch_dir = work / "batch-run"
    run([kprof, "batch", str(CASES / "vector" / "problem.py"),
         str(CASES / "positional" / "kernel.py"), str(CASES / "raises" / "kernel.py"),
         str(CASES / "poisoned" / "kernel.py"), str(CASES / "positional" / "kernel.py"),
         "--out", str(batch_dir), "--round", "0", *common],
        env=standin_env(work, FIXTURES / "batch4_flat_regex_ranges.csv"))
    run([kprof, "view", str(batch_dir)])
    pages.append(("batch-with-failure", batch_dir / "index.html", {"run": True}))

    # A model's call of 202 launches (issue 42): timed outside ncu, representatives replayed;
    # its report, read again, draws where the call's time goes and the truth (issue 43).
    model_dir = work / "model-run"
    model_env = standin_env(work, FIXTURES / "batch4_flat_regex_ranges.csv")
    model_env["KPROF_FAKE_STEPS"] = "100"
    run([kprof, "profile", str(CASES / "many_launches" / "kernel.py"),
         str(CASES / "vector" / "problem.py"), "--out", str(model_dir), "--round", "0", *common],
        env=model_env)
    model_report = model_dir / "round000" / "report.json"
    model_page = work / "model-call.html"
    run([kprof, "report", str(model_report), "--format", "html", "--out", str(model_page)])
    names, model_doc = report_names(kprof, model_report)
    pages.append(("model-call", model_page, {
        "kernels": [names], "run": False,
        "workload": [k["function"] for k in model_doc["workload"]["kernels"]],
        "truth": True}))

    # A run directory with several rounds: two profiled rounds (the second twice as fast, so the
    # best round differs from the first), a failed one, a batch round and a recorded capture.
    rounds_dir = work / "rounds-run"
    env = standin_env(work, twostage)
    faster = faster_capture(twostage, work / "twostage_cand0_faster.csv", 2.0)
    # The rounds rank on the measured median (docs/history.md, "Which time"): the fake torch's
    # events measure the second round twice as fast too.
    for round_number, recording, event_ms in ((0, twostage, "0.2"), (1, faster, "0.1")):
        round_env = standin_env(work, recording)
        round_env["KPROF_FAKE_EVENT_MS"] = event_ms
        run([kprof, "profile", str(ROOT / "examples" / "twostage" / "kernel.py"),
             str(ROOT / "examples" / "twostage" / "problem.py"), "--out", str(rounds_dir),
             "--round", str(round_number), *common], env=round_env)
    run([kprof, "profile", str(CASES / "raises" / "kernel.py"),
         str(CASES / "vector" / "problem.py"), "--out", str(rounds_dir), "--round", "2", *common],
        env=env, ok_codes=(10,))
    batch_env = standin_env(work, FIXTURES / "batch4_flat_regex_ranges.csv")
    batch_env["KPROF_FAKE_EVENT_MS"] = "0.3"  # slower than round 1, measured
    run([kprof, "batch", str(CASES / "vector" / "problem.py"),
         str(CASES / "positional" / "kernel.py"), str(CASES / "raises" / "kernel.py"),
         "--out", str(rounds_dir), "--round", "3", *common], env=batch_env)
    run([kprof, "report", str(CAPTURES / "h200_twostage.csv"), "--round", "4", "--out",
         str(rounds_dir), "--format", "json"])
    run([kprof, "view", str(rounds_dir)])
    pages.append(("several-rounds", rounds_dir / "index.html", {"run": True, "diff": True}))
    for _, path, expect in pages:
        if expect.get("run"):
            history = json.loads(run([kprof, "history", str(path.parent), "--format",
                                      "json"]).stdout)
            expect["rows"] = history["rows"]
    return pages


def check_scope(page, scope, expected_names=None, expect=None):
    expect = expect or {}
    names = [p["kernel"] for p in scope["points"]]
    check(scope["table_rows"] is not None, f"{page}/{scope['id']}: no kernel table")
    check(sorted(names) == sorted(scope["table_rows"]),
          f"{page}/{scope['id']}: chart points {names} != table rows {scope['table_rows']}")
    if expected_names is not None:
        check(sorted(names) == sorted(expected_names),
              f"{page}: chart points {names} != the report's kernels {expected_names}")
    check(len(set(names)) == len(names), f"{page}: a kernel has two points: {names}")
    for point in scope["points"]:
        check(point["title"] and point["title"].startswith(point["kernel"] + ":"),
              f"{page}: point {point['kernel']} is not named on hover: {point['title']}")
        check(any(point["kernel"] in item for item in scope["legend"]),
              f"{page}: {point['kernel']} missing from the legend {scope['legend']}")
        check(point["r"] > 0, f"{page}: point {point['kernel']} has no size")
    check(scope["details"] == len(names), f"{page}: {scope['details']} kernel sections for "
          f"{len(names)} kernels")
    if expect.get("findings"):
        check(scope["findings"] > 0, f"{page}: no ncu findings listed")
    if expect.get("roofline"):
        check(sorted(scope["roofline_points"]) == sorted(names),
              f"{page}: roofline points {scope['roofline_points']} != {names}")
    else:
        check(scope["roofline_points"] or scope["roofline_note"],
              f"{page}: neither a roofline nor a note saying why it is absent")


def check_page(browser, name, path, expect, screenshot_dir):
    url = path.resolve().as_uri()
    problems = browser.load(url, javascript=True, scheme="light")
    check(not problems, f"{name}: problems while loading {url}:\n  " + "\n  ".join(problems))
    facts = browser.evaluate(DOM_FACTS)
    check(facts["csp"] and "default-src 'none'" in facts["csp"], f"{name}: no CSP meta tag")
    if not expect.get("run"):
        check(len(facts["scopes"]) == 1, f"{name}: expected one report")
        check_scope(name, facts["scopes"][0], expect["kernels"][0], expect)
        for label in ("GPU", "ncu", "kprof", "clock control", "metric set", "date", "command"):
            check(label in facts["header"] or label in facts["unrecorded"],
                  f"{name}: header lacks {label}: {facts['header']}, not recorded: {facts['unrecorded']}")
        check(facts["header"].count("not recorded") <= 1, f"{name}: 'not recorded' twice: {facts['header']}")
        sorted_ok = browser.evaluate(SORT_CHECK)
        check(sorted_ok in ("ok", "skip"), f"{name}: sorting the kernel table failed: {sorted_ok}")
    else:
        rows = expect["rows"]
        check(facts["rounds"] is not None and len(facts["rounds"]) == len(rows),
              f"{name}: rounds table has {facts['rounds'] and len(facts['rounds'])} rows, "
              f"history has {len(rows)}")
        failed = sum(1 for r in rows if r["status"] == "failed")
        check(failed > 0, f"{name}: the run was meant to hold a failed candidate or round")
        check(sum("failed" in r["cls"].split() for r in facts["rounds"]) == failed,
              f"{name}: failed rows not shown as failed: {facts['rounds']}")
        check(sum("best" in r["cls"].split() for r in facts["rounds"]) == 1,
              f"{name}: best not marked exactly once")
        check(len(facts["bars"]) == len(rows), f"{name}: {len(facts['bars'])} bars for "
              f"{len(rows)} rows")
        check(sum("failed" in b for b in facts["bars"]) == failed, f"{name}: failed bars")
        check(facts["convergence"] and ("converged" in facts["convergence"]),
              f"{name}: no convergence verdict")
        check(facts["diff"], f"{name}: no diff (or note) between the best round and the first")
        if expect.get("diff"):
            check(facts["diff_rows"] > 0 and "faster" in facts["diff"],
                  f"{name}: no diff of the best round against the first: {facts['diff']}")
        with_reports = [s for s in facts["scopes"] if s["table_rows"] is not None]
        ok_rows = [r for r in rows if r["status"] != "failed"]
        check(len(with_reports) == len(ok_rows), f"{name}: {len(with_reports)} reports for "
              f"{len(ok_rows)} successful rows")
        for scope in with_reports:
            check_scope(name, scope)
    if expect.get("workload"):
        drawn = [row["kernel"] for row in facts["workload_rows"]]
        check(drawn == expect["workload"], f"{name}: workload rows {drawn} != {expect['workload']}")
        bars = [row["bar"] for row in facts["workload_rows"]]
        check(bars[0] > 0 and bars == sorted(bars, reverse=True),
              f"{name}: the share bars are not drawn longest first: {bars}")
        # The call's launches over time: a lane per kernel, in the table's order, each with
        # busy bins drawn (the fake call's kernels run throughout it).
        lanes = facts["timeline_lanes"]
        check([lane["label"] for lane in lanes] == expect["workload"],
              f"{name}: timeline lanes {[lane['label'] for lane in lanes]} != {expect['workload']}")
        check(all(lane["busy"] > 0 and lane["width"] > 0 for lane in lanes),
              f"{name}: a timeline lane without busy bins: {lanes}")
    if expect.get("truth"):
        check(any(line.startswith("Correct:") for line in facts["truth"]) and
              any(line.startswith("Measured:") for line in facts["truth"]),
              f"{name}: the truth is not shown: {facts['truth']}")
    if expect.get("hot_lines"):
        check(any(s["hot_lines"] for s in facts["scopes"]), f"{name}: no hot lines")
        check(any(s["heat_lines"] for s in facts["scopes"]), f"{name}: no source heat lines")

    light = not_blank(browser.screenshot(), f"{name} (light)")
    pdf = browser.print_pdf()
    check(pdf.startswith(b"%PDF") and len(pdf) > 2000, f"{name}: printing gave no PDF")

    problems = browser.load(url, javascript=True, scheme="dark")
    check(not problems, f"{name} (dark): " + "; ".join(problems))
    dark_facts = browser.evaluate(DOM_FACTS)
    check(dark_facts["body_color"] != facts["body_color"],
          f"{name}: the dark scheme has the light background {facts['body_color']}")
    dark = not_blank(browser.screenshot(), f"{name} (dark)")
    check(light.getpixel((5, 5)) != dark.getpixel((5, 5)), f"{name}: dark looks like light")
    if screenshot_dir:
        light.save(screenshot_dir / f"{name}-light.png")
        dark.save(screenshot_dir / f"{name}-dark.png")

    # Without JavaScript every table is still there (only sorting is lost).
    problems = browser.load(url, javascript=False)
    check(not problems, f"{name} (no JS): " + "; ".join(problems))
    root = browser.send("DOM.getDocument", {"depth": 0})["root"]["nodeId"]
    tables = len(browser.send("DOM.querySelectorAll", {"nodeId": root, "selector": "table"})
                 ["nodeIds"])
    check(tables == facts["tables"], f"{name}: {tables} tables without JS, {facts['tables']} with")
    sortable = browser.send("DOM.querySelectorAll",
                            {"nodeId": root, "selector": "table.sortable th[tabindex]"})["nodeIds"]
    check(not sortable, f"{name}: the script ran although JavaScript was disabled")
    browser.send("Emulation.setScriptExecutionDisabled", {"value": False})
    return facts["tables"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kprof", required=True, help="the built kprof binary")
    parser.add_argument("--keep", help="generate the pages here and keep them")
    parser.add_argument("--screenshot-dir", help="save the screenshots here")
    args = parser.parse_args()
    kprof = str(Path(args.kprof).resolve())
    chromium = ensure_chromium()
    ensure_pil()

    work_holder = None
    if args.keep:
        work = Path(args.keep).resolve()
        work.mkdir(parents=True, exist_ok=True)
    else:
        work_holder = tempfile.TemporaryDirectory(prefix="kprof-browser-")
        work = Path(work_holder.name)
    screenshot_dir = Path(args.screenshot_dir).resolve() if args.screenshot_dir else None
    if screenshot_dir:
        screenshot_dir.mkdir(parents=True, exist_ok=True)

    failures = 0
    try:
        pages = make_pages(kprof, work)
        browser = Browser(chromium, work / "chromium-profile")
        try:
            browser.open_page()
            for name, path, expect in pages:
                try:
                    tables = check_page(browser, name, path, expect, screenshot_dir)
                    print(f"ok   {name}: {path.name}, {tables} tables")
                except Failure as failure:
                    failures += 1
                    print(f"FAIL {name}: {failure}")
        finally:
            browser.close()
    except Failure as failure:
        print(f"FAIL: {failure}")
        failures += 1
    except Exception:  # noqa: BLE001 - report any crash of the test itself as a failure
        traceback.print_exc()
        failures += 1
    finally:
        if work_holder:
            work_holder.cleanup()
    print("browser test: " + ("passed" if failures == 0 else f"{failures} failure(s)"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
