// ncu's command line: raw and details pages, NVTX, sudo, reports, and that every option is one
// the recorded `ncu --help` of 2025.3.1 lists.
#include <algorithm>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "kprof/ncu.hpp"
#include "unit/ncu/ncu_test_support.hpp"

namespace kprof {
namespace {

using Argv = std::vector<std::string>;

MetricSet two_metrics() {
  MetricSet set;
  set.name = "custom";
  set.metrics = {{"gpu__time_duration.sum", "Duration", "Time"},
                 {"dram__bytes_read.sum", "DRAM bytes read", "Memory"}};
  return set;
}

MetricSet with_sections() {
  MetricSet set = two_metrics();
  set.name = "deep";
  set.sections = {"SpeedOfLight", "Occupancy"};
  return set;
}

NcuCommand basic_command() {
  NcuCommand command;
  command.ncu.executable = "/opt/ncu/ncu";
  command.metrics = two_metrics();
  command.nvtx_include = "kprof/";
  command.clock_control = ClockControl::none;
  command.log_file = "/tmp/round001/ncu.log";
  command.target = {"/usr/bin/python3", "/tmp/round001/harness.py", "--flag"};
  return command;
}

/// Option names ncu 2025.3.1 accepts, read from the recorded `ncu --help`.
std::set<std::string> options_in_help() {
  const std::string help = test::read_fixture("ncu_help.txt");
  std::set<std::string> options;
  const std::regex option_line(R"(^\s+(-[A-Za-z])? ?\[? ?(--[a-z][a-z0-9-]*))");
  std::size_t from = 0;
  while (from < help.size()) {
    const auto eol = help.find('\n', from);
    const std::string line =
        help.substr(from, eol == std::string::npos ? std::string::npos : eol - from);
    from = eol == std::string::npos ? help.size() : eol + 1;
    std::smatch match;
    if (std::regex_search(line, match, option_line)) {
      if (match[1].matched) {
        options.insert(match[1].str());
      }
      options.insert(match[2].str());
    }
  }
  return options;
}

TEST(BuildNcuArgv, AsksForTheRawPageForAMetricList) {
  const Argv expected = {"/opt/ncu/ncu",
                         "--csv",
                         "--page",
                         "raw",
                         "--metrics",
                         "gpu__time_duration.sum,dram__bytes_read.sum",
                         "--nvtx",
                         "--nvtx-include",
                         "kprof/",
                         "--target-processes",
                         "all",
                         "--replay-mode",
                         "kernel",
                         "--clock-control",
                         "none",
                         "--log-file",
                         "/tmp/round001/ncu.log",
                         "/usr/bin/python3",
                         "/tmp/round001/harness.py",
                         "--flag"};
  EXPECT_EQ(build_ncu_argv(basic_command()), expected);
}

TEST(BuildNcuArgv, AsksForTheDetailsPageWithOneSectionOptionPerSection) {
  NcuCommand command = basic_command();
  command.metrics = with_sections();
  const Argv argv = build_ncu_argv(command);

  const Argv head(argv.begin(), argv.begin() + 10);
  const Argv expected_head = {"/opt/ncu/ncu", "--csv",
                              "--page",       "details",
                              "--metrics",    "gpu__time_duration.sum,dram__bytes_read.sum",
                              "--section",    "SpeedOfLight",
                              "--section",    "Occupancy"};
  EXPECT_EQ(head, expected_head);
  EXPECT_EQ(std::count(argv.begin(), argv.end(), "--section"), 2);
}

TEST(BuildNcuArgv, LeavesOutNvtxFilteringWhenNoRangeIsGiven) {
  NcuCommand command = basic_command();
  command.nvtx_include.clear();
  const Argv argv = build_ncu_argv(command);
  EXPECT_EQ(std::find(argv.begin(), argv.end(), "--nvtx"), argv.end());
  EXPECT_EQ(std::find(argv.begin(), argv.end(), "--nvtx-include"), argv.end());
}

TEST(BuildNcuArgv, PassesBaseClockControlThrough) {
  NcuCommand command = basic_command();
  command.clock_control = ClockControl::base;
  const Argv argv = build_ncu_argv(command);
  const auto it = std::find(argv.begin(), argv.end(), "--clock-control");
  ASSERT_NE(it, argv.end());
  EXPECT_EQ(*(it + 1), "base");
}

TEST(BuildNcuArgv, ExportsAReportWithForceOverwriteBeforeTheTarget) {
  NcuCommand command = basic_command();
  command.report_file = "/tmp/round001/report";
  const Argv argv = build_ncu_argv(command);
  const auto it = std::find(argv.begin(), argv.end(), "-o");
  ASSERT_NE(it, argv.end());
  ASSERT_LT(std::distance(argv.begin(), it) + 3, static_cast<std::ptrdiff_t>(argv.size()));
  EXPECT_EQ(*(it + 1), "/tmp/round001/report");
  EXPECT_EQ(*(it + 2), "-f");
  EXPECT_EQ(*(it + 3), "/usr/bin/python3");
  // ncu writes the report and the log together (export_and_logfile_vadd.csv).
  EXPECT_NE(std::find(argv.begin(), argv.end(), "--log-file"), argv.end());
}

TEST(BuildNcuArgv, AddsSourceCountersPrintingTheSourcePageWithoutRepeatingASection) {
  NcuCommand command = basic_command();
  command.source_counters = true;
  command.report_file = "/tmp/round001/report";
  Argv argv = build_ncu_argv(command);
  // The session prints the source page; its rows are imported from the report (import_rows).
  ASSERT_GE(argv.size(), 6U);
  EXPECT_EQ(argv[2], "--page");
  EXPECT_EQ(argv[3], "source");
  EXPECT_EQ(argv[4], "--print-source");
  EXPECT_EQ(argv[5], "cuda,sass");
  EXPECT_EQ(rows_page(command.metrics), "raw"); // the metric list's rows
  const auto count = [&argv](const std::string& word) {
    return std::count(argv.begin(), argv.end(), word);
  };
  EXPECT_EQ(count("SourceCounters"), 1);
  EXPECT_EQ(count("WarpStateStats"), 1);
  const auto source = std::find(argv.begin(), argv.end(), "--import-source");
  ASSERT_NE(source, argv.end());
  EXPECT_EQ(*(source + 1), "yes");

  MetricSet deep = with_sections();
  deep.sections.emplace_back("WarpStateStats");
  command.metrics = deep;
  argv = build_ncu_argv(command);
  EXPECT_EQ(argv[3], "source");
  EXPECT_EQ(rows_page(command.metrics), "details"); // with the sections' rules
  EXPECT_EQ(count("WarpStateStats"), 1);
  EXPECT_EQ(count("SourceCounters"), 1);
}

TEST(BuildNcuArgv, GivesAnEmptySectionFolderOnlyToASessionOfMetricsOnly) {
  NcuCommand command = basic_command();
  command.empty_section_folder = "/tmp/session/no-sections";
  Argv argv = build_ncu_argv(command);
  const auto folder = std::find(argv.begin(), argv.end(), "--section-folder");
  ASSERT_NE(folder, argv.end());
  EXPECT_EQ(*(folder + 1), "/tmp/session/no-sections");
  // Sections and source counters need ncu's own section files.
  command.metrics = with_sections();
  argv = build_ncu_argv(command);
  EXPECT_EQ(std::find(argv.begin(), argv.end(), "--section-folder"), argv.end());
  command = basic_command();
  command.empty_section_folder = "/tmp/session/no-sections";
  command.source_counters = true;
  command.report_file = "/tmp/session/report";
  argv = build_ncu_argv(command);
  EXPECT_EQ(std::find(argv.begin(), argv.end(), "--section-folder"), argv.end());
}

TEST(SourcePageArgv, ImportsTheReportAndPrintsCudaAndSassLinesAsCsv) {
  NcuInstall ncu;
  ncu.executable = "/opt/ncu/ncu";
  const Argv expected = {"/opt/ncu/ncu", "--import",       "/tmp/r.ncu-rep", "--page",
                         "source",       "--print-source", "cuda,sass",      "--csv"};
  EXPECT_EQ(source_page_argv(ncu, "/tmp/r.ncu-rep"), expected);
  const std::string help = test::read_fixture("ncu_help.txt");
  for (const std::string word : {"--print-source", "--import-source", "source:"}) {
    EXPECT_NE(help.find(word), std::string::npos) << word;
  }
}

TEST(BuildNcuArgv, RunsNcuThroughSudoKeepingPathLibrariesAndRequestedVariables) {
  NcuCommand command = basic_command();
  command.use_sudo = true;
  command.preserve_env = {"PYTHONPATH", "PATH", "CUDA_VISIBLE_DEVICES"};
  const Argv argv = build_ncu_argv(command);
  ASSERT_GE(argv.size(), 4U);
  EXPECT_EQ(argv[0], "sudo");
  EXPECT_EQ(argv[1], "-E");
  EXPECT_EQ(argv[2], "--preserve-env=PATH,LD_LIBRARY_PATH,PYTHONPATH,CUDA_VISIBLE_DEVICES");
  EXPECT_EQ(argv[3], "/opt/ncu/ncu");
}

TEST(BuildNcuArgv, EmitsOnlyOptionsAndValuesThatNcu2025HelpLists) {
  const std::set<std::string> known = options_in_help();
  ASSERT_GT(known.size(), 50U) << "could not read options from ncu_help.txt";
  const std::string help = test::read_fixture("ncu_help.txt");

  for (const bool details : {false, true}) {
    for (const bool report : {false, true}) {
      NcuCommand command = basic_command();
      command.source_counters = report;
      command.empty_section_folder = "/tmp/session/no-sections";
      command.target = {"/bin/true"};
      if (details) {
        command.metrics = with_sections();
      }
      if (report) {
        command.report_file = "/tmp/report";
      }
      const Argv argv = build_ncu_argv(command);
      const auto target = std::find(argv.begin(), argv.end(), "/bin/true");
      for (auto it = argv.begin() + 1; it != target; ++it) {
        if (!it->empty() && it->front() == '-') {
          EXPECT_TRUE(known.count(*it) == 1) << *it << " is not an option of ncu 2025.3.1";
        }
      }
    }
  }
  // The values we pass to enumerated options are listed under them in the help text.
  for (const std::string value :
       {"details: sections and rules", "raw: all collected metrics", "source: source code",
        "cuda,sass", "(Don't lock clocks)", "(Lock GPU clocks to base)",
        "--replay-mode arg (=kernel)", "--target-processes arg (=all)"}) {
    EXPECT_NE(help.find(value), std::string::npos) << value;
  }
}

TEST(BuildNcuArgv, PutsTheLaunchFiltersBeforeTheTargetAndNcu2025KnowsThem) {
  NcuCommand command = basic_command();
  command.launch_filters = {"--filter-mode",  "per-launch-config",
                            "--launch-count", "1",
                            "--kernel-name",  "regex:^(.*::)?(gemv)([<(].*)?$"};
  const Argv argv = build_ncu_argv(command);
  const auto filter = std::find(argv.begin(), argv.end(), "--filter-mode");
  const auto target = std::find(argv.begin(), argv.end(), "/usr/bin/python3");
  ASSERT_NE(filter, argv.end());
  EXPECT_EQ(std::distance(filter, target), 6);
  const std::set<std::string> known = options_in_help();
  for (const char* option : {"--filter-mode", "--launch-count", "--kernel-name"}) {
    EXPECT_EQ(known.count(option), 1U) << option;
  }
  EXPECT_NE(test::read_fixture("ncu_help.txt").find("per-launch-config: Apply kernel filters"),
            std::string::npos);
}

TEST(ClockControl, ParsesTheTwoValidWordsAndRejectsOthersListingThem) {
  ASSERT_TRUE(parse_clock_control("base").ok());
  EXPECT_EQ(*parse_clock_control("base"), ClockControl::base);
  EXPECT_EQ(*parse_clock_control("none"), ClockControl::none);
  EXPECT_EQ(to_string(ClockControl::base), "base");
  EXPECT_EQ(to_string(ClockControl::none), "none");

  const auto bad = parse_clock_control("reset");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().category, ErrorCategory::usage);
  EXPECT_NE(bad.error().message.find("base, none"), std::string::npos);
}

} // namespace
} // namespace kprof
