// kprof: when a session is run again.
//
// Design note. A session is retried only when a retry can help and nothing would be lost by it:
// some candidate failed in a way ncu calls retryable (a timeout, a transient ncu failure) and no
// candidate of the session got a result (ok or partial). A failure a retry cannot fix (an import
// error, an exception, no permission, unknown metrics) is final at once. The wait before attempt
// k+1 is backoff * 2^(k-1): 1 s, 2 s, 4 s with the default.
#pragma once

#include <chrono>
#include <vector>

#include "kprof/judge.hpp"

namespace kprof {

class RetryPolicy {
public:
  /// `retries` extra attempts (>= 0) after the first; `backoff` before the first retry.
  RetryPolicy(int retries, std::chrono::milliseconds backoff)
      : m_retries(retries), m_backoff(backoff) {}

  /// Whether to run the session again after attempt number `attempt` (1 for the first) ended
  /// with `verdicts` (one per candidate of the plan; undecided ones count for nothing).
  [[nodiscard]] bool should_retry(int attempt, const std::vector<CandidateVerdict>& verdicts) const;

  /// How long to wait before attempt number `attempt` (>= 2).
  [[nodiscard]] std::chrono::milliseconds backoff_before(int attempt) const;

  [[nodiscard]] int max_attempts() const { return m_retries + 1; }

private:
  int m_retries;
  std::chrono::milliseconds m_backoff;
};

} // namespace kprof
