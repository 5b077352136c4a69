// kprof: KernelAgent's metrics JSON (its metrics_to_prompt), from metric rows or a report.
//
// KernelAgent feeds an LLM {kernel name: {metric: value}} text built from one row per launch.
// kprof builds that text here, once, for the Python package's metrics_to_prompt() and anything
// else that speaks KernelAgent's format; the report document's "metrics" block is the same text
// parsed back.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "kprof/error.hpp"
#include "kprof/json_file.hpp"

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

} // namespace kprof
