// The verdict on one candidate. ncu's exit code is never the verdict alone: what ncu said (its
// verdict and log), which NVTX ranges have rows, and how far the harness got are combined here,
// and nowhere else.
#include "kprof/judge.hpp"

#include <algorithm>
#include <array>
#include <csignal>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "kprof/ncu.hpp"

namespace kprof {
namespace {

std::string tail_lines(std::string_view text, std::size_t lines) {
  std::size_t pos = text.size();
  std::size_t seen = 0;
  while (pos > 0) {
    --pos;
    if (text[pos] == '\n' && pos + 1 < text.size()) {
      if (++seen == lines) {
        return std::string(text.substr(pos + 1));
      }
    }
  }
  return std::string(text);
}

bool has_rows_for(const SessionOutcome& session, std::string_view range) {
  if (!session.capture) {
    return false;
  }
  return std::any_of(session.capture->kernels.begin(), session.capture->kernels.end(),
                     [&](const KernelRecord& k) { return k.nvtx_range == range; });
}

/// The log held ncu's CSV (its header row) but it could not be read: cut short or garbled. Then
/// "no rows" is not "no kernel": the rows were lost.
std::optional<Error> unreadable_rows(const SessionOutcome& session,
                                     const HarnessCandidate& candidate) {
  if (!session.capture_error || session.capture_error->category != ErrorCategory::malformed_input) {
    return std::nullopt;
  }
  const bool has_header = session.log_text.rfind("\"ID\",", 0) == 0 ||
                          session.log_text.find("\n\"ID\",") != std::string::npos;
  if (!has_header) {
    return std::nullopt;
  }
  return make_error(ErrorCategory::malformed_input,
                    fmt::format("ncu's output for {} is malformed (truncated?): {}",
                                candidate.kernel.string(), session.capture_error->message),
                    session.capture_error->detail);
}

CandidateVerdict decided(CandidateStatus status, std::optional<Error> error) {
  CandidateVerdict verdict;
  verdict.decided = true;
  verdict.status = status;
  verdict.error = std::move(error);
  return verdict;
}

/// The session's GPU showed the harness no GPU (HarnessStatus::cuda_devices 0): a usage error
/// naming the index and how many GPUs the machine has, with the harness's words (its
/// CUDA_VISIBLE_DEVICES) as the detail.
Error no_gpu_error(const SessionOutcome& session) {
  const std::optional<int> machine = session.harness->machine_gpus;
  const int gpu = session.gpu;
  std::string message;
  if (!machine) {
    message = fmt::format("GPU {}: CUDA shows the profiled program no GPU, and how many GPUs this "
                          "machine has is unknown (no NVML, no /proc/driver/nvidia/gpus)",
                          gpu);
  } else if (*machine == 0) {
    message = fmt::format("GPU {} is not on this machine: it has no GPU", gpu);
  } else if (gpu >= *machine) {
    message = fmt::format("GPU {} is not on this machine: it has {} GPU{} (valid: 0 to {})", gpu,
                          *machine, *machine == 1 ? "" : "s", *machine - 1);
  } else {
    message = fmt::format("GPU {}: CUDA shows the profiled program no GPU, though this machine "
                          "has {} (check CUDA_VISIBLE_DEVICES)",
                          gpu, *machine);
  }
  const std::optional<Error>& harness = session.harness->problem_error;
  return make_error(ErrorCategory::usage, std::move(message),
                    harness ? "kprof's harness: " + harness->message : std::string());
}

const HarnessCandidateStatus* harness_status_of(const SessionOutcome& session,
                                                const std::string& range) {
  if (!session.harness) {
    return nullptr;
  }
  const HarnessCandidateStatus* found = nullptr;
  for (const auto& s : session.harness->candidates) {
    if (s.range == range) {
      found = &s;
    }
  }
  return found;
}

/// True when `position` is the first candidate the harness did not finish (the one a session
/// that ended abnormally is charged with).
bool first_unfinished(const SessionOutcome& session, const HarnessPlan& plan,
                      std::size_t position) {
  if (!session.harness) {
    return position == static_cast<std::size_t>(plan.first_candidate);
  }
  // A candidate that poisoned the CUDA context ended the session on purpose: the ones after it
  // were never reached and run again in a fresh process.
  for (const auto& s : session.harness->candidates) {
    if (s.cuda_context_poisoned) {
      return false;
    }
  }
  for (auto i = static_cast<std::size_t>(plan.first_candidate); i < plan.candidates.size(); ++i) {
    const auto& range = plan.candidates[i].range;
    const bool finished = std::any_of(
        session.harness->candidates.begin(), session.harness->candidates.end(),
        [&](const HarnessCandidateStatus& s) { return s.range == range && (s.ok || s.error); });
    if (!finished) {
      return i == position;
    }
  }
  return false;
}

/// True when candidate `position` is the one a session that ended abnormally is charged with:
/// the harness had not finished it, and it was in flight or the first it had not finished.
bool charged_with_the_end(const SessionOutcome& session, const HarnessPlan& plan,
                          std::size_t position) {
  const HarnessCandidateStatus* status =
      harness_status_of(session, plan.candidates[position].range);
  if (status != nullptr && (status->ok || status->error)) {
    return false;
  }
  const bool in_flight = status != nullptr && status->phase != HarnessPhase::not_started;
  return in_flight || first_unfinished(session, plan, position);
}

/// The verdict on candidate `position`, which the harness finished with no error but has no rows,
/// when ncu did not end on its own: stopped (the session's timeout, an interruption) or killed by
/// a signal. ncu writes the rows when the program ends, so they went with it; that is not "no
/// kernel". A later candidate charged with the session's end (it hung): this one is undecided
/// and runs again in the next session. None (the harness had finished them all): the session's
/// error, with the candidate named. nullopt when ncu ended on its own.
std::optional<CandidateVerdict> rows_lost_with_ncu(const SessionOutcome& session,
                                                   const HarnessPlan& plan, std::size_t position) {
  const ProcessResult& process = session.process;
  if (!process.timed_out && !process.cancelled && !process.signaled) {
    return std::nullopt;
  }
  for (std::size_t later = position + 1; later < plan.candidates.size(); ++later) {
    if (charged_with_the_end(session, plan, later)) {
      return CandidateVerdict{}; // runs again, in a session of its own
    }
  }
  Error error = session.verdict.error
                    ? *session.verdict.error
                    : make_error(ErrorCategory::ncu_failed,
                                 fmt::format("ncu did not finish: {}", process.describe()));
  error.message = fmt::format("{} ran to its end, but its rows were lost: {}",
                              plan.candidates[position].kernel.string(), error.message);
  CandidateVerdict verdict = decided(CandidateStatus::failed, std::move(error));
  verdict.retryable = session.verdict.retryable;
  return verdict;
}

/// Where the harness was when its process ended, in words: the candidate's phase when it was in
/// flight, else the harness's own phase.
std::string where_it_ended(const SessionOutcome& session, const HarnessCandidateStatus* status,
                           const HarnessCandidate& candidate) {
  const std::string kernel = candidate.kernel.string();
  if (status != nullptr) {
    switch (status->phase) {
    case HarnessPhase::import_kernel:
      return fmt::format("the import of {}", kernel);
    case HarnessPhase::warmup:
      return fmt::format("the warm-up calls of {}", kernel);
    case HarnessPhase::profiled_call:
      return fmt::format("the profiled call of {}", kernel);
    case HarnessPhase::check:
      return fmt::format("the check of {}'s outputs", kernel);
    case HarnessPhase::timing:
      return fmt::format("the timed calls of {}", kernel);
    case HarnessPhase::not_started:
    case HarnessPhase::done:
      break;
    }
  }
  const std::string& phase = session.harness->phase;
  if (phase == "import_problem") {
    return "the import of the problem file";
  }
  if (phase == "inputs") {
    return "get_inputs (making the inputs)";
  }
  if (phase == "standby") {
    return "the wait for candidates";
  }
  if (phase == "candidates") {
    return fmt::format("the run of the candidates, before {}", kernel);
  }
  return "the harness's start";
}

/// The harness's own exit codes when it ends before its status says "done"
/// (templates/kprof_harness/report.py: a bad plan or problem, a poisoned CUDA context, an idle
/// standby, a bug in the harness); any other code is the profiled program's own doing.
bool harness_exit_code(int code) {
  return code == k_harness_exit_problem_invalid || code == k_harness_exit_cuda_poisoned ||
         code == k_harness_exit_standby_idle || code == k_harness_exit_internal;
}

/// The fatal signal the profiled program died of when ncu reported it as the bare signal number
/// (ncu 2025.3.1 on the H200: a SIGSEGV is "error code (11)", measured 2026-12-02,
/// docs/device-runs/2026-12-02-crash.md): told from an exit(11) by the line the harness's
/// faulthandler writes before the signal ends the process ("Fatal Python error: Segmentation
/// fault"). 0 otherwise.
int fatal_signal_named_in(int code, std::string_view program_output) {
  struct Fatal {
    int signal;
    std::string_view words; ///< faulthandler's name of it
  };
  constexpr std::array<Fatal, 5> k_fatal{{{SIGSEGV, "Segmentation fault"},
                                          {SIGABRT, "Aborted"},
                                          {SIGBUS, "Bus error"},
                                          {SIGFPE, "Floating point exception"},
                                          {SIGILL, "Illegal instruction"}}};
  for (const Fatal& fatal : k_fatal) {
    if (fatal.signal == code &&
        program_output.find(fmt::format("Fatal Python error: {}", fatal.words)) !=
            std::string_view::npos) {
      return fatal.signal;
    }
  }
  return 0;
}

/// The profiled program ended on its own before the harness finished: a signal killed it (a
/// crash in native code the kernel called: SIGSEGV, SIGABRT, ...) or it exited (os._exit, a C
/// library exit()) in the middle of a phase. The harness status says where, ncu the exit code.
/// nullopt when the session ended otherwise (a timeout, an interruption, ncu's own failure, the
/// harness's own exit).
std::optional<Error> program_ended_early(const SessionOutcome& session,
                                         const HarnessCandidateStatus* status,
                                         const HarnessCandidate& candidate) {
  const ProcessResult& process = session.process;
  if (!session.harness || session.harness->phase == "done" || session.harness->phase == "idle" ||
      process.timed_out || process.cancelled || process.signaled ||
      !session.verdict.program_exit_code) {
    return std::nullopt;
  }
  const int code = *session.verdict.program_exit_code;
  const std::string where = where_it_ended(session, status, candidate);
  // The program's stderr (the harness's phases, faulthandler's Python stack on a fatal signal),
  // then ncu's lines without its CSV rows.
  std::string detail = tail_lines(process.err, 40);
  if (session.verdict.error && !session.verdict.error->detail.empty()) {
    detail += (detail.empty() || detail.back() == '\n' ? "" : "\n") + session.verdict.error->detail;
  }
  const int signal = session.verdict.program_signal != 0
                         ? session.verdict.program_signal
                         : fatal_signal_named_in(code, process.err + session.log_text);
  if (signal != 0) {
    return make_error(ErrorCategory::program_crashed,
                      fmt::format("the profiled program crashed with {} during {}, before kprof's "
                                  "harness finished (a fault in native code it ran: a C/C++ or "
                                  "CUDA extension, ctypes, the driver)",
                                  signal_name(signal), where),
                      detail);
  }
  if (code == 0) {
    return make_error(ErrorCategory::program_crashed,
                      fmt::format("the program exited (os._exit or sys.exit with code 0) during "
                                  "{}, before kprof's harness finished",
                                  where),
                      detail);
  }
  if (harness_exit_code(code)) {
    return std::nullopt;
  }
  return make_error(ErrorCategory::program_crashed,
                    fmt::format("the program exited with code {} (os._exit or a C library exit) "
                                "during {}, before kprof's harness finished",
                                code, where),
                    detail);
}

} // namespace

CandidateVerdict judge_candidate(const SessionOutcome& session, const HarnessPlan& plan,
                                 std::size_t position) {
  KPROF_ASSERT(position < plan.candidates.size());
  const HarnessCandidate& candidate = plan.candidates[position];
  const bool rows = has_rows_for(session, candidate.range);

  if (!session.started) {
    return decided(CandidateStatus::failed, session.spawn_error);
  }
  // Permission problems and ncu-level refusals concern every candidate alike.
  if (session.verdict.error &&
      session.verdict.error->category == ErrorCategory::permission_denied) {
    return decided(CandidateStatus::failed, session.verdict.error);
  }
  if (session.harness && session.harness->cuda_devices == 0) {
    return decided(CandidateStatus::failed, no_gpu_error(session));
  }
  if (session.harness && session.harness->problem_error) {
    return decided(CandidateStatus::failed, session.harness->problem_error);
  }
  const HarnessCandidateStatus* status = harness_status_of(session, candidate.range);
  const std::optional<Error> lost_rows = rows ? std::nullopt : unreadable_rows(session, candidate);
  if (status != nullptr && status->ok) {
    if (rows && session.process.signaled) {
      // ncu died from a signal after writing these rows: they are kept, but the run did not end
      // as ncu meant it to (its report file, its last rows may be missing). Never a silent ok.
      return decided(
          CandidateStatus::partial,
          make_error(ErrorCategory::ncu_failed,
                     fmt::format("ncu was {} after profiling {}; the rows it wrote are kept "
                                 "(partial), but its output may be incomplete",
                                 session.process.describe(), candidate.kernel.string()),
                     session.verdict.error ? session.verdict.error->detail : std::string()));
    }
    if (rows && status->check_verdict == CheckVerdict::fail) {
      // Profiled, but its outputs are not the reference's: kept (the counters are real) and
      // never an ok.
      return decided(CandidateStatus::partial,
                     make_error(ErrorCategory::wrong_output,
                                fmt::format("{} computes a wrong result: {}",
                                            candidate.kernel.string(), status->check_reason),
                                "its outputs were compared with the reference's, "
                                "Model(*get_init_inputs())(*get_inputs()), after the profiled call "
                                "(--no-check turns the comparison off; --tolerance ATOL[,RTOL] "
                                "sets the tolerances)"));
    }
    if (rows) {
      return decided(CandidateStatus::ok, std::nullopt);
    }
    if (lost_rows) {
      return decided(CandidateStatus::failed, lost_rows);
    }
    if (auto lost = rows_lost_with_ncu(session, plan, position)) {
      return *lost;
    }
    return decided(
        CandidateStatus::failed,
        make_error(ErrorCategory::no_kernels,
                   fmt::format("no kernel was profiled for {}: kernel_function returned without "
                               "launching a GPU kernel inside its profiled call",
                               candidate.kernel.string()),
                   "kprof profiles only the launches of one call after the warm-up calls; a "
                   "kernel that caches its result or runs on the CPU launches nothing there."));
  }
  if (status != nullptr && status->error) {
    CandidateVerdict verdict =
        decided(rows ? CandidateStatus::partial : CandidateStatus::failed, status->error);
    if (status->cuda_context_poisoned) {
      verdict.error->message += " (the CUDA context was poisoned; the remaining candidates "
                                "continue in a fresh process)";
    }
    return verdict;
  }
  // The harness never finished this candidate: it was in flight when the session ended, or
  // never reached (then it is decided only if the session ended abnormally while on it).
  const bool in_flight = status != nullptr && status->phase != HarnessPhase::not_started;
  if (!in_flight && !first_unfinished(session, plan, position)) {
    return {}; // not reached; runs again in the next session
  }
  CandidateVerdict verdict =
      decided(rows ? CandidateStatus::partial : CandidateStatus::failed, std::nullopt);
  if (lost_rows &&
      (!session.verdict.error || session.verdict.error->category == ErrorCategory::no_kernels)) {
    verdict.error = lost_rows;
  } else if (auto ended = program_ended_early(session, status, candidate)) {
    verdict.error = std::move(ended);
  } else if (session.verdict.error) {
    verdict.error = session.verdict.error;
    verdict.retryable = session.verdict.retryable;
  } else if (!session.harness) {
    verdict.error = make_error(ErrorCategory::ncu_failed,
                               fmt::format("the harness wrote no status ({}); python could not "
                                           "start it or it died at once",
                                           session.process.describe()),
                               tail_lines(session.process.err + session.log_text, 40));
  } else {
    verdict.error = make_error(ErrorCategory::kernel_raised,
                               fmt::format("the harness process ended during {} of {} ({})",
                                           status != nullptr ? to_string(status->phase) : "start",
                                           candidate.kernel.string(), session.process.describe()),
                               tail_lines(session.process.err + session.log_text, 40));
  }
  return verdict;
}

} // namespace kprof
