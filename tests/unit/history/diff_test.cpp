#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "kprof/history.hpp"
#include "unit/history/documents.hpp"

namespace kprof {
namespace {

using testing::KernelSample;
using testing::make_report;

constexpr const char* k_dram = "dram__throughput.avg.pct_of_peak_sustained_elapsed";
constexpr const char* k_sm = "sm__throughput.avg.pct_of_peak_sustained_elapsed";
constexpr const char* k_registers = "launch__registers_per_thread";

/// Round 2: scale_kernel latency-bound at 2.42 ms, plus old_kernel; total 2.5 ms.
Json before_report() {
  KernelSample scale{"scale_kernel", 2.42e6, "latency", 20, 45, {}};
  scale.metrics = {
      {k_dram, Json(45), "%"}, {k_sm, Json(20), "%"}, {k_registers, Json(40), "register/thread"}};
  KernelSample old{"old_kernel", 0.08e6, "latency", 5, 5, {}};
  return make_report(2, std::nullopt, {scale, old}, 2.5e6);
}

/// Round 3: scale_kernel memory-bound at 1.21 ms, plus new_kernel; total 1.25 ms.
Json after_report() {
  KernelSample scale{"scale_kernel", 1.21e6, "memory", 22, 91, {}};
  scale.metrics = {
      {k_dram, Json(91), "%"}, {k_sm, Json(22), "%"}, {k_registers, Json(40), "register/thread"}};
  KernelSample fresh{"new_kernel", 0.04e6, "latency", 5, 5, {}};
  return make_report(3, std::nullopt, {scale, fresh}, 1.25e6);
}

/// The first line of `text` holding `needle`, "" when none does.
std::string line_with(const std::string& text, const std::string& needle) {
  const auto at = text.find(needle);
  if (at == std::string::npos) {
    return {};
  }
  const auto start = text.rfind('\n', at);
  const auto end = text.find('\n', at);
  return text.substr(start == std::string::npos ? 0 : start + 1,
                     end == std::string::npos ? std::string::npos : end - (start + 1));
}

Json diff_of(const Json& a, const Json& b, const DiffOptions& options = {}) {
  auto diff = diff_reports(a, b, options);
  if (!diff) {
    ADD_FAILURE() << diff.error().message;
    return {};
  }
  return std::move(diff).value();
}

TEST(DiffReports, ComputesTheTotalSpeedup) {
  const Json diff = diff_of(before_report(), after_report());
  EXPECT_EQ(diff["a"]["label"], "round 2");
  EXPECT_EQ(diff["b"]["label"], "round 3");
  EXPECT_EQ(diff["a"]["round"], 2);
  EXPECT_EQ(diff["total"]["duration_ns"]["a"], 2.5e6);
  EXPECT_EQ(diff["total"]["duration_ns"]["b"], 1.25e6);
  EXPECT_DOUBLE_EQ(diff["total"]["speedup"].get<double>(), 2.0);
  EXPECT_EQ(diff["total"]["dominant_kernel"]["b"], "scale_kernel");
}

TEST(DiffReports, MatchesKernelsByNameAndListsTheOthers) {
  const Json diff = diff_of(before_report(), after_report());
  ASSERT_EQ(diff["kernels"].size(), 1U);
  EXPECT_EQ(diff["kernels"][0]["name"], "scale_kernel");
  EXPECT_EQ(diff["only_in_a"], Json::array({"old_kernel"}));
  EXPECT_EQ(diff["only_in_b"], Json::array({"new_kernel"}));
}

TEST(DiffReports, ReportsTheKernelSpeedupAndBottleneckShift) {
  const Json kernel = diff_of(before_report(), after_report())["kernels"][0];
  EXPECT_DOUBLE_EQ(kernel["speedup"].get<double>(), 2.0);
  EXPECT_EQ(kernel["bottleneck"]["a"], "latency");
  EXPECT_EQ(kernel["bottleneck"]["b"], "memory");
  EXPECT_EQ(kernel["bottleneck"]["shifted"], true);
  EXPECT_EQ(kernel["memory_sol_pct"]["b"], 91);
  EXPECT_EQ(kernel["max_sol_pct"]["a"], 45);
}

TEST(DiffReports, RanksMovedMetricsByRelativeChangeAndSkipsUnchangedOnes) {
  const Json moved = diff_of(before_report(), after_report())["kernels"][0]["moved_metrics"];
  // DRAM 45 -> 91 (|change|/max 0.505), duration 2.42 -> 1.21 ms (0.5), compute 20 -> 22
  // (0.09); registers did not move.
  ASSERT_EQ(moved.size(), 3U);
  EXPECT_EQ(moved[0]["metric"], k_dram);
  EXPECT_EQ(moved[0]["label"], "DRAM throughput");
  EXPECT_EQ(moved[0]["unit"], "%");
  EXPECT_EQ(moved[0]["a"], 45);
  EXPECT_EQ(moved[0]["b"], 91);
  EXPECT_EQ(moved[0]["change"], 46);
  EXPECT_NEAR(moved[0]["relative_change"].get<double>(), 46.0 / 45.0, 1e-12);
  EXPECT_EQ(moved[1]["metric"], "gpu__time_duration.sum");
  EXPECT_NEAR(moved[1]["relative_change"].get<double>(), -0.5, 1e-12);
  EXPECT_EQ(moved[2]["metric"], k_sm);
}

TEST(DiffReports, KeepsOnlyTheEightLargestMoves) {
  KernelSample a{"k", 1000, "memory", 10, 10, {}};
  KernelSample b{"k", 1000, "memory", 10, 10, {}};
  Json set = Json::array();
  for (int i = 1; i <= 12; ++i) {
    const std::string name = "metric_" + std::to_string(i);
    a.metrics.push_back({name, Json(100), ""});
    b.metrics.push_back({name, Json(100 + i), ""}); // metric_12 moved most
    set.push_back(Json{{"name", name}, {"label", name}, {"group", "Test"}});
  }
  Json doc_a = make_report(1, std::nullopt, {a});
  Json doc_b = make_report(2, std::nullopt, {b});
  doc_a["metadata"]["metric_set"]["metrics"] = set;
  doc_b["metadata"]["metric_set"]["metrics"] = set;
  const Json moved = diff_of(doc_a, doc_b)["kernels"][0]["moved_metrics"];
  ASSERT_EQ(moved.size(), 8U);
  EXPECT_EQ(moved[0]["metric"], "metric_12");
  EXPECT_EQ(moved[7]["metric"], "metric_5");
}

TEST(DiffReports, AMoveAwayFromZeroHasNoRelativeChange) {
  KernelSample a{"k", 1000, "memory", 10, 10, {{k_sm, Json(0), "%"}}};
  KernelSample b{"k", 1000, "memory", 10, 10, {{k_sm, Json(3), "%"}}};
  const Json moved = diff_of(make_report(1, std::nullopt, {a}),
                             make_report(2, std::nullopt, {b}))["kernels"][0]["moved_metrics"];
  ASSERT_EQ(moved.size(), 1U);
  EXPECT_EQ(moved[0]["change"], 3);
  EXPECT_TRUE(moved[0]["relative_change"].is_null());
}

TEST(DiffReports, LabelsComeFromTheCallerWhenGiven) {
  DiffOptions options;
  options.label_a = "baseline";
  options.label_b = "candidate 4";
  const Json diff = diff_of(before_report(), after_report(), options);
  EXPECT_EQ(diff["a"]["label"], "baseline");
  EXPECT_EQ(diff["b"]["label"], "candidate 4");
}

TEST(DiffReports, LabelsFallBackToAAndBWithoutRoundMetadata) {
  const Json diff = diff_of(
      make_report(std::nullopt, std::nullopt, {KernelSample{"k", 2000, "memory", 10, 10, {}}}),
      make_report(std::nullopt, std::nullopt, {KernelSample{"k", 1000, "memory", 10, 10, {}}}));
  EXPECT_EQ(diff["a"]["label"], "A");
  EXPECT_EQ(diff["b"]["label"], "B");
  EXPECT_TRUE(diff["b"]["round"].is_null());
}

TEST(DiffReports, NamesTheSideThatIsNotAReport) {
  Json broken = after_report();
  broken.erase("schema_version");
  auto diff = diff_reports(before_report(), broken);
  ASSERT_FALSE(diff.ok());
  EXPECT_EQ(diff.error().category, ErrorCategory::malformed_input);
  EXPECT_NE(diff.error().message.find("report B"), std::string::npos) << diff.error().message;
}

TEST(DiffReports, RefusesANegativeDurationNamingTheSideItsSourceAndTheKey) {
  DiffOptions options;
  options.source_a = "before.json";
  options.source_b = "after.json";
  Json negative_total = after_report();
  negative_total["summary"]["total_duration_ns"] = -1.25e6;
  auto total = diff_reports(before_report(), negative_total, options);
  ASSERT_FALSE(total.ok());
  EXPECT_EQ(total.error().category, ErrorCategory::malformed_input);
  EXPECT_NE(total.error().message.find("report B (after.json): 'summary.total_duration_ns' is "
                                       "-1250000: a duration cannot be negative"),
            std::string::npos)
      << total.error().message;

  Json negative_kernel = before_report();
  negative_kernel["summary"]["kernels"][1]["duration_ns"] = -5;
  auto kernel = diff_reports(negative_kernel, after_report(), options);
  ASSERT_FALSE(kernel.ok());
  EXPECT_NE(kernel.error().message.find("report A (before.json): 'summary.kernels[1].duration_ns' "
                                        "is -5"),
            std::string::npos)
      << kernel.error().message;

  // A launch's gpu time, where the per-metric percentages come from.
  Json negative_launch = after_report();
  negative_launch["kernels"][0]["metrics"]["gpu__time_duration.sum"]["value"] = -7;
  auto launch = diff_reports(before_report(), negative_launch);
  ASSERT_FALSE(launch.ok());
  EXPECT_NE(
      launch.error().message.find("report B: 'kernels[0].metrics.gpu__time_duration.sum' is -7"),
      std::string::npos)
      << launch.error().message;
}

TEST(DiffReports, RefusesANegativePercentageOrMetricByTheRuleThatRefusesACapture) {
  Json negative_sol = after_report();
  negative_sol["roofline"]["scale_kernel"]["compute_sol_pct"] = -1;
  auto sol = diff_reports(before_report(), negative_sol);
  ASSERT_FALSE(sol.ok());
  EXPECT_EQ(sol.error().category, ErrorCategory::malformed_input);
  EXPECT_NE(
      sol.error().message.find(
          "report B: 'roofline[\"scale_kernel\"].compute_sol_pct' is -1: a percentage cannot be "
          "negative, so ncu did not measure it"),
      std::string::npos)
      << sol.error().message;

  // A launch metric a fact is read from, in the words a capture holding it gets; a metric no
  // fact is read from may be negative.
  Json negative_metric = before_report();
  negative_metric["kernels"][0]["metrics"]["sm__throughput.avg.pct_of_peak_sustained_elapsed"] =
      Json{{"value", -2.5}, {"unit", "%"}};
  negative_metric["kernels"][0]["metrics"]["device__attribute_host_numa_id"] =
      Json{{"value", -1}, {"unit", ""}};
  auto metric = diff_reports(negative_metric, after_report());
  ASSERT_FALSE(metric.ok());
  EXPECT_NE(metric.error().message.find(
                "report A: 'kernels[0].metrics.sm__throughput.avg.pct_of_peak_sustained_elapsed' "
                "is -2.5 %: a percentage cannot be negative"),
            std::string::npos)
      << metric.error().message;
  negative_metric["kernels"][0]["metrics"].erase(
      "sm__throughput.avg.pct_of_peak_sustained_elapsed");
  EXPECT_TRUE(diff_reports(negative_metric, after_report()).ok());
}

/// A hot_lines member with one line per (line number, source, share).
Json hot_lines_of(const std::vector<std::tuple<int, std::string, double>>& lines) {
  Json entries = Json::array();
  for (const auto& [line, source, share] : lines) {
    entries.push_back({{"file", "/k/kernel.py"},
                       {"line", line},
                       {"source", source},
                       {"share", share},
                       {"samples", share * 1000}});
  }
  return Json{{"samples", 1000}, {"lines", entries}, {"unattributed", Json::array()}};
}

TEST(DiffReports, ComparesHotLinesByTheirSourceTextAcrossEditsAboveThem) {
  Json before = before_report();
  Json after = after_report();
  // Two lines were added above the load between the rounds; its text (spacing aside) is the same.
  before["kernels"][0]["hot_lines"] =
      hot_lines_of({{11, "x = tl.load(in_ptr + cols)", 0.5}, {12, "y = x * 2", 0.2}});
  after["kernels"][0]["hot_lines"] =
      hot_lines_of({{13, "x = tl.load(in_ptr  +  cols)", 0.12}, {15, "z = tl.exp(y)", 0.3}});
  const Json diff = diff_of(before, after);
  const Json& kernel = diff["kernels"][0];
  ASSERT_TRUE(kernel.contains("hot_lines")) << kernel.dump();
  const Json* load = nullptr;
  for (const Json& entry : kernel["hot_lines"]) {
    if (entry["before"].is_object() && entry["before"]["line"] == 11) {
      load = &entry;
    }
  }
  ASSERT_NE(load, nullptr) << kernel["hot_lines"].dump();
  EXPECT_EQ((*load)["after"]["line"], 13);
  EXPECT_DOUBLE_EQ((*load)["before"]["share"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ((*load)["after"]["share"].get<double>(), 0.12);

  const std::string prompt = render_diff(diff, Format::prompt);
  EXPECT_NE(prompt.find("hot lines (share of stall samples):"), std::string::npos) << prompt;
  EXPECT_NE(prompt.find("50% -> 12%"), std::string::npos) << prompt;
  EXPECT_NE(prompt.find("`z = tl.exp(y)` new, 30%"), std::string::npos) << prompt;
  const std::string table = render_diff(diff, Format::table);
  EXPECT_NE(table.find("scale_kernel: hot lines, share of stall samples"), std::string::npos);
  EXPECT_NE(render_diff(diff, Format::csv).find("hot_line,scale_kernel,"), std::string::npos);
}

TEST(DiffReports, HasNoHotLinesWhenOneSideLacksThem) {
  Json before = before_report();
  before["kernels"][0]["hot_lines"] = hot_lines_of({{11, "x = 1", 0.5}});
  EXPECT_FALSE(diff_of(before, after_report())["kernels"][0].contains("hot_lines"));
}

TEST(RenderDiff, PromptSaysWhatChangedInOneLine) {
  const Json diff = diff_of(before_report(), after_report());
  EXPECT_EQ(render_diff(diff, Format::prompt),
            "round 3 vs round 2: total 2.50 ms -> 1.25 ms (2.00x faster); scale_kernel: DRAM "
            "throughput 45% -> 91%, Compute throughput 20% -> 22%; now memory-bound at 91% of "
            "peak; only in round 2: old_kernel; only in round 3: new_kernel\n");
}

TEST(RenderDiff, PromptSaysStillWhenTheBottleneckHoldsAndSlowerWhenSlower) {
  KernelSample a{"k", 1.0e6, "compute", 80, 30, {}};
  KernelSample b{"k", 1.25e6, "compute", 81, 30, {}};
  const Json diff = diff_of(make_report(4, 0, {a}), make_report(5, 1, {b}));
  EXPECT_EQ(render_diff(diff, Format::prompt),
            "round 5 candidate 1 vs round 4 candidate 0: total 1.00 ms -> 1.25 ms (1.25x slower); "
            "k: no other metric moved; still compute-bound at 81% of peak\n");
}

TEST(RenderDiff, PromptSaysAUnitBothSidesShareOnce) {
  KernelSample a{"k", 1.0e6, "memory", 10, 50, {{k_registers, Json(40), "register/thread"}}};
  KernelSample b{"k", 1.0e6, "memory", 10, 50, {{k_registers, Json(32), "register/thread"}}};
  const Json diff = diff_of(make_report(1, std::nullopt, {a}), make_report(2, std::nullopt, {b}));
  const std::string prompt = render_diff(diff, Format::prompt);
  EXPECT_NE(prompt.find("k: Registers 40 -> 32 register/thread; still memory-bound at 50% of peak"),
            std::string::npos)
      << prompt;
}

TEST(RenderDiff, TableShowsKernelsAndTheirMovedMetrics) {
  const std::string table = render_diff(diff_of(before_report(), after_report()), Format::table);
  EXPECT_EQ(table.rfind("round 3 vs round 2\ntotal: 2.50 ms -> 1.25 ms (2.00x faster)\n", 0), 0U)
      << table;
  EXPECT_NE(table.find("latency -> memory"), std::string::npos) << table;
  const std::string dram = line_with(table, "DRAM throughput");
  EXPECT_NE(dram.find("45%"), std::string::npos) << table;
  EXPECT_LT(dram.find("45%"), dram.find("91%")) << table;
  EXPECT_NE(dram.find("+102.2%"), std::string::npos) << table;
  EXPECT_NE(table.find("only in round 2: old_kernel"), std::string::npos) << table;
  EXPECT_NE(table.find("only in round 3: new_kernel"), std::string::npos) << table;
}

TEST(RenderDiff, CsvHasOneLinePerComparedValue) {
  const std::string csv = render_diff(diff_of(before_report(), after_report()), Format::csv);
  EXPECT_EQ(csv.rfind("scope,kernel,metric,label,unit,a,b,change,relative_change\n"
                      "total,,duration_ns,Duration,ns,2500000,1250000,-1250000,-0.5\n",
                      0),
            0U)
      << csv;
  EXPECT_NE(csv.find("kernel,scale_kernel,bottleneck,Bottleneck,,latency,memory,,\n"),
            std::string::npos)
      << csv;
  EXPECT_NE(csv.find("metric,scale_kernel," + std::string(k_dram) + ",DRAM throughput,%,45,91,46,"),
            std::string::npos)
      << csv;
  EXPECT_NE(csv.find("only_in_a,old_kernel,,,,,,,\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find("only_in_b,new_kernel,,,,,,,\n"), std::string::npos) << csv;
}

TEST(RenderDiff, JsonIsTheDiffItself) {
  const Json diff = diff_of(before_report(), after_report());
  EXPECT_EQ(diff["kind"], "diff");
  EXPECT_EQ(Json::parse(render_diff(diff, Format::json)), diff);
}

TEST(RenderDiff, IsTheSinkRenderingOfTheDiffDocument) {
  const Json diff = diff_of(before_report(), after_report());
  for (const Format format : {Format::json, Format::csv, Format::prompt, Format::table}) {
    EXPECT_EQ(render(format, diff), render_diff(diff, format)) << to_string(format);
  }
}

TEST(RenderDiff, TakesADiffWithoutAKindAsADiff) {
  Json diff = diff_of(before_report(), after_report());
  const std::string prompt = render_diff(diff, Format::prompt);
  diff.erase("kind");
  EXPECT_EQ(render_diff(diff, Format::prompt), prompt);
}

} // namespace
} // namespace kprof
