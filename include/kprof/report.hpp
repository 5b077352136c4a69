// kprof: the versioned report document and its sinks (JSON, CSV, prompt, table).
//
// Data flows one way: Capture + Analysis -> report document (JSON, schema in docs/json-schema.md)
// -> sinks. Every sink renders from the document alone, so a document loaded back from disk
// (diff, history, Python) renders exactly like a fresh one.
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>


#include "kprof/analysis.hpp"
#include "kprof/capture.hpp"
#include "kprof/error.hpp"
#include "kprof/json_file.hpp"
#include "kprof/metric_sets.hpp"

namespace kprof {


/// Bumped on any incompatible change of the document layout.
inline constexpr int k_report_schema_version = 1;

/// Builds the report document:
///   schema_version, metadata {kprof_version, source, generated_at, gpu, ncu_version?, page,
///   metric_set {name, metrics[{name,label,group}]}, select, ...run_metadata},
///   kernels [{name, id, nvtx_range, grid, block, device, cc, metrics {m: {value, unit}}, rules?}],
///   summary {total_duration_ns, launches, dominant_kernel, kernels[{name, launches, duration_ns,
///   share}]}, roofline {kernel name: {...}}, metrics {kernel name: {m: number}} (KernelAgent
///   layout).
/// `run_metadata` (an object) is merged into metadata last, so a caller can add run facts.
/// Only the selected launches appear in kernels/metrics. NaN/inf and missing values are null;
/// integral numbers below 2^53 are stored as integers. Details pages add "section" to each
/// kernels[].metrics entry. `analysis` must come from `capture` (asserted). Never fails.
Json build_report(const Capture& capture, const Analysis& analysis, const MetricSet& metrics,
                  const Json& run_metadata = Json::object());

/// Checks that `doc` is a kprof report this version can read (schema_version, required keys);
/// malformed_input otherwise, naming what is missing ("summary.dominant_kernel") or, for a larger
/// schema_version, saying that the report was "written by a newer kprof".
Result<void> validate_report(const Json& doc);

/// Parses and validates a report file written by kprof (e.g. round003/report.json).
/// input_not_found when the file cannot be read; malformed_input with nlohmann's message when it
/// is not JSON, or with validate_report's message when it is not a report this kprof can read.
Result<Json> load_report(const std::filesystem::path& path);

enum class Format { json, csv, prompt, table, html };
std::string_view to_string(Format format);
/// "json|csv|prompt|table|html"; usage error listing the valid words otherwise.
Result<Format> parse_format(std::string_view word);

struct RenderOptions {
  bool color = false; ///< ANSI colour in the table (off when NO_COLOR is set)
  /// Decimals of KernelAgent-style numbers. build_report() always rounds the document's
  /// `metrics` to 3 (KernelAgent's default); the prompt and table print values through
  /// format_with_unit(), whose precision is fixed, so no sink reads this today.
  int round_digits = 3;
  std::size_t max_rules = 5; ///< NCU rule findings per kernel in the prompt/table
  bool compact = false;      ///< JSON without indentation
};

/// One output format. Sinks are stateless; render() never fails on a valid document.
class Sink {
public:
  virtual ~Sink() = default;
  [[nodiscard]] virtual Format format() const = 0;
  [[nodiscard]] virtual std::string render(const Json& doc, const RenderOptions& options) const = 0;
};

std::unique_ptr<Sink> make_sink(Format format);

/// Shorthand for make_sink(format)->render(doc, options).
std::string render(Format format, const Json& doc, const RenderOptions& options = {});

} // namespace kprof
