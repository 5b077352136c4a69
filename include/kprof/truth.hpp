// kprof: the truth beside the counters (issue 43): a candidate's measured wall time, its check
// against the reference, the reference's time and the problem's speed of light, put together
// from what the harness measured (templates/kprof_harness/truth.py) and the GPU's datasheet peaks.
// Pure: tests feed it recorded harness objects.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "kprof/analysis.hpp"
#include "kprof/json_file.hpp"

namespace kprof {

/// What the harness wrote for one candidate (its status's "check", "timing" and "reference"
/// objects; null when absent).
struct TruthEvidence {
  Json check;
  Json timing;
  Json reference;
};

/// ncu's duration of the candidate's call and the measured median differ "by much" when one is
/// more than this fraction above the other (docs/json-schema.md, "truth").
inline constexpr double k_ncu_measured_threshold = 0.25;

/// The speed of light of a problem on `spec`: FLOPs held against the dtype's tensor peak
/// (tensor-core ops) and the FP32 peak (the rest), bytes against DRAM bandwidth.
struct SpeedOfLight {
  double compute_seconds = 0;
  double memory_seconds = 0;
  double ideal_seconds = 0;     ///< the larger of the two
  std::string_view bound;       ///< "memory" or "compute"
  std::string_view tensor_peak; ///< "TF32 tensor", "BF16 tensor", "FP16 tensor", or empty
  double tensor_peak_flops = 0; ///< 0 when the dtype has none known (float64)
};

/// The speed of light of `tensor_flops` + `other_flops` and `bytes` in `dtype` ("float32",
/// "bfloat16", "float16", ...) on `spec`; nullopt when the dtype's tensor FLOPs have no peak.
std::optional<SpeedOfLight> speed_of_light(double tensor_flops, double other_flops, double bytes,
                                           std::string_view dtype, const GpuSpec& spec);

/// A timing object's mode, "eager" or "graph" (templates/kprof_harness/timing.py); eager when it
/// names none, as timing.py then timed it.
std::string timing_mode(const Json& timing);

/// A timing's eager median in us: its median when it was timed eagerly, else the eager median a
/// graph summary keeps (`eager_median_us`); nullopt when it has none. What two timings of
/// different modes are compared on, like against like: a graph's median leaves out the host's
/// launches, which an eager one counts (a call of thousands of launches may go either way from
/// one process to the next).
std::optional<double> eager_median_us(const Json& timing);

/// The report's "truth" object (docs/json-schema.md): {timing, check, reference,
/// speed_of_light, ncu_vs_measured, notes}. `spec` is the GPU's when kprof knows it; the ncu
/// duration is the sum over the candidate's launches (report summary.total_duration_ns). Null
/// when the harness measured nothing. Never fails: what cannot be computed is null with a note.
Json truth_json(const TruthEvidence& evidence, const std::optional<GpuSpec>& spec,
                std::optional<double> ncu_duration_ns, int launches);

} // namespace kprof
