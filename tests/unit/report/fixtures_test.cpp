// The report of real ncu output (tests/fixtures/ncu/2025.3.1), read by the CSV reader and
// analysed by the analysis module: document values checked against the files by hand, prompt
// and table output against golden files (KPROF_UPDATE_GOLDEN=1 rewrites them).
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "kprof/analysis.hpp"
#include "kprof/files.hpp"
#include "kprof/json_file.hpp"
#include "kprof/kernelagent.hpp"
#include "kprof/metric_sets.hpp"
#include "kprof/ncu_output.hpp"
#include "kprof/report.hpp"
#include "unit/report/report_test_support.hpp"

namespace kprof {
namespace {

const std::filesystem::path k_fixtures =
    std::filesystem::path(KPROF_FIXTURES_DIR) / "ncu" / "2025.3.1";

/// The report of one fixture with select=all and the named metric set; fails the test otherwise.
Json fixture_report(const std::string& file, const std::string& set_name) {
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
  Result<MetricSet> set = find_metric_set(set_name);
  if (!set.ok()) {
    ADD_FAILURE() << set.error().message;
    return Json();
  }
  return build_report(*capture, *analysis, *set);
}

TEST(TwostageReport, HoldsTheValuesOfTheNcuFile) {
  const Json doc = fixture_report("curated_nvtx_twostage.csv", "default");
  ASSERT_TRUE(doc.is_object());
  ASSERT_TRUE(validate_report(doc).ok()) << validate_report(doc).error().message;
  EXPECT_EQ(doc["metadata"]["page"], "raw");
  EXPECT_EQ(doc["metadata"]["gpu"], "NVIDIA H200");
  ASSERT_EQ(doc["kernels"].size(), 2U);
  const Json& partial = doc["kernels"][0];
  EXPECT_EQ(partial["name"], "partial_sum_kernel");
  EXPECT_EQ(partial["id"], 0);
  EXPECT_EQ(partial["nvtx_range"], "kprof");
  EXPECT_EQ(partial["grid"], Json::array({1024, 1, 1}));
  EXPECT_EQ(partial["block"], Json::array({128, 1, 1}));
  EXPECT_EQ(partial["cc"], "9.0");
  EXPECT_EQ(partial["metrics"].size(), 323U) << "every column of the capture";
  EXPECT_EQ(partial["metrics"]["dram__bytes_read.sum"],
            (Json{{"value", 16781824}, {"unit", "byte"}}));
  EXPECT_EQ(partial["metrics"]["dram__bytes.sum.per_second"]["value"], 2703257731958.76);
  EXPECT_EQ(partial["metrics"]["launch__cluster_scheduling_policy"]["value"], "PolicySpread");
  EXPECT_FALSE(partial.contains("rules"));

  EXPECT_EQ(doc["summary"]["total_duration_ns"], 6208 + 9856);
  EXPECT_EQ(doc["summary"]["launches"], 2);
  EXPECT_EQ(doc["summary"]["dominant_kernel"], "scale_kernel");
  EXPECT_EQ(doc["roofline"]["scale_kernel"]["compute_sol_pct"], 9.44);
  EXPECT_EQ(doc["roofline"]["scale_kernel"]["memory_sol_pct"], 38.79);

  const Json& agent = doc["metrics"]["scale_kernel"];
  EXPECT_EQ(agent["gpu__time_duration.sum"], 9856);
  EXPECT_EQ(agent["dram__bytes_read.sum"], 16788480);
  EXPECT_EQ(agent["lts__t_sector_hit_rate.pct"], 50.92);
  EXPECT_EQ(agent["sm__cycles_active.avg"], 14184.72);
  EXPECT_FALSE(agent.contains("sm__inst_executed_pipe_fp32.avg.pct_of_peak_sustained_active"))
      << "a metric H200 does not have is left out";
}

TEST(TwostageReport, SurvivesAJsonRoundTrip) {
  const Json doc = fixture_report("curated_nvtx_twostage.csv", "default");
  ASSERT_TRUE(doc.is_object());
  const TempDir dir = test::make_temp_dir();
  const std::filesystem::path path = dir.path() / "report.json";
  ASSERT_TRUE(write_file_atomic(path, render(Format::json, doc)).ok());
  const Result<Json> loaded = load_report(path);
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  EXPECT_EQ(*loaded, doc);
  for (const Format format : {Format::csv, Format::prompt, Format::table}) {
    EXPECT_EQ(render(format, *loaded), render(format, doc)) << to_string(format);
  }
}

TEST(TwostageReport, MatchesTheGoldenPrompt) {
  const Json doc = fixture_report("curated_nvtx_twostage.csv", "default");
  ASSERT_TRUE(doc.is_object());
  test::expect_golden(render(Format::prompt, doc), "twostage.prompt.txt");
}

TEST(TwostageReport, MatchesTheGoldenTable) {
  const Json doc = fixture_report("curated_nvtx_twostage.csv", "default");
  ASSERT_TRUE(doc.is_object());
  test::expect_golden(render(Format::table, doc), "twostage.table.txt");
}

/// The widest line of `text`, in columns.
std::size_t widest_line(const std::string& text) {
  std::size_t widest = 0;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) {
      end = text.size();
    }
    std::size_t columns = 0;
    for (std::size_t i = start; i < end; ++i) {
      columns += (static_cast<unsigned char>(text[i]) & 0xC0U) != 0x80U ? 1U : 0U;
    }
    widest = std::max(widest, columns);
    start = end + 1;
  }
  return widest;
}

