// RoundWriter, the one writer of a round: the documents of candidates without a report, batch.json,
// the kept-attempt note, and `report --round`'s rounds (record_report_round).
#include <filesystem>

#include <gtest/gtest.h>

#include "kprof/files.hpp"
#include "kprof/history.hpp"
#include "kprof/round_layout.hpp"
#include "kprof/version.hpp"
#include "profile/round_writer.hpp"
#include "unit/history/documents.hpp"

namespace kprof {
namespace {

namespace fs = std::filesystem;

Result<Json> read_json(const fs::path& path) {
  auto text = read_file(path);
  if (!text) {
    return std::move(text).error();
  }
  return Json::parse(*text);
}

TEST(FailureDocument, CarriesTheErrorAndTheStatusInTheMetadataAndAtTheTop) {
  const Error error = make_error(ErrorCategory::timeout, "the candidate hung", "after 60 s");
  const Json doc =
      failure_document(Json{{"round", 3}, {"status", "ok"}, {"kernel_file", "k.py"}}, error);
  EXPECT_EQ(doc["schema_version"], k_report_schema_version);
  EXPECT_EQ(doc["metadata"]["status"], "failed"); // whatever the metadata said before
  EXPECT_EQ(doc["metadata"]["round"], 3);
  EXPECT_EQ(doc["metadata"]["kernel_file"], "k.py");
  EXPECT_EQ(doc["metadata"]["kprof_version"], std::string(k_version));
  EXPECT_TRUE(doc["metadata"]["generated_at"].is_string());
  EXPECT_EQ(doc["error"], to_json(error));
  EXPECT_EQ(doc["metadata"]["error"], to_json(error));
}

TEST(FailureDocument, KeepsTheVersionAndTimeOfTheKprofThatWroteIt) {
  // A Slurm task's error.json, taken over by the submitter: the task's kprof wrote it.
  const Json doc =
      failure_document(Json{{"kprof_version", "0.0.1"}, {"generated_at", "2026-01-01T00:00:00Z"}},
                       make_error(ErrorCategory::slurm, "task ended"));
  EXPECT_EQ(doc["metadata"]["kprof_version"], "0.0.1");
  EXPECT_EQ(doc["metadata"]["generated_at"], "2026-01-01T00:00:00Z");
  EXPECT_TRUE(
      failure_document(Json("not an object"), make_error(ErrorCategory::io, "x"))["metadata"]
          .is_object());
}

TEST(BatchDocument, HasALinePerCandidateWithItsDurationOrItsError) {
  CandidateResult ok;
  ok.index = 0;
  ok.kernel = "a/kernel.py";
  ok.status = CandidateStatus::ok;
  ok.report = testing::simple_report(1, 0, 1500, 40);
  CandidateResult failed;
  failed.index = 1;
  failed.kernel = "b/kernel.py";
  failed.error = make_error(ErrorCategory::kernel_import, "bad kernel");
  const Json batch = batch_document(Json{{"round", 1}}, {ok, failed});
  EXPECT_EQ(batch["schema_version"], k_report_schema_version);
  EXPECT_EQ(batch["metadata"]["round"], 1);
  ASSERT_EQ(batch["candidates"].size(), 2U);
  EXPECT_EQ(batch["candidates"][0]["status"], "ok");
  EXPECT_EQ(batch["candidates"][0]["kernel_file"], "a/kernel.py");
  EXPECT_TRUE(batch["candidates"][0]["total_duration_ns"].is_number());
  EXPECT_TRUE(batch["candidates"][0]["error"].is_null());
  EXPECT_EQ(batch["candidates"][1]["status"], "failed");
  EXPECT_TRUE(batch["candidates"][1]["total_duration_ns"].is_null());
  EXPECT_EQ(batch["candidates"][1]["error"]["category"], "kernel_import");
}

class RoundWriterFiles : public ::testing::Test {
protected:
  void SetUp() override {
    auto dir = TempDir::create("kprof-round-writer-test");
    ASSERT_TRUE(dir.ok());
    m_dir.emplace(std::move(dir).value());
  }
  [[nodiscard]] fs::path out() const { return m_dir->path() / "out"; }

