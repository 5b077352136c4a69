// The HTML view: escaping, the report page of real ncu output (one chart point per kernel, the
// tables, findings, the roofline or why it is absent, hot lines when present) and the page of a
// run directory drawn from its facts (read from a real history by tests/unit/history/
// run_view_test.cpp). The same pages are loaded in a real browser by tests/browser/browser_test.py.
#include <string>

#include <gtest/gtest.h>

#include "kprof/analysis.hpp"
#include "kprof/files.hpp"
#include "kprof/html.hpp"
#include "kprof/metric_sets.hpp"
#include "kprof/ncu_output.hpp"
#include "kprof/report.hpp"
#include "report/sinks.hpp"

namespace kprof {
namespace {

const std::filesystem::path k_fixtures =
    std::filesystem::path(KPROF_FIXTURES_DIR) / "ncu" / "2025.3.1";

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

std::size_t count(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (auto pos = text.find(needle); pos != std::string::npos;
       pos = text.find(needle, pos + needle.size())) {
    ++n;
  }
  return n;
}

/// Renames kernel `from` everywhere the document names it.
void rename_kernel(Json& doc, const std::string& from, const std::string& to) {
  for (Json& kernel : doc["kernels"]) {
    if (kernel["name"] == from) {
      kernel["name"] = to;
    }
  }
  for (Json& kernel : doc["summary"]["kernels"]) {
    if (kernel["name"] == from) {
      kernel["name"] = to;
    }
  }
  if (doc["summary"]["dominant_kernel"] == from) {
    doc["summary"]["dominant_kernel"] = to;
  }
  for (const char* key : {"roofline", "metrics"}) {
    Json renamed = Json::object();
    for (auto& [name, value] : doc[key].items()) {
      renamed[name == from ? to : name] = value;
    }
    doc[key] = renamed;
  }
}

/// The page must never reach outside itself (ncu's findings mention URLs as text, never as links).
void expect_self_contained(const std::string& page) {
  EXPECT_NE(page.find("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src "
                      "'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src "
                      "data:\">"),
            std::string::npos);
  EXPECT_EQ(page.find("=\"http"), std::string::npos);
  EXPECT_EQ(page.find("<link"), std::string::npos);
  EXPECT_EQ(page.find("<img"), std::string::npos);
  EXPECT_EQ(page.find(" src="), std::string::npos);
  EXPECT_EQ(page.find("url("), std::string::npos);
  EXPECT_EQ(page.find("@import"), std::string::npos);
}

TEST(EscapeHtml, EscapesMarkupCharacters) {
  EXPECT_EQ(escape_html("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&#39;");
}

TEST(EscapeHtml, KeepsValidUtf8AndReplacesInvalidBytes) {
  EXPECT_EQ(escape_html("caf\xC3\xA9 \xE6\x97\xA5"), "caf\xC3\xA9 \xE6\x97\xA5");
  const std::string replacement = "\xEF\xBF\xBD";
  EXPECT_EQ(escape_html("a\xFF"
                        "b"),
            "a" + replacement + "b");
  EXPECT_EQ(escape_html("\xC0\x80"), replacement + replacement) << "overlong NUL";
  EXPECT_EQ(escape_html("\xED\xA0\x80"), replacement + replacement + replacement)
      << "UTF-16 surrogate";
  EXPECT_EQ(escape_html("x\xE6\x97"), "x" + replacement + replacement) << "truncated";
  EXPECT_EQ(escape_html(std::string("nul\0bell\x07", 9)),
            "nul" + replacement + "bell" + replacement);
  EXPECT_EQ(escape_html("tab\tline\n"), "tab\tline\n");
}

TEST(EscapeHtml, ReplacesC1ControlsLikeC0Ones) {
  const std::string replacement = "\xEF\xBF\xBD";
  EXPECT_EQ(escape_html("csi\xC2\x9B"
                        "2J nel\xC2\x85"),
            "csi" + replacement + "2J nel" + replacement);
  EXPECT_EQ(escape_html("nbsp\xC2\xA0"), "nbsp\xC2\xA0") << "U+00A0 is a character";
}

TEST(ReportPage, DrawsOnePointPerKernelNamedOnHoverAndInTheLegend) {
  const std::string page =
      render_report_html(fixture_report("curated_nvtx_twostage.csv", "default"));
  EXPECT_EQ(count(page, "class=\"sol-point\""), 2U);
  EXPECT_NE(page.find("<circle class=\"sol-point\" data-kernel=\"scale_kernel\""),
            std::string::npos);
  EXPECT_NE(page.find("<title>scale_kernel: compute SOL 9.4%, memory SOL 38.8%, 61% of GPU time"),
            std::string::npos);
  EXPECT_NE(page.find("</span>partial_sum_kernel<span class=\"muted\"> · 39% of GPU time"),
            std::string::npos);
  for (const char* band : {"latency", "memory", "compute"}) {
    EXPECT_EQ(count(page, std::string("class=\"band-") + band + "\""), 1U) << band;
  }
  expect_self_contained(page);
}

TEST(ReportPage, IsTitledWithEveryKernelOfATwoKernelCaptureLongestFirst) {
  const std::string page =
      render_report_html(fixture_report("curated_nvtx_twostage.csv", "default"));
  EXPECT_NE(page.find("<title>kprof report: scale_kernel and partial_sum_kernel</title>"),
            std::string::npos);
  EXPECT_NE(page.find("<h1>kprof report: scale_kernel and partial_sum_kernel</h1>"),
            std::string::npos);
}

TEST(ReportPage, NamesEachLaunchByNcusIdNeverAsAPerKernelNumber) {
  const std::string page =
      render_report_html(fixture_report("curated_nvtx_twostage.csv", "default"));
  // partial_sum_kernel ran first (ncu ID 0), scale_kernel second (ncu ID 1).
  EXPECT_NE(page.find(">1 launch (ncu ID 0): grid"), std::string::npos);
  EXPECT_NE(page.find(">1 launch (ncu ID 1): grid"), std::string::npos);
  EXPECT_EQ(page.find("values of launch"), std::string::npos);
}

TEST(ReportPage, ShowsQuotedCommandsInNotesAsCodeNotBackticks) {
  const std::string page =
      render_report_html(fixture_report("curated_nvtx_twostage.csv", "default"));
  EXPECT_NE(page.find("<code>--metrics deep</code>"), std::string::npos);
  const auto notes = page.find("<p class=\"muted\">no ncu rules");
  ASSERT_NE(notes, std::string::npos) << "the raw page's diagnosis notes";
  EXPECT_EQ(page.substr(notes, page.find("</p>", notes) - notes).find('`'), std::string::npos);
}

TEST(ReportPage, SaysOnceWhatACaptureFileDidNotRecord) {
  const std::string page =
      render_report_html(fixture_report("curated_nvtx_twostage.csv", "default"));
  EXPECT_EQ(count(page, "not recorded"), 1U);
  const std::string opening = "<dt>not recorded</dt><dd class=\"muted\">";
  const auto at = page.find(opening);
  ASSERT_NE(at, std::string::npos);
  const std::string named =
      page.substr(at + opening.size(), page.find("</dd>", at) - at - opening.size());
  EXPECT_TRUE(named.starts_with("ncu, clock control")) << named;
  EXPECT_NE(named.find("command"), std::string::npos) << named;
}

TEST(HtmlCodeSpans, TurnsBacktickPairsIntoCodeAndLeavesAnOddOne) {
  EXPECT_EQ(report_detail::html_code_spans("run `kprof doctor` then `x`"),
            "run <code>kprof doctor</code> then <code>x</code>");
  EXPECT_EQ(report_detail::html_code_spans("a ` b"), "a ` b");
  EXPECT_EQ(report_detail::html_code_spans(""), "");
}

TEST(ReportPage, HasTheSortableKernelTableAndTheHeaderFacts) {
  Json doc = fixture_report("curated_nvtx_twostage.csv", "default");
  doc["metadata"]["ncu_version"] = "2025.3.1.0";
  doc["metadata"]["clock_control"] = "base";
  doc["metadata"]["argv"] = Json::array({"kprof", "report", "my file.csv"});
  const std::string page = render_report_html(doc);
  const auto table = page.find("<table class=\"sortable kernel-table\"");
  ASSERT_NE(table, std::string::npos);
  const std::string body = page.substr(table, page.find("</table>", table) - table);
  EXPECT_EQ(count(body, "<tr>"), 3U) << "a header and one row per kernel";
  EXPECT_NE(page.find("<dt>GPU</dt><dd>NVIDIA H200</dd>"), std::string::npos);
  EXPECT_NE(page.find("<dt>ncu</dt><dd>2025.3.1.0</dd>"), std::string::npos);
  EXPECT_NE(page.find("<dt>clock control</dt><dd>base</dd>"), std::string::npos);
  EXPECT_NE(page.find("<dt>metric set</dt><dd>default</dd>"), std::string::npos);
  EXPECT_NE(page.find("kprof report &#39;my file.csv&#39;"), std::string::npos);
  EXPECT_NE(page.find("<script>"), std::string::npos) << "the sorting script is inline";
  EXPECT_NE(page.find("@media print"), std::string::npos);
  EXPECT_NE(page.find("prefers-color-scheme: dark"), std::string::npos);
}

TEST(ReportPage, EscapesKernelNamesEverywhere) {
  Json doc = fixture_report("curated_nvtx_twostage.csv", "default");
  const std::string hostile = "evil<script>alert(\"x\")</script>&'\xFF";
  rename_kernel(doc, "scale_kernel", hostile);
  const std::string page = render_report_html(doc);
  EXPECT_EQ(page.find("<script>alert"), std::string::npos);
  EXPECT_EQ(page.find('\xFF'), std::string::npos);
  const std::string escaped = "evil&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;"
                              "\xEF\xBF\xBD";
  EXPECT_NE(page.find("data-kernel=\"" + escaped + "\""), std::string::npos);
  EXPECT_GE(count(page, escaped), 4U) << "chart, legend, table, details";
  EXPECT_EQ(count(page, "<script>"), 1U);
}

TEST(ReportPage, ListsNcuFindingsWithEstimatedSpeedups) {
  const Json doc = fixture_report("batch4_details_sections_rules.csv", "deep");
  const std::string page = render_report_html(doc);
  EXPECT_GT(count(page, "<tr class=\"finding\">"), 0U);
  EXPECT_NE(page.find("IssueSlotUtilization"), std::string::npos);
  EXPECT_NE(page.find("data-sort=\"10.02\">10.0% local</td>"), std::string::npos);
  EXPECT_NE(page.find("<table class=\"metrics\"><thead><tr><th colspan=\"2\">GPU Speed Of Light "
                      "Throughput"),
            std::string::npos);
  expect_self_contained(page);
}

TEST(ReportPage, SaysWhyTheRooflineIsAbsentWithoutItsMetrics) {
  const std::string page =
      render_report_html(fixture_report("curated_nvtx_twostage.csv", "default"));
  EXPECT_EQ(page.find("class=\"roofline-chart\""), std::string::npos);
  EXPECT_NE(page.find("<p class=\"note roofline-absent\">The roofline needs ncu's roofline "
                      "metrics <code>smsp__sass_thread_inst_executed_op_fadd_pred_on.sum."
                      "per_cycle_elapsed</code>"),
            std::string::npos);
}

TEST(ReportPage, DrawsTheRooflineWhenItsMetricsWereCollected) {
  const std::string page = render_report_html(fixture_report("set_full_vadd.csv", "default"));
  EXPECT_NE(page.find("class=\"roofline-chart\""), std::string::npos);
  EXPECT_EQ(page.find("roofline-absent"), std::string::npos);
  EXPECT_EQ(count(page, "class=\"roofline-point\""), 1U);
  // 188.85 fadd/cycle x 1.944 GHz over 4.30 TB/s: 0.085 FLOP per byte.
  EXPECT_NE(page.find("FLOP/s, 0.085 FLOP/byte</title>"), std::string::npos);
  EXPECT_NE(page.find("DRAM 4.80 TB/s and fp32 67.00 TFLOP/s ceilings"), std::string::npos);
}

TEST(ReportPage, SaysWhyTheRooflineIsAbsentForAGpuOutsideTheSpecTable) {
  Json doc = fixture_report("set_full_vadd.csv", "default");
  doc["metadata"]["gpu_spec"] = nullptr;
  const std::string page = render_report_html(doc);
  EXPECT_EQ(page.find("class=\"roofline-chart\""), std::string::npos);
  EXPECT_NE(page.find("this GPU is not in kprof's spec table"), std::string::npos);
}

TEST(ReportPage, ShowsHotLinesOnlyWhenTheDocumentHasThem) {
  Json doc = fixture_report("curated_nvtx_vadd.csv", "default");
  EXPECT_EQ(render_report_html(doc).find("class=\"hot-line\""), std::string::npos);
  // The hot_lines member of docs/json-schema.md (schema 2).
  doc["kernels"][0]["hot_lines"] = Json{
      {"samples", 840},
      {"few_samples", false},
      {"lines",
       Json::array({{{"file", "/k/kernel.py"},
                     {"line", 12},
                     {"source", "x = tl.load(x_ptr + offs) # <&>"},
                     {"share", 0.5},
                     {"samples", 420},
                     {"stalls", Json::array({{{"reason", "long_sb"}, {"share", 0.9}}})},
                     {"memory", {{"l2_sectors", 64}, {"l2_sectors_excessive", 32}}},
                     {"inlined", Json::array({{{"callee", "tl.sum"}, {"file", "standard.py"}}})}},
                    {{"file", "/k/kernel.py"},
                     {"line", 14},
                     {"source", "tl.store(out_ptr + offs, x + y)"},
                     {"share", 0.25},
                     {"samples", 210}}})},
      {"unattributed",
       Json::array(
           {{{"callee", "tl.max"}, {"file", "/t/standard.py"}, {"line", 191}, {"samples", 7}}})},
      {"heat",
       Json::array(
           {{{"file", "/k/kernel.py"}, {"line", 12}, {"source", "x = 1"}, {"share", 0.5}},
            {{"file", "/k/kernel.py"}, {"line", 14}, {"source", "y = 2"}, {"share", 0.25}}})}};
  const std::string page = render_report_html(doc);
  EXPECT_EQ(count(page, "<tr class=\"hot-line\""), 2U);
  EXPECT_EQ(count(page, "<tr class=\"heat-line\""), 2U);
  EXPECT_NE(page.find("style=\"--h:0.500\"><td class=\"mono\">kernel.py:12</td>"),
            std::string::npos);
  EXPECT_NE(page.find("x = tl.load(x_ptr + offs) # &lt;&amp;&gt;"), std::string::npos);
  EXPECT_NE(page.find("long scoreboard 90%"), std::string::npos);
  EXPECT_NE(page.find("uncoalesced: 32 of 64 L2 sectors excessive"), std::string::npos);
  EXPECT_NE(page.find("incl. inlined tl.sum"), std::string::npos);
  EXPECT_NE(page.find("inlined from <code>tl.max</code> (standard.py:191)"), std::string::npos);
}

TEST(ReportPage, NamesTheGpuOfADetailsPageFromTheHarness) {
  // A details page names no GPU; a profiled round has the harness's device name.
  Json doc = fixture_report("details_page_softmax.csv", "deep");
  ASSERT_TRUE(doc["metadata"]["gpu"].is_null());
  EXPECT_EQ(render_report_html(doc).find("NVIDIA H200 NVL"), std::string::npos);
  doc["metadata"]["gpu_name"] = "NVIDIA H200 NVL";
  EXPECT_NE(render_report_html(doc).find("NVIDIA H200 NVL"), std::string::npos);
}

TEST(ReportPage, RendersThroughTheHtmlSink) {
  const Json doc = fixture_report("curated_nvtx_twostage.csv", "default");
  ASSERT_TRUE(parse_format("html").ok());
  EXPECT_EQ(*parse_format("html"), Format::html);
  EXPECT_EQ(to_string(Format::html), "html");
  EXPECT_EQ(make_sink(Format::html)->format(), Format::html);
  EXPECT_EQ(render(Format::html, doc), render_report_html(doc));
}

TEST(ReportPage, ShowsTheTruthFirstAndAWrongOutputAsAWarning) {
  Json doc = fixture_report("curated_nvtx_twostage.csv", "default");
  EXPECT_EQ(render_report_html(doc).find("class=\"truth\""), std::string::npos);
  doc["truth"] =
      Json{{"check",
            {{"verdict", "fail"}, {"reason", "1 of 3 elements differ by more than atol <0.01>"}}},
           {"timing", {{"median_us", 41.2}, {"count", 200}}}};
  const std::string html = render_report_html(doc);
  const auto truth = html.find("<ul class=\"truth\">");
  ASSERT_NE(truth, std::string::npos) << html;
  EXPECT_LT(truth, html.find("Speed of light and roofline")); // before the counters
  EXPECT_NE(html.find("<li class=\"wrong\">WRONG OUTPUT: 1 of 3 elements differ by more than "
                      "atol &lt;0.01&gt;"),
            std::string::npos)
      << html;
}

TEST(ReportPage, DrawsWhereAManyLaunchCallsTimeGoesFromItsWorkload) {
  Json doc = fixture_report("curated_nvtx_twostage.csv", "default");
  EXPECT_EQ(render_report_html(doc).find("Where the call's time goes"), std::string::npos);
  doc["workload"] =
      Json{{"launches", 6244},
           {"distinct_kernels", 2},
           {"replayed", 2},
           {"kernel_time_us", 16140.0},
           {"covered_share", 1.0},
           {"kernels", Json::array({Json{{"function", "gemv<float>"},
                                         {"grid", {8, 1, 1}},
                                         {"block", {128, 1, 1}},
                                         {"launches", 3072},
                                         {"total_us", 9220.0},
                                         {"share", 0.6},
                                         {"ops", {"aten::_cudnn_rnn"}},
                                         {"summary", "measured on launch 2 of 6,244"}},
                                    Json{{"function", "elementwise"},
                                         {"grid", {16, 1, 1}},
                                         {"block", {64, 1, 1}},
                                         {"launches", 3172},
                                         {"total_us", 6920.0},
                                         {"share", 0.4},
                                         {"ops", Json::array()},
                                         {"summary", "measured on launch 3 of 6,244"}}})}};
  const std::string html = render_report_html(doc);
  EXPECT_NE(html.find("Where the call's time goes"), std::string::npos) << html;
  EXPECT_NE(html.find("6244 launches of 2 distinct kernels"), std::string::npos) << html;
  EXPECT_NE(html.find("<code>gemv&lt;float&gt;</code>"), std::string::npos) << html;
  EXPECT_NE(html.find("style=\"width:36.0%\""), std::string::npos) << html; // 60% of the bar
  EXPECT_NE(html.find("aten::_cudnn_rnn"), std::string::npos) << html;
  EXPECT_LT(html.find("gemv&lt;float&gt;"), html.find("<code>elementwise</code>"));
}

TEST(RunPageRender, SaysSlowerAndWhenTheReportsShareNoKernel) {
  Json run = Json::object();
  run["directory"] = "out<dir>";
  run["rows"] = Json::array();
  run["convergence"] = nullptr;
  run["diff"] = {{"a", {{"label", "round 0"}}},
                 {"b", {{"label", "round 1"}}},
                 {"total", {{"duration_ns", {{"a", 100000}, {"b", 125000}}}, {"speedup", 0.8}}},
                 {"kernels", Json::array()},
                 {"only_in_a", Json::array({"old_kernel"})},
                 {"only_in_b", Json::array({"new_kernel"})}};
  const std::string page = render_run_html(run);
  EXPECT_NE(page.find("<h1>kprof run: out&lt;dir&gt;</h1>"), std::string::npos);
  EXPECT_NE(page.find("total GPU time 100.00 us → 125.00 us (1.25× slower)"), std::string::npos);
  EXPECT_NE(page.find("No kernel name appears in both reports."), std::string::npos);
  EXPECT_EQ(page.find("<table class=\"diff\">"), std::string::npos);
  EXPECT_NE(page.find("No rounds recorded."), std::string::npos);
  EXPECT_NE(page.find("No convergence verdict."), std::string::npos);
}

} // namespace
} // namespace kprof
