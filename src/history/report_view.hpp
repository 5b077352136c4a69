// Read-only access to a report document (docs/json-schema.md) for the history module: the
// store and the diff look at the same facts the same way. None of these throw; a missing or
// mistyped member reads as absent.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kprof/history.hpp"
#include "kprof/report.hpp"

namespace kprof::history {

/// The metric every report carries for a launch's duration.
inline constexpr std::string_view k_duration_metric = "gpu__time_duration.sum";

/// `object[key]` when `object` is an object holding `key`, else nullptr.
const Json* member(const Json& object, std::string_view key);
/// A finite number at `object[key]`, else nullopt.
std::optional<double> number_at(const Json& object, std::string_view key);
/// A string at `object[key]`, else "".
std::string text_at(const Json& object, std::string_view key);
/// A non-negative integer at `object[key]` that fits an int, else nullopt.
std::optional<int> index_at(const Json& object, std::string_view key);

/// max of the present values; nullopt when both are absent.
std::optional<double> max_of(std::optional<double> a, std::optional<double> b);

/// Distinct kernel names: summary.kernels order, then kernels[] and roofline names not seen yet.
std::vector<std::string> kernel_names(const Json& doc);

/// The summary.kernels entry of `name`, else nullptr.
const Json* summary_entry(const Json& doc, std::string_view name);
/// roofline[name] when it is an object, else nullptr.
const Json* roofline_entry(const Json& doc, std::string_view name);
/// The kernels[] launch that stands for `name`: the longest by gpu__time_duration.sum, else the
/// last one listed. nullptr when the report has no launch of that name.
const Json* representative_launch(const Json& doc, std::string_view name);
/// The numeric value of `metric` in a kernels[] launch ({metrics: {m: {value, unit}}}).
std::optional<double> metric_value(const Json& launch, std::string_view metric);
/// The unit of `metric` in a launch, "" when absent.
std::string metric_unit(const Json& launch, std::string_view metric);

/// Summed duration of `name` (summary.kernels[].duration_ns), else its representative launch's
/// gpu__time_duration.sum.
std::optional<double> kernel_duration_ns(const Json& doc, std::string_view name);
/// summary.dominant_kernel, else the only kernel, else "".
std::string dominant_kernel(const Json& doc);

/// metadata.round and metadata.candidate when the report came from a profile round.
std::optional<RoundRef> round_of(const Json& doc);

/// One metric of metadata.metric_set: its name and label.
struct MetricLabel {
  std::string name;
  std::string label;
};
/// metadata.metric_set.metrics, in order.
std::vector<MetricLabel> metric_labels(const Json& doc);

} // namespace kprof::history
