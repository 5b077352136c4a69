// kprof: what KernelAgent reads, from kprof's facts (docs/kernelagent.md).
//
// KernelAgent feeds an LLM {kernel name: {metric: value}} text built from one row per launch.
// kprof builds that text here, once, for the Python package's metrics_to_prompt() and anything
// else that speaks KernelAgent's format; the report document's "metrics" block is the same text
// parsed back. Also here, so that the Python plugin (python/kprof/kernelagent.py) only forwards:
// the body of KernelAgent's roundNNN_ncu_metrics.json (kernel order, floats, metadata), which
// kernel of a metrics block KernelAgent's loop should read, kprof's roofline verdict and stop
// rule in KernelAgent's terms, and kprof's GPU table as KernelAgent's spec dictionary.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kprof/error.hpp"
#include "kprof/json_file.hpp"
#include "kprof/report.hpp"

namespace kprof {

/// How KernelAgent's metrics text is written.
struct KernelAgentTextOptions {
  std::optional<int> round_digits = 3; ///< decimals of non-integral numbers; nullopt: unrounded
  bool compact = false;                ///< one line ("a": 1, "b": 2) instead of indented by 2
  /// Only these columns (besides key_by); nullopt: every column.
  std::optional<std::vector<std::string>> keep_columns;
  std::string key_by = "Kernel Name"; ///< the column that names a row's kernel
};

/// A metric value as KernelAgent's rows hold it: an integer when integral (below 2^53), null
/// when NaN or infinite, the double otherwise.
Json kernelagent_value(double value);

/// KernelAgent's load_ncu_metrics of a capture: per launch that `select` keeps, {"Kernel Name":
/// name, metric: value} with `set`'s metrics that the capture has, in the set's order (text as
/// text, a missing value as null). A capture without any of them (a details page names labels,
/// not metrics) gives rows with only their kernel names, as KernelAgent's reader does.
Json kernelagent_capture_rows(const Capture& capture, const MetricSet& set,
                              const SelectOptions& select);

/// The rows of a report document: per kept launch {"Kernel Name": name, metric: value}, with
/// the metric set's metrics the launch has, in the set's order. malformed_input when `report`
/// is not a kprof report document.
Result<Json> kernelagent_rows(const Json& report);

/// KernelAgent's metrics text of `rows` (an array of objects): {kernel: {metric: value}} keyed
/// by `key_by`, a list for a kernel name with several rows, numbers rounded and NaN as null.
/// When a row lacks `key_by` the rows are listed as they are. usage error when `rows` is not an
/// array of objects.
Result<std::string> kernelagent_metrics_text(const Json& rows,
                                             const KernelAgentTextOptions& options);

/// The body of KernelAgent's roundNNN_ncu_metrics.json and of Python's ProfilerResults:
/// {"metrics": {kernel: {metric: value}}, "metadata": {kernel_file, problem_file, round_num,
/// timestamp, ncu_version}}, exactly KernelAgent's keys. `metrics` is the report's block with
/// the candidate's own kernels first, longest total duration first, and library kernels
/// (is_library_kernel) after them in the same order, because KernelAgent's loop reads the
/// first kernel. Numbers are floats, as KernelAgent's pandas columns make them, except counts
/// whose unit is register/thread, block or inst; a name with several kept launches stays a list.
/// `timestamp` is metadata.profiled_at (microseconds, as KernelAgent's isoformat() + "Z"), else
/// metadata.generated_at with ".000000" added. Absent facts are null.
Json kernelagent_round_json(const Json& report);
/// Writes json_text(kernelagent_round_json(document), 2), the text of the file, to `out` in
/// pieces, the document read through a ReportSource (kprof/report.hpp), so that a report
/// recorded without its tree (`kprof report FILE --round N`) gets the file a held one gets.
/// Memory: the file's text, never its tree.
void write_kernelagent_round_json(const ReportSource& report, const TextOut& out);

/// The kernel of a KernelAgent metrics block ({kernel: {metric: value} or [...]}) that
/// KernelAgent's loop should read, and its flat metrics: {"kernel": name, "metrics": {...}}. The
/// first kernel that is not a library kernel, else the first; of a list, the launch with the
/// largest gpu__time_duration.sum (the last when none has one). A block none of whose values is
/// an object or a list is flat already: {"kernel": null, "metrics": the block}. {"kernel":
/// null, "metrics": {}} for an empty block or one that is not an object.
Json kernelagent_kernel_metrics(const Json& metrics);

/// KernelAgent's RooflineConfig, by its field names.
struct KernelAgentRooflineConfig {
  double threshold_pct = 95.0;           ///< efficiency at or above this is at the roofline
  bool early_stop = true;                ///< stop at the roofline
  int convergence_rounds = 5;            ///< rounds compared for convergence
  double min_improvement_pct = 0.1;      ///< less efficiency spread than this over those rounds
  double tensor_core_threshold = 5.0;    ///< tensor pipe % from which tensor cores are in use
  double underutilized_threshold = 60.0; ///< both SOL below this: under-utilized
};

/// The config as an object keyed by RooflineConfig's field names (Python's defaults come from
/// a default-constructed one).
Json to_json(const KernelAgentRooflineConfig& config);

/// A config from `json`, an object keyed by RooflineConfig's field names (what Python's
/// dataclasses.asdict gives): the fields of the right type are taken, the rest keep the defaults.
KernelAgentRooflineConfig kernelagent_roofline_config(const Json& json);

/// kprof's roofline verdict of one kernel's flat metrics ({metric name: number}) as KernelAgent's
/// RooflineResult fields: compute_sol_pct, memory_sol_pct, efficiency_pct (the larger),
/// at_roofline, headroom_pct, bottleneck ("memory", "compute", "underutilized" for kprof's
/// latency-bound, "unknown" when neither SOL is there), uses_tensor_cores (from the tensor pipe
/// metric kprof collects, sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed, else
/// sm__inst_executed_pipe_tensor), warnings (a missing SOL), and kprof's explanation sentence.
/// Values that are not numbers are ignored. Never fails.
Json kernelagent_roofline(const Json& flat_metrics, const KernelAgentRooflineConfig& config);

/// KernelAgent's stop rule over the efficiencies seen so far (`efficiencies`, the latest last):
/// stop at the roofline (`at_roofline` with early_stop), or when the last convergence_rounds
/// efficiencies spread by less than min_improvement_pct. The reason is "" when not stopping.
struct StopDecision {
  bool stop = false;
  std::string reason;
};
StopDecision kernelagent_should_stop(std::span<const double> efficiencies, bool at_roofline,
                                     const KernelAgentRooflineConfig& config);

/// kprof's GPU table entry for `device_name` (find_gpu_spec) as KernelAgent's spec dictionary:
/// name, architecture, peak_memory_bw_gbps, peak_fp32_tflops, peak_fp16_tflops and
/// peak_bf16_tflops (dense tensor), sm_count, l2_cache_mb. nullopt when kprof does not know it.
std::optional<Json> kernelagent_gpu_specs(std::string_view device_name);

/// The hot lines of each kernel of `report` that has them, as the prompt sink writes its "Hot
/// lines" section (the longest launch of the name): {kernel name: text}. Empty without hot lines.
Json kernelagent_hot_lines(const Json& report);

/// The candidate's truth (the report's `truth`: the check, the measured median beside the
/// PyTorch reference's, the problem's speed of light, ncu against the clock) as the prompt sink
/// writes its first lines, one per line; "" without it.
std::string kernelagent_truth(const Json& report);

} // namespace kprof
