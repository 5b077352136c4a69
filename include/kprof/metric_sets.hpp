// kprof: named metric sets (what ncu is asked to collect, and what reports show).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "kprof/error.hpp"

namespace kprof {

/// One metric of a set, with the label and group a report shows it under.
struct MetricSpec {
  std::string name;  ///< exact ncu metric name ("dram__bytes_read.sum")
  std::string label; ///< short human label ("DRAM bytes read")
  std::string group; ///< report group ("Memory", "Compute", "Occupancy", "Stalls", ...)
};

/// A named set: `metrics` are passed to `--metrics`; `sections` (deep set) to `--section`,
/// which also makes ncu evaluate its rules (details page).
struct MetricSet {
  std::string name;
  std::string description;
  std::vector<MetricSpec> metrics;
  std::vector<std::string> sections;
  /// Reading only (the set "all"): a report keeps every column of the capture, not only those
  /// of `metrics`. Never true for a set ncu is asked to collect.
  bool keep_all_columns = false;
  /// Collecting it implies hot lines (`--source`): "deep", everything ncu can say, per line too.
  bool with_source = false;
  /// What it was resolved from, as the user wrote it ("deep", "a__x.sum,b__y.pct"): the value
  /// of the `metrics` option (option_values, fingerprints). A built-in set's own name.
  std::string words{};
};

/// What a metric set is resolved for: collecting (`kprof profile`, `batch`: ncu is asked for its
/// metrics) or reading a capture that exists (`kprof report`), where "all" is also valid.
enum class MetricSetUse { collect, read };

/// The built-in sets: "default" (for optimization agents), "lean" (fewest replay passes),
/// "deep" (sections with NCU rules). Order is stable.
const std::vector<MetricSet>& builtin_metric_sets();

/// The built-in set called `name`; usage error listing the valid names otherwise.
Result<MetricSet> find_metric_set(std::string_view name);

/// The set "default", what a profile collects unless told otherwise.
const MetricSet& default_metric_set();

/// A set name or a comma-separated list of metric names ("a.sum,b.pct"): the list becomes an
/// ad-hoc set called "custom" with labels equal to the names, group "Custom", duplicates
/// dropped. Usage error listing the set names when the text is neither (a list item without
/// "__" is no metric name).
/// "all" (`--metrics all`): with MetricSetUse::read, the set called "all" that lists the default
/// set's metrics and has keep_all_columns set (a report of every column); with
/// MetricSetUse::collect, a usage error saying that ncu cannot collect every metric.
Result<MetricSet> resolve_metric_set(std::string_view set_or_list,
                                     MetricSetUse use = MetricSetUse::collect);

/// The metric names of `set` joined with commas, as ncu's `--metrics` wants them.
std::string metrics_argument(const MetricSet& set);

/// Names in `set` that `ncu --query-metrics` output `query_output` does not list. Attributes
/// (`launch__*`, `device__*`) and names whose base (before `.sum`, `.avg.pct_of_peak_...`, ...)
/// is listed count as known. Fails with malformed_input when `query_output` is not such a listing.
Result<std::vector<std::string>> unknown_metrics(const MetricSet& set,
                                                 std::string_view query_output);

} // namespace kprof
