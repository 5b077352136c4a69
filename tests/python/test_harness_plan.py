"""The harness's plan module: the plan read, checked and given its defaults."""

import json

import pytest

from harness_helpers import harness

plan_module = harness("plan")


def write(tmp_path, **fields):
    plan = {"version": 1, "problem": "/p/problem.py", "status_file": "/p/status.json",
            "candidates": [{"kernel": "/k/kernel.py", "range": "kprof:cand0"}]}
    plan.update(fields)
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(plan), encoding="utf-8")
    return path


def test_a_minimal_plan_gets_every_default(tmp_path):
    plan = plan_module.read_plan(write(tmp_path))

    assert {key: plan[key] for key in ("warmup", "inputs", "cast", "seed", "first_candidate", "early_primer",
                                       "standby", "profiled_call_lock", "compile_ahead")} == {
        "warmup": 3, "inputs": "gpu", "cast": "none", "seed": 0, "first_candidate": 0, "early_primer": False,
        "standby": None, "profiled_call_lock": None, "compile_ahead": None}


def test_nested_settings_get_their_defaults(tmp_path):
    plan = plan_module.read_plan(write(tmp_path, standby={"fifo": "/f"}, profiled_call_lock={"path": "/l"},
                                       compile_ahead={"dir": "/d"}))

    assert plan["standby"] == {"fifo": "/f", "idle_seconds": 600, "defer_inputs": False, "primer": False,
                               "gpu_lock": None}
    assert plan["profiled_call_lock"]["max_wait_seconds"] == 30
    assert plan["compile_ahead"]["max_wait_seconds"] == plan_module.COMPILE_MAX_WAIT_SECONDS == 30.0


@pytest.mark.parametrize("field, value, message", [
    ("warmup", -1, "plan field 'warmup' must be a non-negative integer"),
    ("seed", True, "plan field 'seed' must be a non-negative integer"),
    ("inputs", "tpu", "plan field 'inputs' must be gpu or cpu"),
    ("cast", "int8", "plan field 'cast' must be none, auto, bf16, fp16 or fp32"),
    ("problem", "", "plan field 'problem' must be a non-empty string"),
    ("candidates", [{"kernel": "/k.py"}], "plan field 'candidates' must be objects with non-empty strings"),
    ("standby", {"fifo": "/f", "idle_seconds": 0}, "plan field 'standby.idle_seconds' must be a positive number"),
    ("profiled_call_lock", {"path": ""}, "plan field 'profiled_call_lock' must be null or an object"),
    ("compile_ahead", {"dir": "/d", "max_wait_seconds": -1},
     "plan field 'compile_ahead.max_wait_seconds' must be a non-negative number"),
    ("early_primer", 1, "plan field 'early_primer' must be true or false"),
])
def test_a_field_that_breaks_its_rule_is_named_in_the_error(tmp_path, field, value, message):
    with pytest.raises(plan_module.PlanError) as raised:
        plan_module.read_plan(write(tmp_path, **{field: value}))

    assert str(raised.value).startswith(message)


def test_an_unreadable_or_foreign_plan_is_a_plan_error(tmp_path):
    (tmp_path / "bad.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(plan_module.PlanError, match="cannot read plan"):
        plan_module.read_plan(tmp_path / "bad.json")
    with pytest.raises(plan_module.PlanError, match="cannot read plan"):
        plan_module.read_plan(tmp_path / "missing.json")
    with pytest.raises(plan_module.PlanError, match="not a version 1 kprof harness plan"):
        plan_module.read_plan(write(tmp_path, version=2))
