#include "cli/text.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "kprof/harness.hpp"
#include "kprof/json_file.hpp"
#include "kprof/status.hpp"
#include "kprof/strings.hpp"

namespace kprof::cli {

// These quote names and paths from the command line or a metric listing; like the sinks' text
// they are printable (kprof/strings.hpp), their control characters shown as \xNN.

std::string metric_check_passed_text(const MetricSet& set, const std::string& listing_file) {
  return printable(fmt::format("all {} metrics of set '{}' are known to {}\n", set.metrics.size(),
                               set.name, listing_file),
                   Multiline::yes);
}

std::string unknown_metrics_text(const std::vector<std::string>& unknown) {
  std::string text;
  for (const auto& name : unknown) {
    text += fmt::format("unknown: {}\n", name);
  }
  return printable(text, Multiline::yes);
}

std::string harness_written_text(const std::string& script, const std::string& plan) {
  return printable(fmt::format("wrote {} and {}\nrun it:     python3 {} {}\nunder ncu:  ncu --nvtx "
                               "--nvtx-include '{}' ... python3 {} {}\n",
                               script, plan, script, plan, nvtx_include_for_ranges(), script, plan),
                   Multiline::yes);
}

} // namespace kprof::cli
