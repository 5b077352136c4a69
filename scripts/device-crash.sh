#!/usr/bin/env bash
# How kprof classifies a profiled program that dies under the real ncu (issue 19, docs/harness.md):
# a kernel_function that raises SIGSEGV and one that calls os._exit(0) inside its call
# (tests/python/cases/segfault, exits_in_call), each profiled once on examples/vadd's problem
# with --retries 0. Prints kprof's exit code, the error's category and message, and the exit code
# ncu gave (from ncu.log's last lines). Builds the CLI first (scripts/device-common.sh).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
# shellcheck source=scripts/device-common.sh
. "$root/scripts/device-common.sh"
note "# profiled programs that die under ncu"
note_environment
build_unless_skipped
work=$(mktemp -d /tmp/kprof-crash.XXXXXX)
for case in segfault exits_in_call; do
  started=$(now)
  timeout 120 "$kprof" profile "tests/python/cases/$case/kernel.py" examples/vadd/problem.py \
    --out "$work/$case" --clock-control none --retries 0 --no-metric-check \
    >"$work/$case.out" 2>"$work/$case.err"
  rc=$?
  note "## $case: kprof exit $rc in $(elapsed "$started" "$(now)") s"
  python3 - "$work/$case/round000/error.json" <<'PY' | tee -a "$summary"
import json, sys
try:
    doc = json.load(open(sys.argv[1]))
except Exception as exc:
    print("- no JSON:", exc); sys.exit()
error = doc.get("error") or {}
print("- category:", error.get("category"))
print("- message:", error.get("message"))
print("- ncu's words:", " | ".join(line for line in (error.get("detail") or "").splitlines()
                                  if line.startswith("==ERROR==")))
PY
  note "- stderr, first line: $(head -1 "$work/$case.err")"
done
note "- left running (expect none): $(pgrep -fc "$work" || true)"
