// The token budget of `kprof mcp`'s answers (budgeted_report_text, estimate_tokens) on every
// recorded H200 capture: the text fits, reads as the prompt sink's, and keeps what an optimizer
// needs first (the verdict of the dominant kernel, its top hot line).
#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "kprof/analysis.hpp"
#include "kprof/files.hpp"
#include "kprof/mcp.hpp"
#include "kprof/metric_sets.hpp"
#include "kprof/ncu_output.hpp"
#include "kprof/report.hpp"
#include "kprof/source_page.hpp"

namespace kprof {
namespace {
namespace fs = std::filesystem;

const fs::path k_fixtures = fs::path(KPROF_FIXTURES_DIR) / "ncu" / "2025.3.1";
const fs::path k_captures = fs::path(KPROF_EXAMPLES_DIR) / "captures";

struct Recorded {
  std::string name;
  Json report;
};

/// The report `kprof report FILE [--source-page PAGE]` makes of `file`; null when the file is
/// not a capture kprof reads (ncu's logs and listings among the fixtures).
Json report_of(const fs::path& file, const fs::path& page = {}) {
  Result<Capture> capture = read_ncu_csv_file(file);
  if (!capture) {
    return Json();
  }
  Result<Analysis> analysis = analyse(*capture, SelectOptions{});
  if (!analysis) {
    return Json();
  }
  Result<MetricSet> set = resolve_metric_set("default", MetricSetUse::read);
  KPROF_ASSERT(set.ok());
  Json report = build_report(*capture, *analysis, *set, Json{{"select", "all"}});
  if (!page.empty()) {
    Result<SourcePage> source = read_source_page(page);
    auto cache = TempDir::create("kprof-mcp-budget");
    KPROF_ASSERT(source.ok() && cache.ok());
    KPROF_ASSERT(attach_hot_lines(report, *capture, *source, cache->path()).ok());
  }
  return report;
}

/// Every recorded capture: the fixtures, the examples' captures, the source-page runs with
/// their hot lines.
std::vector<Recorded> recorded_captures() {
  std::vector<Recorded> all;
  for (const fs::path& dir : {k_fixtures, k_captures}) {
    for (const auto& entry : fs::directory_iterator(dir)) {
      if (entry.is_regular_file()) {
        Json report = report_of(entry.path());
        if (!report.is_null()) {
          all.push_back({entry.path().filename().string(), std::move(report)});
        }
      }
    }
  }
  for (const auto& entry : fs::directory_iterator(k_fixtures / "source")) {
    const std::string name = entry.path().filename().string();
    if (!name.ends_with(".raw.csv")) {
      continue;
    }
    const std::string run = name.substr(0, name.size() - 8);
    const fs::path page = k_fixtures / "source" / (run + ".source.csv");
    all.push_back({name + " + hot lines", report_of(entry.path(), page)});
  }
  std::sort(all.begin(), all.end(),
            [](const Recorded& a, const Recorded& b) { return a.name < b.name; });
  return all;
}

const Recorded& find_recorded(const std::vector<Recorded>& all, const std::string& name) {
  const auto found =
      std::find_if(all.begin(), all.end(), [&](const Recorded& r) { return r.name == name; });
  KPROF_ASSERT(found != all.end());
  return *found;
}

bool has(const std::string& text, std::string_view part) {
  return text.find(part) != std::string::npos;
}

std::size_t headings(const std::string& text) {
  std::size_t count = 0;
  for (auto at = text.find("## Kernel: "); at != std::string::npos;
       at = text.find("## Kernel: ", at + 1)) {
    ++count;
  }
  return count;
}

TEST(EstimateTokens, CountsOneTokenPerThreeBytesRoundedUp) {
  EXPECT_EQ(estimate_tokens(""), 0U);
  EXPECT_EQ(estimate_tokens("abc"), 1U);
  EXPECT_EQ(estimate_tokens("abcd"), 2U);
  EXPECT_EQ(estimate_tokens(std::string(4500, 'x')), 1500U);
}

TEST(BudgetedReportText, FitsEveryBudgetOnEveryRecordedCapture) {
  const std::vector<Recorded> all = recorded_captures();
  ASSERT_GE(all.size(), 25U) << "fewer recorded captures than expected were read";
  for (const Recorded& recorded : all) {
    for (const std::size_t budget :
         std::vector<std::size_t>{100, 300, 800, k_mcp_default_token_budget, 4000}) {
      const std::string text = budgeted_report_text(recorded.report, budget, "kprof://report/1");
      EXPECT_LE(estimate_tokens(text), budget) << recorded.name << " at " << budget;
      EXPECT_FALSE(text.empty()) << recorded.name;
    }
  }
}

TEST(BudgetedReportText, IsTheTextOfTheDocumentsOutlineOnEveryRecordedCapture) {
  // The trimmed copy is the outline (one launch per kernel name), so the text must not depend on
  // the launches the prompt does not draw.
  for (const Recorded& recorded : recorded_captures()) {
    const Json outline = report_outline(recorded.report);
    EXPECT_LE(outline["kernels"].size(), recorded.report["summary"]["kernels"].size())
        << recorded.name;
    EXPECT_TRUE(outline["metrics"].empty()) << recorded.name;
    for (const std::size_t budget : {50U, 150U, 300U, 600U, 1500U, 100000U}) {
      EXPECT_EQ(budgeted_report_text(recorded.report, budget, "kprof://report/1"),
                budgeted_report_text(outline, budget, "kprof://report/1"))
          << recorded.name << " within " << budget;
    }
  }
}

TEST(BudgetedReportText, IsThePromptTextUnchangedWhenItFits) {
  const Json report = report_of(k_fixtures / "curated_nvtx_vadd.csv");
  const std::string prompt = render(Format::prompt, report);
  ASSERT_LT(estimate_tokens(prompt), k_mcp_default_token_budget);
  EXPECT_EQ(budgeted_report_text(report, k_mcp_default_token_budget, "file:///r/report.json"),
            prompt + "Whole report: file:///r/report.json\n");
  EXPECT_EQ(budgeted_report_text(report, k_mcp_default_token_budget, ""), prompt);
}

TEST(BudgetedReportText, KeepsTheVerdictAndTopHotLineOfTheDominantKernelLast) {
  const std::vector<Recorded> all = recorded_captures();
  const Json& report = find_recorded(all, "softmax.raw.csv + hot lines").report;
  const std::string whole = render(Format::prompt, report);
  ASSERT_TRUE(has(whole, "Hot lines"));
  const std::size_t budget = estimate_tokens(whole) / 2;
  const std::string text = budgeted_report_text(report, budget, "kprof://report/1");
  EXPECT_LE(estimate_tokens(text), budget);
  EXPECT_TRUE(has(text, "## Kernel: softmax_kernel")) << text;
  EXPECT_TRUE(has(text, "Roofline: ")) << text;
  const std::string top = report["kernels"][0]["hot_lines"]["lines"][0]["source"];
  EXPECT_TRUE(has(text, top)) << text;
  EXPECT_TRUE(has(text, "(cut to the token budget of")) << text;
  EXPECT_TRUE(has(text, "Whole report: kprof://report/1")) << text;
}

TEST(BudgetedReportText, CutsNcuFindingsBeforeTheVerdicts) {
  const Json report = report_of(k_fixtures / "batch4_details_sections_rules.csv");
  const std::string whole = render(Format::prompt, report);
  ASSERT_TRUE(has(whole, "NCU findings:"));
  const std::size_t budget = estimate_tokens(whole) * 2 / 3;
  const std::string text = budgeted_report_text(report, budget, "");
  EXPECT_LE(estimate_tokens(text), budget);
  EXPECT_TRUE(has(text, "left out: NCU findings beyond")) << text;
  EXPECT_EQ(headings(text), headings(whole)) << "a kernel was dropped before the findings were cut";
}

TEST(BudgetedReportText, DropsTheShortestKernelsOnlyAfterEverythingElse) {
  const Json report = report_of(k_fixtures / "curated_nvtx_twostage.csv");
  const std::string text = budgeted_report_text(report, 180, "");
  EXPECT_LE(estimate_tokens(text), 180U);
  EXPECT_TRUE(has(text, "## Kernel: scale_kernel")) << text; // the dominant one
  EXPECT_FALSE(has(text, "## Kernel: partial_sum_kernel")) << text;
  EXPECT_TRUE(has(text, "the 1 shortest kernel")) << text;
}

} // namespace
} // namespace kprof
