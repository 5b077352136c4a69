// Hot lines in the report: the recorded H200 source pages (tests/fixtures/ncu/2025.3.1/source)
// matched to the launches of the same run's raw page, folded with Triton's PTX from a cache,
// and rendered by the prompt, table and HTML sinks.
#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "kprof/analysis.hpp"
#include "kprof/files.hpp"
#include "kprof/ncu_output.hpp"
#include "kprof/report.hpp"
#include "unit/report/report_test_support.hpp"

namespace kprof {
namespace {
namespace fs = std::filesystem;

const fs::path k_source_fixtures = fs::path(KPROF_FIXTURES_DIR) / "ncu" / "2025.3.1" / "source";

/// Where the recorded run kept cand1.py; the tests move it to a temp directory.
constexpr std::string_view k_recorded_cand1 = "/work/main/examples/softmax_variants/cand1.py";

std::string replaced(std::string text, std::string_view from, const std::string& to) {
  for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

struct Case {
  Capture capture;
  Json report;
};

Case report_of(const std::string& name) {
  Result<Capture> capture = read_ncu_csv_file(k_source_fixtures / (name + ".raw.csv"));
  EXPECT_TRUE(capture.ok()) << (capture.ok() ? "" : capture.error().message);
  Result<Analysis> analysis = analyse(*capture, SelectOptions{});
  EXPECT_TRUE(analysis.ok());
  Result<MetricSet> set = find_metric_set("default");
  Json report = build_report(*capture, *analysis, *set);
  return {std::move(capture).value(), std::move(report)};
}

SourcePage page_of(const std::string& text) {
  Result<SourcePage> page = parse_source_page(text, "test");
  EXPECT_TRUE(page.ok()) << (page.ok() ? "" : page.error().message);
  return page.ok() ? std::move(page).value() : SourcePage{};
}

/// The samples of every line row of the page's blocks whose file ends with `suffix`.
double samples_in(const SourcePage& page, std::string_view suffix) {
  double total = 0;
  for (const SourceBlock& block : page.blocks) {
    if (block.file.ends_with(suffix)) {
      for (const SourceLine& line : block.lines) {
        total += line.counters.samples;
      }
    }
  }
  return total;
}

TEST(AttachHotLines, PutsTheLoadLineOfSoftmaxFirstWithItsShareOfAllSamples) {
  Case softmax = report_of("softmax");
  const SourcePage page = page_of(test::slurp(k_source_fixtures / "softmax.source.csv"));
  TempDir empty_cache = test::make_temp_dir();
  ASSERT_TRUE(attach_hot_lines(softmax.report, softmax.capture, page, empty_cache.path()).ok());

  const Json& hot = softmax.report["kernels"][0]["hot_lines"];
  ASSERT_TRUE(hot.is_object()) << softmax.report["kernels"][0].dump();
  const double all = samples_in(page, ".py");
  EXPECT_DOUBLE_EQ(hot["samples"].get<double>(), all);
  const Json& first = hot["lines"][0];
  EXPECT_TRUE(first["file"].get<std::string>().ends_with("examples/softmax/kernel.py"));
  EXPECT_EQ(first["line"], 11);
  EXPECT_NE(first["source"].get<std::string>().find("tl.load"), std::string::npos);
  // Shares are written with 4 decimals (docs/hot-lines.md).
  EXPECT_NEAR(first["share"].get<double>(), first["samples"].get<double>() / all, 5e-5);
  // No PTX in the cache: the library lines stay unattributed, their samples counted.
  double unattributed = 0;
  for (const Json& part : hot["unattributed"]) {
    unattributed += part["samples"].get<double>();
  }
  EXPECT_DOUBLE_EQ(unattributed, samples_in(page, "standard.py"));
  // Every user line with samples is in the heat view, in line order.
  ASSERT_FALSE(hot["heat"].empty());
  int previous = 0;
  for (const Json& line : hot["heat"]) {
    EXPECT_GT(line["line"].get<int>(), previous);
    previous = line["line"].get<int>();
  }
}

/// The samples of `line` in the `nth` block (0-based) whose file ends with `suffix`.
double line_samples(const SourcePage& page, std::string_view suffix, int nth, int line) {
  for (const SourceBlock& block : page.blocks) {
    if (!block.file.ends_with(suffix) || nth-- > 0) {
      continue;
    }
    for (const SourceLine& row : block.lines) {
      if (row.line == line) {
        return row.counters.samples;
      }
    }
    return 0;
  }
  return 0;
}

const Json* hot_line(const Json& hot, int line) {
  for (const Json& entry : hot["lines"]) {
    if (entry["line"] == line) {
      return &entry;
    }
  }
  return nullptr;
}

TEST(AttachHotLines, GivesEachLaunchOfABatchItsOwnFileAndFoldsLibraryLinesWithCachedPtx) {
  // The recorded batch profiled examples/softmax/kernel.py, then cand1.py. cand1.py and its PTX
  // move to a temp directory, as a fresh compile in kprof's Triton cache would leave them.
  TempDir dir = test::make_temp_dir();
  const fs::path cand1 = dir.path() / "cand1.py";
  ASSERT_TRUE(write_file_atomic(cand1, test::slurp(fs::path(KPROF_EXAMPLES_DIR) /
                                                   "softmax_variants" / "cand1.py"))
                  .ok());
  const fs::path cache = dir.path() / "triton-cache";
  const std::string ptx = replaced(test::slurp(k_source_fixtures / "softmax_kernel.ptx"),
                                   k_recorded_cand1, cand1.string());
  ASSERT_TRUE(write_file_atomic(cache / "QGXZ2ME" / "softmax_kernel.ptx", ptx).ok());

  Case batch = report_of("batch2");
  const SourcePage page = page_of(replaced(test::slurp(k_source_fixtures / "batch2.source.csv"),
                                           k_recorded_cand1, cand1.string()));
  ASSERT_TRUE(attach_hot_lines(batch.report, batch.capture, page, cache).ok());
  ASSERT_EQ(batch.report["kernels"].size(), 2U);
  const Json& first = batch.report["kernels"][0]["hot_lines"];
  const Json& second = batch.report["kernels"][1]["hot_lines"];
  for (const Json& line : first["lines"]) {
    EXPECT_TRUE(line["file"].get<std::string>().ends_with("examples/softmax/kernel.py"));
  }
  for (const Json& line : second["lines"]) {
    EXPECT_EQ(line["file"], cand1.string());
  }
  // kernel.py has no PTX in this cache: its library lines stay unattributed. cand1.py's fold:
  // standard.py:170 and :191 (tl.max) into line 13, :263 and :293 (tl.sum) into line 15.
  EXPECT_FALSE(first["unattributed"].empty());
  EXPECT_TRUE(second["unattributed"].empty()) << second["unattributed"].dump();
  const Json* max_line = hot_line(second, 13);
  const Json* sum_line = hot_line(second, 15);
  ASSERT_NE(max_line, nullptr);
  ASSERT_NE(sum_line, nullptr);
  EXPECT_DOUBLE_EQ((*max_line)["samples"].get<double>(),
                   line_samples(page, "cand1.py", 0, 13) +
                       line_samples(page, "standard.py", 1, 170) +
                       line_samples(page, "standard.py", 1, 191));
  EXPECT_DOUBLE_EQ((*sum_line)["samples"].get<double>(),
                   line_samples(page, "cand1.py", 0, 15) +
                       line_samples(page, "standard.py", 1, 263) +
                       line_samples(page, "standard.py", 1, 293));
  EXPECT_EQ((*max_line)["inlined"][0]["callee"], "tl.max");
  EXPECT_EQ((*sum_line)["inlined"][0]["callee"], "tl.sum");
}

TEST(AttachHotLines, LeavesAPtxOlderThanTheKernelFileUnused) {
  TempDir dir = test::make_temp_dir();
  const fs::path cand1 = dir.path() / "cand1.py";
  const fs::path cache = dir.path() / "triton-cache";
  ASSERT_TRUE(write_file_atomic(cache / "OLD" / "softmax_kernel.ptx",
                                replaced(test::slurp(k_source_fixtures / "softmax_kernel.ptx"),
                                         k_recorded_cand1, cand1.string()))
                  .ok());
  ASSERT_TRUE(write_file_atomic(cand1, "# edited after the compile\n").ok());
  fs::last_write_time(cand1, fs::last_write_time(cache / "OLD" / "softmax_kernel.ptx") +
                                 std::chrono::seconds(5));
  Case batch = report_of("batch2");
  const SourcePage page = page_of(replaced(test::slurp(k_source_fixtures / "batch2.source.csv"),
                                           k_recorded_cand1, cand1.string()));
  ASSERT_TRUE(attach_hot_lines(batch.report, batch.capture, page, cache).ok());
  EXPECT_FALSE(batch.report["kernels"][1]["hot_lines"]["unattributed"].empty());
}

TEST(AttachHotLines, RefusesAPageWithMoreLaunchesThanTheCapture) {
  Case vadd = report_of("vadd");
  const SourcePage page = page_of(test::slurp(k_source_fixtures / "batch2.source.csv"));
  const Json before = vadd.report;
  const Result<void> attached = attach_hot_lines(vadd.report, vadd.capture, page, "/nonexistent");
  ASSERT_FALSE(attached.ok());
  EXPECT_EQ(attached.error().category, ErrorCategory::malformed_input);
  EXPECT_EQ(vadd.report, before);
}

TEST(AttachHotLines, AddsNothingForAKernelWithoutLineInfo) {
  Case softmax = report_of("softmax-noline");
  const SourcePage page = page_of(test::slurp(k_source_fixtures / "softmax-noline.source.csv"));
  EXPECT_EQ(page.messages.size(), 1U);
  ASSERT_TRUE(attach_hot_lines(softmax.report, softmax.capture, page, "/nonexistent").ok());
  EXPECT_FALSE(softmax.report["kernels"][0].contains("hot_lines"));
}

TEST(HotLinesInSinks, PromptShowsThemRightAfterTheRooflineAndTableAndHtmlShowThem) {
  Case softmax = report_of("softmax");
  const SourcePage page = page_of(test::slurp(k_source_fixtures / "softmax.source.csv"));
  ASSERT_TRUE(attach_hot_lines(softmax.report, softmax.capture, page, "/nonexistent").ok());

  const std::string prompt = render(Format::prompt, softmax.report);
  const auto roofline = prompt.find("Roofline:");
  const auto hot = prompt.find("Hot lines");
  const auto load = prompt.find("- kernel.py:11 ");
  ASSERT_NE(roofline, std::string::npos);
  ASSERT_NE(hot, std::string::npos) << prompt;
  EXPECT_LT(roofline, hot);
  EXPECT_EQ(prompt.find('\n', roofline), hot - 1); // the very next line
  ASSERT_NE(load, std::string::npos) << prompt;
  EXPECT_NE(prompt.find("tl.load", load), std::string::npos);
  EXPECT_NE(prompt.find("standard.py", hot), std::string::npos); // the unattributed samples

  const std::string table = render(Format::table, softmax.report);
  EXPECT_NE(table.find("Hot lines"), std::string::npos);
  EXPECT_NE(table.find("kernel.py:11"), std::string::npos);

  const std::string html = render(Format::html, softmax.report);
  EXPECT_NE(html.find("class=\"hot-line\""), std::string::npos);
  EXPECT_NE(html.find("class=\"heat-line\""), std::string::npos);
}

} // namespace
} // namespace kprof
