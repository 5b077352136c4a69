"""The truth beside the counters (issue 43), for each candidate after its profiled call
(calls.run_candidate), made once per process by session.run when the plan asks for it.

The plan's "truth" object (null: none of this runs) asks for:
- "check": compare the candidate's outputs (of its profiled call) with the reference's
  (correctness.py);
- "timing": time the candidate outside any NVTX range (timing.py; its settings);
- "reference": time the reference too and count its FLOPs and bytes (speed_of_light.py);
- "tolerances": per-dtype atol/rtol over correctness.DEFAULT_TOLERANCES.

A candidate that returns None (it writes into an argument) is "unchecked", never wrong.

The reference is Model(*get_init_inputs()) called on the candidate's inputs (the same cast). It
runs once per cast word in a process, on the inputs before the first candidate of that cast ran
(a candidate that writes into its inputs changes what later candidates get, not the reference).
A reference that cannot run (no Model, Model raising) is recorded as such; the candidates are
still profiled and timed, and their check says there was no reference.

Nothing here decides a candidate's status: kprof does (a failed check is its own status).
"""

from . import correctness, flop_cache, speed_of_light, timing

# What flop_cache keeps of the reference's speed of light: FlopCounterMode's counts, not the
# bytes and dtype, which are counted again at no cost.
COUNT_KEYS = ("flops", "tensor_core_flops", "other_flops", "per_op", "uncounted_ops", "error")


def plan_truth(plan):
    """The plan's "truth" with defaults, checked (ValueError names the key), or None."""
    truth = plan.get("truth")
    if truth is None:
        return None
    if not isinstance(truth, dict):
        raise ValueError("truth must be null or an object")
    settings = {
        "check": truth.get("check", True),
        "timing": truth.get("timing", True),
        "reference": truth.get("reference", True),
    }
    for key, value in settings.items():
        if not isinstance(value, bool):
            raise ValueError("truth.%s must be true or false" % key)
    settings["flop_cache"] = truth.get("flop_cache")
    if settings["flop_cache"] is not None and (not isinstance(settings["flop_cache"], str)
                                               or not settings["flop_cache"]):
        raise ValueError("truth.flop_cache must be null or a non-empty path")
    settings["timing_settings"] = timing.settings_of(truth.get("timing_settings"))
    settings["tolerances"] = correctness.tolerances_of(truth.get("tolerances"))
    return settings


def make_truth(plan, problem):
    """The Truth of a plan that asks for it (None otherwise); ValueError for a bad "truth"."""
    if plan.get("truth") is None:
        return None
    return Truth(plan_truth(plan), problem)


def words(exc):
    return "%s: %s" % (type(exc).__name__, str(exc).splitlines()[0] if str(exc) else "")


class Truth:
    """The references of one process (per cast word) and the measuring of each candidate."""

    def __init__(self, settings, problem):
        self.settings = settings
        self.problem = problem
        self.torch = problem.torch
        self._references = {}

    def reference(self, cast):
        """The reference of cast word `cast`, made once: {"outputs", "summary"} where summary is
        what the status shows ({"error", "timing", "speed_of_light"})."""
        if cast in self._references:
            return self._references[cast]
        made = {"outputs": None, "summary": {"error": None, "timing": None, "speed_of_light": None}}
        self._references[cast] = made
        summary = made["summary"]
        torch = self.torch
        if getattr(self.problem.module, "Model", None) is None:
            summary["error"] = "problem.py has no Model"
            return made
        try:
            model = self.problem.model(cast)
            inputs = self.problem.inputs(cast)
            with torch.no_grad():
                made["outputs"] = model(*inputs)
            torch.cuda.synchronize()
        except (Exception, SystemExit) as exc:
            summary["error"] = "the reference raised: %s" % words(exc)
            made["outputs"] = None
            return made
        if not self.settings["reference"]:
            return made

        def call():
            with torch.no_grad():
                return model(*inputs)

        try:
            counts = self.stored_counts().get(cast)
            summary["speed_of_light"] = speed_of_light.measure(torch, call, inputs, made["outputs"], model, counts)
            if counts is None:
                flop_cache.store(self.settings["flop_cache"], self.problem.plan["problem"], self.torch_version(),
                                 cast, {key: summary["speed_of_light"].get(key) for key in COUNT_KEYS})
        except Exception as exc:  # the counts are evidence, never a reason to stop
            summary["speed_of_light"] = {"error": words(exc)}
        if self.settings["timing"]:
            summary["timing"] = self.time(call)
        return made

    def torch_version(self):
        return getattr(self.torch, "__version__", "unknown")

    def stored_counts(self):
        """The reference's FLOP counts an earlier process kept, {cast word: counts}
        (flop_cache.py; {} without the plan's truth.flop_cache)."""
        return flop_cache.stored(self.settings["flop_cache"], self.problem.plan["problem"], self.torch_version())

    def time(self, fn):
        try:
            return timing.timed_with_state(self.torch, fn, self.settings["timing_settings"])
        except timing.TimingError as exc:
            return {"error": str(exc)}

    def measure(self, entry, status_file, call, result):
        """After the profiled call: the check of `result` and the candidate's timing, into the
        status entry ("check", "timing", "reference"). Raises only when the CUDA context broke
        (torch.cuda.synchronize raising after a timing error)."""
        reference = self.reference(entry["cast"])
        entry["reference"] = reference["summary"]
        if self.settings["check"]:
            status_file.set_candidate_phase(entry, "check")
            if reference["outputs"] is None:
                entry["check"] = {"verdict": "unchecked", "reason": "no reference: %s" % reference["summary"]["error"]}
            elif result is None:
                # A kernel that writes into an argument returns nothing to compare.
                entry["check"] = {"verdict": "unchecked", "reason": "kernel_function returned None"}
            else:
                try:
                    entry["check"] = correctness.check(
                        self.torch, reference["outputs"], result, self.settings["tolerances"])
                except Exception as exc:
                    entry["check"] = {"verdict": "unchecked", "reason": "the comparison raised: %s" % words(exc)}
        if self.settings["timing"]:
            status_file.set_candidate_phase(entry, "timing")
            entry["timing"] = self.time(call)
            if "error" in entry["timing"]:
                self.torch.cuda.synchronize()  # raises when the timing broke the context
