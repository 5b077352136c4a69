"""A candidate's wall time, measured the way a careful benchmark does (issue 43).

Self-contained (standard library only; torch is passed in), so that it can be tested with the
fake torch. Nothing here profiles: the calls it times run
outside any NVTX range, so ncu, when the harness runs under it, does not replay them.

time_call(torch, fn, settings): warm-up calls, then repetitions until a time budget or a count,
each one preceded by a write of a buffer larger than the L2 cache (so every repetition starts
with a cold L2, as triton.testing.do_bench does) and timed by CUDA events around the call alone.
Kernels shorter than their launch are timed again as a CUDA graph replay (mode "auto"), where
the launch costs nothing between repetitions. summarize() turns the samples into the report's
numbers. gpu_state() reads the GPU's clocks, temperature and throttle reasons through NVML
(ctypes on libnvidia-ml.so.1); clock_moves() says what changed between two readings.
"""

import ctypes
import math
import os
import time

# What kprof asks for unless the plan says otherwise (C++ writes these as the plan's defaults).
DEFAULT_BUDGET_SECONDS = 0.1
DEFAULT_MAX_REPETITIONS = 1000
MIN_REPETITIONS = 5
DEFAULT_WARMUP = 3
# 256 MiB: more than the L2 of any GPU kprof knows (B200: 126 MiB), as do_bench's cache buffer.
FLUSH_BYTES = 256 * 1024 * 1024
# Auto mode replays a CUDA graph when the eager median is below this many times the launch's
# host cost: the events then time the launch, not the kernel.
GRAPH_WHEN_BELOW_LAUNCH = 1.0
# Calls captured in one graph: one, so that every replay starts with a cold L2 as an eager
# repetition does; the replay's launch is one driver call, however many launches fn makes.
GRAPH_CALLS = 1

MODES = ("auto", "eager", "graph")


class TimingError(Exception):
    """The candidate raised (or its graph could not be made) while it was being timed."""


def percentile(sorted_values, fraction):
    """Linear interpolation between closest ranks (numpy's default), of an ascending list."""
    if not sorted_values:
        raise ValueError("no values")
    position = (len(sorted_values) - 1) * fraction
    low = int(math.floor(position))
    high = min(low + 1, len(sorted_values) - 1)
    weight = position - low
    return sorted_values[low] * (1.0 - weight) + sorted_values[high] * weight


def summarize(samples_ms):
    """The report's numbers of a list of per-call times in milliseconds: median, p10, p90, min,
    max and mean in microseconds, the count, and the spread ((p90 - p10) / median, a fraction;
    None for a zero median)."""
    values = sorted(float(value) for value in samples_ms)
    if not values:
        raise ValueError("no samples")
    median = percentile(values, 0.5) * 1000.0
    p10 = percentile(values, 0.1) * 1000.0
    p90 = percentile(values, 0.9) * 1000.0
    return {
        "median_us": median,
        "p10_us": p10,
        "p90_us": p90,
        "min_us": values[0] * 1000.0,
        "max_us": values[-1] * 1000.0,
        "mean_us": sum(values) / len(values) * 1000.0,
        "count": len(values),
        "spread": (p90 - p10) / median if median > 0 else None,
    }


def settings_of(plan_timing):
    """The plan's "timing" object with defaults filled in; raises ValueError on a bad value."""
    given = dict(plan_timing or {})
    settings = {
        "budget_seconds": given.get("budget_seconds", DEFAULT_BUDGET_SECONDS),
        "max_repetitions": given.get("max_repetitions", DEFAULT_MAX_REPETITIONS),
        "warmup": given.get("warmup", DEFAULT_WARMUP),
        "mode": given.get("mode", "auto"),
        "flush_bytes": given.get("flush_bytes", FLUSH_BYTES),
    }
    if not isinstance(settings["budget_seconds"], (int, float)) or isinstance(settings["budget_seconds"], bool) \
            or not settings["budget_seconds"] > 0:
        raise ValueError("timing.budget_seconds must be a number above 0")
    for key, least in (("max_repetitions", 1), ("warmup", 0), ("flush_bytes", 0)):
        value = settings[key]
        if not isinstance(value, int) or isinstance(value, bool) or value < least:
            raise ValueError("timing.%s must be an integer >= %d" % (key, least))
    if settings["mode"] not in MODES:
        raise ValueError("timing.mode must be one of %s" % ", ".join(MODES))
    return settings


def repetitions_for(estimate_ms, settings):
    """How many timed calls fit the budget, given one call's estimate (ms): at least
    MIN_REPETITIONS (never more than max_repetitions)."""
    budget_ms = settings["budget_seconds"] * 1000.0
    wanted = int(budget_ms / estimate_ms) if estimate_ms > 0 else settings["max_repetitions"]
    return max(1, min(settings["max_repetitions"], max(MIN_REPETITIONS, wanted)))


