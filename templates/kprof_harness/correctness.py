"""A candidate's outputs against the reference's (Model(*get_init_inputs()) on the
same inputs).

Self-contained (standard library only; torch is passed in), testable with the fake torch. The
comparison runs on the GPU with torch's own operations; only counts and maxima come back.

check(torch, reference, candidate, tolerances) flattens both outputs (a tensor, or a tuple/list
of them, nested) and compares them pair by pair: the count of outputs, each one's shape and
dtype, NaN and Inf in the candidate where the reference has none, the largest absolute and
relative error, and how many elements are outside atol + rtol * |reference| (torch.allclose's
rule; NaN matches NaN and an infinity the same infinity). The verdict is "pass" or "fail", with
the first reason it failed in words.
"""

# Per-dtype (atol, rtol), by torch dtype name. float32's is KernelBench's 1e-2 (which admits a
# TF32 matmul: Triton's tl.dot on float32 uses TF32 by default); bfloat16 has an 8-bit
# significand (epsilon 2^-7 = 7.8e-3), float16 an 11-bit one (2^-10 = 9.8e-4).
DEFAULT_TOLERANCES = {
    "float64": (1e-6, 1e-6),
    "float32": (1e-2, 1e-2),
    "float16": (1e-2, 1e-2),
    "bfloat16": (2e-2, 2e-2),
}
# dtypes without an entry (integers, bool) must match exactly.
EXACT = (0.0, 0.0)


def tolerances_of(plan_tolerances):
    """The per-dtype tolerances: the defaults, with the plan's {"float32": {"atol": a, "rtol": r},
    ...} (or {"all": ...}, applied to every floating dtype first) in place. Raises ValueError."""
    merged = dict(DEFAULT_TOLERANCES)
    given = dict(plan_tolerances or {})
    for name in sorted(given, key=lambda key: key != "all"):
        value = given[name]
        if not isinstance(value, dict) or set(value) - {"atol", "rtol"}:
            raise ValueError("tolerance %r must be an object with atol and/or rtol" % name)
        for key in ("atol", "rtol"):
            number = value.get(key)
            if number is not None and (isinstance(number, bool) or not isinstance(number, (int, float))
                                       or not number >= 0):
                raise ValueError("tolerance %s.%s must be a number >= 0" % (name, key))
        targets = list(DEFAULT_TOLERANCES) if name == "all" else [name]
        for target in targets:
            atol, rtol = merged.get(target, EXACT)
            merged[target] = (float(value.get("atol", atol)), float(value.get("rtol", rtol)))
    return merged


def flatten(torch, value):
    """The tensors of an output, in order: a tensor, or tuples/lists of them (nested); other
    values (None, numbers) are kept as they are, to be compared by equality."""
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (tuple, list)):
        out = []
        for item in value:
            out.extend(flatten(torch, item))
        return out
    return [value]


def dtype_name(dtype):
    return str(dtype).replace("torch.", "")


