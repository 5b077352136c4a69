#!/usr/bin/env bash
# `kprof mcp` on the GPU machine (issue 24, docs/mcp.md): one server driven over stdio by
# scripts/device-mcp.py, as an MCP client drives it (profile twice per case, diagnosis, history,
# source and hot_lines, a raising candidate). Builds the CLI first (scripts/device-common.sh;
# SKIP_BUILD=1 reuses build-device/). Env: CASES="vadd softmax". Results: $OUT/summary.md and
# $OUT/mcp.json (every call's text, structuredContent, progress messages and seconds).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
# shellcheck source=scripts/device-common.sh
. "$root/scripts/device-common.sh"
note "# kprof mcp on the GPU"
note_environment
build_unless_skipped
work=$(mktemp -d /tmp/kprof-mcp.XXXXXX)
note ""
timeout 480 python3 scripts/device-mcp.py "$kprof" "$work" "$out/mcp.json" 2>&1 | tee -a "$summary"
note "- stderr of kprof mcp (last lines):"
tail -5 "$work/mcp.stderr" | sed 's/^/    /' | tee -a "$summary"
note "- left running after the server ended (expect none): $(pgrep -fc "$work" || true)"
