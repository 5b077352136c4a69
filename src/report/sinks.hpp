// kprof report module, internal: the sink classes and the helpers the text sinks share.
//
// Every sink reads the document through these tolerant accessors: a key that is missing or has
// an unexpected type reads as "absent", so render() never throws on a document that passed
// validate_report (which checks only the keys every sink needs).
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kprof/report.hpp"

namespace kprof::report_detail {

std::unique_ptr<Sink> make_json_sink();
std::unique_ptr<Sink> make_csv_sink();
std::unique_ptr<Sink> make_prompt_sink();
std::unique_ptr<Sink> make_table_sink();
std::unique_ptr<Sink> make_html_sink();

/// A JSON value for `value`: null when NaN or infinite, an integer when integral and below
/// 2^53 in magnitude (so 16781824 prints as 16781824, not 16781824.0), a double otherwise.
Json number_json(double value);

/// The member `key` of `object`, or nullptr when `object` is not an object or lacks it.
const Json* member(const Json& object, std::string_view key);

/// The number at `key`, nullopt when absent or not a number.
std::optional<double> number_at(const Json& object, std::string_view key);

/// The string at `key`, `fallback` when absent or not a string.
std::string string_at(const Json& object, std::string_view key, std::string_view fallback = {});

/// The boolean at `key`, nullopt when absent or not a boolean.
std::optional<bool> bool_at(const Json& object, std::string_view key);

/// One kernel name of the document: its summary facts and its launches (kernels[] entries).
struct KernelGroup {
  std::string name;
  std::size_t launch_count = 0;
  std::optional<double> duration_ns;
  std::optional<double> share;
  std::vector<const Json*> launches;    ///< kernels[] entries of this name, document order
  const Json* representative = nullptr; ///< the longest launch (first when unknown); may be null
  const Json* roofline = nullptr;       ///< roofline[name]; may be null
};

/// The kernel names of `doc`, longest total duration first (unknown durations last, ties in
/// document order).
std::vector<KernelGroup> kernel_groups_by_duration(const Json& doc);

/// A labelled value as the text sinks print it ("DRAM bytes read", "16.79 MB").
struct LabelledValue {
  std::string label;
  std::string text;
};

/// Values shown under one heading: a metric-set group (raw page) or an ncu section (details).
struct ValueGroup {
  std::string heading;
  std::vector<LabelledValue> values;
};

/// The values of one kernels[] entry grouped for display. Raw page: the metric set's metrics
/// that the launch has, grouped by MetricSpec::group in set order, labelled by MetricSpec::label.
/// Details page: every value grouped by section in document order. Null values are left out.
std::vector<ValueGroup> value_groups(const Json& doc, const Json& kernel);

/// The launch's rules, best first: OPT before ERR, WRN, INF, then by estimated speedup
/// (largest first), ties in document order; at most `max_rules`.
std::vector<const Json*> top_rules(const Json& kernel, std::size_t max_rules);

/// "[OPT, est. 43.7% global]" / "[INF]".
std::string rule_tag(const Json& rule);

/// The first sentence of `text` (up to and including the first ". "), trimmed.
std::string first_sentence(std::string_view text);

/// "61%" (share 0..1, rounded to a whole percent).
std::string share_text(double share);

/// "9.86 us", or `missing` when nullopt.
std::string duration_text(std::optional<double> ns, std::string_view missing);

/// "9.4%", or `missing` when nullopt.
std::string percent_text(std::optional<double> pct, std::string_view missing);

/// "GPU: NVIDIA H200 (peak DRAM 4.80 TB/s)" (or "GPU: unknown").
std::string gpu_line(const Json& doc);

} // namespace kprof::report_detail
