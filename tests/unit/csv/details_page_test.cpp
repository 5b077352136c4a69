// Tests of the details-page reader (details_page.cpp) against real ncu 2025.3.1 output recorded
// on an H200. Expected values were read from the fixture files by hand.
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
TEST(DetailsCsvReader, KeepsEveryLabelWhenTheProjectionIsForTheRawPageOnly) {
  ReadOptions options = keep_columns_named({"dram__bytes_read.sum"});
  options.project_details_page = false;
  const Capture whole = read_fixture("batch4_details_sections_rules.csv");
  const Capture kept = read_fixture("batch4_details_sections_rules.csv", options);
  EXPECT_EQ(csv::capture_difference(whole, kept), "");

  options.project_details_page = true; // no label is called dram__bytes_read.sum
  const Capture projected = read_fixture("batch4_details_sections_rules.csv", options);
  EXPECT_TRUE(projected.columns.empty());
  ASSERT_EQ(projected.kernels.size(), whole.kernels.size());
  // Rule results are no columns: a projection keeps them.
  EXPECT_EQ(projected.kernels[0].rules.size(), whole.kernels[0].rules.size());
  EXPECT_FALSE(projected.kernels[0].rules.empty());
}

TEST(DetailsCsvReader, KeepColumnsNamedAcceptsALabelOrSectionSlashLabel) {
  const Capture capture = read_fixture(
      "batch4_details_sections_rules.csv",
      keep_columns_named({"Duration", "GPU Speed Of Light Throughput/Memory Throughput"}));
  EXPECT_EQ(capture.columns.size(), 2U);
  EXPECT_TRUE(capture.column_index("Duration"));
  EXPECT_EQ(capture.number(capture.kernels[0], "GPU Speed Of Light Throughput/Memory Throughput"),
            89.98);
}

} // namespace
} // namespace kprof
