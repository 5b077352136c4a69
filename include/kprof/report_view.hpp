// kprof: the one read side of kprof's JSON documents.
//
// Everything that reads a report document (the prompt, table and CSV sinks, the history store's
// row extraction, the diff) reads it through this header, so every reader agrees on one rule:
// a value is present when it has the expected type and, for numbers, is finite. A missing key,
// null, NaN or infinity (possible in a document built in memory), or a value of another type
// reads as absent. Nothing here throws, so a document loaded from disk, written by an older
// kprof or edited by hand renders without surprises.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kprof/json_file.hpp"

namespace kprof {

/// Tolerant member reads of a JSON object (the rule above).
namespace json_read {

/// `object[key]` when `object` is an object holding `key`, else nullptr.
const Json* member(const Json& object, std::string_view key);
/// `value` when it is a finite number, else nullopt.
std::optional<double> number_of(const Json& value);
/// A finite number at `object[key]`, else nullopt.
std::optional<double> number_at(const Json& object, std::string_view key);
/// The string at `object[key]`, else `fallback`.
std::string text_at(const Json& object, std::string_view key, std::string_view fallback = {});
/// The boolean at `object[key]`, else nullopt.
std::optional<bool> bool_at(const Json& object, std::string_view key);
/// A non-negative integer at `object[key]` that fits an int, else nullopt.
std::optional<int> index_at(const Json& object, std::string_view key);

} // namespace json_read

/// A duration for a person, the one way kprof writes one: nanoseconds scaled to a unit
/// ("850 ns", "9.86 us", "1.21 ms", "2.50 s"); `missing` when nullopt.
std::string duration_text(std::optional<double> ns, std::string_view missing = "-");

/// A percentage for a person, as history, diff and convergence print SOL values: whole percent
/// ("91%"), one decimal below 10 ("4.5%"); `missing` when nullopt.
std::string short_percent_text(std::optional<double> pct, std::string_view missing = "-");

/// A duration value with the unit a document gives it ("ns", "nsecond", "us", "usecond", "ms",
/// "msecond", "s", "second"; "" counts as ns) in nanoseconds; nullopt for any other unit.
std::optional<double> duration_ns(double value, std::string_view unit);

/// max(compute, memory) SOL of the present values; nullopt when both are absent.
std::optional<double> max_sol_pct(std::optional<double> compute_pct,
                                  std::optional<double> memory_pct);

/// One kernel name of a report: its summary facts, its launches and its roofline verdict.
struct ReportKernel {
  std::string name;
  std::size_t launch_count = 0;         ///< summary.kernels[].launches, else launches.size()
  std::optional<double> duration_ns;    ///< summed (summary), else the representative launch's
  std::optional<double> share;          ///< of the total duration, 0..1
  std::vector<const Json*> launches;    ///< kernels[] entries of this name, document order
  const Json* representative = nullptr; ///< the longest launch (the first when none has a
                                        ///< duration); nullptr without launches
  const Json* roofline = nullptr;       ///< roofline[name] when it is an object, else nullptr
  bool library = false;                 ///< summary.kernels[].library: a library's kernel
};

/// One metric of metadata.metric_set: name, label (the name when empty), group ("Other" when
/// empty).
struct MetricLabel {
  std::string name;
  std::string label;
  std::string group;
};

/// Read-only view of one report document (docs/json-schema.md). It borrows the document, which
/// must outlive it. Construction walks the document once; the accessors are cheap.
class ReportView {
public:
  explicit ReportView(const Json& doc);
  explicit ReportView(const Json&& doc) = delete; ///< would dangle

  [[nodiscard]] const Json& document() const { return *m_doc; }
  /// metadata, or an empty object.
  [[nodiscard]] const Json& metadata() const;
  /// metadata.page == "details" (ncu's details page: values keyed by section/label).
  [[nodiscard]] bool details_page() const;
  [[nodiscard]] std::optional<double> total_duration_ns() const;
  /// summary.launches, else 0.
  [[nodiscard]] std::size_t launch_count() const;
  /// summary.dominant_kernel, else the only kernel, else "".
  [[nodiscard]] std::string dominant_kernel() const;
  /// metadata.round and metadata.candidate (set when the report came from a profile round).
  [[nodiscard]] std::optional<int> round() const;
  [[nodiscard]] std::optional<int> candidate() const;

  /// Every kernel name the document mentions: summary.kernels order, then kernels[], then
  /// roofline names not seen yet.
  [[nodiscard]] const std::vector<ReportKernel>& kernels() const { return m_kernels; }
  /// The same kernels, longest total duration first (unknown durations last, ties in document
  /// order).
  [[nodiscard]] std::vector<ReportKernel> kernels_by_duration() const;
  /// The kernel called `name`, else nullptr.
  [[nodiscard]] const ReportKernel* kernel(std::string_view name) const;
  /// The names of kernels(), in that order.
  [[nodiscard]] std::vector<std::string> kernel_names() const;

  /// metadata.metric_set.metrics, in order (entries without a name left out).
  [[nodiscard]] std::vector<MetricLabel> metric_labels() const;

  /// The numeric value of `metric` in a kernels[] launch ({metrics: {m: {value, unit}}}, or the
  /// flat KernelAgent layout {metrics: {m: number}}).
  static std::optional<double> metric_value(const Json& launch, std::string_view metric);
  /// The unit of `metric` in a launch, "" when absent.
  static std::string metric_unit(const Json& launch, std::string_view metric);
  /// The launch's duration in nanoseconds: gpu__time_duration.sum (raw page) or the details
  /// page's "Duration", converted from its unit.
  static std::optional<double> launch_duration_ns(const Json& launch);
  /// The metric launch_duration_ns() reads in `launch` ("gpu__time_duration.sum", ...); empty
  /// when the launch has none.
  static std::string_view launch_duration_metric(const Json& launch);

private:
  const Json* m_doc;
  std::vector<ReportKernel> m_kernels;
};

/// The kernel names of `doc` containing `filter` whose longest launch (ReportKernel::
/// representative) has a non-empty `member` ("hot_lines", "diagnosis"): each name with that
/// launch's kernels[] entry, longest kernel first. The one pick of "a kernel's hot lines" for
/// kprof mcp and Python's ProfilerResults.hot_lines. The entries point into `doc`.
std::vector<std::pair<std::string, const Json*>>
kernels_with(const Json& doc, std::string_view member, std::string_view filter = {});

} // namespace kprof
