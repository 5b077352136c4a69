// Tests of the raw-page reader (raw_page.cpp) against real ncu 2025.3.1 output recorded on an
// H200. Expected values were read from the fixture files by hand.
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

using namespace test;

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
TEST(RawCsvReader, KeepColumnsNamedKeepsExactlyThoseColumns) {
  const Capture capture = read_fixture(
      "set_full_vadd.csv",
      keep_columns_named({"gpu__time_duration.sum", "dram__bytes_read.sum", "no__such.sum"}));
  ASSERT_EQ(capture.columns.size(), 2U);
  EXPECT_EQ(capture.columns[0].name, "dram__bytes_read.sum");
  EXPECT_EQ(capture.number(capture.kernels[0], "dram__bytes_read.sum"), 536899072.0);
  EXPECT_EQ(capture.number(capture.kernels[0], "gpu__time_duration.sum"), 182784.0);
}
TEST(RawCsvReader, KeepsReadingKernelAndRangeNamesThatAreNotUtf8) {
  // curated_nvtx_twostage.csv with bytes that are not UTF-8 in scale_kernel's name and in the
  // first launch's NVTX range, as a program with Latin-1 names could print them.
  const Capture capture = read_fixture("curated_nvtx_twostage_invalid_utf8.csv");
  const Capture clean = read_fixture("curated_nvtx_twostage.csv");
  ASSERT_EQ(capture.kernels.size(), 2U);
  EXPECT_EQ(capture.kernels[1].name, "scale_\xe9\xff_kernel\xc3"); // the bytes as printed
  EXPECT_EQ(capture.kernels[0].nvtx_range, "kprof\x80\xc0\xaf");
  EXPECT_EQ(capture.kernels[1].nvtx_range, "kprof");
  ASSERT_EQ(capture.columns.size(), clean.columns.size());
  EXPECT_EQ(capture.number(capture.kernels[1], "gpu__time_duration.sum"), 9856.0);
  EXPECT_EQ(capture.number(capture.kernels[0], "dram__bytes_read.sum"), 16781824.0);
}

} // namespace
} // namespace kprof
