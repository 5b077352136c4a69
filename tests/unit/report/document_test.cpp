// The report document: layout, numbers, KernelAgent metrics, validation and loading.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "kprof/report.hpp"
#include "kprof/version.hpp"
#include "unit/report/report_test_support.hpp"

namespace kprof {
namespace {

using test::CaptureBuilder;
using test::TestValue;

std::vector<std::string> keys_of(const Json& object) {
  std::vector<std::string> keys;
  for (const auto& item : object.items()) {
    keys.push_back(item.key());
  }
  return keys;
}

Analysis analysis_selecting(const Capture& capture, std::vector<std::size_t> selected) {
  Analysis analysis;
  analysis.selected = std::move(selected);
  for (const std::size_t index : analysis.selected) {
    const std::string& name = capture.kernels[index].name;
    auto found = std::find_if(analysis.kernels.begin(), analysis.kernels.end(),
                              [&](const KernelSummary& k) { return k.name == name; });
    if (found == analysis.kernels.end()) {
      analysis.kernels.push_back(KernelSummary{name, {index}, std::nullopt, std::nullopt, {}});
    } else {
      found->launches.push_back(index);
    }
  }
  analysis.summary.launches = analysis.selected.size();
  return analysis;
}

TEST(BuildReport, WritesTopLevelKeysInStableOrder) {
  const Json doc = test::twostage_like_report();
  EXPECT_EQ(keys_of(doc), (std::vector<std::string>{"schema_version", "metadata", "kernels",
                                                    "summary", "roofline", "metrics"}));
  EXPECT_EQ(doc["schema_version"], 4);
}

TEST(BuildReport, FillsMetadataFromCaptureAnalysisAndMetricSet) {
  const Json doc = test::twostage_like_report();
  const Json& metadata = doc["metadata"];
  EXPECT_EQ(keys_of(metadata),
            (std::vector<std::string>{"kprof_version", "source", "generated_at", "page", "gpu",
                                      "gpu_spec", "metric_set", "select"}));
  EXPECT_EQ(metadata["kprof_version"], std::string(k_version));
  EXPECT_EQ(metadata["source"], "test.csv");
  EXPECT_EQ(metadata["page"], "raw");
  EXPECT_EQ(metadata["gpu"], "NVIDIA H200");
  EXPECT_EQ(metadata["gpu_spec"]["dram_bandwidth_bytes_per_s"], 4800000000000);
  EXPECT_EQ(metadata["gpu_spec"]["sm_count"], 132);
  EXPECT_EQ(metadata["metric_set"]["name"], "test");
  EXPECT_EQ(
      metadata["metric_set"]["metrics"][3],
      (Json{{"name", "dram__bytes_read.sum"}, {"label", "DRAM bytes read"}, {"group", "Memory"}}));
  EXPECT_EQ(metadata["select"], "all");
  const std::string stamp = metadata["generated_at"];
  EXPECT_EQ(stamp.size(), std::string("2026-11-29T21:57:23Z").size()) << stamp;
  EXPECT_EQ(stamp.back(), 'Z');
}

TEST(BuildReport, MergesRunMetadataLastAndTakesSelectFromIt) {
  Json run = Json::object();
  run["select"] = "max-cycles";
  run["round"] = 3;
  run["argv"] = Json::array({"kprof", "profile"});
  run["ncu_version"] = "2025.3.1.0";
  const Json doc = test::twostage_like_report(run);
  const Json& metadata = doc["metadata"];
  EXPECT_EQ(metadata["select"], "max-cycles");
  EXPECT_EQ(metadata["round"], 3);
  EXPECT_EQ(metadata["ncu_version"], "2025.3.1.0");
  const std::vector<std::string> keys = keys_of(metadata);
  EXPECT_EQ(keys.back(), "ncu_version");
  EXPECT_EQ(keys[7], "select") << "select keeps its place when run metadata overrides it";
}

TEST(BuildReport, WritesNullGpuWhenTheCaptureNamesNone) {
  Analysis analysis = test::twostage_like_analysis();
  analysis.gpu_name.clear();
  analysis.gpu.reset();
  const Json doc = build_report(test::twostage_like_capture(), analysis, test::test_metric_set());
  EXPECT_TRUE(doc["metadata"]["gpu"].is_null());
  EXPECT_TRUE(doc["metadata"]["gpu_spec"].is_null());
}

TEST(BuildReport, DescribesEachSelectedLaunch) {
  const Json doc = test::twostage_like_report();
  ASSERT_EQ(doc["kernels"].size(), 2U);
  const Json& kernel = doc["kernels"][1];
  EXPECT_EQ(keys_of(kernel),
            (std::vector<std::string>{"name", "id", "nvtx_range", "grid", "block", "device", "cc",
                                      "metrics", "diagnosis", "diagnosis_notes"}));
  EXPECT_EQ(kernel["name"], "scale_kernel");
  EXPECT_EQ(kernel["id"], 1);
  EXPECT_EQ(kernel["nvtx_range"], "kprof");
  EXPECT_EQ(kernel["grid"], Json::array({1024, 1, 1}));
  EXPECT_EQ(kernel["block"], Json::array({128, 1, 1}));
  EXPECT_EQ(kernel["device"], 0);
  EXPECT_EQ(kernel["cc"], "9.0");
}

TEST(BuildReport, ListsEveryColumnOfTheCaptureWithItsUnit) {
  const Json doc = test::twostage_like_report();
  const Json& metrics = doc["kernels"][0]["metrics"];
  EXPECT_EQ(metrics.size(), 6U);
  EXPECT_EQ(metrics["launch__waves_per_multiprocessor"], (Json{{"value", 0.48}, {"unit", ""}}));
  EXPECT_EQ(metrics["gpu__time_duration.sum"], (Json{{"value", 6208}, {"unit", "ns"}}));
}

TEST(BuildReport, IncludesOnlySelectedLaunches) {
  const Capture capture = test::twostage_like_capture();
  const Json doc = build_report(capture, analysis_selecting(capture, {1}), test::test_metric_set());
  ASSERT_EQ(doc["kernels"].size(), 1U);
  EXPECT_EQ(doc["kernels"][0]["name"], "scale_kernel");
  EXPECT_EQ(keys_of(doc["metrics"]), std::vector<std::string>{"scale_kernel"});
}

TEST(BuildReport, PrintsIntegralNumbersAsIntegers) {
  const std::string text = test::twostage_like_report().dump();
  EXPECT_NE(text.find("\"value\":16781824,"), std::string::npos);
  EXPECT_EQ(text.find("1.6781824e"), std::string::npos);
  EXPECT_EQ(text.find("16781824.0"), std::string::npos);
  EXPECT_NE(text.find("\"value\":56.5,"), std::string::npos);
}

TEST(BuildReport, WritesNullForNanAndInfinity) {
  const Capture capture = CaptureBuilder()
                              .column("a.sum", "byte")
                              .column("b.sum", "byte")
                              .column("c.sum", "byte")
                              .launch("k", 0,
                                      {std::numeric_limits<double>::quiet_NaN(),
                                       std::numeric_limits<double>::infinity(), TestValue()})
                              .build();
  const MetricSet set{"s", "", {{"a.sum", "A", "G"}, {"b.sum", "B", "G"}}, {}};
  const Json doc = build_report(capture, analysis_selecting(capture, {0}), set);
  const Json& metrics = doc["kernels"][0]["metrics"];
  EXPECT_TRUE(metrics["a.sum"]["value"].is_null());
  EXPECT_TRUE(metrics["b.sum"]["value"].is_null());
  EXPECT_TRUE(metrics["c.sum"]["value"].is_null());
  EXPECT_TRUE(doc["metrics"]["k"]["a.sum"].is_null());
  EXPECT_TRUE(doc["metrics"]["k"]["b.sum"].is_null());
  EXPECT_EQ(doc.dump().find("NaN"), std::string::npos);
}

TEST(BuildReport, KeepsTextValuesAsStrings) {
  const Json doc = test::twostage_like_report();
  EXPECT_EQ(doc["kernels"][0]["metrics"]["launch__cluster_scheduling_policy"]["value"],
            "PolicySpread");
  EXPECT_EQ(doc["metrics"]["partial_sum_kernel"]["launch__cluster_scheduling_policy"],
            "PolicySpread");
}

TEST(BuildReport, WritesKernelAgentMetricsForTheSetMetricsTheCaptureHas) {
  const Json doc = test::twostage_like_report();
  const Json& scale = doc["metrics"]["scale_kernel"];
  EXPECT_EQ(keys_of(scale),
            (std::vector<std::string>{
                "gpu__time_duration.sum", "sm__throughput.avg.pct_of_peak_sustained_elapsed",
                "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
                "dram__bytes_read.sum", "launch__cluster_scheduling_policy"}));
  EXPECT_EQ(scale["gpu__time_duration.sum"], 9856);
  EXPECT_EQ(scale["sm__throughput.avg.pct_of_peak_sustained_elapsed"], 9.44);
}

TEST(BuildReport, RoundsKernelAgentMetricsToThreeDecimals) {
  const Capture capture = CaptureBuilder().column("x.pct", "%").launch("k", 0, {12.345678}).build();
  const MetricSet set{"s", "", {{"x.pct", "X", "G"}}, {}};
  const Json doc = build_report(capture, analysis_selecting(capture, {0}), set);
  EXPECT_EQ(doc["metrics"]["k"]["x.pct"], 12.346);
  EXPECT_EQ(doc["kernels"][0]["metrics"]["x.pct"]["value"], 12.345678)
      << "the kernels section keeps the exact value";
}

TEST(BuildReport, ListsKernelAgentMetricsInLaunchOrderWhenANameRepeats) {
  const Capture capture = CaptureBuilder()
                              .column("gpu__time_duration.sum", "ns")
                              .launch("k", 0, {100.0})
                              .launch("other", 1, {50.0})
                              .launch("k", 2, {300.0})
                              .build();
  const MetricSet set{"s", "", {{"gpu__time_duration.sum", "Duration", "Time"}}, {}};
  const Json doc = build_report(capture, analysis_selecting(capture, {0, 1, 2}), set);
  ASSERT_TRUE(doc["metrics"]["k"].is_array());
  EXPECT_EQ(doc["metrics"]["k"],
            Json::parse(R"([{"gpu__time_duration.sum":100},{"gpu__time_duration.sum":300}])"));
  EXPECT_TRUE(doc["metrics"]["other"].is_object());
}

TEST(BuildReport, AddsRulesOnlyToLaunchesThatHaveThem) {
  RuleResult rule{
      "SchedulerStats", "IssueSlotUtilization", "OPT", "Every scheduler ...", "local", 43.74};
  RuleResult info{"SpeedOfLight", "SOLBottleneck", "INF", "This workload ...", "", std::nullopt};
  const Capture capture = CaptureBuilder(PageKind::details)
                              .column("Duration", "ns", "GPU Speed Of Light Throughput")
                              .launch("with_rules", 0, {6208.0}, {rule, info})
                              .launch("without", 1, {9856.0})
                              .build();
  const Json doc = build_report(capture, analysis_selecting(capture, {0, 1}),
                                MetricSet{"deep", "", {}, {"SpeedOfLight"}});
  ASSERT_TRUE(doc["kernels"][0].contains("rules"));
  EXPECT_FALSE(doc["kernels"][1].contains("rules"));
  const Json& rules = doc["kernels"][0]["rules"];
  ASSERT_EQ(rules.size(), 2U);
  EXPECT_EQ(keys_of(rules[0]), (std::vector<std::string>{"section", "name", "type", "description",
                                                         "speedup_type", "estimated_speedup"}));
  EXPECT_EQ(rules[0]["estimated_speedup"], 43.74);
  EXPECT_EQ(rules[0]["speedup_type"], "local");
  EXPECT_TRUE(rules[1]["estimated_speedup"].is_null());
}

TEST(BuildReport, CarriesTheSectionOnlyOnDetailsPages) {
  const Capture details = CaptureBuilder(PageKind::details)
                              .column("Duration", "ns", "GPU Speed Of Light Throughput")
                              .launch("k", 0, {6208.0})
                              .build();
  const Json doc = build_report(details, analysis_selecting(details, {0}), MetricSet{});
  EXPECT_EQ(doc["metadata"]["page"], "details");
  EXPECT_EQ(doc["kernels"][0]["metrics"]["Duration"],
            (Json{{"value", 6208}, {"unit", "ns"}, {"section", "GPU Speed Of Light Throughput"}}));
  const Json raw = test::twostage_like_report();
  EXPECT_FALSE(raw["kernels"][0]["metrics"]["gpu__time_duration.sum"].contains("section"));
}

TEST(BuildReport, KeysARepeatedDetailsLabelBySection) {
  const Capture capture = CaptureBuilder(PageKind::details)
                              .column("Memory Throughput", "%", "GPU Speed Of Light Throughput")
                              .column("Memory Throughput", "byte/s", "Memory Workload Analysis")
                              .column("Duration", "ns", "GPU Speed Of Light Throughput")
                              .launch("k", 0, {89.98, 4327867465632.71, 181568.0})
                              .build();
  const Json doc = build_report(capture, analysis_selecting(capture, {0}), MetricSet{});
  EXPECT_EQ(keys_of(doc["kernels"][0]["metrics"]),
            (std::vector<std::string>{"GPU Speed Of Light Throughput/Memory Throughput",
                                      "Memory Workload Analysis/Memory Throughput", "Duration"}));
}

TEST(BuildReport, SummarisesKernelsAndRooflines) {
  const Json doc = test::twostage_like_report();
  const Json& summary = doc["summary"];
  EXPECT_EQ(summary["total_duration_ns"], 16064);
  EXPECT_EQ(summary["launches"], 2);
  EXPECT_EQ(summary["dominant_kernel"], "scale_kernel");
  ASSERT_EQ(summary["kernels"].size(), 2U);
  EXPECT_EQ(keys_of(summary["kernels"][0]),
            (std::vector<std::string>{"name", "launches", "duration_ns", "share", "library"}));
  EXPECT_EQ(summary["kernels"][1]["name"], "scale_kernel");
  EXPECT_EQ(summary["kernels"][1]["launches"], 1);
  EXPECT_EQ(summary["kernels"][1]["duration_ns"], 9856);
  EXPECT_DOUBLE_EQ(summary["kernels"][1]["share"].get<double>(), 9856.0 / 16064.0);

  const Json& roofline = doc["roofline"]["scale_kernel"];
  EXPECT_EQ(keys_of(roofline),
            (std::vector<std::string>{"compute_sol_pct", "memory_sol_pct", "bottleneck",
                                      "headroom_pct", "tensor_pipe_pct", "tensor_cores_used",
                                      "dram_bytes_per_s", "dram_peak_fraction", "fp32_flops_per_s",
                                      "fp32_flop_per_dram_byte", "explanation"}));
  EXPECT_EQ(roofline["bottleneck"], std::string(to_string(Bottleneck::latency)));
  EXPECT_EQ(roofline["compute_sol_pct"], 9.44);
  EXPECT_EQ(roofline["tensor_cores_used"], false);
  EXPECT_TRUE(roofline["dram_bytes_per_s"].is_null());
}

TEST(BuildReport, WritesNullForUnknownDurationsAndDominantKernel) {
  const Capture capture = test::twostage_like_capture();
  const Json doc = build_report(capture, analysis_selecting(capture, {0, 1}), MetricSet{});
  EXPECT_TRUE(doc["summary"]["total_duration_ns"].is_null());
  EXPECT_TRUE(doc["summary"]["dominant_kernel"].is_null());
  EXPECT_TRUE(doc["summary"]["kernels"][0]["duration_ns"].is_null());
  EXPECT_TRUE(validate_report(doc).ok());
}

// ---- validation and loading ----------------------------------------------------------------

TEST(ValidateReport, AcceptsABuiltReport) {
  const Result<void> checked = validate_report(test::twostage_like_report());
  EXPECT_TRUE(checked.ok()) << checked.error().message;
}

TEST(ValidateReport, SaysANewerSchemaVersionWasWrittenByANewerKprof) {
  Json doc = test::twostage_like_report();
  doc["schema_version"] = k_report_schema_version + 1;
  const Result<void> checked = validate_report(doc);
  ASSERT_FALSE(checked.ok());
  EXPECT_EQ(checked.error().category, ErrorCategory::malformed_input);
  EXPECT_NE(checked.error().message.find("written by a newer kprof"), std::string::npos)
      << checked.error().message;
}

TEST(ValidateReport, StillReadsSchemaVersion1Documents) {
  // Version 2 only added hot lines; a version 1 document is a version 2 one without them.
  Json doc = test::twostage_like_report();
  doc["schema_version"] = 1;
  EXPECT_TRUE(validate_report(doc).ok());
}

TEST(ValidateReport, NamesTheMissingKey) {
  Json doc = test::twostage_like_report();
  doc["summary"].erase("dominant_kernel");
  const Result<void> checked = validate_report(doc);
  ASSERT_FALSE(checked.ok());
  EXPECT_EQ(checked.error().category, ErrorCategory::malformed_input);
  EXPECT_NE(checked.error().message.find("summary.dominant_kernel"), std::string::npos)
      << checked.error().message;
}

TEST(ValidateReport, RejectsAKeyOfTheWrongType) {
  Json doc = test::twostage_like_report();
  doc["kernels"][1]["metrics"]["dram__bytes_read.sum"]["unit"] = 3;
  const Result<void> checked = validate_report(doc);
  ASSERT_FALSE(checked.ok());
  EXPECT_NE(checked.error().message.find("kernels[1].metrics[\"dram__bytes_read.sum\"].unit"),
            std::string::npos)
      << checked.error().message;
}

TEST(ValidateReport, RejectsADocumentWithoutSchemaVersion) {
  Json doc = test::twostage_like_report();
  doc.erase("schema_version");
  EXPECT_FALSE(validate_report(doc).ok());
  EXPECT_FALSE(validate_report(Json::array()).ok());
}

TEST(LoadReport, ReadsBackWhatTheJsonSinkWrote) {
  const TempDir dir = test::make_temp_dir();
  const Json doc = test::twostage_like_report();
  const std::filesystem::path path = dir.path() / "report.json";
  ASSERT_TRUE(write_file_atomic(path, render(Format::json, doc)).ok());
  const Result<Json> loaded = load_report(path);
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  EXPECT_EQ(*loaded, doc);
  EXPECT_EQ(keys_of(*loaded), keys_of(doc));
}

TEST(LoadReport, ReportsAMissingFileAsInputNotFound) {
  const TempDir dir = test::make_temp_dir();
  const Result<Json> loaded = load_report(dir.path() / "absent.json");
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.error().category, ErrorCategory::input_not_found);
}

TEST(LoadReport, ReportsBadJsonWithTheParserMessage) {
  const TempDir dir = test::make_temp_dir();
  const std::filesystem::path path = dir.path() / "bad.json";
  ASSERT_TRUE(write_file_atomic(path, "{\"schema_version\": 1,").ok());
  const Result<Json> loaded = load_report(path);
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.error().category, ErrorCategory::malformed_input);
  EXPECT_NE(loaded.error().message.find("bad.json"), std::string::npos) << loaded.error().message;
  EXPECT_NE(loaded.error().message.find("parse error"), std::string::npos)
      << loaded.error().message;
}

TEST(LoadReport, RejectsAValidJsonFileThatIsNotAReport) {
  const TempDir dir = test::make_temp_dir();
  const std::filesystem::path path = dir.path() / "other.json";
  ASSERT_TRUE(write_file_atomic(path, "{\"schema_version\": 1}\n").ok());
  const Result<Json> loaded = load_report(path);
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.error().category, ErrorCategory::malformed_input);
  EXPECT_NE(loaded.error().message.find("metadata"), std::string::npos) << loaded.error().message;
}

TEST(ParseFormat, AcceptsTheFourFormatWords) {
  for (const Format format : {Format::json, Format::csv, Format::prompt, Format::table}) {
    const Result<Format> parsed = parse_format(to_string(format));
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(*parsed, format);
    EXPECT_EQ(make_sink(format)->format(), format);
  }
}

TEST(ParseFormat, RejectsAnUnknownWordListingTheValidOnes) {
  const Result<Format> parsed = parse_format("yaml");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.error().category, ErrorCategory::usage);
  EXPECT_NE(parsed.error().message.find("json, csv, prompt, table"), std::string::npos)
      << parsed.error().message;
}

} // namespace
} // namespace kprof
