// kprof: the verdict on one candidate of a session, from ncu's verdict and log, the rows per NVTX
// range, the capture's parse result and the harness status. Pure: tests feed it recorded outcomes.
#pragma once

#include <cstddef>
#include <optional>

#include "kprof/error.hpp"
#include "kprof/harness.hpp"
#include "kprof/profile_session.hpp"
#include "kprof/status.hpp"

namespace kprof {

/// What a session says about one candidate.
struct CandidateVerdict {
  bool decided = false; ///< false: not reached in this session (it runs in the next one)
  CandidateStatus status = CandidateStatus::failed; ///< meaningful when decided
  std::optional<Error> error;                       ///< set unless status == ok
  bool retryable = false; ///< another attempt may succeed (timeout, transient ncu failure)
};

/// Decides candidate `position` (an index into plan.candidates, >= plan.first_candidate) from the
/// outcome of a session that ran `plan`. Rules, first match wins:
///  - ncu did not start, or may not read the counters, or CUDA showed the harness no GPU (usage:
///    the session's GPU index is not on this machine, named with the machine's count), or
///    problem.py is invalid: failed, for every candidate alike;
///  - the harness finished the candidate: ok with rows in its range; without rows it is failed
///    with malformed_input when the log's CSV could not be read (truncated output); when ncu did
///    not end on its own (timed out, interrupted, killed by a signal: its rows went with it) it
///    is undecided if a later candidate is charged with the session's end (it runs again), else
///    failed with the session's error; else no_kernels; a candidate that raised is partial with
///    rows, failed without;
///  - the harness finished it, its range has rows, but ncu was killed by a signal: partial,
///    ncu_failed naming the signal (never a silent ok);
///  - the candidate was in flight (or first unfinished) when the session ended: partial with rows,
///    else failed; program_crashed naming the phase when the program ended on its own before the
///    harness finished (killed by a signal, or an exit such as os._exit(0)), else ncu's error
///    (retryable as ncu says) or the harness's death;
///  - otherwise it was never reached: undecided.
CandidateVerdict judge_candidate(const SessionOutcome& session, const HarnessPlan& plan,
                                 std::size_t position);

} // namespace kprof