TEST(TwostageReport, TableFollowsTheWidthItIsGivenAndCutsNoCause) {
  const Json doc = fixture_report("curated_nvtx_twostage.csv", "default");
  for (const std::size_t width : {std::size_t{72}, std::size_t{100}, std::size_t{200}}) {
    RenderOptions options;
    options.width = width;
    const std::string table = render(Format::table, doc, options);
    if (width >= 100) { // the kernel table's columns need 97 here; the text below wraps to any
      EXPECT_LE(widest_line(table), width) << table;
    }
    EXPECT_EQ(table.find("\xE2\x80\xA6"), std::string::npos) << "nothing cut:\n" << table;
    // The figure that matters, at the end of the cause, is always there (wrapped, maybe).
    std::string joined;
    for (std::size_t i = 0; i < table.size(); ++i) {
      if (table[i] == '\n') {
        joined += ' ';
        while (i + 1 < table.size() && table[i + 1] == ' ') {
          ++i;
        }
      } else {
        joined += table[i];
      }
    }
    EXPECT_NE(joined.find("DRAM at 56.3% of peak [no estimate; kprof:metrics]"), std::string::npos)
        << table;
  }
  RenderOptions wide;
  wide.width = 200;
  const std::string table = render(Format::table, doc, wide);
  EXPECT_NE(table.find("  1. Memory latency: warps wait on global or local memory (long-scoreboard "
                       "stalls): 58.2% of the warps' cycles, DRAM at 36.8% of peak [no estimate; "
                       "kprof:metrics]\n"),
            std::string::npos)
      << "one line on a 200-column terminal:\n"
      << table;
}

TEST(TwostageReport, TableHasNoEmptyColumnAndSaysEachUnitOnce) {
  const std::string table =
      render(Format::table, fixture_report("curated_nvtx_twostage.csv", "default"));
  EXPECT_EQ(table.find("1.    -"), std::string::npos) << "the estimate column of old:\n" << table;
  EXPECT_NE(table.find("[no estimate; kprof:metrics]"), std::string::npos) << table;
  for (const char* repeated : {"register/thread", " block;", " block\n", "byte/block", " cycle;",
                               " cycle\n", " inst;", " inst\n"}) {
    EXPECT_EQ(table.find(repeated), std::string::npos) << repeated << " in:\n" << table;
  }
  EXPECT_NE(table.find("Registers per thread 48;"), std::string::npos) << table;
  EXPECT_NE(table.find("Block limit: blocks 32;"), std::string::npos) << table;
  EXPECT_NE(table.find("Shared memory per block 1.15 KB;"), std::string::npos) << table;
  // One formatting of a percentage: the DRAM throughput as the columns print it.
  EXPECT_NE(table.find("DRAM throughput 56.5%"), std::string::npos) << table;
  EXPECT_EQ(table.find("56.50"), std::string::npos) << table;
}

TEST(TwostageReport, MatchesTheGoldenCsv) {
  const Json doc = fixture_report("curated_nvtx_twostage.csv", "default");
  ASSERT_TRUE(doc.is_object());
  test::expect_golden(render(Format::csv, doc), "twostage.csv");
}

