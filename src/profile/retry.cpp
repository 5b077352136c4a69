#include "profile/retry.hpp"

namespace kprof {

bool RetryPolicy::should_retry(int attempt, const std::vector<CandidateVerdict>& verdicts) const {
  bool progress = false;
  bool retryable = false;
  for (const auto& verdict : verdicts) {
    if (!verdict.decided) {
      continue;
    }
    if (verdict.status != CandidateStatus::failed) {
      progress = true;
    } else if (verdict.retryable) {
      retryable = true;
    }
  }
  return retryable && !progress && attempt <= m_retries;
}

std::chrono::milliseconds RetryPolicy::backoff_before(int attempt) const {
  std::chrono::milliseconds wait = m_backoff;
  for (int i = 2; i < attempt; ++i) {
    wait *= 2;
  }
  return wait;
}

} // namespace kprof
