// StagedRound::commit and the history: a round is moved into place before its rows are written,
// so a kprof killed in between leaves roundNNN/ without rows; the next writer records them
// (docs/history.md, "A round without its row"). The kill is simulated by a history that cannot
// be opened at the moment of the commit (kprof.db is a directory then).
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "kprof/files.hpp"
#include "kprof/history.hpp"
#include "kprof/round_layout.hpp"
#include "profile/staged_round.hpp"
#include "unit/history/documents.hpp"

namespace kprof {
namespace {

namespace fs = std::filesystem;

class StagedRoundHistory : public ::testing::Test {
protected:
  void SetUp() override {
    auto dir = TempDir::create("kprof-staged-round-test");
    ASSERT_TRUE(dir.ok());
    m_dir.emplace(std::move(dir).value());
  }

  [[nodiscard]] RoundLayout layout() const { return RoundLayout(m_dir->path() / "out"); }

  /// Commits plain round `round` with one ok candidate of `duration_ns`; the commit's result.
  Result<fs::path> commit_round(int round, double duration_ns) {
    auto staged = StagedRound::begin(layout(), round, false);
    EXPECT_TRUE(staged.ok());
    if (!staged.ok()) {
      return staged.error();
    }
    CandidateResult candidate;
    candidate.kernel = "kernel.py";
    candidate.status = CandidateStatus::ok;
    candidate.report = testing::simple_report(round, std::nullopt, duration_ns, 50);
    EXPECT_TRUE(staged->write_report(0, HeldReport(*candidate.report)).ok());
    staged->settle(true);
    std::vector<CandidateResult> candidates{candidate};
    return staged->commit(candidates, CommitSettings{});
  }

  /// Commits round `round` while kprof.db cannot be opened: the rename is done, the rows are
  /// not, as when kprof is killed between the two.
  void commit_round_without_its_row(int round, double duration_ns) {
    const fs::path db = layout().history_db();
    const bool existed = fs::exists(db);
    const fs::path aside = db.string() + ".aside";
    if (existed) {
      fs::rename(db, aside);
    }
    fs::create_directories(db);
    auto committed = commit_round(round, duration_ns);
    EXPECT_FALSE(committed.ok()) << "the row write was meant to fail";
    fs::remove(db);
    if (existed) {
      fs::rename(aside, db);
    }
    ASSERT_TRUE(fs::exists(layout().round_dir(round) / RoundLayout::k_report));
  }

