#!/usr/bin/env bash
# kprof serve and --cast auto on a GPU machine (docs/standby.md, docs/harness.md). Builds kprof
# and its Python module into build-device/ (scripts/device-common.sh), then:
#   1. kprof serve examples/softmax/problem.py in the background; kprof profile twice against it
#      (expect "answered by kprof serve" and the standby in the report), once with other options
#      (expect a refusal and a cold run), then the server stops on SIGINT and leaves nothing;
#   2. examples/bf16_vadd (float32 inputs, a kernel that takes only bfloat16): --cast none fails
#      with the kernel's TypeError, --cast auto profiles it and records why.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
# shellcheck source=scripts/device-common.sh
. "$root/scripts/device-common.sh"
note "# kprof serve and --cast auto on the GPU"
note_environment
build_kprof python
work=$(mktemp -d /tmp/kprof-serve.XXXXXX)
dir="$work/out"
k=examples/softmax/kernel.py; p=examples/softmax/problem.py

note ""
note "## 1. kprof serve"
t0=$(now)
"$kprof" serve "$p" --out "$dir" --clock-control none --idle-timeout 120 2>"$out/serve.err" &
server=$!
for _ in $(seq 1 300); do [ -S "$dir/.kprof-serve.sock" ] && break; sleep 0.1; done
note "- socket after $(elapsed "$t0" "$(now)") s"
sleep 8  # the agent's model time: the standby gets ready meanwhile
for r in 1 2; do
  t0=$(now)
  "$kprof" profile "$k" "$p" --out "$dir" --round "$r" --clock-control none --format json \
    >"$out/serve-round$r.json" 2>"$out/serve-round$r.err"
  rc=$?
  note "- round $r: rc=$rc in $(elapsed "$t0" "$(now)") s; stderr: $(tr '\n' ' ' <"$out/serve-round$r.err"); standby: $(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['metadata'].get('standby'))" "$out/serve-round$r.json" 2>&1)"
  sleep 8
done
t0=$(now)
"$kprof" profile "$k" "$p" --out "$dir" --round 3 --clock-control none --warmup 1 --format json \
  >"$out/serve-round3.json" 2>"$out/serve-round3.err"
note "- round 3 with --warmup 1: rc=$? in $(elapsed "$t0" "$(now)") s; stderr: $(tr '\n' ' ' <"$out/serve-round3.err" | cut -c1-300)"
kill -INT "$server"; wait "$server"
note "- server exit: $?; its log:"
sed 's/^/    /' "$out/serve.err" | tee -a "$summary"
sleep 1
note "- left running (expect 0): $(pgrep -fc "$dir" || true); socket left: $([ -e "$dir/.kprof-serve.sock" ] && echo yes || echo no); standby dirs left: $(ls "$dir/.standby" 2>/dev/null | wc -l)"

note ""
note "## 2. --cast on examples/bf16_vadd (float32 inputs, a bfloat16-only kernel)"
for cast in none auto; do
  t0=$(now)
  "$kprof" profile examples/bf16_vadd/kernel.py examples/bf16_vadd/problem.py --out "$work/cast-$cast" \
    --round 1 --clock-control none --cast "$cast" --format json >"$out/cast-$cast.json" 2>"$out/cast-$cast.err"
  rc=$?
  note "- --cast $cast: rc=$rc in $(elapsed "$t0" "$(now)") s; stderr: $(tail -2 "$out/cast-$cast.err" | tr '\n' ' ' | cut -c1-300)"
  python3 - "$out/cast-$cast.json" "$work/cast-$cast/round001" <<'PY' 2>&1 | tee -a "$summary"
import json, os, sys
path = sys.argv[1] if os.path.getsize(sys.argv[1]) else os.path.join(sys.argv[2], "error.json")
doc = json.load(open(path))
md = doc["metadata"]
print(f"  - cast {md.get('cast')}, applied {md.get('cast_applied')}: {md.get('cast_reason')}")
for k in doc.get("kernels", []):
    m = k["metrics"]
    print(f"  - {k['name']}: {m['gpu__time_duration.sum']['value']} ns, DRAM read {m['dram__bytes_read.sum']['value']} bytes")
if doc.get("error"):
    print(f"  - error: {doc['error']['category']}: {doc['error']['message'][:160]}")
PY
done
note ""
note "## 3. the same agent loop cold (scripts/device-standby.py, MODES=cold), for comparison"
PYTHONPATH="$build/python" MODES=cold CASES="${COLD_CASES:-softmax matmul}" THINK=2 KPROF_CLOCK=none \
  timeout 300 python3 scripts/device-standby.py "$work/cold" 2>&1 | grep -v '^INFO' | tee -a "$summary"
note ""
note "done"
