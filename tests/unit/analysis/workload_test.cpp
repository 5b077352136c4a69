#include "kprof/workload.hpp"

#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kprof {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TimelineLaunch launch(std::string name, std::int64_t grid, double us, std::string op = {}) {
  TimelineLaunch l;
  l.name = std::move(name);
  l.grid = {grid, 1, 1};
  l.block = {128, 1, 1};
  l.shared_memory = 0;
  l.registers = 32;
  l.duration_us = us;
  l.op = std::move(op);
  return l;
}

/// An LSTM-like call: a first elementwise kernel, then `steps` of (gemv, cell), a last gemm.
Timeline lstm_like(std::size_t steps) {
  Timeline timeline;
  timeline.launches.push_back(launch("void at::native::elementwise_kernel<128, 2>(int)", 4, 4));
  for (std::size_t i = 0; i < steps; ++i) {
    timeline.launches.push_back(
        launch("void gemmSN_TN_kernel<float, 128>(cublasGemvParams)", 8, 3.0, "aten::lstm"));
    timeline.launches.push_back(launch(
        "void elemWiseRNNcell<float, (cudnnRNNMode_t)2>(int, float*)", 16, 2.0, "aten::lstm"));
  }
  timeline.launches.push_back(launch("void cutlass::Kernel2<cutlass_80_gemm>(Params)", 2, 5.0));
  return timeline;
}

KernelRecord row(std::int64_t id, std::string name, std::int64_t grid,
                 std::string range = "kprof:cand0") {
  KernelRecord r;
  r.id = id;
  r.name = std::move(name);
  r.grid = {grid, 1, 1};
  r.block = {128, 1, 1};
  r.nvtx_range = std::move(range);
  return r;
}

TEST(KernelFunctionName, DropsReturnTypeScopesTemplateArgumentsAndParameters) {
  EXPECT_EQ(kernel_function_name("void at::native::elementwise_kernel<128, 2, "
                                 "at::native::gpu_kernel_impl<(int)1>>(int, float*)"),
            "elementwise_kernel");
  EXPECT_EQ(kernel_function_name("void at::native::(anonymous namespace)::"
                                 "distribution_elementwise_grid_stride_kernel<float, 4>(int)"),
            "distribution_elementwise_grid_stride_kernel");
  EXPECT_EQ(kernel_function_name("sm90_xmma_fprop_implicit_gemm_f32f32_tf32f32"),
            "sm90_xmma_fprop_implicit_gemm_f32f32_tf32f32");
  EXPECT_EQ(kernel_function_name("softmax_kernel"), "softmax_kernel");
}

TEST(ParseTimeline, ReadsEveryLaunchWithItsShapeAndOp) {
  auto timeline = parse_timeline(
      R"({"version": 1, "call_us": 26400.5, "process_seconds": 3.5, "launches": [
          {"name": "k", "grid": [2, 3, 1], "block": [128, 1, 1], "registers": 40,
           "shared_memory": 1024, "stream": 7, "start_us": 0, "duration_us": 2.5,
           "op": "aten::mm"}]})",
      "timeline.json");
  ASSERT_TRUE(timeline) << timeline.error().message;
  ASSERT_EQ(timeline->launches.size(), 1U);
  const TimelineLaunch& l = timeline->launches[0];
  EXPECT_EQ(l.grid, (std::array<std::int64_t, 3>{2, 3, 1}));
  EXPECT_EQ(l.registers, 40);
  EXPECT_EQ(l.shared_memory, 1024);
  EXPECT_EQ(l.stream, 7);
  EXPECT_DOUBLE_EQ(l.duration_us, 2.5);
  EXPECT_EQ(l.op, "aten::mm");
  EXPECT_DOUBLE_EQ(timeline->call_us, 26400.5);
}

TEST(ParseTimeline, ATimelineThatFailedIsTheProgramsErrorAndGarbageIsMalformed) {
  auto failed = parse_timeline(R"({"version": 1, "error": "RuntimeError: boom"})", "t.json");
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error().category, ErrorCategory::kernel_raised);
  EXPECT_THAT(failed.error().message, HasSubstr("RuntimeError: boom"));
  auto garbage = parse_timeline("[1, 2", "t.json");
  ASSERT_FALSE(garbage);
  EXPECT_EQ(garbage.error().category, ErrorCategory::malformed_input);
  auto nameless = parse_timeline(R"({"version": 1, "launches": [{"grid": [1,1,1]}]})", "t.json");
  ASSERT_FALSE(nameless);
  EXPECT_EQ(nameless.error().category, ErrorCategory::malformed_input);
}

