"""The plan: the JSON file kprof writes beside the harness (docs/harness.md, "The plan"), read and
checked once, its defaults filled in. A plan that breaks a rule raises PlanError (exit 2, no
status). The checks of the candidates and of compile_ahead are also those of a standby's message
(standby.wait_for_candidates)."""

import json

PLAN_VERSION = 1
# The cast words besides "none" and "auto", and the torch dtype each names.
CAST_DTYPES = {"bf16": "bfloat16", "fp16": "float16", "fp32": "float32"}
COMPILE_MAX_WAIT_SECONDS = 30.0  # the plan's compile_ahead.max_wait_seconds when it gives none


class PlanError(Exception):
    """The plan file cannot be read or is not a kprof harness plan."""


def read_plan(path):
    try:
        with open(path, "r", encoding="utf-8") as f:
            plan = json.load(f)
    except (OSError, ValueError) as exc:
        raise PlanError("cannot read plan: %s" % exc)
    if not isinstance(plan, dict) or plan.get("version") != PLAN_VERSION:
        raise PlanError("not a version %d kprof harness plan" % PLAN_VERSION)
    plan.setdefault("warmup", 3)
    plan.setdefault("inputs", "gpu")
    plan.setdefault("cast", "none")
    plan.setdefault("seed", 0)
    plan.setdefault("first_candidate", 0)
    require(isinstance(plan.setdefault("early_primer", False), bool), "early_primer", "true or false")
    for key in ("problem", "status_file"):
        require(isinstance(plan.get(key), str) and plan[key] != "", key, "a non-empty string")
    for key in ("warmup", "seed", "first_candidate"):
        value = plan[key]
        ok = isinstance(value, int) and not isinstance(value, bool) and value >= 0
        require(ok, key, "a non-negative integer")
    require(plan["inputs"] in ("gpu", "cpu"), "inputs", "gpu or cpu")
    require(plan["cast"] in ("none", "auto") or plan["cast"] in CAST_DTYPES, "cast",
            "none, auto, bf16, fp16 or fp32")
    check_candidates(plan)
    check_standby(plan)
    lock = plan.setdefault("profiled_call_lock", None)
    if lock is not None:
        ok = isinstance(lock, dict) and isinstance(lock.get("path"), str) and lock["path"] != ""
        require(ok, "profiled_call_lock", "null or an object with a non-empty string path")
        wait = lock.setdefault("max_wait_seconds", 30)
        ok = isinstance(wait, (int, float)) and not isinstance(wait, bool) and wait >= 0
        require(ok, "profiled_call_lock.max_wait_seconds", "a non-negative number")
    check_compile_ahead(plan)
    check_timeline_gate(plan)
    # Its keys are checked by truth.plan_truth, when the problem is loaded (a problem error).
    require(plan.setdefault("truth", None) is None or isinstance(plan["truth"], dict), "truth",
            "null or an object")
    return plan


def check_standby(plan):
    standby = plan.setdefault("standby", None)
    if standby is None:
        return
    ok = isinstance(standby, dict) and isinstance(standby.get("fifo"), str) and standby["fifo"] != ""
    require(ok, "standby", "null or an object with a non-empty string fifo")
    idle = standby.setdefault("idle_seconds", 600)
    ok = isinstance(idle, (int, float)) and not isinstance(idle, bool) and idle > 0
    require(ok, "standby.idle_seconds", "a positive number")
    defer = standby.setdefault("defer_inputs", False)
    require(isinstance(defer, bool), "standby.defer_inputs", "true or false")
    primer = standby.setdefault("primer", False)
    require(isinstance(primer, bool), "standby.primer", "true or false")
    gpu_lock = standby.setdefault("gpu_lock", None)
    ok = gpu_lock is None or (isinstance(gpu_lock, str) and gpu_lock != "")
    require(ok, "standby.gpu_lock", "null or a non-empty string")


def check_compile_ahead(plan):
    ahead = plan.setdefault("compile_ahead", None)
    ok = ahead is None or (isinstance(ahead, dict) and isinstance(ahead.get("dir"), str)
                           and ahead["dir"] != "")
    require(ok, "compile_ahead", "null or an object with a non-empty string dir")
    if ahead is not None:
        wait = ahead.setdefault("max_wait_seconds", COMPILE_MAX_WAIT_SECONDS)
        ok = isinstance(wait, (int, float)) and not isinstance(wait, bool) and wait >= 0
        require(ok, "compile_ahead.max_wait_seconds", "a non-negative number")


def check_candidates(plan):
    require(isinstance(plan.get("candidates"), list), "candidates", "a list")
    for candidate in plan["candidates"]:
        ok = isinstance(candidate, dict) and all(
            isinstance(candidate.get(key), str) and candidate[key] != "" for key in ("kernel", "range"))
        require(ok, "candidates", "objects with non-empty strings kernel and range")


def require(condition, key, expected):
    if not condition:
        raise PlanError("plan field %r must be %s" % (key, expected))


def check_timeline_gate(plan):
    gate = plan.setdefault("timeline_gate", None)
    ok = gate is None or (isinstance(gate, dict) and isinstance(gate.get("path"), str) and gate["path"] != "")
    require(ok, "timeline_gate", "null or an object with a non-empty string path")
    if gate is not None:
        wait = gate.setdefault("max_wait_seconds", 120)
        ok = isinstance(wait, (int, float)) and not isinstance(wait, bool) and wait >= 0
        require(ok, "timeline_gate.max_wait_seconds", "a non-negative number")