def compare_tensors(torch, reference, candidate, tolerances):
    """One pair of tensors: {shape, dtype, ok, reason, nan, inf, max_abs_error, max_rel_error,
    mismatches, elements, atol, rtol}."""
    result = {
        "shape": list(candidate.shape),
        "reference_shape": list(reference.shape),
        "dtype": dtype_name(candidate.dtype),
        "reference_dtype": dtype_name(reference.dtype),
        "elements": int(reference.numel()),
        "nan": None,
        "inf": None,
        "max_abs_error": None,
        "max_rel_error": None,
        "mismatches": None,
        "atol": None,
        "rtol": None,
        "ok": False,
        "reason": None,
    }
    if tuple(candidate.shape) != tuple(reference.shape):
        result["reason"] = "shape %s, the reference's %s" % (
            list(candidate.shape), list(reference.shape))
        return result
    if candidate.dtype != reference.dtype:
        result["reason"] = "dtype %s, the reference's %s" % (result["dtype"], result["reference_dtype"])
        return result
    atol, rtol = tolerances.get(result["dtype"], EXACT)
    result["atol"], result["rtol"] = atol, rtol
    wide = torch.float64 if reference.dtype == torch.float64 else torch.float32
    if reference.is_floating_point():
        ref = reference.to(wide)
        out = candidate.to(wide)
        ref_nan, out_nan = torch.isnan(ref), torch.isnan(out)
        ref_inf, out_inf = torch.isinf(ref), torch.isinf(out)
        # NaN and Inf the reference does not have at the same place.
        result["nan"] = int(torch.logical_and(out_nan, torch.logical_not(ref_nan)).sum().item())
        result["inf"] = int(torch.logical_and(out_inf, torch.logical_not(ref_inf)).sum().item())
        finite = torch.logical_and(torch.isfinite(ref), torch.isfinite(out))
        zero = torch.zeros_like(ref)
        diff = torch.where(finite, torch.abs(out - ref), zero)
        scale = torch.abs(ref)
        close = torch.le(diff, atol + rtol * scale)
        same = torch.logical_or(torch.logical_and(ref_nan, out_nan), torch.eq(out, ref))
        close = torch.logical_and(torch.logical_or(close, same), torch.logical_or(finite, same))
        result["max_abs_error"] = float(diff.max().item()) if result["elements"] else 0.0
        relative = torch.where(torch.gt(scale, 0), diff / torch.where(torch.gt(scale, 0), scale, zero + 1), zero)
        result["max_rel_error"] = float(relative.max().item()) if result["elements"] else 0.0
    else:
        result["nan"], result["inf"] = 0, 0
        close = torch.eq(candidate, reference)
        diff_max = 0.0
        if result["elements"]:
            wide_diff = torch.abs(candidate.to(torch.float64) - reference.to(torch.float64))
            diff_max = float(wide_diff.max().item())
        result["max_abs_error"], result["max_rel_error"] = diff_max, None
    result["mismatches"] = int(result["elements"] - int(close.sum().item()))
    if result["nan"]:
        result["reason"] = "%d NaN where the reference has none" % result["nan"]
    elif result["inf"]:
        result["reason"] = "%d Inf where the reference has none" % result["inf"]
    elif result["mismatches"]:
        result["reason"] = "%d of %d elements differ by more than atol %g + rtol %g x |reference| " \
                           "(max abs error %.3g)" % (result["mismatches"], result["elements"], atol, rtol,
                                                     result["max_abs_error"])
    result["ok"] = result["reason"] is None
    return result


def check(torch, reference, candidate, tolerances):
    """The candidate's outputs against the reference's: {"verdict": "pass"|"fail", "reason",
    "outputs": [compare_tensors per pair], "max_abs_error", "max_rel_error", "mismatches"}."""
    refs, outs = flatten(torch, reference), flatten(torch, candidate)
    result = {"verdict": "fail", "reason": None, "outputs": [], "max_abs_error": None,
              "max_rel_error": None, "mismatches": None, "nan": None, "inf": None}
    if len(refs) != len(outs):
        result["reason"] = "%d outputs, the reference %d" % (len(outs), len(refs))
        return result
    for index, (ref, out) in enumerate(zip(refs, outs)):
        if isinstance(ref, torch.Tensor) != isinstance(out, torch.Tensor):
            entry = {"ok": False, "reason": "a %s where the reference returns a %s" % (
                type(out).__name__, type(ref).__name__)}
        elif isinstance(ref, torch.Tensor):
            entry = compare_tensors(torch, ref, out, tolerances)
        else:
            entry = {"ok": ref == out, "reason": None if ref == out else "%r, the reference's %r" % (out, ref)}
        result["outputs"].append(entry)
        if not entry["ok"] and result["reason"] is None:
            result["reason"] = entry["reason"] if len(refs) == 1 else "output %d: %s" % (index, entry["reason"])
    for key, pick in (("max_abs_error", max), ("max_rel_error", max), ("mismatches", sum), ("nan", sum),
                      ("inf", sum)):
        values = [entry[key] for entry in result["outputs"] if entry.get(key) is not None]
        result[key] = pick(values) if values else None
    result["verdict"] = "pass" if result["reason"] is None else "fail"
    return result
