// Tests of NcuCsvReader (ncu_reader.cpp): ncu's CSV among other text, chunk boundaries, and
// inputs that are not ncu output. Real ncu 2025.3.1 output recorded on an H200.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "csv/ncu_reader_internal.hpp"
#include "kprof/capture.hpp"
#include "kprof/ncu_output.hpp"
#include "unit/csv/csv_test_support.hpp"

namespace kprof {
namespace {

using namespace test;

TEST(NcuCsvReader, KeepsNcuLinesInOrder) {
  const Capture capture = read_fixture("curated_nvtx_twostage.csv");
  ASSERT_EQ(capture.ncu_lines.size(), 3U);
  EXPECT_EQ(capture.ncu_lines[1], "==PROF== Connected to process 884 (/usr/bin/python3.12)");
  EXPECT_EQ(capture.ncu_lines[2], "==PROF== Disconnected from process 884");
  EXPECT_EQ(capture.foreign_lines, 0U);
}

TEST(NcuCsvReader, ParsesStdoutMixedOutputLikeTheSameOutputWithoutTheProgramLines) {
  const std::string mixed = slurp(ncu_fixture("curated_nvtx_twostage_stdout_mixed.txt"));
  std::string clean;
  std::size_t removed = 0;
  for (std::size_t at = 0; at < mixed.size();) {
    const std::size_t end = mixed.find('\n', at);
    const std::string line = mixed.substr(at, end - at + 1);
    if (line.starts_with("WRAPPER ")) {
      ++removed;
    } else {
      clean += line;
    }
    at = end == std::string::npos ? mixed.size() : end + 1;
  }
  ASSERT_EQ(removed, 1U);
  auto from_mixed = parse_ncu_csv(mixed);
  auto from_clean = parse_ncu_csv(clean);
  ASSERT_TRUE(from_mixed.ok()) << from_mixed.error().message;
  ASSERT_TRUE(from_clean.ok()) << from_clean.error().message;
  EXPECT_EQ(from_mixed->foreign_lines, 1U);
  from_clean->foreign_lines = 1;
  EXPECT_EQ(csv::capture_difference(*from_mixed, *from_clean), "");

  // Same columns and kernels as the run that went to a log file.
  const Capture logged = read_fixture("curated_nvtx_twostage.csv");
  ASSERT_EQ(from_mixed->columns.size(), logged.columns.size());
  for (std::size_t i = 0; i < logged.columns.size(); ++i) {
    EXPECT_EQ(from_mixed->columns[i].name, logged.columns[i].name);
    EXPECT_EQ(from_mixed->columns[i].unit, logged.columns[i].unit);
  }
  ASSERT_EQ(from_mixed->kernels.size(), 2U);
  EXPECT_EQ(from_mixed->kernels[1].name, "scale_kernel");
  EXPECT_EQ(from_mixed->kernels[1].nvtx_range, "kprof");
}

TEST(NcuCsvReader, ReadsOutputWithoutNvtxColumnAndKeepsTheErrorLine) {
  const Capture capture = read_fixture("app_crash_after_kernels.txt");
  ASSERT_EQ(capture.kernels.size(), 2U);
  EXPECT_EQ(capture.columns.size(), 334U - 11U);
  for (const KernelRecord& kernel : capture.kernels) {
    EXPECT_EQ(kernel.nvtx_range, "");
    EXPECT_TRUE(kernel.nvtx_stack.empty());
    EXPECT_EQ(kernel.grid, (std::array<std::int64_t, 3>{1, 1, 1}));
  }
  EXPECT_TRUE(capture.kernels[0].name.starts_with("void vectorized_elementwise_kernel<4, "));
  ASSERT_FALSE(capture.ncu_lines.empty());
  EXPECT_EQ(capture.ncu_lines.back(), "==ERROR== The application returned an error code (1).");
  EXPECT_EQ(capture.foreign_lines, 4U); // the Python traceback; "rc=1" is not counted
}

TEST(NcuCsvReader, ReadsOutputWhereNcuDroppedAnUnknownMetric) {
  const Capture capture = read_fixture("invalid_metric_name.txt");
  ASSERT_EQ(capture.kernels.size(), 1U);
  EXPECT_EQ(capture.number(capture.kernels[0], "dram__bytes_read.sum"), 536882944.0);
  EXPECT_FALSE(capture.column_index("foo__bar.sum"));
  EXPECT_EQ(capture.foreign_lines, 1U); // the WRAPPER line
}

TEST(NcuCsvReader, ChunkSizeDoesNotChangeTheResult) {
  for (const char* name : {"curated_nvtx_twostage.csv", "curated_nvtx_twostage_stdout_mixed.txt",
                           "set_full_vadd.csv", "details_page_softmax.csv",
                           "app_crash_after_kernels.txt", "curated_instances_twostage.csv"}) {
    const std::string text = slurp(ncu_fixture(name));
    auto whole = parse_ncu_csv(text);
    ASSERT_TRUE(whole.ok()) << name << ": " << whole.error().message;
    for (const std::size_t chunk :
         {std::size_t{1}, std::size_t{2}, std::size_t{7}, std::size_t{61}, std::size_t{4096}}) {
      auto chunked = csv::parse_ncu_csv_chunked(text, {}, "<memory>", chunk);
      ASSERT_TRUE(chunked.ok()) << name << " chunk " << chunk << ": " << chunked.error().message;
      EXPECT_EQ(csv::capture_difference(*whole, *chunked), "") << name << " chunk " << chunk;
    }
    auto from_file = csv::read_ncu_csv_file_chunked(ncu_fixture(name), {}, 5);
    ASSERT_TRUE(from_file.ok()) << name << ": " << from_file.error().message;
    EXPECT_EQ(csv::capture_difference(*whole, *from_file), "") << name << " (file)";
  }
}

// A small hand-made table with what ncu may print inside quotes: commas, doubled quotes, and a
// newline, read through every chunk size from 1 to 40.
constexpr std::string_view k_quoted_table =
    "==PROF== Connected to process 1\n"
    "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\","
    "\"Stream\",\"Block Size\",\"Grid Size\",\"Device\",\"CC\",\"note\",\"dram__bytes_read.sum\"\n"
    "\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"byte\"\n"
    "\"0\",\"1\",\"python3\",\"h\",\"k \"\"q\"\", with comma\",\"1\",\"7\",\"(1, 1, 1)\","
    "\"(2, 1, 1)\",\"0\",\"9.0\",\"line one\nline two, \"\"x\"\"\",\"1,024\"\n"
    "\"1\",\"1\",\"python3\",\"h\",\"plain\",\"1\",\"7\",\"(1, 1, 1)\",\"(2, 1, 1)\",\"0\","
    "\"9.0\",\"\",\"2,048\"\n"
    "rc=0\n";

TEST(NcuCsvReader, ReadsQuotedCommasQuotesAndNewlinesAcrossChunkBoundaries) {
  for (std::size_t chunk = 0; chunk <= 40; ++chunk) {
    auto result = csv::parse_ncu_csv_chunked(k_quoted_table, {}, "<memory>", chunk);
    ASSERT_TRUE(result.ok()) << "chunk " << chunk << ": " << result.error().message;
    const Capture& capture = *result;
    ASSERT_EQ(capture.kernels.size(), 2U) << "chunk " << chunk;
    EXPECT_EQ(capture.kernels[0].name, "k \"q\", with comma") << "chunk " << chunk;
    const auto note = capture.column_index("note");
    ASSERT_TRUE(note);
    EXPECT_EQ(capture.value(capture.kernels[0], *note).text, "line one\nline two, \"x\"")
        << "chunk " << chunk;
    EXPECT_EQ(capture.value(capture.kernels[1], *note).kind, ValueKind::null);
    EXPECT_EQ(capture.number(capture.kernels[1], "dram__bytes_read.sum"), 2048.0);
    EXPECT_EQ(capture.foreign_lines, 0U);
  }
}

TEST(NcuCsvReader, CountsLinesInsideQuotedFieldsWhenNamingTheBadLine) {
  // The first row spans lines 4 and 5, so the second row (cut short) is line 6.
  std::string text(k_quoted_table.substr(0, k_quoted_table.find("\"1\",\"1\",\"python3\"")));
  text += "\"1\",\"1\",\"python3\"\n";
  const Error error = parse_error(text);
  EXPECT_EQ(error.category, ErrorCategory::malformed_input);
  EXPECT_NE(error.message.find("input.csv: line 6:"), std::string::npos) << error.message;
}

TEST(NcuCsvReader, ReadsWindowsLineEndingsLikeUnixOnes) {
  const std::string text = slurp(ncu_fixture("curated_nvtx_twostage.csv"));
  std::string crlf;
  for (const char c : text) {
    if (c == '\n') {
      crlf += '\r';
    }
    crlf += c;
  }
  auto unix_result = parse_ncu_csv(text);
  auto windows_result = parse_ncu_csv(crlf);
  ASSERT_TRUE(unix_result.ok() && windows_result.ok());
  EXPECT_EQ(csv::capture_difference(*unix_result, *windows_result), "");
}

TEST(NcuCsvReader, ReportsNoKernelsWhenNcuSaysSo) {
  auto result = read_ncu_csv_file(ncu_fixture("no_kernels_profiled.txt"));
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().category, ErrorCategory::no_kernels);
  EXPECT_NE(result.error().message.find("no_kernels_profiled.txt"), std::string::npos);
}

TEST(NcuCsvReader, ReportsNoKernelsForAHeaderWithoutRows) {
  const std::string text = slurp(ncu_fixture("curated_nvtx_twostage.csv"));
  const Error error = parse_error(with_line_cut(text, 6, 0)); // header and units only
  EXPECT_EQ(error.category, ErrorCategory::no_kernels);
  EXPECT_NE(error.message.find("line 4"), std::string::npos) << error.message;
}

TEST(NcuCsvReader, RejectsEmptyInput) {
  EXPECT_EQ(parse_error("").category, ErrorCategory::malformed_input);
  const ScratchDir dir;
  auto result = read_ncu_csv_file(dir.write("empty.csv", ""));
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().category, ErrorCategory::malformed_input);
  EXPECT_NE(result.error().message.find("empty.csv"), std::string::npos);
}

