// Artefacts printed by the CLI that have no Sink yet, one function each, text unchanged.
// They are to move behind the report Sinks; the callers switch then, nothing else changes.
#pragma once

#include <string>
#include <vector>

#include "kprof/history.hpp"
#include "kprof/metric_sets.hpp"
#include "kprof/profiler.hpp"
#include "kprof/report.hpp"

namespace kprof::cli {

/// `kprof metrics`: the set's metrics as table, json or csv; `list_other_sets` adds the names of
/// the built-in sets (the plain `kprof metrics` listing).
std::string metric_set_listing_text(const MetricSet& set, Format format, bool list_other_sets);

/// `kprof metrics --check` when every metric is known.
std::string metric_check_passed_text(const MetricSet& set, const std::string& listing_file);

/// `kprof metrics --check`: one "unknown: NAME" line per unknown metric.
std::string unknown_metrics_text(const std::vector<std::string>& unknown);

/// `kprof batch`: the candidates ranked by total kernel duration, as json or a table.
std::string batch_ranking_text(const RoundResult& round, Format format);

/// `kprof doctor`: one line per check and the closing verdict.
std::string doctor_lines_text(const std::vector<DoctorCheck>& checks);

/// `kprof harness`: where the script went and how to run it.
std::string harness_written_text(const std::string& script, const std::string& plan);

} // namespace kprof::cli
