// The stand-in ncu (tests/standins/ncu) end to end: it must accept the command kprof builds,
// run the target, and reproduce each recorded outcome so CI can test `kprof profile` without a
// GPU. Its output goes through the real classification and CSV reader.
#include <chrono>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "kprof/ncu.hpp"
#include "kprof/ncu_output.hpp"
#include "unit/ncu/ncu_test_support.hpp"

namespace kprof {
namespace {

namespace fs = std::filesystem;

struct FakeRun {
  ProcessResult process;
  std::string log;
  bool has_rows = false;
  NcuVerdict verdict;
};

NcuCommand command_for(const fs::path& dir, std::vector<std::string> target) {
  NcuCommand command;
  command.ncu.executable = test::k_fake_ncu;
  MetricSet set;
  set.name = "custom";
  set.metrics = {{"gpu__time_duration.sum", "Duration", "Time"}};
  command.metrics = set;
  command.nvtx_include = "kprof/";
  command.log_file = dir / "ncu.log";
  command.target = std::move(target);
  return command;
}

/// Runs the stand-in with the argv kprof would use, then classifies like the profiler does.
FakeRun run_fake(const NcuCommand& command,
                 std::vector<std::pair<std::string, std::string>> env = {},
                 std::chrono::milliseconds timeout = std::chrono::seconds(60)) {
  ProcessSpec spec;
  spec.argv = build_ncu_argv(command);
  spec.env_set = std::move(env);
  spec.timeout = timeout;
  spec.kill_grace = std::chrono::milliseconds(200);
  FakeRun run;
  auto result = run_process(spec);
  EXPECT_TRUE(result.ok()) << (result.ok() ? "" : result.error().message);
  if (!result.ok()) {
    return run;
  }
  run.process = std::move(result).value();
  if (fs::exists(command.log_file)) {
    run.log = test::read_text(command.log_file);
  }
  const auto capture = parse_ncu_csv(run.log);
  run.has_rows = capture.ok() && !capture->kernels.empty();
  run.verdict = classify_ncu_run(run.process, run.log, run.has_rows);
  return run;
}

TEST(FakeNcu, PrintsTheRealVersionText) {
  ProcessSpec spec;
  spec.argv = {test::k_fake_ncu.string(), "--version"};
  const auto result = run_process(spec);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(parse_ncu_version(result->out), "2025.3.1.0");
  EXPECT_NE(result->out.find("Nsight Compute Command Line Profiler"), std::string::npos);
}

TEST(FakeNcu, PrintsTheRecordedHopperMetricListing) {
  ProcessSpec spec;
  spec.argv = {test::k_fake_ncu.string(), "--query-metrics", "--chip", "gh100"};
  const auto result = run_process(spec);
  ASSERT_TRUE(result.ok() && result->succeeded());
  EXPECT_EQ(result->out, test::read_fixture("ncu_query_metrics_gh100.txt"));
}

TEST(FakeNcu, AcceptsTheFullCommandKprofBuildsAndReplaysTheRecordedCsv) {
  const TempDir dir = test::make_temp_dir();
  NcuCommand command = command_for(dir.path(), {"/bin/true"});
  MetricSet deep = command.metrics;
  deep.sections = {"SpeedOfLight", "Occupancy"};
  command.metrics = deep;
  command.report_file = dir.path() / "report";
  command.clock_control = ClockControl::base;

  const FakeRun run = run_fake(command);
  EXPECT_TRUE(run.process.succeeded()) << run.process.describe() << "\n" << run.process.out;
  EXPECT_TRUE(run.has_rows);
  EXPECT_FALSE(run.verdict.error.has_value());
  EXPECT_NE(run.log.find("==PROF== Report: "), std::string::npos);
  EXPECT_TRUE(looks_like_ncu_report(dir.path() / "report.ncu-rep"));
}

TEST(FakeNcu, RunsTheTargetWithTheInheritedEnvironment) {
  const TempDir dir = test::make_temp_dir();
  const fs::path marker = dir.path() / "ran.txt";
  const FakeRun run =
      run_fake(command_for(dir.path(), {"/bin/sh", "-c", R"(printf '%s' "$KPROF_X" > "$1")", "sh",
                                        marker.string()}),
               {{"KPROF_X", "inherited"}});
  EXPECT_TRUE(run.process.succeeded()) << run.process.describe();
  EXPECT_EQ(test::read_text(marker), "inherited");
}

TEST(FakeNcu, ReplaysTheCsvNamedInTheEnvironment) {
  const TempDir dir = test::make_temp_dir();
  const FakeRun run = run_fake(command_for(dir.path(), {"/bin/true"}),
                               {{"KPROF_FAKE_NCU_CSV", "curated_nvtx_vadd.csv"}});
  const auto capture = parse_ncu_csv(run.log);
  ASSERT_TRUE(capture.ok()) << capture.error().message;
  ASSERT_EQ(capture->kernels.size(), 1U);
  EXPECT_EQ(capture->kernels[0].name, "add_kernel");
}

TEST(FakeNcu, ExitsWithTheTargetsCodeAfterPrintingItsRowsLikeNcu) {
  const TempDir dir = test::make_temp_dir();
  const FakeRun run = run_fake(command_for(dir.path(), {"/bin/sh", "-c", "exit 3"}));
  EXPECT_EQ(run.process.exit_code, 3);
  EXPECT_NE(run.log.find("==ERROR== The application returned an error code (3)."),
            std::string::npos);
  ASSERT_TRUE(run.verdict.error.has_value());
  EXPECT_EQ(run.verdict.error->category, ErrorCategory::kernel_raised);
  EXPECT_EQ(run.verdict.error->message, "the profiled program exited with code 3 after 2 kernels");
  EXPECT_TRUE(run.verdict.partial);
}

TEST(FakeNcu, ReproducesNoKernelsProfiled) {
  const TempDir dir = test::make_temp_dir();
  const FakeRun run =
      run_fake(command_for(dir.path(), {"/bin/true"}), {{"KPROF_FAKE_NCU_SCENARIO", "no_kernels"}});
  EXPECT_EQ(run.process.exit_code, 0);
  ASSERT_TRUE(run.verdict.error.has_value());
  EXPECT_EQ(run.verdict.error->category, ErrorCategory::no_kernels);
}

TEST(FakeNcu, ReproducesMissingCounterPermissionWithoutRunningTheTarget) {
  const TempDir dir = test::make_temp_dir();
  const fs::path marker = dir.path() / "ran.txt";
  const FakeRun run =
      run_fake(command_for(dir.path(), {"/bin/sh", "-c", R"(: > "$1")", "sh", marker.string()}),
               {{"KPROF_FAKE_NCU_SCENARIO", "permission"}});
  EXPECT_EQ(run.process.exit_code, 1);
  EXPECT_FALSE(fs::exists(marker));
  ASSERT_TRUE(run.verdict.error.has_value());
  EXPECT_EQ(run.verdict.error->category, ErrorCategory::permission_denied);
}

TEST(FakeNcu, HangsUntilKilledAtTheTimeLimit) {
  const TempDir dir = test::make_temp_dir();
  const FakeRun run =
      run_fake(command_for(dir.path(), {"/bin/true"}), {{"KPROF_FAKE_NCU_SCENARIO", "hang"}},
               std::chrono::milliseconds(500));
  EXPECT_TRUE(run.process.timed_out);
  ASSERT_TRUE(run.verdict.error.has_value());
  EXPECT_EQ(run.verdict.error->category, ErrorCategory::timeout);
  EXPECT_TRUE(run.verdict.retryable);
}

TEST(FakeNcu, FailsTransientlyOnceThenSucceedsInFlakyMode) {
  const TempDir dir = test::make_temp_dir();
  const std::vector<std::pair<std::string, std::string>> env = {
      {"KPROF_FAKE_NCU_SCENARIO", "flaky:" + (dir.path() / "flaky-state").string()}};
  const NcuCommand command = command_for(dir.path(), {"/bin/true"});

  const FakeRun first = run_fake(command, env);
  EXPECT_EQ(first.process.exit_code, 1);
  ASSERT_TRUE(first.verdict.error.has_value());
  EXPECT_EQ(first.verdict.error->category, ErrorCategory::ncu_failed);
  EXPECT_TRUE(first.verdict.retryable);

  const FakeRun second = run_fake(command, env);
  EXPECT_TRUE(second.process.succeeded());
  EXPECT_FALSE(second.verdict.error.has_value());
}

TEST(FakeNcu, RejectsAnUnknownOptionLikeNcu) {
  ProcessSpec spec;
  spec.argv = {test::k_fake_ncu.string(), "--csv", "--no-such-option", "/bin/true"};
  const auto result = run_process(spec);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->exit_code, 1);
  const NcuVerdict verdict = classify_ncu_run(*result, "", false);
  ASSERT_TRUE(verdict.error.has_value());
  EXPECT_EQ(verdict.error->category, ErrorCategory::ncu_failed);
  EXPECT_FALSE(verdict.retryable);
}

} // namespace
} // namespace kprof
