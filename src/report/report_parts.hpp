// kprof report module, internal: the parts of the report document that build_report() (a tree)
// and write_report_json() (streamed text) share, so the two cannot drift apart.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kprof/analysis.hpp"
#include "kprof/diagnosis.hpp"
#include "kprof/hot_lines.hpp"
#include "kprof/report.hpp"
#include "kprof/source_page.hpp"

namespace kprof::report_detail {

/// build_report's document with `kernels` ([]) and the KernelAgent `metrics` ({}) left empty in
/// their places: everything that does not grow with the number of launches.
Json report_skeleton(const Capture& capture, const Analysis& analysis, const MetricSet& metrics,
                     const Json& run_metadata);

/// The JSON key of each column in kernels[].metrics: its name, or "Section/Name" when another
/// column has the same name (details pages repeat labels such as "Memory Throughput"). A key
/// that still collides is left empty and the column is skipped.
std::vector<std::string> column_keys(const Capture& capture);

/// What the diagnoses of one report's launches share: the facts reader, the page, the metric
/// set's name, and the candidate's kernel file when the report's metadata names one (a profiled
/// round's `kernel_file`), read once for the launch's line. A capture read on its own has none.
struct DiagnosisContext {
  DiagnosisContext(const Capture& capture, std::optional<GpuSpec> gpu, std::string metric_set,
                   const Json& metadata);

  LaunchFactReader facts;
  PageKind page;
  std::string metric_set;
  std::optional<KernelSource> kernel_source;
};

/// The kernel file `metadata.kernel_file` names, with its text or why it could not be read;
/// nullopt when the metadata names none.
std::optional<KernelSource> kernel_source_of(const Json& metadata);

/// One kernels[] entry of build_report's document: the launch's identity, a {value, unit}
/// (and section, on a details page) per column with a key (column_keys), its NCU rules, and,
/// with a `diagnosis` context, its diagnosis_members.
Json kernel_json(const Capture& capture, const KernelRecord& record,
                 const std::vector<std::string>& keys, const DiagnosisContext* diagnosis);

/// The selected launches grouped by kernel name, the names in the order of their first launch.
std::vector<std::pair<std::string_view, std::vector<std::size_t>>>
launches_by_name(const Capture& capture, const Analysis& analysis);

/// Each member of the KernelAgent `metrics` object of build_report's document, one name at a
/// time: the name and its record, or the list of its records when it has several selected
/// launches (handed over: `each` may keep it).
void for_each_agent_entry(const Capture& capture, const Analysis& analysis, const MetricSet& set,
                          const std::function<void(const std::string&, Json)>& each);

/// One record of the KernelAgent `metrics` object of build_report's document: the set's metrics
/// of one launch.
Json agent_record(const Capture& capture, const KernelRecord& record, const MetricSet& set);

/// The KernelAgent `metrics` value of a number: rounded to 3 decimals like metrics_to_prompt.
double kernel_agent_number(double value);

/// The `diagnosis` and `diagnosis_notes` members of one kernels[] entry (kprof/diagnosis.hpp):
/// what build_report and write_report_json both write, and attach_hot_lines rewrites with the
/// launch's source-page blocks and hot lines.
struct DiagnosisMembers {
  Json causes; ///< array of causes, most important first
  Json notes;  ///< array of strings
};
DiagnosisMembers diagnosis_members(const DiagnosisContext& context, const KernelRecord& launch,
                                   const std::vector<SourceBlock>* blocks = nullptr,
                                   const KernelHotLines* hot_lines = nullptr);

} // namespace kprof::report_detail
