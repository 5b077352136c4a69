// judge_candidate on recorded ncu logs (tests/fixtures/ncu/2025.3.1) and synthetic harness
// statuses: the verdict a user sees for each way a session can end.
#include <csignal>

#include <gtest/gtest.h>

#include "kprof/judge.hpp"
#include "unit/profile/profile_test_support.hpp"

namespace kprof {
namespace {

using namespace kprof::test;

TEST(JudgeCandidate, IsOkWhenTheHarnessFinishedAndItsRangeHasRows) {
  const auto session = outcome(exited(0), recorded_in_range("curated_nvtx_twostage.csv", 0),
                               harness_with({finished_ok(0)}));
  const CandidateVerdict verdict = judge_candidate(session, plan_of(1), 0);
  EXPECT_TRUE(verdict.decided);
  EXPECT_EQ(verdict.status, CandidateStatus::ok);
  EXPECT_FALSE(verdict.error.has_value());
}

TEST(JudgeCandidate, AProfiledCandidateWhoseCheckFailedIsPartialWithAWrongOutput) {
  HarnessCandidateStatus wrong = finished_ok(0);
  wrong.check_verdict = CheckVerdict::fail;
  wrong.check_reason = "1 of 3 elements differ by more than atol 0.01 + rtol 0.01";
  const auto session =
      outcome(exited(0), recorded_in_range("curated_nvtx_twostage.csv", 0), harness_with({wrong}));
  const CandidateVerdict verdict = judge_candidate(session, plan_of(1), 0);
  EXPECT_EQ(verdict.status, CandidateStatus::partial);
  ASSERT_TRUE(verdict.error.has_value());
  EXPECT_EQ(verdict.error->category, ErrorCategory::wrong_output);
  EXPECT_NE(verdict.error->message.find("computes a wrong result: 1 of 3 elements differ"),
            std::string::npos);
  EXPECT_FALSE(verdict.retryable);
}

TEST(JudgeCandidate, AnUncheckedOrPassingCandidateStaysOk) {
  for (const CheckVerdict verdict : {CheckVerdict::pass, CheckVerdict::unchecked}) {
    HarnessCandidateStatus status = finished_ok(0);
    status.check_verdict = verdict;
    const auto session = outcome(exited(0), recorded_in_range("curated_nvtx_twostage.csv", 0),
                                 harness_with({status}));
    EXPECT_EQ(judge_candidate(session, plan_of(1), 0).status, CandidateStatus::ok)
        << to_string(verdict);
  }
}

TEST(JudgeCandidate, AFinishedCandidateWithoutRowsLaunchedNoKernel) {
  const auto session =
      outcome(exited(0), recorded("no_kernels_profiled.txt"), harness_with({finished_ok(0)}));
  const CandidateVerdict verdict = judge_candidate(session, plan_of(1), 0);
  EXPECT_EQ(verdict.status, CandidateStatus::failed);
  ASSERT_TRUE(verdict.error.has_value());
  EXPECT_EQ(verdict.error->category, ErrorCategory::no_kernels);
  EXPECT_NE(verdict.error->message.find("without launching"), std::string::npos);
}

TEST(JudgeCandidate, AProgramThatCrashedAfterKernelsOutsideTheRangeIsChargedToTheFirstCandidate) {
  // The recording has rows, but none in kprof:cand0, and no harness status.
  const auto session = outcome(exited(1), recorded("app_crash_after_kernels.txt"), std::nullopt);
  const CandidateVerdict verdict = judge_candidate(session, plan_of(2), 0);
  EXPECT_TRUE(verdict.decided);
  EXPECT_EQ(verdict.status, CandidateStatus::failed);
  ASSERT_TRUE(verdict.error.has_value());
  EXPECT_EQ(verdict.error->category, ErrorCategory::kernel_raised);
  EXPECT_FALSE(judge_candidate(session, plan_of(2), 1).decided) << "never reached";
}

TEST(JudgeCandidate, ACandidateThatRaisedAfterItsKernelsKeepsItsRowsAsPartial) {
  const auto session = outcome(exited(1), recorded_in_range("curated_nvtx_twostage.csv", 0),
                               harness_with({raised(0)}));
  const CandidateVerdict verdict = judge_candidate(session, plan_of(1), 0);
  EXPECT_EQ(verdict.status, CandidateStatus::partial);
  EXPECT_EQ(verdict.error->category, ErrorCategory::kernel_raised);
}

TEST(JudgeCandidate, MissingCounterPermissionFailsEveryCandidateAlike) {
  const std::string log = "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to "
                          "access NVIDIA GPU Performance Counters on the target device 0.\n";
  const auto session = outcome(exited(1), log, std::nullopt);
  for (std::size_t position : {0U, 1U}) {
    const CandidateVerdict verdict = judge_candidate(session, plan_of(2), position);
    EXPECT_TRUE(verdict.decided);
    EXPECT_EQ(verdict.error->category, ErrorCategory::permission_denied);
    EXPECT_FALSE(verdict.retryable);
  }
}

TEST(JudgeCandidate, AnInvalidProblemFailsEveryCandidate) {
  HarnessStatus status = harness_with({});
  status.problem_ok = false;
  status.problem_error = make_error(ErrorCategory::problem_invalid, "AttributeError: get_inputs");
  const auto session = outcome(exited(2), "", status);
  EXPECT_EQ(judge_candidate(session, plan_of(2), 1).error->category,
            ErrorCategory::problem_invalid);
}

/// A harness that found CUDA showing it no GPU (its status's cuda_devices 0), on a machine of
/// `machine` GPUs (nullopt: it could not tell), in a session on GPU `gpu`.
SessionOutcome no_gpu_session(int gpu, std::optional<int> machine) {
  HarnessStatus status = harness_with({});
  status.problem_ok = false;
  status.cuda_devices = 0;
  status.machine_gpus = machine;
  status.problem_error = make_error(ErrorCategory::problem_invalid,
                                    "NoGpu: CUDA shows no GPU under CUDA_VISIBLE_DEVICES=99");
  SessionOutcome session = outcome(exited(2), "", status);
  session.gpu = gpu;
  return session;
}

TEST(JudgeCandidate, AGpuIndexTheMachineLacksIsAUsageErrorNamingItAndTheMachinesGpus) {
  for (std::size_t position : {0U, 1U}) {
    const CandidateVerdict verdict = judge_candidate(no_gpu_session(99, 2), plan_of(2), position);
    EXPECT_TRUE(verdict.decided);
    EXPECT_EQ(verdict.status, CandidateStatus::failed);
    ASSERT_TRUE(verdict.error.has_value());
    EXPECT_EQ(verdict.error->category, ErrorCategory::usage) << "not problem_invalid";
    EXPECT_EQ(verdict.error->message,
              "GPU 99 is not on this machine: it has 2 GPUs (valid: 0 to 1)");
    EXPECT_NE(verdict.error->detail.find("CUDA_VISIBLE_DEVICES=99"), std::string::npos);
    EXPECT_FALSE(verdict.retryable);
  }
  EXPECT_EQ(judge_candidate(no_gpu_session(1, 1), plan_of(1), 0).error->message,
            "GPU 1 is not on this machine: it has 1 GPU (valid: 0 to 0)");
  EXPECT_EQ(judge_candidate(no_gpu_session(0, 0), plan_of(1), 0).error->message,
            "GPU 0 is not on this machine: it has no GPU");
  EXPECT_EQ(judge_candidate(no_gpu_session(0, 4), plan_of(1), 0).error->message,
            "GPU 0: CUDA shows the profiled program no GPU, though this machine has 4 (check "
            "CUDA_VISIBLE_DEVICES)");
  EXPECT_EQ(judge_candidate(no_gpu_session(99, std::nullopt), plan_of(1), 0).error->message,
            "GPU 99: CUDA shows the profiled program no GPU, and how many GPUs this machine has "
            "is unknown (no NVML, no /proc/driver/nvidia/gpus)");
}

TEST(JudgeCandidate, CandidatesAfterAPoisonedContextAreLeftForAFreshProcess) {
  const auto session = outcome(exited(3), "", harness_with({raised(0, /*poisoned=*/true)}));
  const CandidateVerdict first = judge_candidate(session, plan_of(2), 0);
  EXPECT_EQ(first.status, CandidateStatus::failed);
  EXPECT_NE(first.error->message.find("poisoned"), std::string::npos);
  EXPECT_FALSE(judge_candidate(session, plan_of(2), 1).decided);
}

TEST(JudgeCandidate, ATimeoutWithoutRowsIsARetryableFailureOfTheCandidateInFlight) {
  HarnessCandidateStatus warming;
  warming.index = 0;
  warming.range = candidate_range(0);
  warming.phase = HarnessPhase::warmup;
  const auto session = outcome(timed_out(), "", harness_with({warming}));
  const CandidateVerdict verdict = judge_candidate(session, plan_of(1), 0);
  EXPECT_EQ(verdict.status, CandidateStatus::failed);
  EXPECT_EQ(verdict.error->category, ErrorCategory::timeout);
  EXPECT_TRUE(verdict.retryable);
}

TEST(JudgeCandidate, ACandidateFinishedBeforeALaterOneHungRunsAgainInsteadOfLaunchingNoKernel) {
  // ncu writes its rows when the program ends: stopped at the timeout while candidate 1 hung, it
  // took candidate 0's rows with it. Candidate 0 is not "no kernel": it runs again.
  HarnessCandidateStatus hung;
  hung.index = 1;
  hung.range = candidate_range(1);
  hung.phase = HarnessPhase::warmup;
  HarnessStatus status = harness_with({finished_ok(0), hung});
  status.phase = "candidates";
  const auto session = outcome(timed_out(), "", status);
  const CandidateVerdict first = judge_candidate(session, plan_of(3), 0);
  EXPECT_FALSE(first.decided) << (first.error ? first.error->message : "ok");
  const CandidateVerdict second = judge_candidate(session, plan_of(3), 1);
  EXPECT_TRUE(second.decided);
  EXPECT_EQ(second.error->category, ErrorCategory::timeout);
  EXPECT_FALSE(judge_candidate(session, plan_of(3), 2).decided) << "never reached";
}

TEST(JudgeCandidate, ACandidateWhoseRowsWentWithAnNcuStoppedAfterTheHarnessSharesItsError) {
  // The harness finished every candidate, then ncu hung writing its results: no candidate is to
  // blame alone, and none launched nothing; each gets the session's error, naming it.
  const auto session = outcome(timed_out(), "", harness_with({finished_ok(0), finished_ok(1)}));
  for (std::size_t position : {0U, 1U}) {
    const CandidateVerdict verdict = judge_candidate(session, plan_of(2), position);
    EXPECT_TRUE(verdict.decided);
    EXPECT_EQ(verdict.status, CandidateStatus::failed);
    ASSERT_TRUE(verdict.error.has_value());
    EXPECT_EQ(verdict.error->category, ErrorCategory::timeout);
    EXPECT_NE(
        verdict.error->message.find("kernel" + std::to_string(position) +
                                    ".py ran to its end, but its rows were lost: ncu timed out"),
        std::string::npos)
        << verdict.error->message;
    EXPECT_TRUE(verdict.retryable);
  }
  // Killed by a signal before it wrote them: the same.
  const auto killed = outcome(killed_by(SIGSEGV), "", harness_with({finished_ok(0)}));
  const CandidateVerdict verdict = judge_candidate(killed, plan_of(1), 0);
  EXPECT_EQ(verdict.error->category, ErrorCategory::ncu_failed);
  EXPECT_EQ(verdict.error->message.find("without launching"), std::string::npos);
}

TEST(JudgeCandidate, AHarnessThatNeverWroteItsStatusIsSaidSo) {
  const auto session = outcome(exited(0), "", std::nullopt);
  const CandidateVerdict verdict = judge_candidate(session, plan_of(1), 0);
  EXPECT_EQ(verdict.status, CandidateStatus::failed);
  ASSERT_TRUE(verdict.error.has_value());
}

TEST(JudgeCandidate, AnNcuThatCouldNotStartFailsTheCandidateWithTheSpawnError) {
  const auto session = unstarted_session(
      {"ncu"}, make_error(ErrorCategory::input_not_found, "cannot run ncu: No such file"));
  const CandidateVerdict verdict = judge_candidate(session, plan_of(1), 0);
  EXPECT_EQ(verdict.status, CandidateStatus::failed);
  EXPECT_EQ(verdict.error->category, ErrorCategory::input_not_found);
}

TEST(JudgeCandidate, ATruncatedCsvIsMalformedOutputNotAKernelThatLaunchedNothing) {
  std::string log = recorded_in_range("curated_nvtx_twostage.csv", 0);
  // Cut inside the last row's quoted field.
  log.resize(log.rfind(",\"") + 4);
  const auto session = outcome(exited(0), log, harness_with({finished_ok(0)}));
  ASSERT_TRUE(session.capture_error.has_value());
  const CandidateVerdict verdict = judge_candidate(session, plan_of(1), 0);
  EXPECT_EQ(verdict.status, CandidateStatus::failed);
  ASSERT_TRUE(verdict.error.has_value());
  EXPECT_EQ(verdict.error->category, ErrorCategory::malformed_input);
  EXPECT_NE(verdict.error->message.find("truncated"), std::string::npos) << verdict.error->message;
  EXPECT_EQ(verdict.error->message.find("without launching"), std::string::npos);
}

TEST(JudgeCandidate, ALogWithoutAnyCsvIsNotCalledTruncated) {
  const auto session =
      outcome(exited(0), recorded("no_kernels_profiled.txt"), harness_with({finished_ok(0)}));
  EXPECT_EQ(judge_candidate(session, plan_of(1), 0).error->category, ErrorCategory::no_kernels);
}

TEST(JudgeCandidate, AnNcuKilledByASignalAfterWritingItsRowsIsPartialNotOk) {
  const auto session =
      outcome(killed_by(SIGKILL), recorded_in_range("curated_nvtx_twostage.csv", 0),
              harness_with({finished_ok(0)}));
  const CandidateVerdict verdict = judge_candidate(session, plan_of(1), 0);
  EXPECT_EQ(verdict.status, CandidateStatus::partial);
  ASSERT_TRUE(verdict.error.has_value());
  EXPECT_EQ(verdict.error->category, ErrorCategory::ncu_failed);
  EXPECT_NE(verdict.error->message.find("SIGKILL"), std::string::npos) << verdict.error->message;
}

/// A harness status whose one candidate is `phase` when the process ended (the harness's own phase
/// "candidates": it did not finish).
HarnessStatus ended_in(HarnessPhase phase) {
  HarnessCandidateStatus candidate;
  candidate.index = 0;
  candidate.range = candidate_range(0);
  candidate.phase = phase;
  HarnessStatus status = harness_with({candidate});
  status.phase = "candidates";
  return status;
}

/// What the stand-in ncu (and a shell) print for a program that ended with `code`.
std::string program_log(int code) {
  return "==PROF== Connected to process 4242 (/usr/bin/python3)\n"
         "==PROF== Disconnected from process 4242\n"
         "==ERROR== The application returned an error code (" +
         std::to_string(code) + ").\n";
}

TEST(JudgeCandidate, AProgramKilledBySigsegvIsItsOwnCrashNamingThePhaseNotAnNcuFailure) {
  const auto session = outcome(exited(139), program_log(139), ended_in(HarnessPhase::warmup));
  const CandidateVerdict verdict = judge_candidate(session, plan_of(2), 0);
  EXPECT_TRUE(verdict.decided);
  EXPECT_EQ(verdict.status, CandidateStatus::failed);
  ASSERT_TRUE(verdict.error.has_value());
  EXPECT_EQ(verdict.error->category, ErrorCategory::program_crashed);
  EXPECT_NE(verdict.error->message.find("the profiled program crashed with SIGSEGV during the "
                                        "warm-up calls of /work/kernel0.py"),
            std::string::npos)
      << verdict.error->message;
  EXPECT_FALSE(verdict.retryable) << "the same kernel crashes again";
  EXPECT_FALSE(judge_candidate(session, plan_of(2), 1).decided) << "never reached";
}

TEST(JudgeCandidate, ASigsegvThatNcuReportsAsCode11IsACrashWhenFaulthandlerSaysSo) {
  // ncu 2025.3.1 on the H200 reported a SIGSEGV as "error code (11)"; the harness's faulthandler
  // wrote its line first. The same code without that line is an exit(11).
  ProcessResult crashed = exited(11);
  crashed.err = "kprof-harness: cand0 warmup\nFatal Python error: Segmentation fault\n\n"
                "Current thread 0x00007f (most recent call first):\n  File \"kernel.py\", line 7\n";
  const auto session = outcome(crashed, program_log(11), ended_in(HarnessPhase::warmup));
  const CandidateVerdict verdict = judge_candidate(session, plan_of(1), 0);
  ASSERT_TRUE(verdict.error.has_value());
  EXPECT_EQ(verdict.error->category, ErrorCategory::program_crashed);
  EXPECT_NE(verdict.error->message.find("the profiled program crashed with SIGSEGV during the "
                                        "warm-up calls of /work/kernel0.py"),
            std::string::npos)
      << verdict.error->message;
  const auto plain = outcome(exited(11), program_log(11), ended_in(HarnessPhase::warmup));
  const CandidateVerdict exit_11 = judge_candidate(plain, plan_of(1), 0);
  ASSERT_TRUE(exit_11.error.has_value());
  EXPECT_NE(exit_11.error->message.find("exited with code 11 (os._exit or a C library exit)"),
            std::string::npos)
      << exit_11.error->message;
}

TEST(JudgeCandidate, AProgramThatExitedWithCodeZeroInItsProfiledCallIsSaidToHaveExited) {
  // ncu exits 0 and prints no application exit code; the status stops in the profiled call.
  const auto session = outcome(exited(0), recorded("no_kernels_profiled.txt"),
                               ended_in(HarnessPhase::profiled_call));
  const CandidateVerdict verdict = judge_candidate(session, plan_of(1), 0);
  EXPECT_EQ(verdict.status, CandidateStatus::failed);
  ASSERT_TRUE(verdict.error.has_value());
  EXPECT_EQ(verdict.error->category, ErrorCategory::program_crashed);
  EXPECT_NE(verdict.error->message.find("the program exited (os._exit or sys.exit with code 0) "
                                        "during the profiled call of /work/kernel0.py, before "
                                        "kprof's harness finished"),
            std::string::npos)
      << verdict.error->message;
}

TEST(JudgeCandidate, AProgramThatExitedWithAnotherCodeMidPhaseIsSaidToHaveExited) {
  const auto session = outcome(exited(5), program_log(5), ended_in(HarnessPhase::import_kernel));
  const CandidateVerdict verdict = judge_candidate(session, plan_of(1), 0);
  ASSERT_TRUE(verdict.error.has_value());
  EXPECT_EQ(verdict.error->category, ErrorCategory::program_crashed);
  EXPECT_NE(verdict.error->message.find("exited with code 5 (os._exit or a C library exit) during "
                                        "the import of /work/kernel0.py"),
            std::string::npos)
      << verdict.error->message;
}

TEST(JudgeCandidate, TheHarnessesOwnExitCodesAndTimeoutsAreNotTheProgramsCrash) {
  for (const int code : {k_harness_exit_problem_invalid, k_harness_exit_internal}) {
    const auto session = outcome(exited(code), program_log(code), ended_in(HarnessPhase::warmup));
    const CandidateVerdict verdict = judge_candidate(session, plan_of(1), 0);
    ASSERT_TRUE(verdict.error.has_value()) << code;
    EXPECT_NE(verdict.error->category, ErrorCategory::program_crashed) << code;
  }
  const auto late = outcome(timed_out(), "", ended_in(HarnessPhase::profiled_call));
  EXPECT_EQ(judge_candidate(late, plan_of(1), 0).error->category, ErrorCategory::timeout);
}

} // namespace
} // namespace kprof
