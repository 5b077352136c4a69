// The CLI's few one-line messages that are no artefact (a metric check's verdict, where the
// harness was written); every artefact (report, batch, metric set, doctor, history, diff,
// convergence) is a document rendered by the sinks.
#pragma once

#include <string>
#include <vector>

#include "kprof/history.hpp"
#include "kprof/metric_sets.hpp"
#include "kprof/profiler.hpp"
#include "kprof/report.hpp"

namespace kprof::cli {

/// `kprof metrics --check` when every metric is known.
std::string metric_check_passed_text(const MetricSet& set, const std::string& listing_file);

/// `kprof metrics --check`: one "unknown: NAME" line per unknown metric.
std::string unknown_metrics_text(const std::vector<std::string>& unknown);

/// `kprof harness`: where the script went and how to run it.
std::string harness_written_text(const std::string& script, const std::string& plan);

} // namespace kprof::cli
