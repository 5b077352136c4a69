#include <vector>

#include <gtest/gtest.h>

#include "kprof/history.hpp"

namespace kprof {
namespace {

HistoryRow ok_row(int round, std::optional<int> candidate, double duration_ns, double sol_pct) {
  HistoryRow row;
  row.round = round;
  row.candidate = candidate;
  row.status = CandidateStatus::ok;
  row.total_duration_ns = duration_ns;
  row.memory_sol_pct = sol_pct;
  row.compute_sol_pct = sol_pct / 2;
  row.max_sol_pct = sol_pct;
  row.bottleneck = "memory";
  return row;
}

HistoryRow failed_row(int round) {
  HistoryRow row;
  row.round = round;
  row.status = CandidateStatus::failed;
  row.error = make_error(ErrorCategory::kernel_raised, "RuntimeError");
  return row;
}

Convergence judge(const std::vector<HistoryRow>& rows, const ConvergenceOptions& options = {}) {
  auto verdict = converged(rows, options);
  if (!verdict) {
    ADD_FAILURE() << verdict.error().message;
    return {};
  }
  return std::move(verdict).value();
}

TEST(Converged, StopsWhenTheBestRowReachesTheRoofline) {
  const Convergence verdict =
      judge({ok_row(1, std::nullopt, 2.0e6, 60), ok_row(2, std::nullopt, 1.0e6, 96),
             ok_row(3, std::nullopt, 1.5e6, 97)});
  EXPECT_TRUE(verdict.converged);
  EXPECT_EQ(verdict.reason, ConvergenceReason::at_roofline);
  ASSERT_TRUE(verdict.best.has_value());
  EXPECT_EQ(*verdict.best, (RoundRef{2, std::nullopt}));
  EXPECT_EQ(verdict.best_duration_ns, 1.0e6);
  EXPECT_EQ(verdict.best_sol_pct, 96);
  EXPECT_EQ(verdict.rounds, 3);
  EXPECT_NE(verdict.details.find("round 2"), std::string::npos) << verdict.details;
}

TEST(Converged, IsJudgedOnTheMeasuredMedianWhenTheRowsHaveOne) {
  // ncu's duration says round 2 is best; the clock says round 3 (issue 43): the clock decides,
  // and a row without a measured median does not compete.
  std::vector<HistoryRow> rows = {ok_row(1, std::nullopt, 2.0e6, 60),
                                  ok_row(2, std::nullopt, 1.0e6, 60),
                                  ok_row(3, std::nullopt, 1.5e6, 60)};
  rows[0].measured_median_us = 900.0;
  rows[2].measured_median_us = 700.0;
  EXPECT_EQ(ranked_time(rows), RankedTime::measured);
  const Convergence verdict = judge(rows, ConvergenceOptions{95, 2, 0.01});
  EXPECT_EQ(verdict.basis, RankedTime::measured);
  ASSERT_TRUE(verdict.best.has_value());
  EXPECT_EQ(*verdict.best, (RoundRef{3, std::nullopt}));
  EXPECT_EQ(verdict.best_duration_ns, 700.0e3);
  ASSERT_TRUE(verdict.improvement.has_value());
  EXPECT_NEAR(*verdict.improvement, (900.0 - 700.0) / 900.0, 1e-12);
  EXPECT_NE(verdict.details.find("measured"), std::string::npos) << verdict.details;
  EXPECT_EQ(to_json(verdict)["basis"], "measured");
  // Without a measured median anywhere, ncu's duration as before.
  for (HistoryRow& row : rows) {
    row.measured_median_us.reset();
  }
  EXPECT_EQ(judge(rows).basis, RankedTime::ncu);
  EXPECT_EQ(*judge(rows).best, (RoundRef{2, std::nullopt}));
}

TEST(Converged, RowsTimedInDifferentModesAreJudgedOnTheirEagerMedians) {
  // A model's call of 6,244 launches went into a CUDA graph in round 2 (its median leaves out
  // the host's launches: 8.0 ms) and not in rounds 1 and 3 (35.7 and 34.0 ms eager): by the
  // medians round 2 would be 4x faster; like against like, round 3 is the best.
  std::vector<HistoryRow> rows = {ok_row(1, std::nullopt, 8.1e6, 60),
                                  ok_row(2, std::nullopt, 8.1e6, 60),
                                  ok_row(3, std::nullopt, 8.1e6, 60)};
  const auto timed = [](HistoryRow& row, const char* mode, double median, double eager) {
    row.measured_median_us = median;
    row.measured_mode = mode;
    row.measured_eager_us = eager;
  };
  timed(rows[0], "eager", 35'700, 35'700);
  timed(rows[1], "graph", 8'000, 35'900);
  timed(rows[2], "eager", 34'000, 34'000);
  EXPECT_EQ(ranked_time(rows), RankedTime::measured_eager);
  EXPECT_EQ(ranked_ns(rows[1], RankedTime::measured_eager), 35'900e3);
  EXPECT_EQ(ranked_ns(rows[1], RankedTime::measured), 8'000e3);
  const Convergence verdict = judge(rows, ConvergenceOptions{95, 2, 0.01});
  EXPECT_EQ(verdict.basis, RankedTime::measured_eager);
  ASSERT_TRUE(verdict.best.has_value());
  EXPECT_EQ(*verdict.best, (RoundRef{3, std::nullopt}));
  EXPECT_EQ(verdict.best_duration_ns, 34'000e3);
  EXPECT_NE(verdict.details.find("measured eagerly"), std::string::npos) << verdict.details;
  EXPECT_EQ(to_json(verdict)["basis"], "measured_eager");
  // One mode throughout (rows before schema 7 name none): the medians, as before.
  rows[1].measured_mode = "eager";
  EXPECT_EQ(ranked_time(rows), RankedTime::measured);
  rows[1].measured_mode.clear();
  EXPECT_EQ(ranked_time(rows), RankedTime::measured);
  EXPECT_EQ(*judge(rows).best, (RoundRef{2, std::nullopt}));
}

TEST(Converged, AFastRowBelowTheThresholdIsNotAtTheRoofline) {
  // Round 3 is at 97% SOL but slower than round 2: the best row decides.
  const Convergence verdict =
      judge({ok_row(1, std::nullopt, 2.0e6, 60), ok_row(2, std::nullopt, 1.0e6, 80),
             ok_row(3, std::nullopt, 1.5e6, 97)});
  EXPECT_FALSE(verdict.converged);
  EXPECT_EQ(verdict.reason, ConvergenceReason::improving);
}

TEST(Converged, StopsWhenTheLastWindowBroughtNoImprovement) {
  ConvergenceOptions options;
  options.window = 3;
  // Before the window (rounds 1-2) the best is 1.0 ms; the window (rounds 3-5) reaches
  // 0.995 ms, a 0.5% improvement, below the 1% minimum. Failed rounds count as rounds.
  const Convergence verdict =
      judge({ok_row(1, std::nullopt, 2.0e6, 50), ok_row(2, std::nullopt, 1.0e6, 60),
             ok_row(3, 0, 1.2e6, 60), ok_row(3, 1, 0.995e6, 61), failed_row(4),
             ok_row(5, std::nullopt, 1.1e6, 55)},
            options);
  EXPECT_TRUE(verdict.converged);
  EXPECT_EQ(verdict.reason, ConvergenceReason::no_improvement);
  EXPECT_EQ(verdict.rounds, 5);
  ASSERT_TRUE(verdict.improvement.has_value());
  EXPECT_NEAR(*verdict.improvement, 0.005, 1e-12);
  EXPECT_EQ(*verdict.best, (RoundRef{3, 1}));
}

TEST(Converged, KeepsGoingWhileTheBestStillImproves) {
  ConvergenceOptions options;
  options.window = 3;
  const Convergence verdict =
      judge({ok_row(1, std::nullopt, 2.0e6, 50), ok_row(2, std::nullopt, 1.0e6, 60),
             ok_row(3, std::nullopt, 1.2e6, 60), failed_row(4), ok_row(5, std::nullopt, 0.9e6, 70)},
            options);
  EXPECT_FALSE(verdict.converged);
  EXPECT_EQ(verdict.reason, ConvergenceReason::improving);
  ASSERT_TRUE(verdict.improvement.has_value());
  EXPECT_NEAR(*verdict.improvement, 0.1, 1e-12);
  EXPECT_EQ(*verdict.best, (RoundRef{5, std::nullopt}));
}

TEST(Converged, NeedsWindowPlusOneRoundsBeforeJudgingProgress) {
  // Five flat rounds with the default window of 5: one short of judging.
  std::vector<HistoryRow> rows;
  for (int round = 1; round <= 5; ++round) {
    rows.push_back(ok_row(round, std::nullopt, 1.0e6, 50));
  }
  const Convergence short_history = judge(rows);
  EXPECT_FALSE(short_history.converged);
  EXPECT_EQ(short_history.reason, ConvergenceReason::improving);
  EXPECT_FALSE(short_history.improvement.has_value());

  rows.push_back(ok_row(6, std::nullopt, 1.0e6, 50));
  const Convergence judged = judge(rows);
  EXPECT_TRUE(judged.converged);
  EXPECT_EQ(judged.reason, ConvergenceReason::no_improvement);
  EXPECT_EQ(*judged.best, (RoundRef{1, std::nullopt}));
}

TEST(Converged, SaysSoWhenNoRoundSucceeded) {
  const Convergence verdict = judge({failed_row(1), failed_row(2)});
  EXPECT_FALSE(verdict.converged);
  EXPECT_EQ(verdict.reason, ConvergenceReason::no_successful_round);
  EXPECT_FALSE(verdict.best.has_value());
  EXPECT_EQ(judge({}).reason, ConvergenceReason::no_successful_round);
}

TEST(Converged, RejectsOptionsOutOfRange) {
  const std::vector<HistoryRow> rows = {ok_row(1, std::nullopt, 1.0e6, 50)};
  ConvergenceOptions window;
  window.window = 0;
  ConvergenceOptions threshold;
  threshold.sol_threshold_pct = 120;
  ConvergenceOptions improvement;
  improvement.min_improvement = -0.1;
  for (const auto& options : {window, threshold, improvement}) {
    auto verdict = converged(rows, options);
    ASSERT_FALSE(verdict.ok());
    EXPECT_EQ(verdict.error().category, ErrorCategory::usage);
  }
}

TEST(Converged, JsonCarriesTheVerdict) {
  const Json json = to_json(judge({ok_row(1, std::nullopt, 2.0e6, 60), ok_row(2, 3, 1.0e6, 96)}));
  EXPECT_EQ(json["converged"], true);
  EXPECT_EQ(json["reason"], "at_roofline");
  EXPECT_EQ(json["best"]["round"], 2);
  EXPECT_EQ(json["best"]["candidate"], 3);
  EXPECT_EQ(json["best_duration_ns"], 1.0e6);
  EXPECT_TRUE(json["improvement"].is_null());
  EXPECT_EQ(json["rounds"], 2);
}

TEST(Converged, DocumentRendersAsOneSentenceAndParsesBack) {
  const Convergence verdict = judge({ok_row(1, std::nullopt, 2.0e6, 60), ok_row(2, 3, 1.0e6, 96)});
  const Json doc = convergence_document(verdict);
  EXPECT_EQ(doc["kind"], "convergence");
  EXPECT_EQ(Json::parse(render(Format::json, doc))["reason"], "at_roofline");
  EXPECT_EQ(render(Format::table, doc), "converged: " + verdict.details + "\n");
  EXPECT_EQ(render(Format::prompt, doc), render(Format::table, doc));
  const std::string csv = render(Format::csv, doc);
  EXPECT_EQ(csv.substr(csv.find('\n') + 1, 19), "1,at_roofline,2,3,1");
}

} // namespace
} // namespace kprof
