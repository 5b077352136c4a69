// The sinks on hand-built documents: JSON, CSV, prompt and table.
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "kprof/report.hpp"
#include "unit/report/report_test_support.hpp"

namespace kprof {
namespace {

using test::CaptureBuilder;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    lines.push_back(line);
  }
  return lines;
}

bool contains(const std::string& text, std::string_view needle) {
  return text.find(needle) != std::string::npos;
}

std::size_t display_width(std::string_view text) {
  std::size_t width = 0;
  for (const char c : text) {
    if ((static_cast<unsigned char>(c) & 0xC0U) != 0x80U) {
      ++width;
    }
  }
  return width;
}

Analysis analysis_of(const Capture& capture) {
  Analysis analysis;
  for (std::size_t i = 0; i < capture.kernels.size(); ++i) {
    analysis.selected.push_back(i);
    const std::string& name = capture.kernels[i].name;
    auto found = std::find_if(analysis.kernels.begin(), analysis.kernels.end(),
                              [&](const KernelSummary& k) { return k.name == name; });
    const std::optional<double> duration =
        capture.number(capture.kernels[i], "gpu__time_duration.sum");
    if (found == analysis.kernels.end()) {
      analysis.kernels.push_back(KernelSummary{
          name, {i}, duration, std::nullopt, test::test_roofline(10, 20, Bottleneck::latency)});
    } else {
      found->launches.push_back(i);
      if (duration) {
        found->duration_ns = found->duration_ns.value_or(0.0) + *duration;
      }
    }
  }
  analysis.summary.launches = capture.kernels.size();
  return analysis;
}

// ---- JSON ----------------------------------------------------------------------------------

TEST(JsonSink, IndentsByTwoSpacesAndEndsWithANewline) {
  const std::string text = render(Format::json, test::twostage_like_report());
  EXPECT_EQ(text.rfind("{\n  \"schema_version\": 4,\n  \"metadata\": {\n    \"kprof_version\"", 0),
            0U)
      << text.substr(0, 80);
  EXPECT_EQ(text.back(), '\n');
  EXPECT_EQ(Json::parse(text).at("kernels").size(), 2U);
}

TEST(JsonSink, WritesOneLineWhenCompact) {
  RenderOptions options;
  options.compact = true;
  const std::string text = render(Format::json, test::twostage_like_report(), options);
  EXPECT_EQ(lines_of(text).size(), 1U);
  EXPECT_EQ(text.back(), '\n');
  EXPECT_EQ(text.rfind("{\"schema_version\":4,\"metadata\":{", 0), 0U);
}

TEST(JsonSink, ReplacesInvalidUtf8InsteadOfThrowing) {
  Json doc = test::twostage_like_report();
  doc["kernels"][0]["name"] = std::string("bad\xff"
                                          "name");
  std::string text;
  EXPECT_NO_THROW(text = render(Format::json, doc));
  EXPECT_TRUE(contains(text, "bad\xef\xbf\xbdname"));
}

// ---- CSV -----------------------------------------------------------------------------------

TEST(CsvSink, WritesAHeaderAndOneRowPerLaunch) {
  const std::vector<std::string> lines =
      lines_of(render(Format::csv, test::twostage_like_report()));
  ASSERT_EQ(lines.size(), 3U);
  EXPECT_EQ(lines[0], "kernel,id,nvtx_range,grid,block,gpu__time_duration.sum (ns),"
                      "sm__throughput.avg.pct_of_peak_sustained_elapsed (%),"
                      "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed (%),"
                      "dram__bytes_read.sum (byte),launch__cluster_scheduling_policy");
  EXPECT_EQ(lines[1],
            "partial_sum_kernel,0,kprof,1024x1x1,128x1x1,6208,7.7,56.5,16781824,PolicySpread");
  EXPECT_EQ(lines[2],
            "scale_kernel,1,kprof,1024x1x1,128x1x1,9856,9.44,38.79,16788480,PolicySpread");
}

