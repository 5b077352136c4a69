// Helpers for the profile tests: recorded ncu logs with kprof's NVTX ranges, harness statuses and
// session outcomes built from them.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "kprof/files.hpp"
#include "kprof/harness.hpp"
#include "kprof/profile_session.hpp"

namespace kprof::test {

inline std::string recorded(const std::string& name) {
  auto text = read_file(std::filesystem::path(KPROF_FIXTURES_DIR) / "ncu" / "2025.3.1" / name);
  if (!text) {
    ADD_FAILURE() << text.error().message;
    return {};
  }
  return std::move(text).value();
}

/// A recording whose rows lie in the NVTX range "kprof" with ranges renamed to kprof:cand<i>.
inline std::string recorded_in_range(const std::string& name, int candidate) {
  std::string csv = recorded(name);
  const std::string from = "<default domain>:kprof:none";
  const std::string to = "<default domain>:kprof:cand" + std::to_string(candidate) + ":none";
  for (auto pos = csv.find(from); pos != std::string::npos; pos = csv.find(from, pos + to.size())) {
    csv.replace(pos, from.size(), to);
  }
  return csv;
}

inline HarnessPlan plan_of(int candidates) {
  HarnessPlan plan;
  plan.problem = "/work/problem.py";
  for (int i = 0; i < candidates; ++i) {
    plan.candidates.push_back(
        {std::filesystem::path("/work/kernel" + std::to_string(i) + ".py"), candidate_range(i)});
  }
  return plan;
}

inline HarnessCandidateStatus finished_ok(int index) {
  HarnessCandidateStatus status;
  status.index = index;
  status.range = candidate_range(index);
  status.phase = HarnessPhase::done;
  status.ok = true;
  return status;
}

inline HarnessCandidateStatus raised(int index, bool poisoned = false) {
  HarnessCandidateStatus status;
  status.index = index;
  status.range = candidate_range(index);
  status.phase = HarnessPhase::profiled_call;
  status.error = make_error(ErrorCategory::kernel_raised, "RuntimeError: planted");
  status.cuda_context_poisoned = poisoned;
  return status;
}

inline HarnessStatus harness_with(std::vector<HarnessCandidateStatus> candidates) {
  HarnessStatus status;
  status.phase = "done";
  status.problem_ok = true;
  status.candidates = std::move(candidates);
  return status;
}

inline ProcessResult exited(int code) {
  ProcessResult process;
  process.exit_code = code;
  return process;
}

inline ProcessResult killed_by(int signal) {
  ProcessResult process;
  process.signaled = true;
  process.term_signal = signal;
  return process;
}

inline ProcessResult timed_out() {
  ProcessResult process;
  process.timed_out = true;
  process.timeout = std::chrono::seconds(2);
  return process;
}

inline SessionOutcome outcome(ProcessResult process, std::string log,
                              std::optional<HarnessStatus> harness) {
  return assess_session({"ncu"}, std::move(process), std::move(log), std::move(harness));
}

} // namespace kprof::test