TEST(DetailsRulesReport, CarriesSectionsAndRules) {
  const Json doc = fixture_report("batch4_details_sections_rules.csv", "deep");
  ASSERT_TRUE(doc.is_object());
  ASSERT_TRUE(validate_report(doc).ok()) << validate_report(doc).error().message;
  EXPECT_EQ(doc["metadata"]["page"], "details");
  ASSERT_EQ(doc["kernels"].size(), 5U);
  const Json& add = doc["kernels"][0];
  EXPECT_EQ(add["name"], "add_kernel");
  EXPECT_EQ(add["nvtx_range"], "cand0");
  EXPECT_EQ(
      add["metrics"]["Duration"],
      (Json{{"value", 181568}, {"unit", "ns"}, {"section", "GPU Speed Of Light Throughput"}}));
  EXPECT_EQ(add["metrics"]["Memory Workload Analysis/Memory Throughput"]["value"],
            4327867465632.71);
  ASSERT_TRUE(add.contains("rules"));
  const Json& first = add["rules"][0];
  EXPECT_EQ(first["section"], "SpeedOfLight");
  EXPECT_EQ(first["name"], "SOLBottleneck");
  EXPECT_EQ(first["type"], "INF");
  EXPECT_TRUE(first["estimated_speedup"].is_null());
  const Json& scale = doc["kernels"][2];
  EXPECT_EQ(scale["name"], "scale_kernel");
  bool found = false;
  for (const Json& rule : scale["rules"]) {
    if (rule["name"] == "IssueSlotUtilization") {
      found = true;
      EXPECT_EQ(rule["type"], "OPT");
      EXPECT_EQ(rule["speedup_type"], "local");
      EXPECT_EQ(rule["estimated_speedup"], 61.28);
    }
  }
  EXPECT_TRUE(found);
}

TEST(DetailsRulesReport, MatchesTheGoldenPrompt) {
  const Json doc = fixture_report("batch4_details_sections_rules.csv", "deep");
  ASSERT_TRUE(doc.is_object());
  test::expect_golden(render(Format::prompt, doc), "batch4_details.prompt.txt");
}

TEST(DetailsRulesReport, MatchesTheGoldenTable) {
  const Json doc = fixture_report("batch4_details_sections_rules.csv", "deep");
  ASSERT_TRUE(doc.is_object());
  test::expect_golden(render(Format::table, doc), "batch4_details.table.txt");
}

// ---- write_report_json: the streamed document is the tree's, byte for byte -----------------

/// A fixed generated_at, so the tree and the stream (built moments apart) can be compared.
const Json k_fixed_time = Json{{"generated_at", "2026-11-30T12:00:00Z"}, {"select", "all"}};

std::string streamed_report(const Capture& capture, const Analysis& analysis, const MetricSet& set,
                            const RenderOptions& options) {
  std::string text;
  write_report_json(capture, analysis, set, k_fixed_time, options,
                    [&text](std::string_view piece) { text += piece; });
  return text;
}

/// Calls `check` with the recorded fixture `file` analysed with each selection (all, last) and
/// two metric sets (default, lean), each call traced with what it was given.
void for_each_analysis(
    const std::string& file,
    const std::function<void(const Capture&, const Analysis&, const MetricSet&)>& check) {
  SCOPED_TRACE(file);
  Result<Capture> capture = read_ncu_csv_file(k_fixtures / file);
  ASSERT_TRUE(capture.ok()) << capture.error().message;
  for (const Select select : {Select::all, Select::last}) {
    SelectOptions options;
    options.select = select;
    Result<Analysis> analysis = analyse(*capture, options);
    ASSERT_TRUE(analysis.ok()) << analysis.error().message;
    for (const char* set_name : {"default", "lean"}) {
      SCOPED_TRACE(std::string("select ") + std::string(to_string(select)) + ", set " + set_name);
      Result<MetricSet> set = find_metric_set(set_name);
      ASSERT_TRUE(set.ok()) << set.error().message;
      check(*capture, *analysis, *set);
    }
  }
}

/// Every CSV fixture, both layouts, each selection and two metric sets: the streamed text
/// equals the JSON sink's text of build_report().
void expect_stream_matches_tree(const std::string& file) {
  for_each_analysis(
      file, [](const Capture& capture, const Analysis& analysis, const MetricSet& set) {
        for (const bool compact : {false, true}) {
          RenderOptions render_options;
          render_options.compact = compact;
          const std::string tree = render(
              Format::json, build_report(capture, analysis, set, k_fixed_time), render_options);
          const std::string stream = streamed_report(capture, analysis, set, render_options);
          ASSERT_EQ(stream.size(), tree.size()) << "compact " << compact;
          EXPECT_TRUE(stream == tree)
              << "compact " << compact << ": first difference at byte "
              << std::distance(stream.begin(),
                               std::mismatch(stream.begin(), stream.end(), tree.begin()).first);
        }
      });
}

