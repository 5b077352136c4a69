// RoundWriter, the one writer of a round: the documents of candidates without a report, batch.json,
// the kept-attempt note, and `report --round`'s rounds (record_report_round).
#include <algorithm>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <sqlite3.h>

#include "kprof/analysis.hpp"
#include "kprof/files.hpp"
#include "kprof/history.hpp"
#include "kprof/metric_sets.hpp"
#include "kprof/ncu_output.hpp"
#include "kprof/report.hpp"
#include "kprof/round.hpp"
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

TEST_F(RoundWriterFiles, BatchJsonIsTheRoundInItsOneShapeWithEachReportLeftInItsCandidate) {
  auto writer = RoundWriter::begin(RoundLayout(out()), 2, true);
  ASSERT_TRUE(writer.ok()) << writer.error().message;
  writer->settle(true);
  CandidateResult ok;
  ok.index = 0;
  ok.kernel = "a/kernel.py";
  ok.status = CandidateStatus::ok;
  ok.attempts = 1;
  ok.report = testing::simple_report(1, 0, 1500, 40);
  CandidateResult failed;
  failed.index = 1;
  failed.kernel = "b/kernel.py";
  failed.attempts = 1;
  failed.error = make_error(ErrorCategory::kernel_import, "bad kernel");
  ASSERT_TRUE(writer->add(ok).ok());
  ASSERT_TRUE(writer->add(failed, Json{{"round", 2}}).ok());
  auto round = writer->commit(Json{{"round", 2}}, 1.5, CommitSettings{});
  ASSERT_TRUE(round.ok()) << round.error().message;

  auto batch = read_json(out() / "round002" / "batch.json");
  ASSERT_TRUE(batch.ok()) << batch.error().message;
  EXPECT_EQ(*batch, round_document(*round, ReportDetail::summary))
      << "the file is what the round's JSON says, reports left in cand<i>/";
  EXPECT_EQ((*batch)["kind"], "round");
  EXPECT_EQ((*batch)["dir"], (out() / "round002").string());
  const Json& first = (*batch)["candidates"][0];
  EXPECT_EQ(first["document"], (out() / "round002" / "cand0" / "report.json").string());
  EXPECT_TRUE(fs::is_regular_file(first["document"].get<std::string>()));
  EXPECT_TRUE(first["report"].is_null());
  EXPECT_EQ(first["summary"]["total_duration_ns"], 1500);
  const Json& second = (*batch)["candidates"][1];
  EXPECT_TRUE(fs::is_regular_file(second["document"].get<std::string>()));
  EXPECT_EQ(second["error"]["category"], "kernel_import");
  EXPECT_TRUE(second["rank"].is_null());
}

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

// ---- report --round of a big capture: recorded launch by launch, the tree's round ----------

const fs::path k_fixtures = fs::path(KPROF_FIXTURES_DIR) / "ncu" / "2025.3.1";

/// Every capture fixture: the .csv files of the fixture directory but source pages.
std::vector<fs::path> capture_fixtures() {
  std::vector<fs::path> files;
  for (const auto& entry : fs::recursive_directory_iterator(k_fixtures)) {
    const std::string name = entry.path().filename().string();
    if (entry.path().extension() == ".csv" && !name.ends_with("source.csv")) {
      files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

/// Every row `sql` selects from the history at `db_path`, each column's type and text, one line
/// per row.
std::string query_rows(const fs::path& db_path, const std::string& sql) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr), SQLITE_OK) << sql;
  std::string rows;
  while (stmt != nullptr && sqlite3_step(stmt) == SQLITE_ROW) {
    for (int i = 0; i < sqlite3_column_count(stmt); ++i) {
      rows += std::to_string(sqlite3_column_type(stmt, i)) + ":";
      const unsigned char* text = sqlite3_column_text(stmt, i);
      rows += text == nullptr ? "NULL" : reinterpret_cast<const char*>(text);
      rows += '|';
    }
    rows += '\n';
  }
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return rows;
}

/// What a recorded round leaves: its files' text and its history rows (but their time).
std::vector<std::string> round_artefacts(const fs::path& out_dir) {
  const RoundLayout layout(out_dir);
  std::vector<std::string> artefacts;
  for (const fs::path& file : {layout.round_dir(1) / RoundLayout::k_report,
                               layout.round_dir(1) / RoundLayout::k_metrics_csv,
                               layout.kernelagent_file(1, std::nullopt)}) {
    auto text = read_file(file);
    EXPECT_TRUE(text.ok()) << file;
    artefacts.push_back(text ? *text : std::string());
  }
  const fs::path db = layout.history_db();
  artefacts.push_back(query_rows(
      db, "SELECT round, candidate, label, status, error_category, error_message, error_detail, "
          "total_duration_ns, dominant_kernel, bottleneck, compute_sol_pct, memory_sol_pct, "
          "document, attempt, kept_at FROM runs ORDER BY id"));
  artefacts.push_back(query_rows(db, "SELECT * FROM documents ORDER BY run_id"));
  artefacts.push_back(query_rows(db, "SELECT * FROM kernels ORDER BY rowid"));
  artefacts.push_back(query_rows(db, "SELECT * FROM metrics ORDER BY rowid"));
  artefacts.push_back(query_rows(db, "SELECT * FROM rooflines ORDER BY rowid"));
  return artefacts;
}

TEST_F(RoundWriterFiles, ACaptureRecordedLaunchByLaunchLeavesTheFilesAndRowsOfItsTree) {
  const std::vector<fs::path> files = capture_fixtures();
  ASSERT_GE(files.size(), 25U) << "the fixtures were not found under " << k_fixtures;
  const std::vector<std::string> names = {"report.json", "metrics.csv", "round001_ncu_metrics.json",
                                          "runs",        "documents",   "kernels",
                                          "metrics",     "rooflines"};
  for (const fs::path& file : files) {
    SCOPED_TRACE(file.string());
    Result<Capture> capture = read_ncu_csv_file(file);
    ASSERT_TRUE(capture.ok()) << capture.error().message;
    Result<Analysis> analysis = analyse(*capture, SelectOptions{});
    ASSERT_TRUE(analysis.ok()) << analysis.error().message;
    const MetricSet set = *find_metric_set("default");
    // `kprof report FILE --round 1`'s run facts, at one time for both.
    const Json run{{"generated_at", "2026-12-04T12:00:00Z"}, {"select", "all"}, {"round", 1}};
    const fs::path tree_dir = out() / (file.stem().string() + "-tree");
    const fs::path streamed_dir = out() / (file.stem().string() + "-streamed");
    auto tree = record_report_round(tree_dir, 1, build_report(*capture, *analysis, set, run),
                                    file.filename());
    ASSERT_TRUE(tree.ok()) << tree.error().message;
    auto streamed = record_report_round(
        streamed_dir, 1, std::make_shared<const CaptureReport>(*capture, *analysis, set, run),
        file.filename());
    ASSERT_TRUE(streamed.ok()) << streamed.error().message;
    const std::vector<std::string> expected = round_artefacts(tree_dir);
    const std::vector<std::string> written = round_artefacts(streamed_dir);
    ASSERT_EQ(written.size(), names.size());
    for (std::size_t i = 0; i < names.size(); ++i) {
      EXPECT_FALSE(expected[i].empty()) << names[i];
      EXPECT_TRUE(written[i] == expected[i]) << names[i] << " differs";
    }
  }
}

} // namespace
} // namespace kprof
