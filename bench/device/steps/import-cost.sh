#!/usr/bin/env bash
# Issue 22: what a harness's setup is made of on this host, without ncu: `import torch` alone,
# `import triton` alone, triton_key() after it, and the two ways the harness could pay the key
# with torch's import: one after the other, or in a thread beside the import (TritonKey, what
# the harness does); and a CUDA context after torch. Each figure is one new process; REPS=3
# rounds unless set, each mode once per round in turn, so that a slow spell of the host shows in
# every column. No kprof build needed. Results in $OUT/summary.md.
set -uo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root"
# shellcheck source=bench/device/common.sh
. "$root/bench/device/common.sh"
note "# A harness's setup, part by part, plainly (issue 22)"
note_environment
note "- host: $(nproc) CPUs, $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1)"
work=$(mktemp -d /tmp/kprof-import-cost.XXXXXX)
cat >"$work/imports.py" <<'PY'
import sys
import threading
import time

started = time.perf_counter()
mode = sys.argv[1]


def since():
    return time.perf_counter() - started


def key():
    from triton.runtime.cache import triton_key

    begun = time.perf_counter()
    triton_key()
    return time.perf_counter() - begun


if mode == "torch":
    import torch  # noqa: F401
    print("import torch %.2f" % since())
elif mode == "triton":
    import triton  # noqa: F401
    print("import triton %.2f" % since())
elif mode == "key":
    import triton  # noqa: F401,F811
    imported = since()
    print("import triton %.2f, then triton_key() %.2f" % (imported, key()))
elif mode == "after":
    import triton  # noqa: F401,F811
    imported = since()
    seconds = key()
    import torch  # noqa: F401,F811
    print("import triton %.2f, triton_key() %.2f, import torch after it: all %.2f"
          % (imported, seconds, since()))
elif mode == "beside":
    import triton  # noqa: F401,F811
    imported = since()
    result = {}
    thread = threading.Thread(target=lambda: result.setdefault("key", key()))
    thread.start()
    import torch  # noqa: F401,F811
    torch_done = since()
    thread.join()
    print("import triton %.2f, torch imported at %.2f, triton_key() in its thread %.2f: all %.2f"
          % (imported, torch_done, result["key"], since()))
elif mode == "context":
    import torch  # noqa: F811
    imported = since()
    torch.zeros(1, device="cuda")
    torch.cuda.synchronize()
    print("import torch %.2f, then a CUDA context %.2f" % (imported, since() - imported))
PY
note ""
note "| round | mode | what the process printed | its wall (s) |"
note "|---|---|---|---|"
for round in $(seq 1 "${REPS:-3}"); do
  for mode in torch triton key after beside context; do
    begun=$(now)
    printed=$(timeout 120 python3 "$work/imports.py" "$mode" 2>&1 | tail -1)
    note "| $round | $mode | $printed | $(elapsed "$begun" "$(now)") |"
  done
done
rm -rf "$work"
