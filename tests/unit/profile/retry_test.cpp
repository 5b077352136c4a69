#include <gtest/gtest.h>

#include "profile/retry.hpp"

namespace kprof {
namespace {

CandidateVerdict verdict(CandidateStatus status, bool retryable) {
  CandidateVerdict v;
  v.decided = true;
  v.status = status;
  v.retryable = retryable;
  return v;
}

TEST(RetryPolicy, RetriesARetryableFailureThatMadeNoProgressUpToTheLimit) {
  const RetryPolicy policy(2, std::chrono::milliseconds(10));
  const std::vector<CandidateVerdict> timed_out = {verdict(CandidateStatus::failed, true)};
  EXPECT_TRUE(policy.should_retry(1, timed_out));
  EXPECT_TRUE(policy.should_retry(2, timed_out));
  EXPECT_FALSE(policy.should_retry(3, timed_out));
  EXPECT_EQ(policy.max_attempts(), 3);
}

TEST(RetryPolicy, NeverRetriesAFailureARetryCannotFix) {
  const RetryPolicy policy(5, std::chrono::milliseconds(10));
  EXPECT_FALSE(policy.should_retry(1, {verdict(CandidateStatus::failed, false)}));
}

TEST(RetryPolicy, NeverRetriesASessionThatGotSomeResult) {
  const RetryPolicy policy(5, std::chrono::milliseconds(10));
  EXPECT_FALSE(policy.should_retry(
      1, {verdict(CandidateStatus::ok, false), verdict(CandidateStatus::failed, true)}));
  EXPECT_FALSE(policy.should_retry(1, {verdict(CandidateStatus::partial, true)}));
}

TEST(RetryPolicy, IgnoresUndecidedCandidates) {
  const RetryPolicy policy(1, std::chrono::milliseconds(10));
  EXPECT_TRUE(policy.should_retry(1, {CandidateVerdict{}, verdict(CandidateStatus::failed, true)}));
  EXPECT_FALSE(policy.should_retry(1, {CandidateVerdict{}}));
}

TEST(RetryPolicy, DoublesTheBackoffAfterEachAttempt) {
  const RetryPolicy policy(3, std::chrono::milliseconds(250));
  EXPECT_EQ(policy.backoff_before(2), std::chrono::milliseconds(250));
  EXPECT_EQ(policy.backoff_before(3), std::chrono::milliseconds(500));
  EXPECT_EQ(policy.backoff_before(4), std::chrono::milliseconds(1000));
}

} // namespace
} // namespace kprof
