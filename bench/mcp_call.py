#!/usr/bin/env python3
"""mcp_call.py KPROF TOOL ARGUMENTS_JSON [N [SERVER_OPTIONS...]]: drives `KPROF mcp` over stdio as
an agent would (initialize, notifications/initialized, then N tools/call of TOOL sent at once),
prints each answer's first text line and closes stdin. For measuring the server's peak memory
and time on big captures (docs/mcp.md, "Big captures"):

  /usr/bin/time -v bench/mcp_call.py build/kprof report '{"path": "/tmp/big.csv"}'
  /usr/bin/time -v bench/mcp_call.py build/kprof report '{"path": "/tmp/big.csv"}' 16 --read-slots 16
"""
import json
import subprocess
import sys
import time


def main() -> int:
    kprof, tool, arguments = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
    calls = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    server = subprocess.Popen([kprof, "mcp"] + sys.argv[5:], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE)

    def send(message):
        server.stdin.write((json.dumps(message) + "\n").encode())
        server.stdin.flush()

    send({"jsonrpc": "2.0", "id": 0, "method": "initialize",
          "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                     "clientInfo": {"name": "mcp_call", "version": "1"}}})
    server.stdout.readline()
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    start = time.time()
    for i in range(calls):
        send({"jsonrpc": "2.0", "id": i + 1, "method": "tools/call",
              "params": {"name": tool, "arguments": arguments}})
    left = calls
    while left:
        line = server.stdout.readline()
        if not line:
            print("the server ended before answering")
            break
        message = json.loads(line)
        if "id" not in message:
            continue
        left -= 1
        result = message.get("result")
        text = result["content"][0]["text"] if result else json.dumps(message.get("error"))
        first = text.splitlines()[0] if text else ""
        print(f"id {message['id']}: isError {result.get('isError') if result else None}: {first}")
    print(f"{calls} call(s) answered in {time.time() - start:.1f} s")
    server.stdin.close()
    code = server.wait()
    print(f"kprof mcp exited {code}")
    return 0 if code == 0 and left == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