TEST(NcuCsvReader, RejectsBinaryData) {
  std::string text = slurp(ncu_fixture("curated_nvtx_twostage.csv"));
  text.insert(text.find("\"0\",\"884\""), std::string("\x08\x01\x00\x12", 4));
  const Error error = parse_error(text);
  EXPECT_EQ(error.category, ErrorCategory::malformed_input);
  EXPECT_NE(error.message.find("line 6"), std::string::npos) << error.message;
  EXPECT_EQ(error.message.find('\n'), std::string::npos);
}

/// ASCII `text` in UTF-16 or UTF-32 (`width` bytes a character), little- or big-endian, after
/// `bom`: how a Windows editor or PowerShell's `>` saves ncu's CSV.
std::string encoded(std::string_view text, std::size_t width, bool little, std::string_view bom) {
  std::string out(bom);
  for (const char c : text) {
    std::string unit(width, '\0');
    unit[little ? 0 : width - 1] = c;
    out += unit;
  }
  return out;
}

TEST(NcuCsvReader, SaysUtf16AndUtf32TextIsNotUtf8AndHowToConvertIt) {
  const std::string text = slurp(ncu_fixture("curated_nvtx_twostage.csv"));
  struct Case {
    std::size_t width;
    bool little;
    std::string bom;
    std::string_view said;
    std::string_view iconv;
  };
  const std::vector<Case> cases = {
      {2, true, "\xFF\xFE", "is UTF-16 text (little-endian, with a byte-order mark)",
       "`iconv -f UTF-16 -t UTF-8 capture.csv > converted.csv`"},
      {2, false, "\xFE\xFF", "is UTF-16 text (big-endian, with a byte-order mark)",
       "`iconv -f UTF-16 -t UTF-8 capture.csv > converted.csv`"},
      {2, true, "", "is UTF-16 text (little-endian, without a byte-order mark)",
       "`iconv -f UTF-16LE -t UTF-8 capture.csv > converted.csv`"},
      {2, false, "", "is UTF-16 text (big-endian, without a byte-order mark)",
       "`iconv -f UTF-16BE -t UTF-8 capture.csv > converted.csv`"},
      {4, true, std::string("\xFF\xFE\0\0", 4),
       "is UTF-32 text (little-endian, with a byte-order mark)", "`iconv -f UTF-32 -t UTF-8"},
      {4, false, "", "is UTF-32 text (big-endian, without a byte-order mark)",
       "`iconv -f UTF-32BE -t UTF-8"},
  };
  for (const Case& c : cases) {
    const std::string data = encoded(text, c.width, c.little, c.bom);
    for (const std::size_t chunk : {std::size_t{0}, std::size_t{1}, std::size_t{3}}) {
      auto result = csv::parse_ncu_csv_chunked(data, {}, "capture.csv", chunk);
      ASSERT_FALSE(result.ok()) << c.said;
      const Error& error = result.error();
      EXPECT_EQ(error.category, ErrorCategory::malformed_input);
      EXPECT_EQ(error.message.rfind("capture.csv ", 0), 0U) << error.message;
      EXPECT_NE(error.message.find(c.said), std::string::npos) << error.message;
      EXPECT_NE(error.message.find("ncu writes UTF-8: convert it with"), std::string::npos)
          << error.message;
      EXPECT_NE(error.message.find(c.iconv), std::string::npos) << error.message;
      EXPECT_EQ(error.message.find("binary"), std::string::npos) << error.message;
    }
  }
  // Shorter than the bytes looked at: the byte-order mark still says it.
  const Error tiny = parse_error(encoded("\"ID\"", 2, true, "\xFF\xFE"));
  EXPECT_NE(tiny.message.find("UTF-16 text"), std::string::npos) << tiny.message;
}

TEST(NcuCsvReader, RejectsAnUnrelatedCsv) {
  const Error plain = parse_error("name,value\nfoo,1\nbar,2\n");
  EXPECT_EQ(plain.category, ErrorCategory::malformed_input);
  EXPECT_NE(plain.message.find("no header row with ID and Kernel Name"), std::string::npos);
  const Error quoted = parse_error("\"ID\",\"Name\"\n\"1\",\"x\"\n");
  EXPECT_EQ(quoted.category, ErrorCategory::malformed_input);
}

} // namespace
} // namespace kprof
