// Text that kprof prints comes from ncu, the profiled program and file names, and is read on
// terminals and in spreadsheets: the csv, prompt and table sinks show its control characters as
// `\xNN` (printable(), kprof/strings.hpp) and never pass them on. The capture
// curated_nvtx_vadd_control_chars.csv is curated_nvtx_vadd.csv with the kernel renamed to
// "add" ESC[2J (clear screen) ESC]0;owned BEL (window title) U+009B "31m" (C1 CSI) 0xFF "_kernel".
#include <algorithm>
#include <string>
#include <string_view>

#include <gtest/gtest.h>

#include "kprof/analysis.hpp"
#include "kprof/metric_sets.hpp"
#include "kprof/ncu_output.hpp"
#include "kprof/report.hpp"
#include "kprof/strings.hpp"

namespace kprof {
namespace {

const std::filesystem::path k_fixtures =
    std::filesystem::path(KPROF_FIXTURES_DIR) / "ncu" / "2025.3.1";

/// The kernel name of the fixture as the text formats show it.
constexpr std::string_view k_shown_name = "add\\x1b[2J\\x1b]0;owned\\x07\\x9b31m\\xff_kernel";

Json control_chars_report() {
  Result<Capture> capture = read_ncu_csv_file(k_fixtures / "curated_nvtx_vadd_control_chars.csv");
  EXPECT_TRUE(capture.ok()) << (capture.ok() ? "" : capture.error().message);
  if (!capture.ok()) {
    return Json();
  }
  Result<Analysis> analysis = analyse(*capture, SelectOptions{});
  EXPECT_TRUE(analysis.ok());
  Result<MetricSet> set = find_metric_set("default");
  EXPECT_TRUE(set.ok());
  if (!analysis.ok() || !set.ok()) {
    return Json();
  }
  return build_report(*capture, *analysis, *set);
}

/// The first raw control byte of `text` (C0 but '\n' and '\t', DEL, a UTF-8 encoded C1 control,
/// a byte that is not UTF-8), as "offset: byte"; "" when there is none.
std::string first_raw_control(std::string_view text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    const bool c0 = byte < 0x20U && byte != '\n' && byte != '\t';
    const bool c1 = byte == 0xC2U && i + 1 < text.size() &&
                    static_cast<unsigned char>(text[i + 1]) >= 0x80U &&
                    static_cast<unsigned char>(text[i + 1]) <= 0x9FU;
    if (c0 || byte == 0x7FU || c1) {
      return std::to_string(i) + ": " + std::to_string(byte);
    }
  }
  if (!is_printable(text, Multiline::yes)) {
    return "a byte that is not UTF-8";
  }
  return {};
}

TEST(PrintableText, TheCaptureReallyHasTheControlCharactersInItsKernelName) {
  const Json doc = control_chars_report();
  ASSERT_TRUE(doc.is_object());
  const std::string name = doc["kernels"][0]["name"].get<std::string>();
  EXPECT_EQ(name, "add\x1b[2J\x1b]0;owned\x07\xc2\x9b"
                  "31m\xff_kernel");
}

TEST(PrintableText, CsvPromptAndTableShowAKernelNamesControlCharactersAsEscapes) {
  const Json doc = control_chars_report();
  ASSERT_TRUE(doc.is_object());
  for (const Format format : {Format::csv, Format::prompt, Format::table}) {
    SCOPED_TRACE(std::string(to_string(format)));
    const std::string text = render(format, doc);
    EXPECT_EQ(first_raw_control(text), "") << text;
    EXPECT_NE(text.find(k_shown_name), std::string::npos) << text;
  }
}

TEST(PrintableText, TheColouredTableKeepsItsOwnColoursAndEscapesTheNames) {
  const Json doc = control_chars_report();
  ASSERT_TRUE(doc.is_object());
  RenderOptions options;
  options.color = true;
  std::string text = render(Format::table, doc, options);
  EXPECT_NE(text.find(std::string("\x1b[1m") + std::string(k_shown_name) + "\x1b[0m"),
            std::string::npos)
      << "the kernel heading, bold";
  // Without the table's own SGR codes nothing raw is left.
  for (const std::string_view code : {"\x1b[1m", "\x1b[0m", "\x1b[31m", "\x1b[32m", "\x1b[33m"}) {
    for (auto at = text.find(code); at != std::string::npos; at = text.find(code)) {
      text.erase(at, code.size());
    }
  }
  EXPECT_EQ(first_raw_control(text), "") << text;
}

TEST(PrintableText, JsonKeepsItsOwnEscapingAndHtmlEscapesAsHtml) {
  const Json doc = control_chars_report();
  ASSERT_TRUE(doc.is_object());
  // JSON is left as it was: C0 controls as \u00XX, an invalid byte as U+FFFD, and U+009B as
  // the UTF-8 text it is (valid JSON; a JSON reader, not a terminal, is its audience).
  const std::string json = render(Format::json, doc);
  EXPECT_TRUE(std::none_of(json.begin(), json.end(), [](char c) {
    const auto byte = static_cast<unsigned char>(c);
    return (byte < 0x20U && c != '\n') || byte == 0x7FU;
  }));
  EXPECT_NE(json.find("add\\u001b[2J\\u001b]0;owned\\u0007\xc2\x9b"
                      "31m\xef\xbf\xbd_kernel"),
            std::string::npos)
      << json.substr(0, 2000);
  const std::string html = render(Format::html, doc);
  EXPECT_EQ(first_raw_control(html), "");
  EXPECT_EQ(html.find("\\x1b"), std::string::npos) << "HTML is escaped as HTML, not twice";
}

TEST(PrintableText, EveryDocumentKindIsEscapedToo) {
  // A history row and a round's candidate whose names and error quote a hostile program.
  const std::string hostile = "k\x1b[2J\x07\xc2\x9b\xff";
  const Json error = {{"category", "kernel_raised"},
                      {"message", "RuntimeError: " + hostile},
                      {"detail", "Traceback\n  " + hostile + "\n"}};
  const Json history = {{"schema_version", 1},
                        {"kind", "history"},
                        {"rows",
                         {{{"round", 1},
                           {"candidate", nullptr},
                           {"label", hostile + ".py"},
                           {"status", "failed"},
                           {"created_at", "2026-01-01T00:00:00Z"},
                           {"dominant_kernel", hostile},
                           {"error", error}}}}};
  const Json batch = {{"schema_version", 2},
                      {"kind", "round"},
                      {"round", 1},
                      {"candidates",
                       {{{"rank", nullptr},
                         {"candidate", 0},
                         {"kernel_file", "/tmp/" + hostile + ".py"},
                         {"status", "failed"},
                         {"summary", nullptr},
                         {"report", nullptr},
                         {"error", error}}}}};
  for (const Json* doc : {&history, &batch}) {
    for (const Format format : {Format::csv, Format::prompt, Format::table}) {
      SCOPED_TRACE(std::string(to_string(format)) + " " + (*doc)["kind"].get<std::string>());
      const std::string text = render(format, *doc);
      EXPECT_EQ(first_raw_control(text), "") << text;
      EXPECT_NE(text.find("k\\x1b[2J\\x07\\x9b\\xff"), std::string::npos) << text;
    }
  }
}

} // namespace
} // namespace kprof