def where_timed():
    """Whether this process runs under an NVIDIA tool that injects itself (ncu, nsys): timing
    then happens beside its injection, outside any profiled range."""
    if os.environ.get("CUDA_INJECTION64_PATH") or os.environ.get("NV_COMPUTE_PROFILER_PERFWORKS_DIR"):
        return "ncu_process"
    return "plain_process"


class _Flusher:
    """A buffer larger than the L2, written before each repetition so that it starts cold."""

    def __init__(self, torch, size):
        self.buffer = torch.empty(size, dtype=torch.int8, device="cuda") if size > 0 else None

    def __call__(self):
        if self.buffer is not None:
            self.buffer.zero_()


def _eager_samples(torch, fn, count, flush):
    """`count` calls, each timed alone by a pair of events after a flush; ms per call."""
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(count)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(count)]
    for index in range(count):
        flush()
        starts[index].record()
        fn()
        ends[index].record()
    torch.cuda.synchronize()
    return [start.elapsed_time(end) for start, end in zip(starts, ends)]


def _launch_seconds(torch, fn):
    """The host's cost of one call (queueing its launches, no synchronize)."""
    torch.cuda.synchronize()
    started = time.perf_counter()
    fn()
    seconds = time.perf_counter() - started
    torch.cuda.synchronize()
    return seconds


def _graph_samples(torch, fn, count, flush):
    """`count` replays of a graph of GRAPH_CALLS calls, each timed by events after a flush
    (outside the graph); ms per call."""
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        fn()  # warm on the side stream, as graph capture wants
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(GRAPH_CALLS):
            fn()
    torch.cuda.synchronize()
    graph.replay()
    torch.cuda.synchronize()
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(count)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(count)]
    for index in range(count):
        flush()
        starts[index].record()
        graph.replay()
        ends[index].record()
    torch.cuda.synchronize()
    return [start.elapsed_time(end) / GRAPH_CALLS for start, end in zip(starts, ends)]


