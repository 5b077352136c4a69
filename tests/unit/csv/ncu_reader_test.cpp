// Tests of the ncu CSV reader against real ncu 2025.3.1 output recorded on an H200. Expected
// values were read from the fixture files by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>
#include <unordered_set>
#include <vector>

#include "csv/ncu_reader_internal.hpp"
#include "kprof/capture.hpp"
#include "kprof/ncu_output.hpp"
#include "unit/csv/csv_test_support.hpp"

namespace kprof {
namespace {

using test::ncu_fixture;
using test::ScratchDir;
using test::slurp;

Capture read_fixture(std::string_view name, const ReadOptions& options = {}) {
  auto result = read_ncu_csv_file(ncu_fixture(name), options);
  if (!result.ok()) {
    ADD_FAILURE() << "reading " << name << " failed: " << result.error().message;
    return {};
  }
  return std::move(result).value();
}

Error parse_error(std::string_view text) {
  auto result = parse_ncu_csv(text, {}, "input.csv");
  if (result.ok()) {
    ADD_FAILURE() << "expected an error, got " << result->kernels.size() << " kernels";
    return {};
  }
  return result.error();
}

const KernelRecord& kernel_named(const Capture& capture, std::string_view name) {
  for (const KernelRecord& kernel : capture.kernels) {
    if (kernel.name == name) {
      return kernel;
    }
  }
  throw std::runtime_error("no kernel " + std::string(name));
}

/// The text of the fixture with its n-th line (1-based) cut after `keep` characters.
std::string with_line_cut(std::string text, std::size_t line, std::size_t keep) {
  std::size_t start = 0;
  for (std::size_t i = 1; i < line; ++i) {
    start = text.find('\n', start) + 1;
  }
  return text.substr(0, start + keep);
}

std::string line_of(const std::string& text, std::size_t line) {
  std::size_t start = 0;
  for (std::size_t i = 1; i < line; ++i) {
    start = text.find('\n', start) + 1;
  }
  return text.substr(start, text.find('\n', start) - start);
}

// --- raw page -----------------------------------------------------------------------------

TEST(RawCsvReader, ReadsEveryKernelWithItsIdentityFields) {
  const Capture capture = read_fixture("curated_nvtx_twostage.csv");
  EXPECT_EQ(capture.page, PageKind::raw);
  ASSERT_EQ(capture.kernels.size(), 2U);
  const KernelRecord& first = capture.kernels[0];
  EXPECT_EQ(first.id, 0);
  EXPECT_EQ(first.name, "partial_sum_kernel");
  EXPECT_EQ(first.process_id, 884);
  EXPECT_EQ(first.process_name, "python3.12");
  EXPECT_EQ(first.context, 1);
  EXPECT_EQ(first.stream, 7);
  EXPECT_EQ(first.device, 0);
  EXPECT_EQ(first.cc, "9.0");
  EXPECT_EQ(first.grid, (std::array<std::int64_t, 3>{1024, 1, 1}));
  EXPECT_EQ(first.block, (std::array<std::int64_t, 3>{128, 1, 1}));
  EXPECT_EQ(first.nvtx_range, "kprof");
  EXPECT_EQ(first.nvtx_stack, std::vector<std::string>{"kprof"});
  EXPECT_EQ(capture.kernels[1].id, 1);
  EXPECT_EQ(capture.kernels[1].name, "scale_kernel");
}

TEST(RawCsvReader, StripsThousandsSeparators) {
  const Capture capture = read_fixture("curated_nvtx_twostage.csv");
  const KernelRecord& partial = kernel_named(capture, "partial_sum_kernel");
  const KernelRecord& scale = kernel_named(capture, "scale_kernel");
  EXPECT_EQ(capture.number(partial, "dram__bytes_read.sum"), 16781824.0);
  EXPECT_EQ(capture.number(scale, "dram__bytes_read.sum"), 16788480.0);
  EXPECT_EQ(capture.number(scale, "gpu__time_duration.sum"), 9856.0);
  EXPECT_EQ(capture.number(partial, "sm__throughput.avg.pct_of_peak_sustained_elapsed"), 7.70);
}

TEST(RawCsvReader, TakesUnitsFromTheUnitsRow) {
  const Capture capture = read_fixture("curated_nvtx_twostage.csv");
  const auto dram = capture.column_index("dram__bytes_read.sum");
  const auto duration = capture.column_index("gpu__time_duration.sum");
  ASSERT_TRUE(dram && duration);
  EXPECT_EQ(capture.columns[*dram].unit, "byte");
  EXPECT_EQ(capture.columns[*duration].unit, "ns");
  const MetricValue value = capture.value(capture.kernels[1], *duration);
  EXPECT_EQ(value.kind, ValueKind::number);
  EXPECT_EQ(value.unit, "ns");
}

TEST(RawCsvReader, MakesEveryNonIdentityHeaderColumnAMetricColumn) {
  const Capture capture = read_fixture("curated_nvtx_twostage.csv");
  // 336 header columns, of which 13 are identity or ignored (ID .. CC, both NVTX columns).
  EXPECT_EQ(capture.columns.size(), 336U - 13U);
  EXPECT_FALSE(capture.column_index("Kernel Name"));
  EXPECT_FALSE(capture.column_index("Host Name"));
  for (const KernelRecord& kernel : capture.kernels) {
    EXPECT_EQ(kernel.cells.size(), capture.columns.size());
  }
}

TEST(RawCsvReader, KeepsNcuLinesInOrder) {
  const Capture capture = read_fixture("curated_nvtx_twostage.csv");
  ASSERT_EQ(capture.ncu_lines.size(), 3U);
  EXPECT_EQ(capture.ncu_lines[1], "==PROF== Connected to process 884 (/usr/bin/python3.12)");
  EXPECT_EQ(capture.ncu_lines[2], "==PROF== Disconnected from process 884");
  EXPECT_EQ(capture.foreign_lines, 0U);
}

TEST(RawCsvReader, StoresEachDistinctTextOnceInThePool) {
  const Capture capture = read_fixture("curated_nvtx_twostage.csv");
  EXPECT_EQ(capture.device_name(), "NVIDIA H200");
  const std::set<std::string> distinct(capture.text_pool.begin(), capture.text_pool.end());
  EXPECT_EQ(distinct.size(), capture.text_pool.size());
  const auto column = capture.column_index("device__attribute_display_name");
  ASSERT_TRUE(column);
  EXPECT_EQ(capture.kernels[0].cells[*column].text, capture.kernels[1].cells[*column].text);
}

TEST(RawCsvReader, ReadsSetFullWithItsTwoThousandColumnsAndSpecialValues) {
  const Capture capture = read_fixture("set_full_vadd.csv");
  ASSERT_EQ(capture.kernels.size(), 1U);
  EXPECT_EQ(capture.columns.size(), 2240U - 13U);
  const KernelRecord& kernel = capture.kernels[0];
  EXPECT_EQ(capture.number(kernel, "dram__bytes_read.sum"), 536899072.0);
  EXPECT_EQ(capture.number(kernel, "gpu__time_duration.sum"), 182784.0);

  const auto nan_column = capture.column_index("derived_tempMetric4");
  ASSERT_TRUE(nan_column);
  const MetricValue nan_value = capture.value(kernel, *nan_column);
  EXPECT_EQ(nan_value.kind, ValueKind::number);
  EXPECT_TRUE(std::isnan(nan_value.number));

  const auto no_data = capture.column_index("sass__inst_executed_register_spilling_mem_local");
  ASSERT_TRUE(no_data);
  EXPECT_EQ(capture.value(kernel, *no_data).kind, ValueKind::null);
  EXPECT_EQ(capture.value(kernel, *no_data).unit, "inst");

  const auto policy = capture.column_index("launch__cluster_scheduling_policy");
  ASSERT_TRUE(policy);
  EXPECT_EQ(capture.value(kernel, *policy).kind, ValueKind::text);
  EXPECT_EQ(capture.value(kernel, *policy).text, "PolicySpread");
  EXPECT_FALSE(capture.number(kernel, "launch__cluster_scheduling_policy"));

  // The "Unable to access" warning and the blank lines around it are not foreign.
  EXPECT_EQ(capture.ncu_lines.size(), 4U);
  EXPECT_EQ(capture.foreign_lines, 0U);
}

TEST(RawCsvReader, TakesTheValueBeforeTheParenthesisOfInstanceValues) {
  const Capture capture = read_fixture("curated_instances_twostage.csv");
  ASSERT_EQ(capture.kernels.size(), 2U);
  EXPECT_EQ(capture.number(capture.kernels[0], "launch__registers_per_thread"), 32.0);
  EXPECT_EQ(capture.number(capture.kernels[1], "launch__registers_per_thread"), 48.0);
  EXPECT_EQ(capture.number(capture.kernels[0], "launch__grid_size"), 1024.0);
  EXPECT_EQ(capture.number(capture.kernels[0], "launch__occupancy_per_block_size"), 3642.0);
  EXPECT_EQ(capture.number(capture.kernels[0], "dram__bytes_read.sum"), 16781824.0);
}

TEST(RawCsvReader, ParsesStdoutMixedOutputLikeTheSameOutputWithoutTheProgramLines) {
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

TEST(RawCsvReader, ReadsFlatRangeNamesThatContainAColon) {
  const Capture capture = read_fixture("batch4_flat_regex_ranges.csv");
  std::vector<std::string> ranges;
  for (const KernelRecord& kernel : capture.kernels) {
    ranges.push_back(kernel.nvtx_range);
    EXPECT_EQ(kernel.nvtx_stack.size(), 1U);
  }
  EXPECT_EQ(ranges, (std::vector<std::string>{"kprof:cand0", "kprof:cand1", "kprof:cand1",
                                              "kprof:cand2", "kprof:cand3"}));
  EXPECT_EQ(capture.kernels[4].name, "matmul_kernel");
  EXPECT_EQ(capture.kernels[4].grid, (std::array<std::int64_t, 3>{32, 32, 1}));
}

TEST(RawCsvReader, ReadsNestedRangesAsAStackWithTheInnermostAsRange) {
  const Capture capture = read_fixture("batch4_nested_ranges.csv");
  ASSERT_EQ(capture.kernels.size(), 5U);
  EXPECT_EQ(capture.kernels[0].nvtx_stack, (std::vector<std::string>{"kprof", "cand0"}));
  EXPECT_EQ(capture.kernels[0].nvtx_range, "cand0");
  EXPECT_EQ(capture.kernels[2].nvtx_range, "cand1");
  EXPECT_EQ(capture.kernels[4].nvtx_range, "cand3");
}

TEST(RawCsvReader, ReadsOutputWithoutNvtxColumnAndKeepsTheErrorLine) {
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

TEST(RawCsvReader, ReadsImportOutputConvertingItsScaledUnitsToBaseUnits) {
  // `ncu --import --csv` prints "Mbyte", "us", "Gbyte/s", "Kbyte/block" where a live run prints
  // base units; the reader stores base units so both kinds of capture mean the same.
  const Capture capture = read_fixture("import_raw_twostage.csv");
  ASSERT_EQ(capture.kernels.size(), 2U);
  EXPECT_TRUE(capture.ncu_lines.empty());
  EXPECT_EQ(capture.kernels[0].process_id, 1655);
  const KernelRecord& partial = capture.kernels[0];
  const auto unit_of = [&](std::string_view name) {
    return capture.columns[capture.column_index(name).value()].unit;
  };
  EXPECT_EQ(unit_of("dram__bytes_read.sum"), "byte");                     // printed "Mbyte"
  EXPECT_EQ(capture.number(partial, "dram__bytes_read.sum"), 16781824.0); // "16.781824"
  EXPECT_EQ(unit_of("gpu__time_duration.sum"), "ns");                     // printed "us"
  EXPECT_EQ(capture.number(partial, "gpu__time_duration.sum"), 6176.0);   // "6.176000"
  EXPECT_EQ(unit_of("dram__bytes.sum.per_second"), "byte/s");             // printed "Tbyte/s"
  EXPECT_EQ(capture.number(partial, "dram__bytes.sum.per_second"), 2717264000000.0);
  EXPECT_EQ(unit_of("launch__shared_mem_per_block"), "byte/block"); // printed "Kbyte/block"
  EXPECT_EQ(capture.number(partial, "launch__shared_mem_per_block"), 1040.0);
  EXPECT_EQ(capture.number(partial, "launch__grid_size"), 1024.0);
}

TEST(RawCsvReader, ReadsOutputWhereNcuDroppedAnUnknownMetric) {
  const Capture capture = read_fixture("invalid_metric_name.txt");
  ASSERT_EQ(capture.kernels.size(), 1U);
  EXPECT_EQ(capture.number(capture.kernels[0], "dram__bytes_read.sum"), 536882944.0);
  EXPECT_FALSE(capture.column_index("foo__bar.sum"));
  EXPECT_EQ(capture.foreign_lines, 1U); // the WRAPPER line
}

TEST(RawCsvReader, ProjectionKeepsOnlyTheAskedColumnsInHeaderOrder) {
  const std::unordered_set<std::string> wanted{"gpu__time_duration.sum", "dram__bytes_read.sum",
                                               "no__such_metric.sum"};
  ReadOptions options;
  std::vector<std::string> asked;
  options.keep_column = [&](std::string_view name) {
    asked.emplace_back(name);
    return wanted.contains(std::string(name));
  };
  const Capture capture = read_fixture("curated_nvtx_twostage.csv", options);
  ASSERT_EQ(capture.columns.size(), 2U);
  EXPECT_EQ(capture.columns[0].name, "dram__bytes_read.sum");
  EXPECT_EQ(capture.columns[1].name, "gpu__time_duration.sum");
  EXPECT_EQ(capture.columns[1].unit, "ns");
  // Identity columns are never offered to keep_column.
  EXPECT_EQ(asked.size(), 336U - 13U);
  ASSERT_EQ(capture.kernels.size(), 2U);
  EXPECT_EQ(capture.kernels[1].cells.size(), 2U);
  EXPECT_EQ(capture.number(capture.kernels[1], "gpu__time_duration.sum"), 9856.0);
  EXPECT_EQ(capture.kernels[1].nvtx_range, "kprof");
  EXPECT_EQ(capture.kernels[1].grid, (std::array<std::int64_t, 3>{1024, 1, 1}));
  EXPECT_FALSE(capture.device_name()); // its column was not kept
}

TEST(RawCsvReader, ChunkSizeDoesNotChangeTheResult) {
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

TEST(RawCsvReader, ReadsQuotedCommasQuotesAndNewlinesAcrossChunkBoundaries) {
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

TEST(RawCsvReader, CountsLinesInsideQuotedFieldsWhenNamingTheBadLine) {
  // The first row spans lines 4 and 5, so the second row (cut short) is line 6.
  std::string text(k_quoted_table.substr(0, k_quoted_table.find("\"1\",\"1\",\"python3\"")));
  text += "\"1\",\"1\",\"python3\"\n";
  const Error error = parse_error(text);
  EXPECT_EQ(error.category, ErrorCategory::malformed_input);
  EXPECT_NE(error.message.find("input.csv: line 6:"), std::string::npos) << error.message;
}

TEST(RawCsvReader, ReadsWindowsLineEndingsLikeUnixOnes) {
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

// --- failures -----------------------------------------------------------------------------

TEST(RawCsvReader, ReportsNoKernelsWhenNcuSaysSo) {
  auto result = read_ncu_csv_file(ncu_fixture("no_kernels_profiled.txt"));
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().category, ErrorCategory::no_kernels);
  EXPECT_NE(result.error().message.find("no_kernels_profiled.txt"), std::string::npos);
}

TEST(RawCsvReader, ReportsNoKernelsForAHeaderWithoutRows) {
  const std::string text = slurp(ncu_fixture("curated_nvtx_twostage.csv"));
  const Error error = parse_error(with_line_cut(text, 6, 0)); // header and units only
  EXPECT_EQ(error.category, ErrorCategory::no_kernels);
  EXPECT_NE(error.message.find("line 4"), std::string::npos) << error.message;
}

TEST(RawCsvReader, RejectsEmptyInput) {
  EXPECT_EQ(parse_error("").category, ErrorCategory::malformed_input);
  const ScratchDir dir;
  auto result = read_ncu_csv_file(dir.write("empty.csv", ""));
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().category, ErrorCategory::malformed_input);
  EXPECT_NE(result.error().message.find("empty.csv"), std::string::npos);
}

TEST(RawCsvReader, RejectsBinaryData) {
  std::string text = slurp(ncu_fixture("curated_nvtx_twostage.csv"));
  text.insert(text.find("\"0\",\"884\""), std::string("\x08\x01\x00\x12", 4));
  const Error error = parse_error(text);
  EXPECT_EQ(error.category, ErrorCategory::malformed_input);
  EXPECT_NE(error.message.find("line 6"), std::string::npos) << error.message;
  EXPECT_EQ(error.message.find('\n'), std::string::npos);
}

TEST(RawCsvReader, RejectsAnUnrelatedCsv) {
  const Error plain = parse_error("name,value\nfoo,1\nbar,2\n");
  EXPECT_EQ(plain.category, ErrorCategory::malformed_input);
  EXPECT_NE(plain.message.find("no header row with ID and Kernel Name"), std::string::npos);
  const Error quoted = parse_error("\"ID\",\"Name\"\n\"1\",\"x\"\n");
  EXPECT_EQ(quoted.category, ErrorCategory::malformed_input);
}

TEST(RawCsvReader, RejectsATruncatedLastRowNamingItsLine) {
  const std::string text = slurp(ncu_fixture("curated_nvtx_twostage.csv"));
  const std::string last = line_of(text, 7);
  // Cut between two fields: the row is short.
  const std::size_t between = last.find("\"scale_kernel\",") + 15;
  const Error short_row = parse_error(with_line_cut(text, 7, between));
  EXPECT_EQ(short_row.category, ErrorCategory::malformed_input);
  EXPECT_NE(short_row.message.find("input.csv: line 7:"), std::string::npos) << short_row.message;
  // Cut inside a quoted field: the quote never closes.
  const Error open_quote = parse_error(with_line_cut(text, 7, between + 2));
  EXPECT_EQ(open_quote.category, ErrorCategory::malformed_input);
  EXPECT_NE(open_quote.message.find("line 7"), std::string::npos) << open_quote.message;
}

TEST(RawCsvReader, RejectsARowWithMoreFieldsThanTheHeader) {
  std::string text = slurp(ncu_fixture("curated_nvtx_twostage.csv"));
  const std::size_t end_of_row = text.find('\n', text.find("\"0\",\"884\""));
  text.insert(end_of_row, ",\"extra\"");
  const Error error = parse_error(text);
  EXPECT_EQ(error.category, ErrorCategory::malformed_input);
  EXPECT_NE(error.message.find("line 6"), std::string::npos) << error.message;
}

TEST(RawCsvReader, RejectsANonNumericIdOrGridSize) {
  std::string text = slurp(ncu_fixture("curated_nvtx_twostage.csv"));
  std::string bad_id = text;
  bad_id.replace(bad_id.find("\"1\",\"884\""), 3, "\"x\"");
  const Error id_error = parse_error(bad_id);
  EXPECT_EQ(id_error.category, ErrorCategory::malformed_input);
  EXPECT_NE(id_error.message.find("line 7"), std::string::npos) << id_error.message;

  std::string bad_grid = text;
  bad_grid.replace(bad_grid.find("\"(1024, 1, 1)\""), 14, "\"(1024, one, 1)\"");
  EXPECT_EQ(parse_error(bad_grid).category, ErrorCategory::malformed_input);
}

TEST(RawCsvReader, ReportsAMissingFileAsInputNotFound) {
  const ScratchDir dir;
  auto result = read_ncu_csv_file(dir.path() / "absent.csv");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().category, ErrorCategory::input_not_found);
  EXPECT_NE(result.error().message.find("absent.csv"), std::string::npos);
}

TEST(NcuReportDetection, RecognisesReportsByExtensionOrTheirMagicBytes) {
  const ScratchDir dir;
  EXPECT_TRUE(looks_like_ncu_report(dir.write("run.ncu-rep", "anything")));
  EXPECT_TRUE(looks_like_ncu_report(dir.write("report.bin", std::string("NVR\0\x02\0\0\0", 8))));
  // Any other binary file is malformed input, not a report that would need ncu.
  EXPECT_FALSE(looks_like_ncu_report(dir.write("noise.csv", std::string("NVPF\0\x01\x02", 7))));
  EXPECT_FALSE(looks_like_ncu_report(ncu_fixture("curated_nvtx_twostage.csv")));
  EXPECT_FALSE(looks_like_ncu_report(dir.path() / "absent"));
}

// --- details page ---------------------------------------------------------------------------

TEST(DetailsCsvReader, ReadsSectionMetricsAsColumnsWithUnits) {
  const Capture capture = read_fixture("details_page_softmax.csv");
  EXPECT_EQ(capture.page, PageKind::details);
  ASSERT_EQ(capture.kernels.size(), 1U);
  const KernelRecord& kernel = capture.kernels[0];
  EXPECT_EQ(kernel.name, "softmax_kernel");
  EXPECT_EQ(kernel.grid, (std::array<std::int64_t, 3>{16384, 1, 1}));
  EXPECT_EQ(kernel.block, (std::array<std::int64_t, 3>{256, 1, 1}));
  EXPECT_EQ(kernel.nvtx_range, "kprof");
  EXPECT_EQ(capture.columns.size(), 23U); // 23 metric rows, all labels distinct
  EXPECT_EQ(capture.number(kernel, "Duration"), 63904.0);
  EXPECT_EQ(capture.number(kernel, "DRAM Frequency"), 3197170756.13);
  EXPECT_EQ(capture.number(kernel, "Achieved Occupancy"), 93.79);
  const auto duration = capture.column_index("Duration");
  ASSERT_TRUE(duration);
  EXPECT_EQ(capture.columns[*duration].unit, "ns");
  EXPECT_EQ(capture.columns[*duration].section, "GPU Speed Of Light Throughput");
  const auto clusters = capture.column_index("Max Active Clusters");
  ASSERT_TRUE(clusters);
  EXPECT_EQ(capture.columns[*clusters].section, "Occupancy");
  EXPECT_EQ(capture.columns[*clusters].unit, "cluster");
}

TEST(DetailsCsvReader, ReadsRuleResultsWithTheirSpeedups) {
  const Capture softmax = read_fixture("details_page_softmax.csv");
  ASSERT_EQ(softmax.kernels[0].rules.size(), 1U);
  const RuleResult& bottleneck = softmax.kernels[0].rules[0];
  EXPECT_EQ(bottleneck.section, "SpeedOfLight");
  EXPECT_EQ(bottleneck.name, "SOLBottleneck");
  EXPECT_EQ(bottleneck.type, "OPT");
  EXPECT_TRUE(bottleneck.description.starts_with("Memory is more heavily utilized than Compute"));
  EXPECT_EQ(bottleneck.speedup_type, "");
  EXPECT_FALSE(bottleneck.estimated_speedup);

  const Capture batch = read_fixture("batch4_details_sections_rules.csv");
  const KernelRecord& partial = kernel_named(batch, "partial_sum_kernel");
  ASSERT_EQ(partial.rules.size(), 6U);
  EXPECT_EQ(partial.rules[1].section, "SchedulerStats");
  EXPECT_EQ(partial.rules[1].name, "IssueSlotUtilization");
  EXPECT_EQ(partial.rules[1].speedup_type, "local");
  EXPECT_EQ(partial.rules[1].estimated_speedup, 43.74);
  EXPECT_EQ(partial.rules[2].type, "WRN");
  EXPECT_FALSE(partial.rules[2].estimated_speedup);
}

TEST(DetailsCsvReader, GroupsTheRowsOfOneIdIntoOneKernel) {
  const Capture capture = read_fixture("batch4_details_sections_rules.csv");
  ASSERT_EQ(capture.kernels.size(), 5U);
  std::vector<std::string> names;
  for (const KernelRecord& kernel : capture.kernels) {
    names.push_back(kernel.name);
    EXPECT_EQ(kernel.cells.size(), capture.columns.size());
  }
  EXPECT_EQ(names, (std::vector<std::string>{"add_kernel", "partial_sum_kernel", "scale_kernel",
                                             "softmax_kernel", "matmul_kernel"}));
  EXPECT_EQ(capture.kernels[0].nvtx_stack, (std::vector<std::string>{"kprof", "cand0"}));
  EXPECT_EQ(capture.columns.size(), 61U);
  EXPECT_EQ(capture.number(capture.kernels[0], "Duration"), 181568.0);
  EXPECT_EQ(capture.number(capture.kernels[0], "Registers Per Thread"), 26.0);
}

TEST(DetailsCsvReader, QualifiesLabelsThatRepeatAcrossSections) {
  const Capture capture = read_fixture("batch4_details_sections_rules.csv");
  EXPECT_FALSE(capture.column_index("Memory Throughput"));
  const KernelRecord& add = capture.kernels[0];
  EXPECT_EQ(capture.number(add, "GPU Speed Of Light Throughput/Memory Throughput"), 89.98);
  EXPECT_EQ(capture.number(add, "Memory Workload Analysis/Memory Throughput"), 4327867465632.71);
  const auto bandwidth = capture.column_index("Memory Workload Analysis/Memory Throughput");
  ASSERT_TRUE(bandwidth);
  EXPECT_EQ(capture.columns[*bandwidth].unit, "byte/s");
  EXPECT_EQ(capture.columns[*bandwidth].section, "Memory Workload Analysis");
}

TEST(DetailsCsvReader, ProjectionAcceptsLabelsOrQualifiedNames) {
  ReadOptions options;
  options.keep_column = [](std::string_view name) {
    return name == "Duration" || name == "Memory Workload Analysis/Memory Throughput";
  };
  const Capture capture = read_fixture("batch4_details_sections_rules.csv", options);
  ASSERT_EQ(capture.columns.size(), 2U);
  EXPECT_EQ(capture.columns[0].name, "Duration");
  // Still qualified: the label repeats in the output even though one of them was dropped.
  EXPECT_EQ(capture.columns[1].name, "Memory Workload Analysis/Memory Throughput");
  EXPECT_EQ(capture.number(capture.kernels[4], "Memory Workload Analysis/Memory Throughput"),
            969446503659.87);
  EXPECT_EQ(capture.kernels[1].rules.size(), 6U); // rules are always read
}

TEST(DetailsCsvReader, RejectsATruncatedRow) {
  const std::string text = slurp(ncu_fixture("details_page_softmax.csv"));
  const std::string row = line_of(text, 10);
  const Error error = parse_error(with_line_cut(text, 10, row.find("\"softmax_kernel\"")));
  EXPECT_EQ(error.category, ErrorCategory::malformed_input);
  EXPECT_NE(error.message.find("line 10"), std::string::npos) << error.message;
}

} // namespace
} // namespace kprof
