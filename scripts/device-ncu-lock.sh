#!/usr/bin/env bash
# Issue 10: what serializes two ncu processes profiling on two different GPUs of one host?
# A plain torch workload (40 elementwise kernels, each synchronized, inside an NVTX range) is
# profiled by ncu alone on GPU 0, then on GPUs 0 and 1 at once: with one TMPDIR, with a TMPDIR
# per process, and with a private /tmp per process (unshare -m, when allowed). Also looks for
# ncu's lock files (strings in ncu's libraries, strace of one run, new files under /tmp).
# Needs a machine with two GPUs. Results in $OUT/summary.md.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/device-common.sh
. "$root/scripts/device-common.sh"
work=$(mktemp -d /tmp/kprof-lock.XXXXXX)
ncu_bin=$(command -v ncu)
note "# What serializes two ncu processes"
note "- date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
note "- gpus: $(nvidia-smi --query-gpu=index,name --format=csv,noheader 2>/dev/null | tr '\n' ';')"
note "- ncu: $("$ncu_bin" --version 2>/dev/null | grep -o 'Version [^ ]*') at $ncu_bin"
cat >"$work/w.py" <<'PY'
import sys, time, torch
n = int(sys.argv[1]) if len(sys.argv) > 1 else 40
x = torch.randn(1 << 24, device="cuda")
torch.cuda.synchronize()
torch.cuda.nvtx.range_push("work")
t0 = time.time()
for _ in range(n):
    y = x * 2.0
    torch.cuda.synchronize()
t1 = time.time()
torch.cuda.nvtx.range_pop()
print(f"LOOP {t1 - t0:.3f} s for {n} profiled kernels ({(t1 - t0) / n * 1000:.1f} ms each) start {t0:.3f} end {t1:.3f}")
PY
ncu_args=(--clock-control none --nvtx --nvtx-include "work/" --metrics gpu__time_duration.sum,dram__bytes_read.sum --csv --page raw)
one() { # gpu tag [prefix...]
  local gpu=$1 tag=$2; shift 2
  local t0; t0=$(date +%s.%N)
  CUDA_VISIBLE_DEVICES=$gpu "$@" "$ncu_bin" "${ncu_args[@]}" python3 "$work/w.py" 40 >"$work/$tag.csv" 2>"$work/$tag.err"
  local rc=$? t1; t1=$(date +%s.%N)
  echo "$tag: rc=$rc wall $(python3 -c "print(f'{$t1-$t0:.2f}')") s; $(grep -ho 'LOOP.*' "$work/$tag.csv" "$work/$tag.err" | head -1)"
}
note ""
note "## strings in ncu's files that name a lock"
ncu_dir=$(dirname "$(readlink -f "$ncu_bin")")
for f in $(find "$ncu_dir" -name '*.so*' -o -name 'ncu' -type f 2>/dev/null | head -80); do
  s=$(strings -n 6 "$f" 2>/dev/null | grep -i -E 'nsight-compute-lock|compute.*lock|lockfile|lock_file|LOCK_PATH|NV_.*LOCK|TMPDIR' | sort -u | head -8)
  [ -n "$s" ] && { note "- $f:"; echo "$s" | sed 's/^/    /' | tee -a "$summary"; }
done
note ""
note "## one run alone (warm-up, then timed)"
one 0 warm >/dev/null
touch "$work/marker"; sleep 1
note "- $(one 0 alone0)"
note "- $(one 1 alone1)"
note "- files under /tmp, /dev/shm, /var/tmp, /run newer than the run's start:"
find /tmp /dev/shm /var/tmp /run -newer "$work/marker" -maxdepth 3 2>/dev/null | grep -v "$work" | head -20 | sed 's/^/    /' | tee -a "$summary"
ls -la /tmp | grep -i -E 'nsight|ncu|lock' | sed 's/^/    /' | tee -a "$summary"
if command -v strace >/dev/null; then
  strace -f -e trace=openat,flock,fcntl -o "$work/strace.log" bash -c "CUDA_VISIBLE_DEVICES=0 $ncu_bin ${ncu_args[*]} python3 $work/w.py 5 >/dev/null 2>&1"
  note "- strace: lock calls and lock-named files:"
  grep -E 'flock\(|F_SETLK|F_SETLKW|F_OFD_SETLK|lock' "$work/strace.log" | grep -v ENOENT | head -25 | sed 's/^/    /' | tee -a "$summary"
else
  note "- strace: not installed"
fi
note ""
note "## two at once, GPU 0 and GPU 1"
for setting in same-tmp own-tmpdir; do
  if [ "$setting" = same-tmp ]; then p0=(); p1=(); else
    mkdir -p "$work/t0" "$work/t1"; p0=(env TMPDIR="$work/t0"); p1=(env TMPDIR="$work/t1"); fi
  one 0 "${setting}-g0" "${p0[@]}" >"$work/r0" & one 1 "${setting}-g1" "${p1[@]}" >"$work/r1" & wait
  note "- $setting: $(cat "$work/r0")"
  note "- $setting: $(cat "$work/r1")"
  [ "$setting" = own-tmpdir ] && { note "  files in the TMPDIRs:"; ls -la "$work/t0" "$work/t1" | sed 's/^/    /' | tee -a "$summary"; }
done
if unshare -m --propagation private true 2>/dev/null; then
  cat >"$work/private.sh" <<'SH'
mount -t tmpfs tmpfs /tmp && exec "$@"
SH
  one 0 priv-g0 unshare -m --propagation private bash "$work/private.sh" >"$work/r0" &
  one 1 priv-g1 unshare -m --propagation private bash "$work/private.sh" >"$work/r1" & wait
  note "- private /tmp each: $(cat "$work/r0")"
  note "- private /tmp each: $(cat "$work/r1")"
  one 0 priv1-g0 unshare -m --propagation private bash "$work/private.sh" >"$work/r0" &
  one 1 priv1-g1 >"$work/r1" & wait
  note "- private /tmp for GPU 0 only: $(cat "$work/r0")"
  note "- private /tmp for GPU 0 only: $(cat "$work/r1")"
else
  note "- unshare -m: not allowed here"
fi
note ""
note "## one ncu over two processes (--target-processes all), one per GPU"
cat >"$work/two.sh" <<SH
CUDA_VISIBLE_DEVICES=0 python3 $work/w.py 40 & CUDA_VISIBLE_DEVICES=1 python3 $work/w.py 40 & wait
SH
t0=$(date +%s.%N)
"$ncu_bin" "${ncu_args[@]}" --target-processes all bash "$work/two.sh" >"$work/both.csv" 2>"$work/both.err"
t1=$(date +%s.%N)
note "- one ncu, two processes: wall $(python3 -c "print(f'{$t1-$t0:.2f}')") s"
grep -ho 'LOOP.*' "$work/both.csv" "$work/both.err" | sed 's/^/    /' | tee -a "$summary"

tar -czf "$out/errs.tgz" -C "$work" $(cd "$work" && ls *.err strace.log 2>/dev/null) 2>/dev/null
rm -rf "$work"