  /// Commits plain round 1 with `candidate`, settled as `good`.
  Result<RoundResult> commit(CandidateResult candidate, bool good) {
    auto writer = RoundWriter::begin(RoundLayout(out()), 1, false);
    EXPECT_TRUE(writer.ok());
    if (!writer.ok()) {
      return writer.error();
    }
    writer->settle(good, candidate.kernel);
    if (auto added = writer->add(std::move(candidate), Json{{"round", 1}}); !added) {
      return added.error();
    }
    return writer->commit(Json{{"round", 1}}, 1.0, CommitSettings{});
  }

private:
  std::optional<TempDir> m_dir;
};

TEST_F(RoundWriterFiles, ACandidateWithoutAReportIsFailedWhateverItClaims) {
  CandidateResult candidate;
  candidate.kernel = "kernel.py";
  candidate.status = CandidateStatus::ok; // but no report: a caller's mistake
  auto committed = commit(candidate, false);
  ASSERT_TRUE(committed.ok()) << committed.error().message;
  ASSERT_EQ(committed->candidates.size(), 1U);
  EXPECT_EQ(committed->candidates[0].status, CandidateStatus::failed);
  ASSERT_TRUE(committed->candidates[0].error.has_value());
  EXPECT_EQ(committed->candidates[0].error->category, ErrorCategory::internal);
  auto written = read_json(committed->dir / RoundLayout::k_error);
  ASSERT_TRUE(written.ok());
  EXPECT_EQ((*written)["metadata"]["status"], "failed");
  EXPECT_EQ((*written)["error"]["category"], "internal");
  EXPECT_FALSE(fs::exists(committed->dir / RoundLayout::k_report));
}

TEST_F(RoundWriterFiles, AFailedAttemptBesideAGoodRoundSaysWhereItIsKept) {
  CandidateResult good;
  good.kernel = "kernel.py";
  good.status = CandidateStatus::ok;
  good.report = testing::simple_report(1, std::nullopt, 1000, 50);
  ASSERT_TRUE(commit(good, true).ok());

  CandidateResult failed;
  failed.kernel = "kernel.py";
  failed.error = make_error(ErrorCategory::timeout, "the candidate hung");
  auto kept = commit(failed, false);
  ASSERT_TRUE(kept.ok()) << kept.error().message;
  EXPECT_FALSE(kept->in_place);
  EXPECT_EQ(kept->dir.filename(), "round001.attempt-1");
  const std::string message = kept->candidates[0].error->message;
  EXPECT_NE(message.find("round001 keeps its earlier result"), std::string::npos) << message;
  auto written = read_json(kept->dir / RoundLayout::k_error);
  ASSERT_TRUE(written.ok());
  EXPECT_EQ((*written)["error"]["message"], message);
  EXPECT_EQ((*written)["metadata"]["error"]["message"], message);
  EXPECT_TRUE(fs::exists(RoundLayout(out()).round_dir(1) / RoundLayout::k_report));
}

TEST_F(RoundWriterFiles, AReportRecordedAsARoundIsStagedCommittedAndInTheHistory) {
  auto recorded =
      record_report_round(out(), 2, testing::simple_report(2, std::nullopt, 800, 60), "cap.csv");
  ASSERT_TRUE(recorded.ok()) << recorded.error().message;
  const RoundLayout layout(out());
  EXPECT_EQ(recorded->dir, layout.round_dir(2));
  EXPECT_TRUE(fs::exists(recorded->dir / RoundLayout::k_report));
  EXPECT_TRUE(fs::exists(recorded->dir / RoundLayout::k_metrics_csv));
  EXPECT_TRUE(fs::exists(layout.kernelagent_file(2, std::nullopt)));
  for (const auto& entry : fs::directory_iterator(out())) {
    EXPECT_EQ(entry.path().filename().string().find(".round"), std::string::npos)
        << "a staging directory was left: " << entry.path();
  }
  auto store = HistoryStore::open(layout.history_db());
  ASSERT_TRUE(store.ok());
  auto rows = store->rows();
  ASSERT_TRUE(rows.ok());
  ASSERT_EQ(rows->size(), 1U);
  EXPECT_EQ((*rows)[0].round, 2);
  EXPECT_EQ((*rows)[0].label, "cap.csv");
  EXPECT_EQ((*rows)[0].status, CandidateStatus::ok);
}

} // namespace
} // namespace kprof
