// Verdicts on ncu runs: every recorded outcome of ncu 2025.3.1 plus synthetic permission,
// timeout, signal and ncu-error cases.
#include <string>

#include <gtest/gtest.h>

#include "kprof/ncu.hpp"
#include "unit/ncu/ncu_test_support.hpp"

namespace kprof {
namespace {

ProcessResult exited(int code) {
  ProcessResult result;
  result.exit_code = code;
  return result;
}

constexpr const char* k_permission_log =
    "==PROF== Connected to process 2211 (/usr/bin/python3.12)\n"
    "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU "
    "Performance Counters on the target device 0. For instructions on enabling permissions and "
    "to get more information see https://developer.nvidia.com/ERR_NVGPUCTRPERM\n"
    "==PROF== Disconnected from process 2211\n";

void expect_one_line(const NcuVerdict& verdict) {
  ASSERT_TRUE(verdict.error.has_value());
  EXPECT_EQ(verdict.error->message.find('\n'), std::string::npos) << verdict.error->message;
}

TEST(ScanNcuLog, ReadsTheApplicationExitCodeFromTheCrashRecording) {
  const NcuLogFacts facts = scan_ncu_log(test::read_fixture("app_crash_after_kernels.txt"));
  EXPECT_EQ(facts.application_exit_code, 1);
  EXPECT_FALSE(facts.permission_denied);
  EXPECT_FALSE(facts.no_kernels_profiled);
  EXPECT_TRUE(facts.errors.empty());
}

TEST(ScanNcuLog, NoticesTheNoKernelsWarning) {
  const NcuLogFacts facts = scan_ncu_log(test::read_fixture("no_kernels_profiled.txt"));
  EXPECT_TRUE(facts.no_kernels_profiled);
  EXPECT_FALSE(facts.application_exit_code.has_value());
  EXPECT_TRUE(facts.errors.empty());
}

TEST(ScanNcuLog, NoticesThePermissionError) {
  const NcuLogFacts facts = scan_ncu_log(k_permission_log);
  EXPECT_TRUE(facts.permission_denied);
  EXPECT_TRUE(facts.errors.empty());
}

TEST(ScanNcuLog, KeepsOtherErrorLinesInOrderAndIgnoresTheProgramsOutput) {
  const NcuLogFacts facts = scan_ncu_log("ERROR: this is the program speaking\n"
                                         "==ERROR== first problem\r\n"
                                         "\"0\",\"==ERROR== inside a CSV field\"\n"
                                         "==WARNING== a warning\n"
                                         "==ERROR== second problem\n");
  ASSERT_EQ(facts.errors.size(), 2U);
  EXPECT_EQ(facts.errors[0], "first problem");
  EXPECT_EQ(facts.errors[1], "second problem");
}

TEST(ClassifyNcuRun, AcceptsARunWithRowsAndExitCodeZero) {
  // Unknown metric names are dropped silently: the run is still fine.
  const NcuVerdict verdict =
      classify_ncu_run(exited(0), test::read_fixture("invalid_metric_name.txt"), true);
  EXPECT_FALSE(verdict.error.has_value());
  EXPECT_FALSE(verdict.partial);
}

TEST(ClassifyNcuRun, CallsExitCodeZeroWithoutRowsNoKernels) {
  const NcuVerdict verdict =
      classify_ncu_run(exited(0), test::read_fixture("no_kernels_profiled.txt"), false);
  ASSERT_TRUE(verdict.error.has_value());
  EXPECT_EQ(verdict.error->category, ErrorCategory::no_kernels);
  EXPECT_FALSE(verdict.retryable);
  EXPECT_NE(verdict.error->detail.find("No kernels were profiled"), std::string::npos);
  expect_one_line(verdict);
}

TEST(ClassifyNcuRun, CallsAProgramThatFailedAfterKernelsAPartialRaise) {
  const NcuVerdict verdict =
      classify_ncu_run(exited(1), test::read_fixture("app_crash_after_kernels.txt"), true);
  ASSERT_TRUE(verdict.error.has_value());
  EXPECT_EQ(verdict.error->category, ErrorCategory::kernel_raised);
  EXPECT_EQ(verdict.error->message, "the profiled program exited with code 1 after 2 kernels");
  EXPECT_TRUE(verdict.partial);
  EXPECT_FALSE(verdict.retryable);
  // The program's traceback is in the detail; the wide CSV rows are not.
  EXPECT_NE(verdict.error->detail.find("RuntimeError: planted failure after one kernel"),
            std::string::npos);
  EXPECT_EQ(verdict.error->detail.find("\"ID\",\"Process ID\""), std::string::npos);
}

TEST(ClassifyNcuRun, CallsAProgramThatFailedBeforeAnyKernelAnNcuFailure) {
  const NcuVerdict verdict =
      classify_ncu_run(exited(2), test::read_fixture("app_missing_script.txt"), false);
  ASSERT_TRUE(verdict.error.has_value());
  EXPECT_EQ(verdict.error->category, ErrorCategory::ncu_failed);
  EXPECT_EQ(verdict.error->message,
            "the profiled program exited with code 2 before any kernel was profiled");
  EXPECT_FALSE(verdict.partial);
  EXPECT_FALSE(verdict.retryable);
  EXPECT_NE(verdict.error->detail.find("can't open file '/nonexistent.py'"), std::string::npos);
}

TEST(ClassifyNcuRun, CallsAProgramKilledByASignalTheProgramsCrashNotNcus) {
  // ncu reports a program a signal killed as a shell does: 128 + the signal (139: SIGSEGV).
  const std::string log = "==PROF== Connected to process 4242 (/usr/bin/python3)\n"
                          "==PROF== Disconnected from process 4242\n"
                          "==ERROR== The application returned an error code (139).\n";
  const NcuVerdict verdict = classify_ncu_run(exited(139), log, false);
  ASSERT_TRUE(verdict.error.has_value());
  EXPECT_EQ(verdict.error->category, ErrorCategory::program_crashed);
  EXPECT_EQ(verdict.error->message, "the profiled program crashed: it was killed by SIGSEGV (exit "
                                    "code 139) before any kernel was profiled");
  EXPECT_FALSE(verdict.retryable);
  EXPECT_EQ(verdict.program_exit_code, 139);
  EXPECT_EQ(verdict.program_signal, 11);
  expect_one_line(verdict);
}

TEST(ClassifyNcuRun, SaysHowToFixMissingCounterPermission) {
  const NcuVerdict verdict = classify_ncu_run(exited(1), k_permission_log, false);
  ASSERT_TRUE(verdict.error.has_value());
  EXPECT_EQ(verdict.error->category, ErrorCategory::permission_denied);
  EXPECT_FALSE(verdict.retryable);
  for (const char* fix : {"--sudo", "KPROF_NCU_USE_SUDO=1", "NVreg_RestrictProfilingToAdminUsers=0",
                          "CAP_SYS_ADMIN"}) {
    EXPECT_NE(verdict.error->message.find(fix), std::string::npos) << fix;
  }
  expect_one_line(verdict);
}

TEST(ClassifyNcuRun, FindsThePermissionErrorOnNcusConsoleToo) {
  ProcessResult process = exited(1);
  process.out = k_permission_log;
  const NcuVerdict verdict = classify_ncu_run(process, "", false);
  ASSERT_TRUE(verdict.error.has_value());
  EXPECT_EQ(verdict.error->category, ErrorCategory::permission_denied);
}

TEST(ClassifyNcuRun, CallsATimedOutRunARetryableTimeout) {
  ProcessResult process;
  process.timed_out = true;
  const NcuVerdict verdict =
      classify_ncu_run(process, "==PROF== Connected to process 1 (/usr/bin/python3)\n", false);
  ASSERT_TRUE(verdict.error.has_value());
  EXPECT_EQ(verdict.error->category, ErrorCategory::timeout);
  EXPECT_TRUE(verdict.retryable);
  EXPECT_FALSE(verdict.partial);
  EXPECT_NE(verdict.error->detail.find("Connected to process 1"), std::string::npos);
  expect_one_line(verdict);
}

TEST(ClassifyNcuRun, CallsNcuKilledByASignalARetryableNcuFailure) {
  ProcessResult process;
  process.signaled = true;
  process.term_signal = 9;
  const NcuVerdict verdict = classify_ncu_run(process, "", false);
  ASSERT_TRUE(verdict.error.has_value());
  EXPECT_EQ(verdict.error->category, ErrorCategory::ncu_failed);
  EXPECT_TRUE(verdict.retryable);
  EXPECT_NE(verdict.error->message.find("signal 9"), std::string::npos);
}

TEST(ClassifyNcuRun, RetriesAConnectionFailure) {
  const NcuVerdict verdict =
      classify_ncu_run(exited(1),
                       "==ERROR== Failed to connect to the target process: Resource temporarily "
                       "unavailable\n",
                       false);
  ASSERT_TRUE(verdict.error.has_value());
  EXPECT_EQ(verdict.error->category, ErrorCategory::ncu_failed);
  EXPECT_TRUE(verdict.retryable);
  EXPECT_NE(verdict.error->message.find("Failed to connect"), std::string::npos);
  expect_one_line(verdict);
}

TEST(ClassifyNcuRun, DoesNotRetryAnUnknownOptionPrintedOnTheConsole) {
  // Recorded from ncu 2025.3.1: option errors go to the console even with --log-file.
  ProcessResult process = exited(1);
  process.out = "==ERROR== unrecognised option '--bogus-opt'. Use --help for further details.\n";
  const NcuVerdict verdict = classify_ncu_run(process, "", false);
  ASSERT_TRUE(verdict.error.has_value());
  EXPECT_EQ(verdict.error->category, ErrorCategory::ncu_failed);
  EXPECT_FALSE(verdict.retryable);
  EXPECT_EQ(verdict.error->message,
            "ncu failed (exit code 1): unrecognised option '--bogus-opt'. Use --help for further "
            "details.");
}

TEST(ClassifyNcuRun, DoesNotRetryAnErrorThatDoesNotLookTransient) {
  const NcuVerdict verdict =
      classify_ncu_run(exited(1), "==ERROR== Failed to profile kernel \"k\" in process 7\n", false);
  ASSERT_TRUE(verdict.error.has_value());
  EXPECT_EQ(verdict.error->category, ErrorCategory::ncu_failed);
  EXPECT_FALSE(verdict.retryable);
}

TEST(ClassifyNcuRun, KeepsTheLastFortyLinesAndErrorsThatScrolledOutInTheDetail) {
  std::string log = "==ERROR== Failed to connect early on\n";
  for (int i = 0; i < 100; ++i) {
    log += "program line " + std::to_string(i) + "\n";
  }
  const NcuVerdict verdict = classify_ncu_run(exited(1), log, false);
  ASSERT_TRUE(verdict.error.has_value());
  const std::string& detail = verdict.error->detail;
  EXPECT_NE(detail.find("program line 99\n"), std::string::npos);
  EXPECT_NE(detail.find("program line 60\n"), std::string::npos);
  EXPECT_EQ(detail.find("program line 59\n"), std::string::npos);
  EXPECT_NE(detail.find("Failed to connect early on"), std::string::npos);
}

} // namespace
} // namespace kprof