TEST(CsvSink, QuotesCellsWithCommasAndQuotes) {
  const Capture capture = CaptureBuilder()
                              .column("gpu__time_duration.sum", "ns")
                              .launch("void f<int, \"x\">(int)", 0, {1.0}, {}, "kprof:cand0")
                              .build();
  const Json doc = build_report(capture, analysis_of(capture), test::test_metric_set());
  const std::vector<std::string> lines = lines_of(render(Format::csv, doc));
  ASSERT_EQ(lines.size(), 2U);
  EXPECT_EQ(lines[1], "\"void f<int, \"\"x\"\">(int)\",0,kprof:cand0,1024x1x1,128x1x1,1");
}

TEST(CsvSink, LeavesMissingValuesAndRangesEmpty) {
  const Capture capture = CaptureBuilder()
                              .column("gpu__time_duration.sum", "ns")
                              .column("dram__bytes_read.sum", "byte")
                              .launch("a", 0, {1.0, 2.0}, {}, "")
                              .launch("b", 1, {test::TestValue(), 3.0}, {}, "")
                              .build();
  const Json doc = build_report(capture, analysis_of(capture), test::test_metric_set());
  const std::vector<std::string> lines = lines_of(render(Format::csv, doc));
  ASSERT_EQ(lines.size(), 3U);
  EXPECT_EQ(lines[1], "a,0,,1024x1x1,128x1x1,1,2");
  EXPECT_EQ(lines[2], "b,1,,1024x1x1,128x1x1,,3");
}

TEST(CsvSink, UsesEveryValueColumnOnDetailsPages) {
  const Capture capture =
      CaptureBuilder(PageKind::details)
          .column("Duration", "ns", "GPU Speed Of Light Throughput")
          .column("Registers Per Thread", "register/thread", "Launch Statistics")
          .launch("k", 0, {181568.0, 16.0})
          .build();
  const Json doc = build_report(capture, analysis_of(capture), MetricSet{"deep", "", {}, {}});
  const std::vector<std::string> lines = lines_of(render(Format::csv, doc));
  ASSERT_EQ(lines.size(), 2U);
  EXPECT_EQ(lines[0],
            "kernel,id,nvtx_range,grid,block,Duration (ns),Registers Per Thread (register/thread)");
  EXPECT_EQ(lines[1], "k,0,kprof,1024x1x1,128x1x1,181568,16");
}

// ---- prompt --------------------------------------------------------------------------------

TEST(PromptSink, StartsWithTheGpuAndTheTotalTime) {
  const std::vector<std::string> lines =
      lines_of(render(Format::prompt, test::twostage_like_report()));
  ASSERT_GE(lines.size(), 2U);
  EXPECT_EQ(lines[0], "GPU: NVIDIA H200 (peak DRAM 4.80 TB/s)");
  EXPECT_EQ(lines[1],
            "Total GPU time: 16.06 us over 2 kernel launches; dominant kernel: scale_kernel (61%)");
}

TEST(PromptSink, OrdersKernelsLongestFirst) {
  const std::string text = render(Format::prompt, test::twostage_like_report());
  const std::size_t scale = text.find("## Kernel: scale_kernel (1 launch, 9.86 us, 61% of total)");
  const std::size_t partial =
      text.find("## Kernel: partial_sum_kernel (1 launch, 6.21 us, 39% of total)");
  ASSERT_NE(scale, std::string::npos) << text;
  ASSERT_NE(partial, std::string::npos) << text;
  EXPECT_LT(scale, partial);
}

TEST(PromptSink, GroupsSetMetricsUnderTheirLabels) {
  const std::string text = render(Format::prompt, test::twostage_like_report());
  EXPECT_TRUE(contains(text, "\nSpeed of light: Compute SOL 9.4%; Memory SOL 38.8%\n")) << text;
  EXPECT_TRUE(contains(text, "\nMemory: DRAM bytes read 16.79 MB\n")) << text;
  EXPECT_TRUE(contains(text, "\nLaunch: Cluster policy PolicySpread\n")) << text;
  EXPECT_FALSE(contains(text, "launch__waves_per_multiprocessor")) << "only set metrics are shown";
  EXPECT_TRUE(contains(
      text, "\nRoofline: latency-bound (compute SOL 9.4%, memory SOL 38.8%, headroom 61.2%); "
            "tensor cores: no\n"))
      << text;
}

