#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "kprof/history.hpp"

namespace kprof {
namespace {

HistoryRow ok_row(int round, std::optional<int> candidate, double duration_ns, bool best_so_far) {
  HistoryRow row;
  row.round = round;
  row.candidate = candidate;
  row.label = "kernel.py";
  row.status = CandidateStatus::ok;
  row.created_at = "2026-01-02T03:04:05Z";
  row.total_duration_ns = duration_ns;
  row.dominant_kernel = "scale_kernel";
  row.bottleneck = "memory";
  row.compute_sol_pct = 20;
  row.memory_sol_pct = 91;
  row.max_sol_pct = 91;
  row.best_so_far = best_so_far;
  return row;
}

std::vector<HistoryRow> sample_rows() {
  std::vector<HistoryRow> rows;
  rows.push_back(ok_row(1, std::nullopt, 2.0e6, true));
  HistoryRow failed;
  failed.round = 2;
  failed.candidate = 0;
  failed.label = "kernel, v2.py";
  failed.status = CandidateStatus::failed;
  failed.error =
      make_error(ErrorCategory::kernel_raised, "RuntimeError: \"bad\" shape\nsecond line");
  rows.push_back(failed);
  rows.push_back(ok_row(3, std::nullopt, 1.0e6, true));
  rows.back().best = true;
  return rows;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    const auto end = text.find('\n', start);
    lines.push_back(text.substr(start, end - start));
    start = end == std::string::npos ? text.size() : end + 1;
  }
  return lines;
}

TEST(RenderHistory, TableHasOneLinePerRowWithTheBestMarked) {
  const auto lines = lines_of(render_history(sample_rows(), Format::table));
  ASSERT_EQ(lines.size(), 5U); // header, three rows, legend
  EXPECT_EQ(lines[1].rfind("*  1", 0), 0U) << lines[1];
  EXPECT_EQ(lines[2].rfind("   2", 0), 0U) << lines[2];
  EXPECT_EQ(lines[3].rfind("*  3", 0), 0U) << lines[3];
  EXPECT_NE(lines[2].find("failed"), std::string::npos);
  EXPECT_NE(lines[2].find("kernel_raised: RuntimeError: \"bad\" shape"), std::string::npos)
      << lines[2];
  EXPECT_EQ(lines[2].find("second line"), std::string::npos);
  EXPECT_NE(lines[3].find("scale_kernel"), std::string::npos);
  EXPECT_NE(lines[3].find("91%"), std::string::npos) << lines[3];
  EXPECT_NE(lines[4].find("best so far"), std::string::npos);
}

TEST(RenderHistory, PromptRendersLikeTheTable) {
  EXPECT_EQ(render_history(sample_rows(), Format::prompt),
            render_history(sample_rows(), Format::table));
}

TEST(RenderHistory, IsTheSinkRenderingOfTheHistoryDocument) {
  const Json doc = history_document(sample_rows());
  for (const Format format : {Format::json, Format::csv, Format::prompt, Format::table}) {
    EXPECT_EQ(render(format, doc), render_history(sample_rows(), format)) << to_string(format);
  }
}

TEST(RenderHistory, EmptyHistorySaysSo) {
  EXPECT_EQ(render_history({}, Format::table), "no rounds recorded\n");
}

TEST(RenderHistory, JsonParsesBackWithEveryRow) {
  const Json doc = Json::parse(render_history(sample_rows(), Format::json));
  EXPECT_EQ(doc["schema_version"], k_document_schema_version);
  EXPECT_EQ(doc["kind"], "history");
  ASSERT_EQ(doc["rows"].size(), 3U);
  EXPECT_EQ(doc["rows"][0]["round"], 1);
  EXPECT_TRUE(doc["rows"][0]["candidate"].is_null());
  EXPECT_EQ(doc["rows"][0]["total_duration_ns"], 2.0e6);
  EXPECT_EQ(doc["rows"][0]["best_so_far"], true);
  EXPECT_EQ(doc["rows"][0]["best"], false);
  EXPECT_EQ(doc["rows"][1]["candidate"], 0);
  EXPECT_EQ(doc["rows"][1]["error"]["category"], "kernel_raised");
  EXPECT_TRUE(doc["rows"][1]["total_duration_ns"].is_null());
  EXPECT_EQ(doc["rows"][2]["best"], true);
  EXPECT_EQ(doc["rows"][2]["max_sol_pct"], 91);
}

TEST(RenderHistory, CsvQuotesFieldsThatNeedIt) {
  const auto lines = lines_of(render_history(sample_rows(), Format::csv));
  ASSERT_EQ(lines.size(), 5U); // header, rows 1 and 3, row 2 spans two lines (quoted newline)
  EXPECT_EQ(lines[0].rfind("round,candidate,label,status,", 0), 0U);
  EXPECT_EQ(lines[1], "1,,kernel.py,ok,2026-01-02T03:04:05Z,2000000,scale_kernel,memory,20,91,91,"
                      "1,0,,,1,1,,1,,,,,,"); // no truth measured: its six fields empty
  EXPECT_EQ(lines[2], "2,0,\"kernel, v2.py\",failed,,,,,,,,0,0,kernel_raised,"
                      "\"RuntimeError: \"\"bad\"\" shape");
  EXPECT_EQ(lines[3], "second line\",1,1,,1,,,,,,");
}

TEST(RenderHistory, ShowsTheAttemptsOfARoundOnceItWasRunAgainWithTheLatestMarked) {
  auto rows = sample_rows();
  const std::string before = render_history(rows, Format::table);
  EXPECT_EQ(before.find("attempt"), std::string::npos);
  rows[0].attempt = 1;
  rows[0].latest = false;
  HistoryRow rerun = rows[0];
  rerun.attempt = 2;
  rerun.latest = true;
  rerun.status = CandidateStatus::failed;
  rerun.kept_at = "round001.attempt-2";
  rows.insert(rows.begin() + 1, rerun);
  const std::string table = render_history(rows, Format::table);
  EXPECT_NE(table.find("attempt"), std::string::npos);
  EXPECT_NE(table.find("2 latest (round001.attempt-2)"), std::string::npos);
  const Json doc = history_document(rows);
  EXPECT_EQ(doc["rows"][0]["latest"], false);
  EXPECT_EQ(doc["rows"][1]["attempt"], 2);
  EXPECT_EQ(doc["rows"][1]["kept_at"], "round001.attempt-2");
}

} // namespace
} // namespace kprof