TEST(StreamedReport, IsTheTreeByteForByteOnEveryRawPageFixture) {
  for (const char* file :
       {"curated_nvtx_twostage.csv", "curated_nvtx_vadd.csv", "curated_nvtx_softmax.csv",
        "curated_nvtx_matmul.csv", "curated_instances_twostage.csv",
        "curated_units_base_softmax.csv", "batch4_flat_regex_ranges.csv",
        "batch4_lean_no_suffixes.csv", "batch4_nested_ranges.csv", "batch4_set_basic.csv",
        "export_and_logfile_vadd.csv", "import_raw_twostage.csv", "set_full_vadd.csv"}) {
    expect_stream_matches_tree(file);
  }
}

TEST(StreamedReport, IsTheTreeByteForByteOnDetailsPagesWithSectionsAndRules) {
  expect_stream_matches_tree("details_page_softmax.csv");
  expect_stream_matches_tree("batch4_details_sections_rules.csv");
}

TEST(StreamedReport, IsTheTreeByteForByteWithThePlantedSuitesDiagnoses) {
  // Every cause kind the rules, the launch and the roofline give (docs/diagnosis.md).
  for (const char* problem : {"vec_f32", "compute_f32", "mat_f32", "mat_bf16", "rows_f32",
                              "hist_i32", "gemm_f32", "gemm_f16", "chase_i32"}) {
    expect_stream_matches_tree(std::string("planted/") + problem + "/details.csv");
  }
}

TEST(ProfiledRoundReport, PointsTheCausesFixedAtTheLaunchAtTheLaunchInTheRoundsKernelFile) {
  // A profiled round's metadata names its kernel file: the planted 4-program Triton kernel
  // (tests/planted/vec_f32/few_programs.py) is launched at its line 22.
  const std::filesystem::path kernel_file =
      std::filesystem::path(KPROF_FIXTURES_DIR).parent_path() / "planted" / "vec_f32" /
      "few_programs.py";
  Result<Capture> capture = read_ncu_csv_file(k_fixtures / "planted/vec_f32/details.csv");
  ASSERT_TRUE(capture.ok()) << capture.error().message;
  Result<Analysis> analysis = analyse(*capture, SelectOptions{});
  ASSERT_TRUE(analysis.ok());
  Result<MetricSet> set = find_metric_set("deep");
  ASSERT_TRUE(set.ok());
  Json metadata = k_fixed_time;
  metadata["kernel_file"] = kernel_file.string();
  const Json tree = build_report(*capture, *analysis, *set, metadata);
  const Json* few = nullptr;
  for (const Json& kernel : tree["kernels"]) {
    few = kernel["name"] == "few_programs_scale_kernel" ? &kernel : few;
  }
  ASSERT_NE(few, nullptr);
  const Json& first = (*few)["diagnosis"][0];
  EXPECT_EQ(first["category"], "too_few_blocks");
  EXPECT_EQ(first["launch"]["file"], kernel_file.string());
  EXPECT_EQ(first["launch"]["line"], 22);
  const std::string launch =
      "few_programs_scale_kernel[(programs,)](x, y, n, triton.cdiv(n, programs), BLOCK=1024)";
  EXPECT_EQ(first["launch"]["source"], launch);
  EXPECT_NE(render(Format::prompt, tree).find("launched at few_programs.py:22: `" + launch + "`"),
            std::string::npos);
  // The other kernels of the capture are launched from other files, and say so.
  const Json& notes = tree["kernels"][0]["diagnosis_notes"];
  EXPECT_TRUE(std::any_of(notes.begin(), notes.end(), [](const Json& note) {
    return note.get<std::string>().find("is not launched in few_programs.py") != std::string::npos;
  })) << notes.dump();
  std::string stream;
  write_report_json(*capture, *analysis, *set, metadata, RenderOptions{},
                    [&stream](std::string_view piece) { stream += piece; });
  EXPECT_TRUE(stream == render(Format::json, tree));
}