TEST(PromptSink, PutsOptFindingsFirstByEstimatedSpeedupUpToMaxRules) {
  const std::vector<RuleResult> rules{
      {"SpeedOfLight", "SOLBottleneck", "INF", "Informational. More.", "", std::nullopt},
      {"Occupancy", "AchievedOccupancy", "OPT", "Small gain. More.", "global", 10.0},
      {"WarpStateStats", "CPIStall", "WRN", "A warning.", "", std::nullopt},
      {"SchedulerStats", "IssueSlotUtilization", "OPT",
       "Each scheduler only issues an instruction every 9.3 cycles. This might leave ...", "local",
       43.74}};
  const Capture capture = CaptureBuilder(PageKind::details)
                              .column("Duration", "ns", "GPU Speed Of Light Throughput")
                              .launch("k", 0, {181568.0}, rules)
                              .build();
  const Json doc = build_report(capture, analysis_of(capture), MetricSet{"deep", "", {}, {}});
  RenderOptions options;
  options.max_rules = 3;
  const std::string text = render(Format::prompt, doc, options);
  EXPECT_TRUE(contains(text, "NCU findings:\n"
                             "- [OPT, est. 43.7% local] IssueSlotUtilization: Each scheduler only "
                             "issues an instruction every 9.3 cycles.\n"
                             "- [OPT, est. 10.0% global] AchievedOccupancy: Small gain.\n"
                             "- [WRN] CPIStall: A warning.\n"))
      << text;
  EXPECT_FALSE(contains(text, "SOLBottleneck")) << "max_rules cuts the list";
}

TEST(PromptSink, ShowsSectionValuesOnDetailsPages) {
  const Capture capture =
      CaptureBuilder(PageKind::details)
          .column("Duration", "ns", "GPU Speed Of Light Throughput")
          .column("Memory Throughput", "%", "GPU Speed Of Light Throughput")
          .column("Memory Throughput", "byte/s", "Memory Workload Analysis")
          .column("Local Memory Spilling Request Overhead", "%", "Memory Workload Analysis")
          .launch("k", 0, {181568.0, 89.98, 4327867465632.71, test::TestValue()})
          .build();
  const Json doc = build_report(capture, analysis_of(capture), MetricSet{"deep", "", {}, {}});
  const std::string text = render(Format::prompt, doc);
  EXPECT_TRUE(contains(
      text, "\nGPU Speed Of Light Throughput: Duration 181.57 us; Memory Throughput 90.0%\n"))
      << text;
  EXPECT_TRUE(contains(text, "\nMemory Workload Analysis: Memory Throughput 4.33 TB/s\n")) << text;
  EXPECT_FALSE(contains(text, "Spilling")) << "values ncu did not measure are left out";
}

TEST(PromptSink, SaysUnknownWhenGpuAndDurationsAreMissing) {
  const Capture capture = CaptureBuilder().column("x", "").launch("k", 0, {1.0}).build();
  const Json doc = build_report(capture, analysis_of(capture), MetricSet{});
  const std::vector<std::string> lines = lines_of(render(Format::prompt, doc));
  ASSERT_GE(lines.size(), 4U);
  EXPECT_EQ(lines[0], "GPU: unknown");
  EXPECT_EQ(lines[1], "Total GPU time: unknown over 1 kernel launch");
  EXPECT_EQ(lines[3], "## Kernel: k (1 launch)");
}

TEST(PromptSink, ShowsTheLongestLaunchWhenANameRepeats) {
  const Capture capture = CaptureBuilder()
                              .column("gpu__time_duration.sum", "ns")
                              .column("dram__bytes_read.sum", "byte")
                              .launch("k", 0, {100.0, 1000.0})
                              .launch("k", 1, {300.0, 3000.0})
                              .launch("k", 2, {200.0, 2000.0})
                              .build();
  const Json doc = build_report(capture, analysis_of(capture), test::test_metric_set());
  const std::string text = render(Format::prompt, doc);
  EXPECT_TRUE(contains(text, "## Kernel: k (3 launches, 600 ns)")) << text;
  EXPECT_TRUE(contains(text, "Values below are from the longest launch (id 1).\n")) << text;
  EXPECT_TRUE(contains(text, "Memory: DRAM bytes read 3.00 KB\n")) << text;
}

