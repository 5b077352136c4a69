// Building ncu's command line. Every option emitted here is checked against the recorded
// `ncu --help` of the supported version (tests/unit/ncu/command_test.cpp).
#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "kprof/metric_sets.hpp"
#include "kprof/ncu.hpp"

namespace kprof {
namespace {

/// Variables that must survive sudo for ncu and the profiled Python to behave as without it.
constexpr std::array<std::string_view, 2> k_always_preserved = {"PATH", "LD_LIBRARY_PATH"};

std::string preserve_env_option(const std::vector<std::string>& extra) {
  std::vector<std::string> names(k_always_preserved.begin(), k_always_preserved.end());
  for (const auto& name : extra) {
    if (!name.empty() && std::find(names.begin(), names.end(), name) == names.end()) {
      names.push_back(name);
    }
  }
  return fmt::format("--preserve-env={}", fmt::join(names, ","));
}

} // namespace

std::string_view to_string(ClockControl clock) {
  switch (clock) {
  case ClockControl::base:
    return "base";
  case ClockControl::none:
    return "none";
  }
  KPROF_ASSERT(false && "unknown ClockControl");
  return "none";
}

Result<ClockControl> parse_clock_control(std::string_view word) {
  if (word == "base") {
    return ClockControl::base;
  }
  if (word == "none") {
    return ClockControl::none;
  }
  return make_error(ErrorCategory::usage,
                    fmt::format("unknown clock control '{}'; valid values: base, none", word));
}

std::string_view rows_page(const MetricSet& metrics) {
  return metrics.sections.empty() ? "raw" : "details";
}

std::vector<std::string> build_ncu_argv(const NcuCommand& command) {
  std::vector<std::string> argv;
  if (command.use_sudo) {
    argv.emplace_back("sudo");
    argv.emplace_back("-E");
    argv.push_back(preserve_env_option(command.preserve_env));
  }
  argv.push_back(command.ncu.executable.string());
  argv.emplace_back("--csv");
  argv.emplace_back("--page");
  if (command.source_counters) { // the rows come from the report (import_rows)
    argv.emplace_back("source");
    argv.emplace_back("--print-source");
    argv.emplace_back("cuda,sass");
  } else {
    argv.emplace_back(rows_page(command.metrics));
  }
  if (!command.metrics.metrics.empty()) {
    argv.emplace_back("--metrics");
    argv.push_back(metrics_argument(command.metrics));
  }
  for (const auto& section : command.metrics.sections) {
    argv.emplace_back("--section");
    argv.push_back(section);
  }
  if (command.source_counters) {
    for (const std::string_view section : {"SourceCounters", "WarpStateStats"}) {
      const auto& sections = command.metrics.sections;
      if (std::find(sections.begin(), sections.end(), section) == sections.end()) {
        argv.emplace_back("--section");
        argv.emplace_back(section);
      }
    }
    argv.emplace_back("--import-source");
    argv.emplace_back("yes");
  }
  if (!command.nvtx_include.empty()) {
    argv.emplace_back("--nvtx");
    argv.emplace_back("--nvtx-include");
    argv.push_back(command.nvtx_include);
  }
  if (command.empty_section_folder && command.metrics.sections.empty() &&
      !command.source_counters) {
    argv.emplace_back("--section-folder");
    argv.push_back(command.empty_section_folder->string());
  }
  // `all`, not `application-only`: under the latter a python that is an exec shim (pyenv's) was
  // not profiled at all, and with compile workers it saved only 0.16-0.35 s of a batch of 32
  // (docs/device-runs/2026-12-05-compile-workers.md).
  argv.emplace_back("--target-processes");
  argv.emplace_back("all");
  argv.emplace_back("--replay-mode");
  argv.emplace_back("kernel");
  argv.emplace_back("--clock-control");
  argv.emplace_back(to_string(command.clock_control));
  if (!command.log_file.empty()) { // without one ncu prints to stdout, which the reader accepts
    argv.emplace_back("--log-file");
    argv.push_back(command.log_file.string());
  }
  if (command.report_file) {
    argv.emplace_back("-o");
    argv.push_back(command.report_file->string());
    argv.emplace_back("-f");
  }
  argv.insert(argv.end(), command.launch_filters.begin(), command.launch_filters.end());
  argv.insert(argv.end(), command.target.begin(), command.target.end());
  return argv;
}

} // namespace kprof