TEST(NeedsTwoTiers, OnlyACallOfMoreLaunchesThanTheThreshold) {
  EXPECT_FALSE(needs_two_tiers(lstm_like(1)));
  EXPECT_TRUE(needs_two_tiers(lstm_like(3072)));
}

TEST(PlanReplays, GroupsThousandsOfLaunchesIntoDistinctKernelsMostTimeFirst) {
  const Timeline timeline = lstm_like(3072);
  const ReplayPlan plan = plan_replays(timeline, {});
  EXPECT_EQ(plan.launches, 6146U);
  ASSERT_EQ(plan.shapes.size(), 4U);
  EXPECT_EQ(plan.shapes[0].function, "gemmSN_TN_kernel");
  EXPECT_EQ(plan.shapes[0].launches.size(), 3072U);
  EXPECT_DOUBLE_EQ(plan.shapes[0].total_us, 3072 * 3.0);
  EXPECT_THAT(plan.shapes[0].ops, ElementsAre("aten::lstm"));
  EXPECT_EQ(plan.shapes[1].function, "elemWiseRNNcell");
  // Four configurations, one launch each: within the budget, so no name filter.
  EXPECT_EQ(plan.planned, 4U);
  EXPECT_TRUE(plan.names.empty());
  EXPECT_THAT(plan.shapes[0].planned, ElementsAre(1U));
  EXPECT_THAT(plan.shapes[1].planned, ElementsAre(2U));
  EXPECT_THAT(replay_filter_args(plan),
              ElementsAre("--filter-mode", "per-launch-config", "--launch-count", "1"));
}

TEST(PlanReplays, UnderTheBudgetKeepsTheKernelsOfMostTimeAndNamesThemToNcu) {
  const ReplayPlan plan = plan_replays(lstm_like(100), {.max_replayed = 2, .per_shape = 1});
  EXPECT_EQ(plan.planned, 2U);
  EXPECT_THAT(plan.names, ElementsAre("elemWiseRNNcell", "gemmSN_TN_kernel"));
  const auto args = replay_filter_args(plan);
  ASSERT_EQ(args.size(), 6U);
  EXPECT_EQ(args[4], "--kernel-name");
  EXPECT_EQ(args[5], "regex:^(.*::)?(elemWiseRNNcell|gemmSN_TN_kernel)([<(].*)?$");
  EXPECT_TRUE(plan.shapes[2].planned.empty());
  EXPECT_TRUE(plan.shapes[3].planned.empty());
}

TEST(PlanReplays, ByConfigurationAloneTwoKernelsOfOneShapeShareNcusCount) {
  Timeline timeline;
  timeline.launches = {launch("a_kernel", 4, 1.0), launch("b_kernel", 4, 9.0),
                       launch("a_kernel", 4, 1.0), launch("b_kernel", 4, 9.0)};
  const ReplayPlan by_config = plan_replays(timeline, {}, ConfigGrouping::config);
  EXPECT_EQ(by_config.planned, 1U);
  EXPECT_TRUE(by_config.shapes[0].planned.empty()); // b_kernel: ncu's one launch went to a_kernel
  const ReplayPlan by_name = plan_replays(timeline, {}, ConfigGrouping::name_and_config);
  EXPECT_EQ(by_name.planned, 2U);
  EXPECT_THAT(by_name.shapes[0].planned, ElementsAre(1U));
}

TEST(MatchReplayed, MatchesRowsInLaunchOrderByFunctionAndShapeWhateverNcuGroupedBy) {
  const Timeline timeline = lstm_like(3);
  Capture capture;
  capture.kernels = {row(0, "kprof_primer", 1, "kprof:primer"),
                     row(1, "gemmSN_TN_kernel<float, 128>(cublasGemvParams)", 8),
                     row(2, "void elemWiseRNNcell<float, (cudnnRNNMode_t)2>(int, float*)", 16),
                     row(3, "gemmSN_TN_kernel", 8), row(4, "unknown_kernel", 8)};
  const auto matched = match_replayed(timeline, capture, "kprof:cand0");
  EXPECT_FALSE(matched[0]);
  EXPECT_EQ(matched[1], 1U);
  EXPECT_EQ(matched[2], 2U);
  EXPECT_EQ(matched[3], 3U);
  EXPECT_FALSE(matched[4]);
}