TEST(PromptSink, HasNoColourAndIsTheSameForTheSameDocument) {
  const Json doc = test::twostage_like_report();
  RenderOptions options;
  options.color = true;
  const std::string text = render(Format::prompt, doc, options);
  EXPECT_FALSE(contains(text, "\x1b[")) << "colour is for the table only";
  EXPECT_FALSE(contains(text, doc["metadata"]["generated_at"].get<std::string>()));
  Json later = doc;
  later["metadata"]["generated_at"] = "2030-01-01T00:00:00Z";
  EXPECT_EQ(render(Format::prompt, later), text);
}

// ---- table ---------------------------------------------------------------------------------

TEST(TableSink, ShowsOneRowPerKernelLongestFirst) {
  const std::vector<std::string> lines =
      lines_of(render(Format::table, test::twostage_like_report()));
  ASSERT_GE(lines.size(), 5U);
  EXPECT_EQ(
      lines[0],
      "GPU: NVIDIA H200 (peak DRAM 4.80 TB/s) | total GPU time 16.06 us over 2 kernel launches");
  EXPECT_TRUE(lines[2].starts_with("kernel ")) << lines[2];
  EXPECT_TRUE(lines[3].starts_with("scale_kernel ")) << lines[3];
  EXPECT_TRUE(lines[4].starts_with("partial_sum_kernel ")) << lines[4];
  EXPECT_TRUE(contains(lines[3], " 9.86 us ")) << lines[3];
  EXPECT_TRUE(contains(lines[3], " 61% ")) << lines[3];
  EXPECT_TRUE(contains(lines[3], " latency ")) << lines[3];
}

TEST(TableSink, TruncatesLongKernelNamesWithAnEllipsis) {
  const std::string name = "triton_poi_fused_add_mul_sigmoid_0_with_a_very_long_suffix";
  const Capture capture =
      CaptureBuilder().column("gpu__time_duration.sum", "ns").launch(name, 0, {100.0}).build();
  const Json doc = build_report(capture, analysis_of(capture), test::test_metric_set());
  const std::vector<std::string> lines = lines_of(render(Format::table, doc));
  ASSERT_GE(lines.size(), 4U);
  EXPECT_TRUE(lines[3].starts_with("triton_poi_fused_add_\u2026 ")) << lines[3];
  for (const std::string& line : lines) {
    EXPECT_LE(display_width(line), 100U) << line;
  }
}

TEST(TableSink, ColoursOnlyWhenAsked) {
  const Json doc = test::twostage_like_report();
  EXPECT_FALSE(contains(render(Format::table, doc), "\x1b["));
  RenderOptions options;
  options.color = true;
  const std::string text = render(Format::table, doc, options);
  EXPECT_TRUE(contains(text, "\x1b[1mkernel")) << "bold header";
  EXPECT_TRUE(contains(text, "\x1b[31mlatency\x1b[0m")) << "coloured bottleneck";
}

TEST(TableSink, ListsTopFindingsUnderEachKernel) {
  const std::vector<RuleResult> rules{
      {"SpeedOfLight", "SOLBottleneck", "INF", "Informational.", "", std::nullopt},
      {"SchedulerStats", "IssueSlotUtilization", "OPT", "Issue more. Details.", "local", 43.74}};
  const Capture capture = CaptureBuilder(PageKind::details)
                              .column("Duration", "ns", "GPU Speed Of Light Throughput")
                              .launch("k", 0, {181568.0}, rules)
                              .build();
  const Json doc = build_report(capture, analysis_of(capture), MetricSet{"deep", "", {}, {}});
  RenderOptions options;
  options.max_rules = 1;
  const std::string text = render(Format::table, doc, options);
  EXPECT_TRUE(contains(text, "\nk\n  GPU Speed Of Light Throughput: Duration 181.57 us\n"
                             "  [OPT, est. 43.7% local] IssueSlotUtilization: Issue more.\n"))
      << text;
  EXPECT_FALSE(contains(text, "SOLBottleneck"));
}

TEST(TableSink, RendersADocumentWithoutKernels) {
  Json doc = test::twostage_like_report();
  doc["kernels"] = Json::array();
  doc["summary"]["kernels"] = Json::array();
  doc["roofline"] = Json::object();
  ASSERT_TRUE(validate_report(doc).ok());
  for (const Format format : {Format::json, Format::csv, Format::prompt, Format::table}) {
    EXPECT_NO_THROW((void)render(format, doc)) << to_string(format);
  }
}

} // namespace
} // namespace kprof
