#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kprof/analysis.hpp"
#include "unit/analysis/capture_builder.hpp"

namespace kprof {
namespace {

using test::Launch;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

constexpr const char* k_cycles = "sm__cycles_active.avg";
constexpr const char* k_duration = "gpu__time_duration.sum";

// Launches in capture order: a, b, a, a, b (indices 0..4).
Capture interleaved() {
  return test::make_raw_capture({
      Launch{"gemm_a", {{k_cycles, 100}, {k_duration, 50}}, "kprof:cand0", {}},
      Launch{"reduce_b", {{k_cycles, 10}, {k_duration, 9}}, "kprof:cand1", {}},
      Launch{"gemm_a", {{k_cycles, 300}, {k_duration, 40}}, "kprof:cand0", {}},
      Launch{"gemm_a", {{k_cycles, 200}, {k_duration, 70}}, "kprof:cand1", {}},
      Launch{"reduce_b", {{k_cycles, 30}, {k_duration, 5}}, "kprof:cand1", {}},
  });
}

std::vector<std::size_t> select(const Capture& capture, Select how,
                                std::vector<std::string> filters = {},
                                std::string nvtx_range = {}) {
  return select_kernels(capture, SelectOptions{how, std::move(filters), std::move(nvtx_range)});
}

TEST(ParseSelect, AcceptsTheFiveWordsAndTheUnderscoreSpelling) {
  for (Select select :
       {Select::first, Select::last, Select::max_cycles, Select::longest, Select::all}) {
    auto parsed = parse_select(to_string(select));
    ASSERT_TRUE(parsed) << to_string(select);
    EXPECT_EQ(*parsed, select);
  }
  auto underscore = parse_select("max_cycles");
  ASSERT_TRUE(underscore);
  EXPECT_EQ(*underscore, Select::max_cycles);
  EXPECT_EQ(to_string(Select::max_cycles), "max-cycles");
}

TEST(ParseSelect, RejectsOtherWordsListingTheValidOnes) {
  auto parsed = parse_select("biggest");
  ASSERT_FALSE(parsed);
  EXPECT_EQ(parsed.error().category, ErrorCategory::usage);
  EXPECT_THAT(parsed.error().message, HasSubstr("'biggest'"));
  EXPECT_THAT(parsed.error().message, HasSubstr("first, last, max-cycles, longest, all"));
}

TEST(SelectKernels, FirstKeepsTheFirstLaunchOfEachName) {
  EXPECT_THAT(select(interleaved(), Select::first), ElementsAre(0U, 1U));
}

TEST(SelectKernels, LastKeepsTheLastLaunchOfEachName) {
  EXPECT_THAT(select(interleaved(), Select::last), ElementsAre(3U, 4U));
}

TEST(SelectKernels, AllKeepsEveryLaunchInCaptureOrder) {
  EXPECT_THAT(select(interleaved(), Select::all), ElementsAre(0U, 1U, 2U, 3U, 4U));
}

TEST(SelectKernels, MaxCyclesKeepsTheLaunchWithMostSmActiveCycles) {
  // gemm_a: 300 cycles at index 2 although index 3 ran longer; reduce_b: 30 cycles at index 4.
  EXPECT_THAT(select(interleaved(), Select::max_cycles), ElementsAre(2U, 4U));
}

TEST(SelectKernels, LongestKeepsTheLaunchWithTheLargestDuration) {
  // gemm_a: 70 ns at index 3 although index 2 had the most cycles; reduce_b: 9 ns at index 1.
  EXPECT_THAT(select(interleaved(), Select::longest), ElementsAre(1U, 3U));
}

TEST(SelectKernels, LongestFallsBackToCyclesThenToTheLastLaunch) {
  const Capture capture = test::make_raw_capture({
      Launch{"cycled", {{k_cycles, 70}}, "", {}},
      Launch{"cycled", {{k_cycles, 90}}, "", {}},
      Launch{"cycled", {{k_cycles, 80}}, "", {}},
      Launch{"bare", {}, "", {}},
      Launch{"bare", {}, "", {}},
  });
  EXPECT_THAT(select(capture, Select::longest), ElementsAre(1U, 4U));
}

TEST(SelectKernels, MaxCyclesFallsBackToDurationThenToTheLastLaunch) {
  const Capture capture = test::make_raw_capture({
      Launch{"timed", {{k_duration, 70}}, "", {}},
      Launch{"timed", {{k_duration, 90}}, "", {}},
      Launch{"timed", {{k_duration, 80}}, "", {}},
      Launch{"bare", {}, "", {}},
      Launch{"bare", {}, "", {}},
  });
  EXPECT_THAT(select(capture, Select::max_cycles), ElementsAre(1U, 4U));
}

TEST(SelectKernels, MaxCyclesReadsSmActiveCyclesFromTheDetailsPage) {
  const Capture capture =
      test::make_capture(PageKind::details,
                         {{"SM Active Cycles", "cycle", "GPU Speed Of Light Throughput"},
                          {"Duration", "us", "GPU Speed Of Light Throughput"}},
                         {Launch{"k", {{"SM Active Cycles", 500}, {"Duration", 1}}, "", {}},
                          Launch{"k", {{"SM Active Cycles", 900}, {"Duration", 2}}, "", {}},
                          Launch{"k", {{"SM Active Cycles", 700}, {"Duration", 3}}, "", {}}});
  EXPECT_THAT(select(capture, Select::max_cycles), ElementsAre(1U));
}

TEST(SelectKernels, KernelFiltersKeepNamesContainingAnyOfThem) {
  EXPECT_THAT(select(interleaved(), Select::all, {"reduce"}), ElementsAre(1U, 4U));
  EXPECT_THAT(select(interleaved(), Select::first, {"_b", "gemm"}), ElementsAre(0U, 1U));
  EXPECT_THAT(select(interleaved(), Select::all, {"softmax"}), IsEmpty());
}

TEST(SelectKernels, NvtxRangeMustMatchExactlyAndAppliesBeforeSelection) {
  EXPECT_THAT(select(interleaved(), Select::all, {}, "kprof:cand1"), ElementsAre(1U, 3U, 4U));
  // "first" of gemm_a inside cand1 is launch 3, not launch 0.
  EXPECT_THAT(select(interleaved(), Select::first, {}, "kprof:cand1"), ElementsAre(1U, 3U));
  EXPECT_THAT(select(interleaved(), Select::all, {}, "kprof:cand"), IsEmpty());
}

TEST(SelectKernels, NeverKeepsKprofsPrimerKernel) {
  // A session's ncu.log read by `kprof report`: the primer's launch comes first, in its range.
  const Capture capture = test::make_raw_capture({
      Launch{"kprof_primer", {{"gpu__time_duration.sum", 1570}}, "kprof:primer", {}},
      Launch{"partial_sum_kernel", {{"gpu__time_duration.sum", 6300}}, "kprof:cand0", {}},
      Launch{"scale_kernel", {{"gpu__time_duration.sum", 9440}}, "kprof:cand0", {}},
  });
  EXPECT_THAT(select_kernels(capture, SelectOptions{Select::all, {}, {}}), ElementsAre(1U, 2U));
  EXPECT_THAT(select_kernels(capture, SelectOptions{Select::all, {"primer"}, {}}), IsEmpty());
  const auto only_primer =
      analyse(test::make_raw_capture(
                  {Launch{"kprof_primer", {{"gpu__time_duration.sum", 1570}}, "kprof:primer", {}}}),
              SelectOptions{});
  ASSERT_FALSE(only_primer.ok());
  EXPECT_EQ(only_primer.error().category, ErrorCategory::no_kernels);
  EXPECT_THAT(only_primer.error().message, HasSubstr("only kprof's own primer kernel"));
}

TEST(SelectKernels, PicksTheCandidateKernelsOfARecordedBatch) {
  const Capture capture = test::read_fixture("batch4_flat_regex_ranges.csv");
  ASSERT_EQ(capture.kernels.size(), 5U);
  const auto kept = select(capture, Select::max_cycles, {}, "kprof:cand1");
  ASSERT_EQ(kept.size(), 2U);
  EXPECT_EQ(capture.kernels[kept[0]].name, "partial_sum_kernel");
  EXPECT_EQ(capture.kernels[kept[1]].name, "scale_kernel");
}

} // namespace
} // namespace kprof
