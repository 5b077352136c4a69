// The built-in metric sets, the reading-only word "all", and the check of metric names against
// `ncu --query-metrics`. Depends on util only, so that ncu (which builds --metrics from a set)
// needs no analysis.
//
// The default set keeps what KernelAgent's 29 metrics were meant to give, on Hopper: two of its
// names do not exist there and ncu drops them without a word, so they are replaced (see
// docs/metrics.md for the reasoning). Every metric the roofline reads is in the default set.
#include "kprof/metric_sets.hpp"
#include "kprof/strings.hpp"

#include <algorithm>
#include <string>
#include <unordered_set>

#include <fmt/format.h>

namespace kprof {
namespace {

/// `--metrics all`: every column, when reading.
constexpr std::string_view k_all_set_name = "all";

std::vector<MetricSpec> default_metrics() {
  return {
      // Time
      {"gpu__time_duration.sum", "Duration", "Time"},
      {"sm__cycles_active.avg", "SM active cycles", "Time"},
      // Speed of light: the two numbers the roofline verdict is made of.
      {"sm__throughput.avg.pct_of_peak_sustained_elapsed", "Compute (SM) SOL", "Speed of light"},
      {"gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", "Memory SOL",
       "Speed of light"},
      // Memory
      {"dram__bytes_read.sum", "DRAM bytes read", "Memory"},
      {"dram__bytes_write.sum", "DRAM bytes written", "Memory"},
      {"dram__bytes.sum.per_second", "DRAM bandwidth", "Memory"},
      {"dram__throughput.avg.pct_of_peak_sustained_elapsed", "DRAM throughput", "Memory"},
      {"gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed", "GPU DRAM throughput", "Memory"},
      // Cache
      {"l1tex__t_sector_hit_rate.pct", "L1 hit rate", "Cache"},
      {"l1tex__throughput.avg.pct_of_peak_sustained_active", "L1 throughput", "Cache"},
      {"lts__t_sector_hit_rate.pct", "L2 hit rate", "Cache"},
      {"lts__throughput.avg.pct_of_peak_sustained_active", "L2 throughput", "Cache"},
      // Compute. KernelAgent's sm__inst_executed_pipe_fp32 does not exist on Hopper: fp32
      // add/mul/fma issue to the fma pipes (fmaheavy + fmalite).
      {"sm__inst_executed.sum", "Instructions executed", "Compute"},
      {"sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active", "FMA (fp32) pipe utilization",
       "Compute"},
      // Tensor
      {"sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed", "Tensor pipe active",
       "Tensor"},
      {"sm__inst_executed_pipe_tensor.avg.pct_of_peak_sustained_active", "Tensor pipe instructions",
       "Tensor"},
      // Occupancy
      {"sm__warps_active.avg.pct_of_peak_sustained_active", "Achieved occupancy", "Occupancy"},
      {"launch__registers_per_thread", "Registers per thread", "Occupancy"},
      {"launch__shared_mem_per_block_allocated", "Shared memory per block", "Occupancy"},
      {"launch__occupancy_limit_blocks", "Block limit: blocks", "Occupancy"},
      {"launch__occupancy_limit_registers", "Block limit: registers", "Occupancy"},
      {"launch__occupancy_limit_shared_mem", "Block limit: shared memory", "Occupancy"},
      // Stalls. KernelAgent's stalled_memory_dependency is pre-Volta; on Hopper a warp that cannot
      // issue a memory instruction because the pipe's queue is full stalls on lg_throttle
      // (local/global, LSU) or mio_throttle (shared memory, special math, MIO).
      {"smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct", "Stall: long scoreboard",
       "Stalls"},
      {"smsp__warp_issue_stalled_short_scoreboard_per_warp_active.pct", "Stall: short scoreboard",
       "Stalls"},
      {"smsp__warp_issue_stalled_lg_throttle_per_warp_active.pct", "Stall: LG throttle", "Stalls"},
      {"smsp__warp_issue_stalled_mio_throttle_per_warp_active.pct", "Stall: MIO throttle",
       "Stalls"},
      {"smsp__warp_issue_stalled_barrier_per_warp_active.pct", "Stall: barrier", "Stalls"},
      {"smsp__warp_issue_stalled_branch_resolving_per_warp_active.pct", "Stall: branch resolving",
       "Stalls"},
      // Access pattern
      {"smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct",
       "Global load bytes used per sector", "Access pattern"},
      {"smsp__sass_average_branch_targets_threads_uniform.pct", "Uniform branch targets",
       "Access pattern"},
  };
}

std::vector<MetricSet> make_builtin_sets() {
  const std::vector<MetricSpec> defaults = default_metrics();

  MetricSet default_set{
      "default",
      "What an optimization agent needs: time, speed of light, memory, cache, compute, tensor, "
      "occupancy, stalls and access pattern (KernelAgent's 29 metrics, valid on Hopper)",
      defaults,
      {}};

  auto find_default = [&defaults](std::string_view name) {
    auto found = std::find_if(defaults.begin(), defaults.end(),
                              [name](const MetricSpec& spec) { return spec.name == name; });
    KPROF_ASSERT(found != defaults.end());
    return *found;
  };
  MetricSet lean{"lean",
                 "Fewest replay passes: duration, the two speed-of-light numbers, DRAM bytes",
                 {find_default("gpu__time_duration.sum"),
                  find_default("sm__throughput.avg.pct_of_peak_sustained_elapsed"),
                  find_default("gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"),
                  find_default("dram__bytes_read.sum"), find_default("dram__bytes_write.sum")},
                 {}};

  // The fp32 roofline's inputs (ncu's SpeedOfLightRooflineChart metrics): achieved FLOP/s is
  // (fadd + fmul + 2 ffma) per cycle times cycles per second (the HTML roofline chart).
  std::vector<MetricSpec> deep_metrics = defaults;
  deep_metrics.push_back({"smsp__sass_thread_inst_executed_op_fadd_pred_on.sum.per_cycle_elapsed",
                          "FP32 adds per cycle", "Roofline"});
  deep_metrics.push_back({"smsp__sass_thread_inst_executed_op_fmul_pred_on.sum.per_cycle_elapsed",
                          "FP32 multiplies per cycle", "Roofline"});
  deep_metrics.push_back({"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum.per_cycle_elapsed",
                          "FP32 fused multiply-adds per cycle", "Roofline"});
  deep_metrics.push_back(
      {"smsp__cycles_elapsed.avg.per_second", "SM sub-partition clock", "Roofline"});
  MetricSet deep{
      "deep",
      "The default metrics, the fp32 roofline's inputs and ncu's sections, whose rules ncu "
      "evaluates (details page); implies hot lines (--source)",
      std::move(deep_metrics),
      {"SpeedOfLight", "Occupancy", "LaunchStats", "MemoryWorkloadAnalysis",
       "ComputeWorkloadAnalysis", "SchedulerStats", "WarpStateStats"}};
  deep.with_source = true;

  std::vector<MetricSet> sets{std::move(default_set), std::move(lean), std::move(deep)};
  for (MetricSet& set : sets) {
    set.words = set.name;
  }
  return sets;
}

std::string set_names() {
  std::string names;
  for (const MetricSet& set : builtin_metric_sets()) {
    if (!names.empty()) {
      names += ", ";
    }
    names += set.name;
  }
  return names;
}

bool has_upper(std::string_view text) {
  return std::any_of(text.begin(), text.end(), [](char c) { return c >= 'A' && c <= 'Z'; });
}

/// "CTC.TriageCompute.ctc__rx_bytes" -> "ctc__rx_bytes": leading '.'-separated segments that
/// contain an uppercase letter are configuration prefixes, not part of the metric name.
std::string_view strip_prefixes(std::string_view name) {
  while (true) {
    const auto dot = name.find('.');
    if (dot == std::string_view::npos || !has_upper(name.substr(0, dot))) {
      return name;
    }
    name.remove_prefix(dot + 1);
  }
}

bool is_attribute(std::string_view name) {
  return name.starts_with("launch__") || name.starts_with("device__");
}

/// Known when the name itself, or any prefix of it cut at a '.', is a listed base name:
/// "l1tex__t_sector_hit_rate.pct" -> "l1tex__t_sector_hit_rate".
bool is_known(std::string_view name, const std::unordered_set<std::string>& base_names) {
  if (is_attribute(name)) {
    return true;
  }
  std::string_view candidate = name;
  while (true) {
    if (base_names.contains(std::string(candidate))) {
      return true;
    }
    const auto dot = candidate.rfind('.');
    if (dot == std::string_view::npos) {
      return false;
    }
    candidate = candidate.substr(0, dot);
  }
}

} // namespace

const std::vector<MetricSet>& builtin_metric_sets() {
  static const std::vector<MetricSet> k_sets = make_builtin_sets();
  return k_sets;
}

const MetricSet& default_metric_set() {
  return builtin_metric_sets().front();
}

Result<MetricSet> find_metric_set(std::string_view name) {
  for (const MetricSet& set : builtin_metric_sets()) {
    if (set.name == name) {
      return set;
    }
  }
  return make_error(ErrorCategory::usage,
                    fmt::format("unknown metric set '{}' (valid: {})", name, set_names()));
}

Result<MetricSet> resolve_metric_set(std::string_view set_or_list, MetricSetUse use) {
  const std::string_view text = trim(set_or_list);
  if (text == k_all_set_name) {
    if (use == MetricSetUse::collect) {
      return make_error(ErrorCategory::usage,
                        fmt::format("--metrics all keeps every column when reading a capture "
                                    "(kprof report); ncu cannot be asked to collect every metric: "
                                    "use one of {} or a comma-separated list of metric names",
                                    set_names()));
    }
    auto all = find_metric_set("default");
    KPROF_ASSERT(all.ok());
    all->name = std::string(k_all_set_name);
    all->description = "Every column of the capture; the default set's metrics are listed";
    all->keep_all_columns = true;
    all->words = all->name;
    return all;
  }
  if (text.find("__") == std::string_view::npos) {
    return find_metric_set(text);
  }
  MetricSet custom{"custom", "metrics named on the command line", {}, {}};
  std::unordered_set<std::string> seen;
  std::string_view rest = text;
  while (true) {
    const auto comma = rest.find(',');
    const std::string_view item = trim(rest.substr(0, comma));
    if (!item.empty()) {
      if (item.find("__") == std::string_view::npos ||
          item.find_first_of(" \t") != std::string_view::npos) {
        return make_error(ErrorCategory::usage,
                          fmt::format("'{}' is not an ncu metric name (names look like "
                                      "dram__bytes_read.sum); or use a metric set: {}",
                                      item, set_names()));
      }
      if (seen.insert(std::string(item)).second) {
        custom.metrics.push_back({std::string(item), std::string(item), "Custom"});
      }
    }
    if (comma == std::string_view::npos) {
      break;
    }
    rest.remove_prefix(comma + 1);
  }
  custom.words = std::string(text);
  return custom;
}

std::string metrics_argument(const MetricSet& set) {
  std::string argument;
  for (const MetricSpec& spec : set.metrics) {
    if (!argument.empty()) {
      argument += ',';
    }
    argument += spec.name;
  }
  return argument;
}

Result<std::vector<std::string>> unknown_metrics(const MetricSet& set,
                                                 std::string_view query_output) {
  // The listing: a header row starting "Metric Name", dashed rules, then one row per metric with
  // the name in the first column; long descriptions wrap onto lines that start with blanks.
  std::unordered_set<std::string> base_names;
  bool in_table = false;
  std::string_view rest = query_output;
  while (!rest.empty()) {
    const auto newline = rest.find('\n');
    std::string_view line = rest.substr(0, newline);
    rest.remove_prefix(newline == std::string_view::npos ? rest.size() : newline + 1);
    if (!line.empty() && line.back() == '\r') {
      line.remove_suffix(1);
    }
    if (!in_table) {
      in_table = line.starts_with("Metric Name");
      continue;
    }
    if (line.empty() || line.front() == ' ' || line.front() == '\t' || line.front() == '-' ||
        line.starts_with("==")) {
      continue;
    }
    const auto end = line.find_first_of(" \t");
    const std::string_view name = strip_prefixes(line.substr(0, end));
    if (name.find("__") != std::string_view::npos) {
      base_names.emplace(name);
    }
  }
  if (!in_table || base_names.empty()) {
    return make_error(ErrorCategory::malformed_input,
                      "not an `ncu --query-metrics` listing (no 'Metric Name' table)");
  }

  std::vector<std::string> unknown;
  for (const MetricSpec& spec : set.metrics) {
    if (!is_known(spec.name, base_names)) {
      unknown.push_back(spec.name);
    }
  }
  return unknown;
}

} // namespace kprof
