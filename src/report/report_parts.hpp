// kprof report module, internal: the parts of the report document that build_report() (a tree)
// and write_report_json() (streamed text) share, so the two cannot drift apart.
#pragma once

#include <string>
#include <vector>

#include "kprof/analysis.hpp"
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

/// The KernelAgent `metrics` value of a number: rounded to 3 decimals like metrics_to_prompt.
double kernel_agent_number(double value);

/// The `diagnosis` and `diagnosis_notes` members of one kernels[] entry (kprof/diagnosis.hpp):
/// what build_report and write_report_json both write, and attach_hot_lines rewrites with the
/// launch's source-page blocks and hot lines.
struct DiagnosisMembers {
  Json causes; ///< array of causes, most important first
  Json notes;  ///< array of strings
};
DiagnosisMembers diagnosis_members(const LaunchFactReader& facts, const KernelRecord& launch,
                                   PageKind page, std::string_view metric_set,
                                   const std::vector<SourceBlock>* blocks = nullptr,
                                   const KernelHotLines* hot_lines = nullptr);

} // namespace kprof::report_detail