TEST(WorkloadJson, SaysWhichLaunchWasMeasuredAndWhatShareOfTheCallItsKernelTakes) {
  const Timeline timeline = lstm_like(3072);
  const ReplayPlan plan = plan_replays(timeline, {});
  Capture capture;
  capture.kernels = {row(7, "gemmSN_TN_kernel", 8)};
  const auto doc = workload_json(timeline, plan, capture, "kprof:cand0");
  EXPECT_EQ(doc["launches"], 6146);
  EXPECT_EQ(doc["replayed"], 1);
  const auto& gemv = doc["kernels"][0];
  EXPECT_EQ(gemv["launches"], 3072);
  EXPECT_EQ(gemv["replayed"][0]["launch"], 1);
  EXPECT_EQ(gemv["replayed"][0]["id"], 7);
  EXPECT_EQ(gemv["summary"], "measured on launch 2 of 6,146; the 3,072 launches take 9.22 ms, "
                             "60% of the call's kernel time");
  // The other kernels were planned but no row came back: the report says so.
  EXPECT_THAT(doc["kernels"][1]["summary"].get<std::string>(),
              HasSubstr("ncu replayed no launch of this shape"));
  EXPECT_EQ(doc["left_out"]["kernels"], 3);
  EXPECT_THAT(doc["left_out"]["note"].get<std::string>(), HasSubstr("--max-replayed, now 24"));
}

TEST(WorkloadJson, AKernelTheBudgetLeftOutSaysSo) {
  const Timeline timeline = lstm_like(100);
  const ReplayPlan plan = plan_replays(timeline, {.max_replayed = 1, .per_shape = 1});
  const auto doc = workload_json(timeline, plan, Capture{}, "kprof:cand0");
  EXPECT_THAT(doc["kernels"][1]["summary"].get<std::string>(),
              HasSubstr("left out by the budget of 1 replays"));
}

TEST(WorkloadJson, TheTimelineKeepsEachLanesBusyTimePerBinWhateverTheLaunchCount) {
  // Ten kernels, one after the other, each 10 us: the eight of most time get lanes, the last
  // two share one; every microsecond of the call lands in one bin of one lane.
  Timeline timeline;
  for (int k = 0; k < 10; ++k) {
    TimelineLaunch l = launch("kernel_" + std::to_string(k), k + 1, 10.0 + k);
    l.start_us = k * 24.0;
    timeline.launches.push_back(l);
  }
  const ReplayPlan plan = plan_replays(timeline, {});
  const auto doc = workload_json(timeline, plan, Capture{}, "kprof:cand0");
  const auto& lanes = doc["timeline"]["lanes"];
  ASSERT_EQ(lanes.size(), k_timeline_lanes + 1);
  EXPECT_EQ(doc["timeline"]["bins"], k_timeline_bins);
  EXPECT_DOUBLE_EQ(doc["timeline"]["span_us"].get<double>(), 9 * 24.0 + 19.0);
  EXPECT_EQ(lanes[0]["function"], "kernel_9"); // most time first, as the kernels
  EXPECT_EQ(lanes[k_timeline_lanes]["function"], "2 other kernels");
  EXPECT_TRUE(lanes[k_timeline_lanes]["kernel"].is_null());
  double total = 0;
  for (const auto& lane : lanes) {
    ASSERT_EQ(lane["busy_us"].size(), k_timeline_bins);
    for (const auto& us : lane["busy_us"]) {
      total += us.get<double>();
    }
  }
  EXPECT_NEAR(total, 145.0, 0.05 * k_timeline_bins); // 10 + 11 + ... + 19, each bin to 0.1 us
  // kernel_9 starts at 216 us of a 235 us span: its time sits in the last bins only.
  const auto& last = lanes[0]["busy_us"];
  EXPECT_EQ(last[0].get<double>(), 0.0);
  EXPECT_GT(last[k_timeline_bins - 1].get<double>(), 0.0);
}

} // namespace
} // namespace kprof
