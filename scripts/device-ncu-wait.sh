#!/usr/bin/env bash
# Issue 10, third step: two ncu processes on two GPUs (a TMPDIR each) take turns with their
# replay passes. Where does the waiting one wait? Samples the threads of the profiled Python
# processes and of ncu (scripts/device-ncu-wait.py) while they profile kprof's default metric
# set, alone and two at once, and lists what they share (file locks, shared mappings, /dev/shm,
# System V IPC), with the main thread's CPU time per kernel; also beside an unprofiled loop on
# the other GPU. Then tries a HOME and XDG_RUNTIME_DIR per process besides the TMPDIR.
# Needs two GPUs. Results in $OUT/summary.md and $OUT/report.tgz (samples-*, shared-*, ncu output).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/device-common.sh
source "$root/scripts/device-common.sh"
work=$(mktemp -d /tmp/kprof-wait.XXXXXX)
report="$work/report"; mkdir -p "$report"
mkdir -p "$work/h0" "$work/h1" "$work/x0" "$work/x1"; chmod 700 "$work/x0" "$work/x1"
note "# Where a profiled process waits while the other GPU profiles"
note "- date: $(date -u +%Y-%m-%dT%H:%M:%SZ); ncu $(ncu --version | grep -o 'Version [^ ]*')"
note "- gpus: $(nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader | tr '\n' ';')"
note "- driver parameters: $(grep -i -E 'prof|Admin' /proc/driver/nvidia/params 2>/dev/null | tr '\n' ';')"
[ -x "$kprof" ] || build_kprof
metrics=$(default_metrics)
note "- kprof's default set: $(echo "$metrics" | tr ',' '\n' | wc -l) metrics"
start() { # tag gpu env...   (background ncu; its pid in $work/TAG.pid)
  local tag=$1 gpu=$2; shift 2
  mkdir -p "$work/$tag/tmp" "$work/$tag/marks"
  env CUDA_VISIBLE_DEVICES="$gpu" TMPDIR="$work/$tag/tmp" "$@" ncu --clock-control none --nvtx \
    --nvtx-include work/ --metrics "$metrics" --csv --page raw \
    python3 "$root/scripts/device-ncu-workload.py" "${N:-40}" 24 "$work/$tag/marks" >"$work/$tag/out" 2>&1 &
  echo $! >"$work/$tag.pid"
}
procs_of() { # tag: LABEL:PID for every process of that run (ncu's script, ncu, python)
  local d
  for d in /proc/[0-9]*; do
    if tr '\0' ' ' <"$d/cmdline" 2>/dev/null | grep -q -- "$work/$1/marks"; then
      echo "$1-$(cat "$d/comm"):${d#/proc/}"
    fi
  done
}
wait_mark() { for _ in $(seq 600); do [ -e "$work/$1/marks/$2" ] && return 0; sleep 0.05; done; return 1; }
shared_state() { # pid...
  echo "### /proc/locks"; cat /proc/locks
  for p in "$@"; do
    echo "### fds of $p ($(tr '\0' ' ' </proc/$p/cmdline | cut -c1-80))"
    ls -l /proc/$p/fd 2>/dev/null | awk '{print $NF}' | sort | uniq -c
    echo "### shared mappings of $p"
    awk '$2 ~ /s/ || /dev\/shm|SYSV/' /proc/$p/maps | awk '{print $2, $6}' | sort | uniq -c
  done
  echo "### /dev/shm"; ls -la /dev/shm
  echo "### ipcs"; ipcs -a 2>&1
  echo "### unix sockets"; ss -xp 2>&1 | grep -E "python3|ncu" | head -40
}
run_case() { # name tag:gpu[:env...] ...
  local name=$1; shift
  local tags=() pids=() spec
  for spec in "$@"; do
    IFS=: read -r tag gpu extra <<<"$spec"
    # shellcheck disable=SC2086
    start "$tag" "$gpu" ${extra//:/ }
    tags+=("$tag")
  done
  for tag in "${tags[@]}"; do wait_mark "$tag" started || note "- $tag never started"; done
  for tag in "${tags[@]}"; do
    mapfile -t -O "${#pids[@]}" pids < <(procs_of "$tag")
  done
  python3 "$root/scripts/device-ncu-wait.py" "$work/stop-$name" "${pids[@]}" >"$report/samples-$name.txt" &
  local sampler=$!
  sleep 3
  shared_state $(for p in "${pids[@]}"; do echo "${p#*:}"; done) >"$report/shared-$name.txt" 2>&1
  for tag in "${tags[@]}"; do wait_mark "$tag" ended; done
  touch "$work/stop-$name"; wait "$sampler"
  for tag in "${tags[@]}"; do wait "$(cat "$work/$tag.pid")"; done
  for tag in "${tags[@]}"; do note "- $name, $tag: $(grep -o 'LOOP.*' "$work/$tag/out" | head -1)"; done
}
start warm 0; wait "$(cat "$work/warm.pid")"
cases=${CASES:-alone together beside-plain own-home own-home-xdg}
for c in $cases; do
  case $c in
    alone) run_case alone a0:0 ;;
    together) run_case together b0:0 b1:1 ;;
    beside-plain) # GPU 1 runs the same loop without ncu (for about as long) while GPU 0 profiles
      mkdir -p "$work/p1"
      CUDA_VISIBLE_DEVICES=1 python3 "$root/scripts/device-ncu-workload.py" 1000000 24 "$work/p1" \
        >"$work/p1/out" 2>&1 &
      plain=$!
      run_case beside-plain e0:0
      kill "$plain" 2>/dev/null; wait "$plain" 2>/dev/null ;;
    own-home) run_case own-home c0:0:HOME=$work/h0 c1:1:HOME=$work/h1 ;;
    own-home-xdg) run_case own-home-xdg d0:0:HOME=$work/h0:XDG_RUNTIME_DIR=$work/x0 \
      d1:1:HOME=$work/h1:XDG_RUNTIME_DIR=$work/x1 ;;
  esac
done
for tag in "$work"/*/out; do cp "$tag" "$report/ncu-$(basename "$(dirname "$tag")").txt"; done
tar -czf "$out/report.tgz" -C "$work" report
rm -rf "$work"