// ---- build_report_of_representatives: the one-launch-per-name document renders the same -----

/// Every fixture, both selections, two sets: table, prompt and html of the representatives'
/// document are the text of build_report()'s.
void expect_representatives_render_like_the_tree(const std::string& file) {
  SCOPED_TRACE(file);
  Result<Capture> capture = read_ncu_csv_file(k_fixtures / file);
  ASSERT_TRUE(capture.ok()) << capture.error().message;
  for (const Select select : {Select::all, Select::last}) {
    SelectOptions options;
    options.select = select;
    Result<Analysis> analysis = analyse(*capture, options);
    ASSERT_TRUE(analysis.ok()) << analysis.error().message;
    for (const char* set_name : {"default", "lean"}) {
      Result<MetricSet> set = find_metric_set(set_name);
      ASSERT_TRUE(set.ok()) << set.error().message;
      const Json tree = build_report(*capture, *analysis, *set, k_fixed_time);
      const Json shown = build_report_of_representatives(*capture, *analysis, *set, k_fixed_time);
      EXPECT_EQ(shown["summary"], tree["summary"]);
      EXPECT_LE(shown["kernels"].size(), tree["summary"]["kernels"].size());
      for (const Format format : {Format::table, Format::prompt, Format::html}) {
        EXPECT_EQ(render(format, shown), render(format, tree))
            << "select " << to_string(select) << ", set " << set_name << ", format "
            << to_string(format);
      }
    }
  }
}

TEST(RepresentativesReport, RendersLikeTheWholeDocumentOnEveryFixture) {
  for (const char* file :
       {"curated_nvtx_twostage.csv", "curated_nvtx_vadd.csv", "curated_nvtx_softmax.csv",
        "curated_nvtx_matmul.csv", "curated_instances_twostage.csv",
        "curated_units_base_softmax.csv", "batch4_flat_regex_ranges.csv",
        "batch4_lean_no_suffixes.csv", "batch4_nested_ranges.csv", "batch4_set_basic.csv",
        "export_and_logfile_vadd.csv", "import_raw_twostage.csv", "set_full_vadd.csv",
        "details_page_softmax.csv", "batch4_details_sections_rules.csv"}) {
    expect_representatives_render_like_the_tree(file);
  }
  for (const char* problem : {"vec_f32", "compute_f32", "mat_f32", "mat_bf16", "rows_f32",
                              "hist_i32", "gemm_f32", "gemm_f16", "chase_i32"}) {
    expect_representatives_render_like_the_tree(std::string("planted/") + problem + "/details.csv");
  }
}

TEST(RepresentativesReport, KeepsEachNamesLongestLaunchTheFirstOnATie) {
  test::CaptureBuilder builder;
  builder.column("gpu__time_duration.sum", "ns");
  builder.launch("k", 1, {test::TestValue{}})
      .launch("k", 2, {5.0})
      .launch("other", 3, {7.0})
      .launch("k", 4, {9.0})
      .launch("k", 5, {9.0})
      .launch("k", 6, {3.0});
  const Capture capture = builder.build();
  Result<Analysis> analysis = analyse(capture, SelectOptions{});
  ASSERT_TRUE(analysis.ok()) << analysis.error().message;
  const MetricSet set = *find_metric_set("default");
  const Json shown = build_report_of_representatives(capture, *analysis, set, k_fixed_time);
  ASSERT_EQ(shown["kernels"].size(), 2U);
  EXPECT_EQ(shown["kernels"][0]["name"], "k");
  EXPECT_EQ(shown["kernels"][0]["id"], 4);
  EXPECT_EQ(shown["kernels"][1]["id"], 3);
  EXPECT_EQ(shown["summary"]["kernels"][0]["launches"], 5);
  const Json tree = build_report(capture, *analysis, set, k_fixed_time);
  EXPECT_EQ(render(Format::table, shown), render(Format::table, tree));
  EXPECT_NE(render(Format::table, shown).find("(longest launch, id 4)"), std::string::npos);
}