  [[nodiscard]] std::vector<HistoryRow> rows() const {
    auto store = HistoryStore::open_read_only(layout().history_db());
    EXPECT_TRUE(store.ok()) << store.error().message;
    if (!store.ok()) {
      return {};
    }
    auto found = store->rows();
    EXPECT_TRUE(found.ok());
    return found.ok() ? *found : std::vector<HistoryRow>{};
  }

private:
  std::optional<TempDir> m_dir;
};

TEST_F(StagedRoundHistory, ACommittedRoundLeavesNoNoteOnceItsRowIsIn) {
  ASSERT_TRUE(commit_round(1, 2.0e6).ok());
  EXPECT_FALSE(fs::exists(layout().round_dir(1) / RoundLayout::k_history_pending));
  ASSERT_EQ(rows().size(), 1U);
}

TEST_F(StagedRoundHistory, TheNextCommitRecordsARoundWhoseRowWasNotWritten) {
  ASSERT_TRUE(commit_round(1, 2.0e6).ok());
  commit_round_without_its_row(2, 1.5e6);
  EXPECT_TRUE(fs::exists(layout().round_dir(2) / RoundLayout::k_history_pending));
  ASSERT_EQ(rows().size(), 1U) << "round 2 is in place, its row is not";

  ASSERT_TRUE(commit_round(3, 1.0e6).ok());
  const std::vector<HistoryRow> all = rows();
  ASSERT_EQ(all.size(), 3U);
  EXPECT_EQ(all[1].round, 2);
  EXPECT_EQ(all[1].total_duration_ns, 1.5e6);
  EXPECT_EQ(all[1].attempt, 1);
  EXPECT_TRUE(all[2].best);
  EXPECT_FALSE(fs::exists(layout().round_dir(2) / RoundLayout::k_history_pending));
}

TEST_F(StagedRoundHistory, ARoundWithoutItsRowIsShownNotRecordedByTheReadOnlyListing) {
  commit_round_without_its_row(1, 2.0e6); // the first round: no kprof.db at all yet
  EXPECT_FALSE(fs::exists(layout().history_db()));
  auto listed = history_rows(nullptr, layout().out_dir());
  ASSERT_TRUE(listed.ok()) << listed.error().message;
  ASSERT_EQ(listed->size(), 1U);
  EXPECT_FALSE(listed->front().recorded);
  EXPECT_EQ(listed->front().total_duration_ns, 2.0e6);
  EXPECT_FALSE(listed->front().best) << "not recorded, so not counted";
  EXPECT_FALSE(fs::exists(layout().history_db())) << "listing wrote nothing";

  ASSERT_TRUE(commit_round(2, 1.0e6).ok());
  auto store = HistoryStore::open_read_only(layout().history_db());
  ASSERT_TRUE(store.ok());
  auto after = history_rows(&*store, layout().out_dir());
  ASSERT_TRUE(after.ok());
  ASSERT_EQ(after->size(), 2U);
  EXPECT_TRUE((*after)[0].recorded && (*after)[1].recorded);
}

TEST_F(StagedRoundHistory, ARoundWhoseRowIsInButWhoseNoteStayedIsNotRecordedTwice) {
  // Killed after the row was written but before the note went: the note names rows that exist.
  commit_round_without_its_row(1, 2.0e6);
  const fs::path note = layout().round_dir(1) / RoundLayout::k_history_pending;
  auto kept = read_file(note);
  ASSERT_TRUE(kept.ok());
  ASSERT_TRUE(commit_round(2, 1.5e6).ok()); // records round 1 and drops its note
  ASSERT_FALSE(fs::exists(note));
  ASSERT_TRUE(write_file_atomic(note, *kept).ok()); // as if the removal had not happened

  auto store = HistoryStore::open_read_only(layout().history_db());
  ASSERT_TRUE(store.ok());
  auto listed = history_rows(&*store, layout().out_dir());
  ASSERT_TRUE(listed.ok());
  EXPECT_EQ(listed->size(), 2U) << "held rows are not listed again";

  ASSERT_TRUE(commit_round(3, 1.0e6).ok());
  const std::vector<HistoryRow> all = rows();
  ASSERT_EQ(all.size(), 3U);
  EXPECT_EQ(all[0].round, 1);
  EXPECT_EQ(all[0].attempt, 1) << "recorded once";
  EXPECT_FALSE(fs::exists(note));
}

TEST_F(StagedRoundHistory, AKeptAttemptBesideAnUnrecordedGoodRoundIsRecordedAfterIt) {
  commit_round_without_its_row(1, 2.0e6);
  // A failed re-run of round 1: kept beside the good (unrecorded) round.
  auto staged = StagedRound::begin(layout(), 1, false);
  ASSERT_TRUE(staged.ok());
  CandidateResult failed;
  failed.kernel = "kernel.py";
  failed.status = CandidateStatus::failed;
  failed.error = make_error(ErrorCategory::permission_denied, "ERR_NVGPUCTRPERM");
  ASSERT_TRUE(staged->write_error(0, Json::object()).ok());
  EXPECT_EQ(staged->settle(false).filename(), "round001.attempt-1");
  std::vector<CandidateResult> candidates{failed};
  ASSERT_TRUE(staged->commit(candidates, CommitSettings{}).ok());

  const std::vector<HistoryRow> all = rows();
  ASSERT_EQ(all.size(), 2U);
  EXPECT_EQ(all[0].kept_at, "");
  EXPECT_EQ(all[0].attempt, 1);
  EXPECT_EQ(all[0].status, CandidateStatus::ok);
  EXPECT_EQ(all[1].kept_at, "round001.attempt-1");
  EXPECT_EQ(all[1].attempt, 2);
}

TEST_F(StagedRoundHistory, ARoundCommittedWithoutHistoryIsNeverRecordedLater) {
  auto staged = StagedRound::begin(layout(), 1, false);
  ASSERT_TRUE(staged.ok());
  CandidateResult candidate;
  candidate.kernel = "kernel.py";
  candidate.status = CandidateStatus::ok;
  candidate.report = testing::simple_report(1, std::nullopt, 2.0e6, 50);
  ASSERT_TRUE(staged->write_report(0, HeldReport(*candidate.report)).ok());
  std::vector<CandidateResult> candidates{candidate};
  CommitSettings no_history;
  no_history.record_history = false;
  ASSERT_TRUE(staged->commit(candidates, no_history).ok());
  EXPECT_FALSE(fs::exists(layout().round_dir(1) / RoundLayout::k_history_pending));

  ASSERT_TRUE(commit_round(2, 1.0e6).ok());
  const std::vector<HistoryRow> all = rows();
  ASSERT_EQ(all.size(), 1U);
  EXPECT_EQ(all[0].round, 2);
}

} // namespace
} // namespace kprof