def time_call(torch, fn, settings):
    """Times fn() (settings_of's dict): its summary (summarize) plus "mode" (eager or graph),
    "mode_reason", "launch_us" (the host's cost of one call), "warmup" and "budget_seconds".
    Raises TimingError when fn raises or a graph it asked for cannot be made."""
    try:
        flush = _Flusher(torch, settings["flush_bytes"])
        for _ in range(settings["warmup"]):
            fn()
        launch = _launch_seconds(torch, fn)
        estimate = _eager_samples(torch, fn, MIN_REPETITIONS, flush)
        count = repetitions_for(sorted(estimate)[len(estimate) // 2], settings)
        samples = _eager_samples(torch, fn, count, flush)
    except Exception as exc:
        raise TimingError("%s: %s" % (type(exc).__name__, exc)) from exc
    summary = summarize(samples)
    mode, reason = "eager", "asked for eager"
    if settings["mode"] == "auto":
        short = summary["median_us"] < launch * 1e6 * GRAPH_WHEN_BELOW_LAUNCH
        reason = ("eager median %.3g us is below the launch's %.3g us on the host" % (summary["median_us"], launch * 1e6)
                  if short else "the kernel outlasts its launch")
        mode = "graph" if short else "eager"
    elif settings["mode"] == "graph":
        mode, reason = "graph", "asked for graph"
    if mode == "graph":
        try:
            graph_samples = _graph_samples(torch, fn, count, flush)
            summary = dict(summarize(graph_samples), eager_median_us=summary["median_us"])
        except Exception as exc:
            if settings["mode"] == "graph":
                raise TimingError("CUDA graph: %s: %s" % (type(exc).__name__, exc)) from exc
            mode, reason = "eager", "%s; no CUDA graph (%s: %s)" % (reason, type(exc).__name__, exc)
            torch.cuda.synchronize()
    summary.update(mode=mode, mode_reason=reason, launch_us=launch * 1e6, warmup=settings["warmup"],
                   budget_seconds=settings["budget_seconds"], flush_bytes=settings["flush_bytes"],
                   timed_in=where_timed())
    return summary


# ---------------------------------------------------------------------------------------------
# The GPU's state (NVML)

NVML_CLOCK_SM = 1
NVML_CLOCK_MEM = 2
NVML_TEMPERATURE_GPU = 0
# nvmlClocksEventReasons (nvml.h): bit -> the word kprof prints.
THROTTLE_REASONS = (
    (0x1, "gpu_idle"),
    (0x2, "applications_clocks_setting"),
    (0x4, "sw_power_cap"),
    (0x8, "hw_slowdown"),
    (0x10, "sync_boost"),
    (0x20, "sw_thermal_slowdown"),
    (0x40, "hw_thermal_slowdown"),
    (0x80, "hw_power_brake_slowdown"),
    (0x100, "display_clock_setting"),
)
# A clock that moved more than this fraction between two readings is reported as moved.
CLOCK_MOVE_FRACTION = 0.02
# A temperature that rose more than this many degrees is reported as moved.
TEMPERATURE_MOVE_C = 5


def throttle_words(mask):
    """The throttle reasons set in NVML's bit mask, in nvml.h's order (unknown bits as hex)."""
    words = [word for bit, word in THROTTLE_REASONS if mask & bit]
    known = 0
    for bit, _ in THROTTLE_REASONS:
        known |= bit
    if mask & ~known:
        words.append("0x%x" % (mask & ~known))
    return words


class Nvml:
    """NVML through ctypes; `error` says why it is unusable (no library, no init)."""

    def __init__(self, loader=ctypes.CDLL):
        self.lib = None
        self.error = None
        try:
            lib = loader("libnvidia-ml.so.1")
            code = lib.nvmlInit_v2()
            if code != 0:
                raise OSError("nvmlInit_v2 returned %d" % code)
            self.lib = lib
        except (OSError, AttributeError) as exc:
            self.error = "NVML unavailable (%s)" % exc

    def handle(self, visible=None):
        """The device CUDA calls 0 in this process: CUDA_VISIBLE_DEVICES's first entry (an index
        or a UUID), else index 0."""
        visible = os.environ.get("CUDA_VISIBLE_DEVICES") if visible is None else visible
        first = (visible or "0").split(",")[0].strip() or "0"
        handle = ctypes.c_void_p()
        if first.isdigit():
            code = self.lib.nvmlDeviceGetHandleByIndex_v2(ctypes.c_uint(int(first)), ctypes.byref(handle))
        else:
            code = self.lib.nvmlDeviceGetHandleByUUID(first.encode(), ctypes.byref(handle))
        if code != 0:
            raise OSError("no NVML handle for device %s (%d)" % (first, code))
        return handle

    def read(self, handle):
        sm, mem, temp = ctypes.c_uint(), ctypes.c_uint(), ctypes.c_uint()
        reasons = ctypes.c_ulonglong()
        state = {}
        if self.lib.nvmlDeviceGetClockInfo(handle, NVML_CLOCK_SM, ctypes.byref(sm)) == 0:
            state["sm_clock_mhz"] = sm.value
        if self.lib.nvmlDeviceGetClockInfo(handle, NVML_CLOCK_MEM, ctypes.byref(mem)) == 0:
            state["memory_clock_mhz"] = mem.value
        if self.lib.nvmlDeviceGetTemperature(handle, NVML_TEMPERATURE_GPU, ctypes.byref(temp)) == 0:
            state["temperature_c"] = temp.value
        if self.lib.nvmlDeviceGetCurrentClocksThrottleReasons(handle, ctypes.byref(reasons)) == 0:
            state["throttle_reasons"] = throttle_words(reasons.value)
        return state


_NVML = []


def gpu_state(nvml=None):
    """{sm_clock_mhz, memory_clock_mhz, temperature_c, throttle_reasons} of this process's GPU,
    or {"unavailable": why}. The library is opened once per process."""
    if nvml is None:
        if not _NVML:
            _NVML.append(Nvml())
        nvml = _NVML[0]
    if nvml.lib is None:
        return {"unavailable": nvml.error}
    try:
        return nvml.read(nvml.handle())
    except (OSError, AttributeError) as exc:
        return {"unavailable": "NVML: %s" % exc}


def clock_moves(before, after):
    """What moved between two gpu_state() readings, as sentences (empty: nothing did, or a
    reading is unavailable, which the states themselves say)."""
    if "unavailable" in before or "unavailable" in after:
        return []
    moves = []
    for key, what in (("sm_clock_mhz", "SM clock"), ("memory_clock_mhz", "memory clock")):
        if key in before and key in after and before[key] > 0:
            change = (after[key] - before[key]) / float(before[key])
            if abs(change) > CLOCK_MOVE_FRACTION:
                moves.append("%s %d -> %d MHz" % (what, before[key], after[key]))
    if "temperature_c" in before and "temperature_c" in after \
            and after["temperature_c"] - before["temperature_c"] > TEMPERATURE_MOVE_C:
        moves.append("temperature %d -> %d C" % (before["temperature_c"], after["temperature_c"]))
    new = [word for word in after.get("throttle_reasons", [])
           if word not in before.get("throttle_reasons", []) and word != "gpu_idle"]
    if new:
        moves.append("throttled during timing: " + ", ".join(new))
    return moves


def timed_with_state(torch, fn, settings, nvml=None):
    """time_call between two gpu_state() readings: the summary with "gpu_before", "gpu_after"
    and "gpu_moved" (clock_moves)."""
    before = gpu_state(nvml)
    summary = time_call(torch, fn, settings)
    after = gpu_state(nvml)
    summary.update(gpu_before=before, gpu_after=after, gpu_moved=clock_moves(before, after))
    return summary