TEST(StreamedReport, ReplacesInvalidUtf8LikeTheTree) {
  expect_stream_matches_tree("curated_nvtx_twostage_invalid_utf8.csv");
  Result<Capture> capture =
      read_ncu_csv_file(k_fixtures / "curated_nvtx_twostage_invalid_utf8.csv");
  ASSERT_TRUE(capture.ok()) << capture.error().message;
  Result<Analysis> analysis = analyse(*capture, SelectOptions{});
  ASSERT_TRUE(analysis.ok()) << analysis.error().message;
  const std::string text =
      streamed_report(*capture, *analysis, *find_metric_set("default"), RenderOptions{});
  EXPECT_NE(text.find("\xEF\xBF\xBD"), std::string::npos) << "U+FFFD in the text";
  Json parsed;
  EXPECT_NO_THROW(parsed = Json::parse(text)) << "valid UTF-8, valid JSON";
  EXPECT_EQ(parsed["kernels"].size(), 2U);
}

// ---- CaptureReport: the files of a round made launch by launch are the tree's ---------------

/// Every capture fixture: the .csv files of the fixture directory but source pages.
std::vector<std::string> capture_fixtures() {
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(k_fixtures)) {
    const std::string name = entry.path().filename().string();
    if (entry.path().extension() == ".csv" && !name.ends_with("source.csv")) {
      files.push_back(std::filesystem::relative(entry.path(), k_fixtures).string());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

/// The text `out` is given, in one string.
template <class Write>
std::string text_of(Write write) {
  std::string text;
  write([&text](std::string_view piece) { text += piece; });
  return text;
}

/// Expects `text` to be `expected`, naming the first byte that differs.
void expect_same_text(const std::string& what, const std::string& text,
                      const std::string& expected) {
  const auto at = std::mismatch(text.begin(), text.end(), expected.begin(), expected.end()).first;
  EXPECT_TRUE(text == expected) << what << ": first difference at byte "
                                << std::distance(text.begin(), at);
}

/// The text of each file of a round made from `report` is the one the tree gives.
void expect_the_files_of(const ReportSource& report, const Json& tree) {
  expect_same_text("report.json", report.document_text(false), json_text(tree, 2));
  expect_same_text("the history's document", report.document_text(true), json_text(tree, -1));
  expect_same_text("metrics.csv", report_csv_text(report), render(Format::csv, tree));
  expect_same_text("KernelAgent's file",
                   text_of([&](const TextOut& out) { write_kernelagent_round_json(report, out); }),
                   json_text(kernelagent_round_json(tree), 2));
}

/// Each file of a round made from a CaptureReport, and from the same document held
/// (HeldReport), is the text the tree gives; the CaptureReport's launches are the tree's.
void expect_capture_report_writes_the_tree(const Capture& capture, const Analysis& analysis,
                                           const MetricSet& set) {
  const Json tree = build_report(capture, analysis, set, k_fixed_time);
  const CaptureReport streamed(capture, analysis, set, k_fixed_time);
  {
    SCOPED_TRACE("from the capture");
    expect_the_files_of(streamed, tree);
  }
  {
    SCOPED_TRACE("held");
    expect_the_files_of(HeldReport(tree), tree);
  }
  {
    SCOPED_TRACE("read back from its report.json");
    // A directory of its own: the fixtures' tests run side by side.
    auto dir = TempDir::create("kprof-written-report");
    ASSERT_TRUE(dir.ok());
    const std::filesystem::path file = dir->path() / "report.json";
    ASSERT_TRUE(write_file_atomic(file, streamed.document_text(false)));
    auto written = open_written_report(
        std::shared_ptr<const ReportSource>(&streamed, [](const ReportSource*) {}), file);
    ASSERT_TRUE(written) << written.error().message;
    std::filesystem::remove(file); // held open: the text stays readable
    expect_the_files_of(**written, tree);
  }
  EXPECT_EQ(streamed.outline(),
            build_report_of_representatives(capture, analysis, set, k_fixed_time));
  std::vector<Json> launches;
  streamed.for_each_launch([&launches](const Json& launch) { launches.push_back(launch); });
  EXPECT_TRUE(Json(launches) == tree["kernels"]);
  // The first launches of each name, made or held alike (what the history's metric rows keep).
  for (const int per_name : {1, 2}) {
    Json first = Json::array();
    std::map<std::string, int> seen;
    for (const Json& launch : tree["kernels"]) {
      if (seen[launch["name"].get<std::string>()]++ < per_name) {
        first.push_back(launch);
      }
    }
    std::vector<Json> made;
    std::vector<Json> held;
    streamed.for_each_launch([&made](const Json& launch) { made.push_back(launch); }, true,
                             per_name);
    HeldReport(tree).for_each_launch([&held](const Json& launch) { held.push_back(launch); }, true,
                                     per_name);
    EXPECT_TRUE(Json(made) == first) << per_name;
    EXPECT_TRUE(Json(held) == first) << per_name;
  }
  // A capture's launches all have its columns: one launch tells the metrics.csv its keys.
  EXPECT_TRUE(streamed.uniform_metrics());
  EXPECT_FALSE(HeldReport(tree).uniform_metrics());
}

/// expect_capture_report_writes_the_tree for each selection and two metric sets.
void expect_capture_report_writes_the_tree(const std::string& file) {
  for_each_analysis(file,
                    [](const Capture& capture, const Analysis& analysis, const MetricSet& set) {
                      expect_capture_report_writes_the_tree(capture, analysis, set);
                    });
}

TEST(CaptureReport, HasTheFixturesToWriteTheTreesFilesOf) {
  EXPECT_GE(capture_fixtures().size(), 25U) << "the fixtures were not found under " << k_fixtures;
}

/// One test per capture fixture, so that ctest runs them side by side: in one test, under CI's
/// sanitizers, they took 970 s, the ASan stage's last five minutes on one core (2026-12-07).
class EveryFixture : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryFixture, CaptureReportWritesTheTreesJsonCsvAndKernelAgentFile) {
  expect_capture_report_writes_the_tree(GetParam());
}

INSTANTIATE_TEST_SUITE_P(CaptureFixtures, EveryFixture, ::testing::ValuesIn(capture_fixtures()),
                         [](const ::testing::TestParamInfo<std::string>& param) {
                           std::string name;
                           for (const char c : param.param) {
                             name += std::isalnum(static_cast<unsigned char>(c)) != 0 ? c : '_';
                           }
                           return name;
                         });

TEST(ReportOutline, OfTheTreeIsTheCaptureReportsOutlineOnEveryFixture) {
  // What kprof mcp trims and draws of a report held as a tree (a report.json, a profiled round)
  // is what a CaptureReport holds of the same capture: one launch per name, no KernelAgent
  // metrics.
  for (const std::string& file : capture_fixtures()) {
    for_each_analysis(
        file, [](const Capture& capture, const Analysis& analysis, const MetricSet& set) {
          const Json tree = build_report(capture, analysis, set, k_fixed_time);
          EXPECT_EQ(report_outline(tree),
                    build_report_of_representatives(capture, analysis, set, k_fixed_time));
        });
  }
}

TEST(LoadReportOutline, ReadsTheOutlineOfEveryFixturesReportJsonAsAStream) {
  auto dir = TempDir::create("kprof-outline-test");
  ASSERT_TRUE(dir.ok());
  const std::filesystem::path file = dir->path() / "report.json";
  for (const std::string& fixture : capture_fixtures()) {
    for_each_analysis(fixture,
                      [&](const Capture& capture, const Analysis& analysis, const MetricSet& set) {
                        const Json tree = build_report(capture, analysis, set, k_fixed_time);
                        ASSERT_TRUE(write_json_atomic(file, tree).ok());
                        // The tree as written (invalid UTF-8 as U+FFFD), whole, then reduced in
                        // memory.
                        Result<Json> whole = load_report(file);
                        ASSERT_TRUE(whole.ok()) << whole.error().message;
                        Result<Json> outline = load_report_outline(file);
                        ASSERT_TRUE(outline.ok()) << outline.error().message;
                        EXPECT_TRUE(*outline == report_outline(*whole));
                      });
  }
}

TEST(LoadReportOutline, SaysWhatAFileIsInLoadReportsWordsWhenItIsNoReport) {
  auto dir = TempDir::create("kprof-outline-test");
  ASSERT_TRUE(dir.ok());
  for (const std::filesystem::path& file :
       {k_fixtures / "curated_nvtx_twostage.csv", dir->path() / "missing.json", dir->path()}) {
    Result<Json> outline = load_report_outline(file);
    Result<Json> whole = load_report(file);
    ASSERT_FALSE(outline.ok()) << file;
    ASSERT_FALSE(whole.ok()) << file;
    EXPECT_EQ(outline.error().category, whole.error().category) << file;
    EXPECT_EQ(outline.error().message, whole.error().message) << file;
  }
}

TEST(ReportOutline, KeepsEachNamesLongestLaunchTheFirstOnATieAndEveryOtherMember) {
  test::CaptureBuilder builder;
  builder.column("gpu__time_duration.sum", "ns");
  builder.launch("k", 1, {test::TestValue{}})
      .launch("k", 2, {5.0})
      .launch("other", 3, {7.0})
      .launch("k", 4, {9.0})
      .launch("k", 5, {9.0});
  const Capture capture = builder.build();
  Result<Analysis> analysis = analyse(capture, SelectOptions{});
  ASSERT_TRUE(analysis.ok()) << analysis.error().message;
  Json tree = build_report(capture, *analysis, *find_metric_set("default"), k_fixed_time);
  tree["a_later_member"] = Json{{"kept", true}};
  const Json outline = report_outline(tree);
  ASSERT_EQ(outline["kernels"].size(), 2U);
  EXPECT_EQ(outline["kernels"][0]["id"], 4);
  EXPECT_EQ(outline["kernels"][1]["id"], 3);
  EXPECT_EQ(outline["metrics"], Json::object());
  EXPECT_EQ(outline["summary"], tree["summary"]);
  EXPECT_EQ(outline["a_later_member"], tree["a_later_member"]);
  EXPECT_EQ(render(Format::prompt, outline), render(Format::prompt, tree));
}

TEST(LoadReportOutline, KeepsTheKernelAgentMetricsEmptyInTheirPlaceBeforeALaterMember) {
  test::CaptureBuilder builder;
  builder.column("gpu__time_duration.sum", "ns");
  builder.launch("k", 1, {5.0}).launch("k", 2, {9.0}).launch("other", 3, {7.0});
  const Capture capture = builder.build();
  Result<Analysis> analysis = analyse(capture, SelectOptions{});
  ASSERT_TRUE(analysis.ok()) << analysis.error().message;
  Json tree = build_report(capture, *analysis, *find_metric_set("default"), k_fixed_time);
  ASSERT_FALSE(tree["metrics"].empty());
  tree["a_later_member"] = Json{{"kept", true}};
  auto dir = TempDir::create("kprof-outline-test");
  ASSERT_TRUE(dir.ok());
  const std::filesystem::path file = dir->path() / "report.json";
  ASSERT_TRUE(write_json_atomic(file, tree).ok());
  Result<Json> outline = load_report_outline(file);
  ASSERT_TRUE(outline.ok()) << outline.error().message;
  EXPECT_EQ(json_text(*outline, -1), json_text(report_outline(tree), -1));
  EXPECT_EQ((*outline)["kernels"].size(), 2U);
  EXPECT_EQ((*outline)["kernels"][0]["id"], 2);
}

TEST(CaptureReport, GivesEveryTextTheTimeOfItsConstruction) {
  Result<Capture> capture = read_ncu_csv_file(k_fixtures / "curated_nvtx_twostage.csv");
  ASSERT_TRUE(capture.ok()) << capture.error().message;
  Result<Analysis> analysis = analyse(*capture, SelectOptions{});
  ASSERT_TRUE(analysis.ok()) << analysis.error().message;
  const MetricSet set = *find_metric_set("default");
  const CaptureReport report(*capture, *analysis, set, Json{{"select", "all"}});
  const Json generated_at = report.outline()["metadata"]["generated_at"];
  ASSERT_TRUE(generated_at.is_string());
  EXPECT_EQ(Json::parse(report.document_text(false))["metadata"]["generated_at"], generated_at);
  EXPECT_EQ(Json::parse(report.document_text(true))["metadata"]["generated_at"], generated_at);
}

TEST(CaptureReport, ReadsLaunchesWithoutTheirDiagnosisWhenAskedTo) {
  Result<Capture> capture = read_ncu_csv_file(k_fixtures / "planted/vec_f32/details.csv");
  ASSERT_TRUE(capture.ok()) << capture.error().message;
  Result<Analysis> analysis = analyse(*capture, SelectOptions{});
  ASSERT_TRUE(analysis.ok()) << analysis.error().message;
  const MetricSet set = *find_metric_set("default");
  const Json tree = build_report(*capture, *analysis, set, k_fixed_time);
  const CaptureReport report(*capture, *analysis, set, k_fixed_time);
  std::size_t index = 0;
  report.for_each_launch(
      [&](const Json& launch) {
        Json expected = tree["kernels"][index++];
        expected.erase("diagnosis");
        expected.erase("diagnosis_notes");
        EXPECT_EQ(launch, expected);
      },
      false);
  EXPECT_EQ(index, tree["kernels"].size());
}

} // namespace
} // namespace kprof
