// assess_source_session: a session with source counters prints the source page into its log and
// leaves its rows in the report (NcuCommand::source_counters); recorded H200 pages and rows.
#include <string>

#include <gtest/gtest.h>

#include "kprof/ncu_output.hpp"
#include "kprof/profile_session.hpp"
#include "profile_test_support.hpp"

namespace kprof {
namespace {

constexpr std::string_view k_connected = "==PROF== Connected to process 7 (/usr/bin/python3)\n"
                                         "==PROF== Disconnected from process 7\n"
                                         "==PROF== Report: /r/round001/ncu.ncu-rep\n";

Result<Capture> rows_of(const std::string& name) {
  return parse_ncu_csv(test::recorded(name), {}, name);
}

SessionOutcome source_session(ProcessResult process, std::string log, Result<Capture> rows) {
  return assess_source_session({"ncu"}, std::move(process), std::move(log), std::nullopt,
                               std::move(rows), "ncu.log");
}

TEST(SourceSession, TakesTheRowsFromTheReportAndTheSourcePageFromTheLog) {
  const SessionOutcome outcome = source_session(
      test::exited(0), std::string(k_connected) + test::recorded("source/twostage.source.csv"),
      rows_of("source/twostage.raw.csv"));
  EXPECT_FALSE(outcome.verdict.error) << outcome.verdict.error->message;
  ASSERT_TRUE(outcome.capture);
  EXPECT_EQ(outcome.capture->kernels.size(), 2U);
  ASSERT_TRUE(outcome.source_page) << outcome.source_error->message;
  EXPECT_FALSE(outcome.source_page->blocks.empty());
  EXPECT_FALSE(outcome.source_error);
}

TEST(SourceSession, CountsTheImportedLaunchesNotTheSourcePagesLineNumbersWhenTheProgramFailed) {
  // The page's rows begin with a line number ("263",...): read as kernel IDs they would make
  // "after 13 kernels" of a two-kernel program.
  const std::string log = std::string(k_connected) +
                          "==ERROR== The application returned an error code (1).\n" +
                          test::recorded("source/twostage.source.csv");
  const SessionOutcome outcome =
      source_session(test::exited(1), log, rows_of("source/twostage.raw.csv"));
  ASSERT_TRUE(outcome.verdict.error);
  EXPECT_EQ(outcome.verdict.error->category, ErrorCategory::kernel_raised);
  EXPECT_NE(outcome.verdict.error->message.find("after 2 kernels"), std::string::npos)
      << outcome.verdict.error->message;
  EXPECT_TRUE(outcome.verdict.partial);
}

TEST(SourceSession, ASessionWithoutAReportIsNoKernelsAsWithoutSourceCounters) {
  const SessionOutcome outcome =
      source_session(test::exited(0), test::recorded("no_kernels_profiled.txt"),
                     make_error(ErrorCategory::no_kernels, "ncu wrote no report /r/ncu.ncu-rep"));
  ASSERT_TRUE(outcome.verdict.error);
  EXPECT_EQ(outcome.verdict.error->category, ErrorCategory::no_kernels);
  EXPECT_NE(outcome.verdict.error->message.find("no launch matched"), std::string::npos);
  EXPECT_FALSE(outcome.capture);
  EXPECT_FALSE(outcome.source_page);
}

TEST(SourceSession, RowsThatCouldNotBeImportedFailTheRunInsteadOfReadingAsNoKernel) {
  const SessionOutcome outcome = source_session(
      test::exited(0), std::string(k_connected) + test::recorded("source/vadd.source.csv"),
      make_error(ErrorCategory::ncu_failed,
                 "ncu --import /r/ncu.ncu-rep failed (exit code 1): bad file"));
  ASSERT_TRUE(outcome.verdict.error);
  EXPECT_EQ(outcome.verdict.error->category, ErrorCategory::ncu_failed);
  EXPECT_NE(outcome.verdict.error->message.find("could not be read from ncu's report"),
            std::string::npos);
  EXPECT_NE(outcome.verdict.error->message.find("bad file"), std::string::npos);
  EXPECT_FALSE(outcome.source_page); // no rows to put hot lines on
}

TEST(SourceSession, AProgramFailureStaysTheVerdictWhenTheRowsAreLostToo) {
  const std::string log =
      std::string(k_connected) + "==ERROR== The application returned an error code (3).\n";
  const SessionOutcome outcome = source_session(
      test::exited(3), log, make_error(ErrorCategory::malformed_input, "/r/ncu.ncu-rep: line 4"));
  ASSERT_TRUE(outcome.verdict.error);
  EXPECT_EQ(outcome.verdict.error->category, ErrorCategory::ncu_failed);
  EXPECT_NE(outcome.verdict.error->message.find("exited with code 3"), std::string::npos)
      << outcome.verdict.error->message;
}

TEST(SourceSession, AnUnreadableSourcePageLeavesTheNumbersStanding) {
  const SessionOutcome outcome =
      source_session(test::exited(0), std::string(k_connected) + "\"File Path\"\n",
                     rows_of("source/vadd.raw.csv"));
  EXPECT_FALSE(outcome.verdict.error);
  ASSERT_TRUE(outcome.capture);
  EXPECT_FALSE(outcome.source_page);
  ASSERT_TRUE(outcome.source_error);
  EXPECT_NE(outcome.source_error->message.find("ncu.log"), std::string::npos);
}

TEST(SourceSession, KernelsWithoutLineInfoGiveAnEmptyPageAndTheRows) {
  const SessionOutcome outcome = source_session(
      test::exited(0),
      std::string(k_connected) +
          "==WARNING== No lineinfo available to show CUDA-C source related to 'kernel'.\n",
      rows_of("source/vadd.raw.csv"));
  EXPECT_FALSE(outcome.verdict.error);
  ASSERT_TRUE(outcome.source_page);
  EXPECT_TRUE(outcome.source_page->blocks.empty());
}

TEST(CompileWorkerCount, IsOnePerLaterCandidateUpToTheMost) {
  EXPECT_EQ(compile_worker_count(1, 16), 1);
  EXPECT_EQ(compile_worker_count(2, 16), 2);
  EXPECT_EQ(compile_worker_count(31, 16), k_max_compile_workers);
  EXPECT_EQ(k_max_compile_workers, 2);
}

TEST(CompileWorkerCount, LeavesTwoCpusToTheHarnessAndNcuButStartsAtLeastOne) {
  EXPECT_EQ(compile_worker_count(31, 3), 1);
  EXPECT_EQ(compile_worker_count(31, 2), 1);
  EXPECT_EQ(compile_worker_count(31, 0), 1); // the CPUs unknown
  EXPECT_EQ(compile_worker_count(0, 16), 1); // never none: a session asks only with a later one
}

} // namespace
} // namespace kprof
