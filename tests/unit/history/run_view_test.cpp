// The page of a run directory (kprof/run_view.hpp): its facts read from a real history database
// of real reports, and the page written from them.
#include <optional>
#include <string>

#include <gtest/gtest.h>

#include "kprof/analysis.hpp"
#include "kprof/files.hpp"
#include "kprof/history.hpp"
#include "kprof/metric_sets.hpp"
#include "kprof/ncu_output.hpp"
#include "kprof/report.hpp"
#include "kprof/run_view.hpp"

namespace kprof {
namespace {

const std::filesystem::path k_fixtures =
    std::filesystem::path(KPROF_FIXTURES_DIR) / "ncu" / "2025.3.1";

Json fixture_report(const std::string& file) {
  Result<Capture> capture = read_ncu_csv_file(k_fixtures / file);
  if (!capture.ok()) {
    ADD_FAILURE() << "reading " << file << ": " << capture.error().message;
    return Json();
  }
  Result<Analysis> analysis = analyse(*capture, SelectOptions{});
  if (!analysis.ok()) {
    ADD_FAILURE() << "analysing " << file << ": " << analysis.error().message;
    return Json();
  }
  return build_report(*capture, *analysis, *find_metric_set("default"));
}

std::size_t count(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (auto pos = text.find(needle); pos != std::string::npos;
       pos = text.find(needle, pos + needle.size())) {
    ++n;
  }
  return n;
}

/// A copy of `doc` whose every duration is divided by `factor`.
Json faster(Json doc, double factor) {
  doc["summary"]["total_duration_ns"] = doc["summary"]["total_duration_ns"].get<double>() / factor;
  for (Json& kernel : doc["summary"]["kernels"]) {
    kernel["duration_ns"] = kernel["duration_ns"].get<double>() / factor;
  }
  for (Json& kernel : doc["kernels"]) {
    Json& duration = kernel["metrics"]["gpu__time_duration.sum"]["value"];
    duration = duration.get<double>() / factor;
  }
  return doc;
}

class RunPage : public ::testing::Test {
protected:
  void SetUp() override {
    auto dir = TempDir::create("kprof-html-test");
    ASSERT_TRUE(dir.ok());
    m_dir.emplace(std::move(dir).value());
    auto store = HistoryStore::open(m_dir->path() / "kprof.db");
    ASSERT_TRUE(store.ok()) << store.error().message;
    const Json base = fixture_report("curated_nvtx_twostage.csv");
    RoundEntry first{0,  std::nullopt, "kernel_v0.py", CandidateStatus::ok, std::nullopt, base, "",
                     "", "",           nullptr};
    RoundEntry failed{1,
                      std::nullopt,
                      "kernel_v1.py",
                      CandidateStatus::failed,
                      make_error(ErrorCategory::kernel_raised, "ValueError: <bad> shape"),
                      std::nullopt,
                      "",
                      "",
                      "",
                      nullptr};
    RoundEntry best{
        2,  0,  "kernel_v2.py", CandidateStatus::ok, std::nullopt, faster(base, 2.0), "",
        "", "", nullptr};
    RoundEntry other{
        2,  1,  "kernel_v3.py", CandidateStatus::ok, std::nullopt, faster(base, 1.5), "",
        "", "", nullptr};
    for (const RoundEntry& entry : {first, failed, best, other}) {
      auto recorded = store->record_round(entry);
      ASSERT_TRUE(recorded.ok()) << recorded.error().message;
    }
  }
  [[nodiscard]] const std::filesystem::path& dir() const { return m_dir->path(); }

private:
  std::optional<TempDir> m_dir;
};

TEST_F(RunPage, ShowsEveryRoundWithTheBestMarkedAndTheFailedOneAsFailed) {
  auto written = write_run_view(dir());
  ASSERT_TRUE(written.ok()) << written.error().message;
  EXPECT_EQ(*written, dir() / "index.html");
  auto page = read_file(*written);
  ASSERT_TRUE(page.ok());
  EXPECT_EQ(count(*page, "<tr class=\"failed\">"), 1U);
  EXPECT_EQ(count(*page, "<tr class=\"best\">"), 1U);
  EXPECT_NE(page->find("kernel_raised: ValueError: &lt;bad&gt; shape"), std::string::npos);
  EXPECT_EQ(count(*page, "<rect class=\"bar"), 4U);
  EXPECT_EQ(count(*page, "<rect class=\"bar failed\""), 1U);
  EXPECT_EQ(count(*page, "<rect class=\"bar best\""), 1U);
  EXPECT_EQ(count(*page, "<details class=\"round\""), 4U);
  EXPECT_EQ(count(*page, "class=\"sol-point\""), 6U) << "two kernels in each of three reports";
  EXPECT_EQ(page->find("=\"http"), std::string::npos) << "nothing fetched";
}

TEST_F(RunPage, DiffsTheBestRoundAgainstTheFirstAndGivesTheVerdict) {
  auto run = load_run_view(dir());
  ASSERT_TRUE(run.ok()) << run.error().message;
  ASSERT_TRUE((*run)["diff"].is_object()) << (*run)["diff_error"];
  EXPECT_EQ((*run)["diff"]["a"]["label"], "round 0");
  EXPECT_EQ((*run)["diff"]["b"]["label"], "round 2 candidate 0");
  EXPECT_EQ((*run)["convergence"]["converged"], false);
  const std::string page = render_run_html(*run);
  EXPECT_NE(page.find("round 0 → round 2 candidate 0: total GPU time 16.06 us → 8.03 us (2.00× "
                      "faster)"),
            std::string::npos);
  EXPECT_NE(page.find("<span class=\"verdict not-converged\">not converged</span> (improving)"),
            std::string::npos);
}

TEST(RunPageLoad, FailsWithInputNotFoundWithoutAHistory) {
  auto dir = TempDir::create("kprof-html-test");
  ASSERT_TRUE(dir.ok());
  auto run = load_run_view(dir->path());
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.error().category, ErrorCategory::input_not_found);
  EXPECT_FALSE(std::filesystem::exists(dir->path() / "index.html"));
}

} // namespace
} // namespace kprof
