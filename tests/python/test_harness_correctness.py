"""templates/kprof_harness/correctness.py against the fake torch, whose small tensors hold values."""

import math

import pytest

from harness_helpers import fake_torch, harness  # noqa: F401  (fixture)

correctness = harness("correctness")


@pytest.fixture
def tolerances():
    return correctness.tolerances_of(None)


def test_equal_outputs_pass(fake_torch, tolerances):
    ref = fake_torch.tensor([1.0, 2.0, 3.0])
    result = correctness.check(fake_torch, ref, fake_torch.tensor([1.0, 2.0, 3.0]), tolerances)
    assert result["verdict"] == "pass" and result["reason"] is None
    assert result["max_abs_error"] == 0.0 and result["mismatches"] == 0


def test_errors_within_the_dtype_tolerance_pass_and_are_measured(fake_torch, tolerances):
    ref = fake_torch.tensor([1.0, 2.0, 4.0])
    result = correctness.check(fake_torch, ref, fake_torch.tensor([1.005, 2.0, 4.02]), tolerances)
    assert result["verdict"] == "pass"
    assert result["max_abs_error"] == pytest.approx(0.02)
    assert result["max_rel_error"] == pytest.approx(0.005)
    assert result["outputs"][0]["atol"] == 1e-2 and result["outputs"][0]["rtol"] == 1e-2


def test_a_wrong_element_fails_with_the_count_and_the_error(fake_torch, tolerances):
    ref = fake_torch.tensor([1.0, 2.0, 3.0, 4.0])
    result = correctness.check(fake_torch, ref, fake_torch.tensor([1.0, 2.0, 3.0, 5.0]), tolerances)
    assert result["verdict"] == "fail" and result["mismatches"] == 1
    assert result["max_abs_error"] == pytest.approx(1.0)
    assert result["reason"].startswith("1 of 4 elements differ by more than atol 0.01 + rtol 0.01")


def test_nan_where_the_reference_has_none_fails_and_nan_where_it_has_one_passes(fake_torch, tolerances):
    ref = fake_torch.tensor([1.0, math.nan, 3.0])
    same = correctness.check(fake_torch, ref, fake_torch.tensor([1.0, math.nan, 3.0]), tolerances)
    assert same["verdict"] == "pass"
    bad = correctness.check(fake_torch, fake_torch.tensor([1.0, 2.0, 3.0]),
                            fake_torch.tensor([math.nan, 2.0, 3.0]), tolerances)
    assert bad["verdict"] == "fail" and bad["nan"] == 1
    assert bad["reason"] == "1 NaN where the reference has none"


def test_inf_where_the_reference_has_none_fails(fake_torch, tolerances):
    bad = correctness.check(fake_torch, fake_torch.tensor([1.0, 2.0]), fake_torch.tensor([1.0, math.inf]),
                            tolerances)
    assert bad["verdict"] == "fail" and bad["inf"] == 1 and bad["mismatches"] == 1


def test_a_shape_mismatch_fails_before_any_arithmetic(fake_torch, tolerances):
    result = correctness.check(fake_torch, fake_torch.zeros(4, 8), fake_torch.zeros(8, 4), tolerances)
    assert result["verdict"] == "fail"
    assert result["reason"] == "shape [8, 4], the reference's [4, 8]"
    assert result["max_abs_error"] is None


def test_a_dtype_mismatch_fails(fake_torch, tolerances):
    result = correctness.check(fake_torch, fake_torch.zeros(4), fake_torch.zeros(4, dtype=fake_torch.float16),
                               tolerances)
    assert result["reason"] == "dtype float16, the reference's float32"


def test_outputs_are_compared_pair_by_pair_and_counted(fake_torch, tolerances):
    ref = (fake_torch.tensor([1.0]), fake_torch.tensor([2.0]))
    assert correctness.check(fake_torch, ref, [fake_torch.tensor([1.0]), fake_torch.tensor([2.0])],
                             tolerances)["verdict"] == "pass"
    wrong = correctness.check(fake_torch, ref, (fake_torch.tensor([1.0]), fake_torch.tensor([9.0])), tolerances)
    assert wrong["reason"].startswith("output 1: 1 of 1 elements differ")
    assert correctness.check(fake_torch, ref, fake_torch.tensor([1.0]), tolerances)["reason"] == \
        "1 outputs, the reference 2"
    assert correctness.check(fake_torch, fake_torch.tensor([1.0]), None, tolerances)["reason"] == \
        "a NoneType where the reference returns a Tensor"


def test_integer_outputs_must_match_exactly(fake_torch, tolerances):
    ref = fake_torch.tensor([1, 2, 3])
    assert correctness.check(fake_torch, ref, fake_torch.tensor([1, 2, 3]), tolerances)["verdict"] == "pass"
    assert correctness.check(fake_torch, ref, fake_torch.tensor([1, 2, 4]), tolerances)["mismatches"] == 1


def test_large_constant_tensors_compare_without_materialising(fake_torch, tolerances):
    ref = fake_torch.zeros(4096, 4096)
    result = correctness.check(fake_torch, ref, fake_torch.zeros(4096, 4096).fill_(0.5), tolerances)
    assert result["mismatches"] == 4096 * 4096 and result["max_abs_error"] == pytest.approx(0.5)


def test_documented_defaults_and_overrides():
    defaults = correctness.tolerances_of(None)
    assert defaults["float32"] == (1e-2, 1e-2) and defaults["bfloat16"] == (2e-2, 2e-2)
    assert defaults["float16"] == (1e-2, 1e-2) and defaults["float64"] == (1e-6, 1e-6)
    changed = correctness.tolerances_of({"all": {"atol": 1e-3}, "bfloat16": {"rtol": 5e-2}})
    assert changed["float32"] == (1e-3, 1e-2)
    assert changed["bfloat16"] == (1e-3, 5e-2)
    with pytest.raises(ValueError, match="float32.atol"):
        correctness.tolerances_of({"float32": {"atol": -1}})
    with pytest.raises(ValueError, match="atol and/or rtol"):
        correctness.tolerances_of({"float32": {"eps": 1}})
