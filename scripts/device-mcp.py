"""`kprof mcp` on a GPU machine (issue 24), driven the way an MCP client drives it: newline-
delimited JSON-RPC 2.0 on the server's stdin and stdout (scripts/device-mcp.sh runs it).

One server for the whole run: initialize (protocol 2025-06-18), tools/list, then per case of
CASES (examples/<case>/) `profile` round 1 and round 2 with a progress token (the second is the
agent loop's next candidate: answered by the standby the server keeps), `diagnosis` and
`hot_lines` of round 2, `history` of the run; then `profile` with `source: true` (hot lines), and a
candidate that raises (a tool result with isError). Checks that every stdout line is JSON-RPC,
times each call and writes everything to JSON_OUT; prints one line per call.
Usage: python3 scripts/device-mcp.py KPROF WORK JSON_OUT
"""
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

root = Path(__file__).resolve().parent.parent
kprof, work, json_out = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
cases = os.environ.get("CASES", "vadd softmax").split()
work.mkdir(parents=True, exist_ok=True)

server = subprocess.Popen([kprof, "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          stderr=open(work / "mcp.stderr", "w"), text=True, bufsize=1)
lines = []          # every stdout line, parsed
bad_lines = []      # stdout lines that are not JSON-RPC 2.0
answers = {}
cond = threading.Condition()


def reader():
    for line in server.stdout:
        try:
            message = json.loads(line)
            ok = message.get("jsonrpc") == "2.0"
        except ValueError:
            ok = False
        if not ok:
            bad_lines.append(line[:200])
            continue
        with cond:
            lines.append(message)
            if "id" in message and ("result" in message or "error" in message):
                answers[message["id"]] = message
                cond.notify_all()


threading.Thread(target=reader, daemon=True).start()
next_id = [0]


def call(method, params=None, timeout=300):
    next_id[0] += 1
    ident = next_id[0]
    server.stdin.write(json.dumps({"jsonrpc": "2.0", "id": ident, "method": method,
                                   "params": params or {}}) + "\n")
    server.stdin.flush()
    with cond:
        cond.wait_for(lambda: ident in answers, timeout=timeout)
        return answers.get(ident)


results = {"calls": [], "bad_stdout_lines": bad_lines}


def tool(name, arguments, label, progress=False):
    params = {"name": name, "arguments": arguments}
    if progress:
        params["_meta"] = {"progressToken": label}
    started = time.perf_counter()
    answer = call("tools/call", params)
    seconds = round(time.perf_counter() - started, 2)
    result = (answer or {}).get("result", {})
    text = "".join(c.get("text", "") for c in result.get("content", []) if c.get("type") == "text")
    structured = result.get("structuredContent") or {}
    progress_lines = [m["params"].get("message", "") for m in lines
                      if m.get("method") == "notifications/progress"
                      and m.get("params", {}).get("progressToken") == label]
    entry = {"label": label, "tool": name, "seconds": seconds, "is_error": result.get("isError"),
             "text": text, "structured": structured, "progress": progress_lines,
             "rpc_error": (answer or {}).get("error")}
    results["calls"].append(entry)
    candidates = structured.get("candidates") or [{}]
    print(f"{label}: {name} {seconds} s isError={result.get('isError')} "
          f"served_by={structured.get('served_by')} standby={candidates[0].get('standby')} "
          f"progress={len(progress_lines)} first_line={text.splitlines()[0] if text else ''!r}")
    return entry


init = call("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                           "clientInfo": {"name": "device-mcp", "version": "1"}})
results["initialize"] = init
server.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
server.stdin.flush()
listed = call("tools/list")
results["tools"] = [t["name"] for t in listed["result"]["tools"]]
print("tools:", " ".join(results["tools"]))

for case in cases:
    kernel = str(root / "examples" / case / "kernel.py")
    problem = str(root / "examples" / case / "problem.py")
    out = str(work / case)
    base = {"kernel_file": kernel, "problem_file": problem, "out_dir": out, "clock_control": "none"}
    tool("profile", {**base, "round": 1}, f"{case}-r1", progress=True)
    tool("profile", {**base, "round": 2}, f"{case}-r2", progress=True)
    tool("diagnosis", {"dir": out, "round": 2}, f"{case}-diagnosis")
    tool("history", {"dir": out}, f"{case}-history")

case = cases[0]
source_out = str(work / f"{case}-source")
tool("profile", {"kernel_file": str(root / "examples" / case / "kernel.py"),
                 "problem_file": str(root / "examples" / case / "problem.py"),
                 "out_dir": source_out, "clock_control": "none", "source": True}, f"{case}-source")
tool("hot_lines", {"dir": source_out, "round": 0}, f"{case}-hot-lines")
tool("profile", {"kernel_file": str(root / "examples" / "failures" / "raises.py"),
                 "problem_file": str(root / "examples" / case / "problem.py"),
                 "out_dir": str(work / "raises"), "clock_control": "none", "retries": 0}, "raises")

server.stdin.close()
try:
    results["exit_code"] = server.wait(timeout=60)
except subprocess.TimeoutExpired:
    server.kill()
    results["exit_code"] = "killed after 60 s"
print("bad stdout lines:", len(bad_lines), "exit:", results["exit_code"])
json_out.write_text(json.dumps(results, indent=1), encoding="utf-8")
