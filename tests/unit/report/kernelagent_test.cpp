// What KernelAgent reads from kprof (include/kprof/kernelagent.hpp): the body of its
// roundNNN_ncu_metrics.json, the kernel its loop should read, the roofline and stop rule in its
// terms, and the GPU table as its spec dictionary.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <regex>
#include <vector>

#include "kprof/analysis.hpp"
#include "kprof/kernelagent.hpp"
#include "kprof/report.hpp"
#include "unit/report/report_test_support.hpp"

namespace kprof {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr const char* k_aten_fill = "void at::native::vectorized_elementwise_kernel<4, "
                                    "at::native::FillFunctor<float>, std::array<char *, 1>>(int, "
                                    "at::native::FillFunctor<float>, std::array<char *, 1>)";
constexpr const char* k_duration = "gpu__time_duration.sum";
constexpr const char* k_compute = "sm__throughput.avg.pct_of_peak_sustained_elapsed";
constexpr const char* k_memory = "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed";
constexpr const char* k_registers = "launch__registers_per_thread";
constexpr const char* k_tensor = "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed";

MetricSet ka_set() {
  return MetricSet{"test",
                   "for tests",
                   {{k_duration, "Duration", "Time"},
                    {k_compute, "Compute SOL", "Speed of light"},
                    {k_memory, "Memory SOL", "Speed of light"},
                    {k_registers, "Registers", "Occupancy"}},
                   {}};
}

/// A PyTorch op, then add_kernel launched twice (the second longer): what the issue saw.
Capture op_then_two_launches() {
  return test::CaptureBuilder()
      .column(k_duration, "ns")
      .column(k_compute, "%")
      .column(k_memory, "%")
      .column(k_registers, "register/thread")
      .launch(k_aten_fill, 0, {400000.0, 7.67, 56.04, 32.0})
      .launch("add_kernel", 1, {181088.0, 5.73, 90.16, 26.0})
      .launch("add_kernel", 2, {200000.0, 6.0, 93.5, 26.0})
      .build();
}

Json report_of(const Capture& capture, Select select) {
  SelectOptions options;
  options.select = select;
  auto analysis = analyse(capture, options);
  EXPECT_TRUE(analysis.ok());
  Json run = Json::object();
  run["round"] = 3;
  run["kernel_file"] = "/work/kernel_round_2.py";
  run["problem_file"] = "/work/problem.py";
  run["ncu_version"] = "2025.3.1.0";
  run["candidate"] = nullptr;
  run["gpu_index"] = 0;
  run["profiled_at"] = "2026-12-02T10:11:12.345678Z";
  return build_report(capture, *analysis, ka_set(), run);
}

std::vector<std::string> keys_of(const Json& object) {
  std::vector<std::string> keys;
  for (const auto& item : object.items()) {
    keys.push_back(item.key());
  }
  return keys;
}

TEST(IsLibraryKernel, TellsPyTorchCubAndCublasKernelsFromTritonOnes) {
  EXPECT_TRUE(is_library_kernel(k_aten_fill));
  EXPECT_TRUE(is_library_kernel("at::native::reduce_kernel<512, 1>"));
  EXPECT_TRUE(is_library_kernel("void cub::DeviceReduceKernel<int>"));
  EXPECT_TRUE(is_library_kernel("nvjet_tst_128x64_64x6_2x1_v_bz_coopA_NNT"));
  EXPECT_FALSE(is_library_kernel("add_kernel"));
  EXPECT_FALSE(is_library_kernel("_matvec_kernel"));
  EXPECT_FALSE(is_library_kernel("attention_fwd")); // "at" alone is no namespace
}

TEST(KernelAgentRoundJson, PutsTheCandidatesKernelFirstAndTheLibraryKernelAfter) {
  const Json body = kernelagent_round_json(report_of(op_then_two_launches(), Select::longest));
  // The PyTorch op is the longest kernel, yet KernelAgent's loop reads the first key.
  EXPECT_THAT(keys_of(body["metrics"]), ElementsAre("add_kernel", k_aten_fill));
}

TEST(KernelAgentRoundJson, KeepsOneDictPerKernelWithLongestAndAListWithAll) {
  const Json longest = kernelagent_round_json(report_of(op_then_two_launches(), Select::longest));
  ASSERT_TRUE(longest["metrics"]["add_kernel"].is_object());
  EXPECT_EQ(longest["metrics"]["add_kernel"][k_duration], 200000.0);
  EXPECT_EQ(longest["metrics"]["add_kernel"][k_memory], 93.5);
  const Json all = kernelagent_round_json(report_of(op_then_two_launches(), Select::all));
  ASSERT_TRUE(all["metrics"]["add_kernel"].is_array());
  EXPECT_EQ(all["metrics"]["add_kernel"].size(), 2U);
}

TEST(KernelAgentRoundJson, WritesFloatsExceptForCounts) {
  const Json body = kernelagent_round_json(report_of(op_then_two_launches(), Select::longest));
  const Json& add = body["metrics"]["add_kernel"];
  EXPECT_TRUE(add[k_duration].is_number_float()) << add.dump();
  EXPECT_EQ(add[k_duration].dump(), "200000.0");
  EXPECT_TRUE(add[k_registers].is_number_integer()) << add.dump();
}

TEST(KernelAgentRoundJson, HasExactlyKernelAgentsMetadataWithMicroseconds) {
  const Json body = kernelagent_round_json(report_of(op_then_two_launches(), Select::longest));
  EXPECT_THAT(keys_of(body["metadata"]),
              ElementsAre("kernel_file", "problem_file", "round_num", "timestamp", "ncu_version"));
  EXPECT_EQ(body["metadata"]["round_num"], 3);
  EXPECT_EQ(body["metadata"]["kernel_file"], "/work/kernel_round_2.py");
  EXPECT_EQ(body["metadata"]["timestamp"], "2026-12-02T10:11:12.345678Z");
}

TEST(KernelAgentRoundJson, GivesAReportWithoutProfiledAtItsGeneratedAtWithMicroseconds) {
  Json report = report_of(op_then_two_launches(), Select::longest);
  report["metadata"].erase("profiled_at");
  report["metadata"]["generated_at"] = "2026-12-02T10:11:12Z";
  EXPECT_EQ(kernelagent_round_json(report)["metadata"]["timestamp"], "2026-12-02T10:11:12.000000Z");
}

TEST(KernelAgentKernelMetrics, PicksTheFirstOwnKernelAndTheLongestOfAList) {
  const Json all = kernelagent_round_json(report_of(op_then_two_launches(), Select::all));
  Json block = Json::object();
  block[k_aten_fill] = all["metrics"][k_aten_fill]; // the library kernel first, as in capture order
  block["add_kernel"] = all["metrics"]["add_kernel"];
  const Json picked = kernelagent_kernel_metrics(block);
  EXPECT_EQ(picked["kernel"], "add_kernel");
  EXPECT_EQ(picked["metrics"][k_memory], 93.5);
}

TEST(KernelAgentKernelMetrics, TakesTheFirstKernelWhenAllAreLibraryKernelsAndFlatAsItIs) {
  Json block = Json::object();
  block[k_aten_fill] = Json{{k_memory, 56.04}};
  EXPECT_EQ(kernelagent_kernel_metrics(block)["kernel"], k_aten_fill);
  const Json flat = Json{{k_memory, 56.04}, {k_compute, 7.67}};
  EXPECT_TRUE(kernelagent_kernel_metrics(flat)["kernel"].is_null());
  EXPECT_EQ(kernelagent_kernel_metrics(flat)["metrics"], flat);
  EXPECT_TRUE(kernelagent_kernel_metrics(Json::object())["kernel"].is_null());
}

TEST(KernelAgentRoofline, GivesKprofsVerdictInKernelAgentsWords) {
  const KernelAgentRooflineConfig config;
  const Json memory = kernelagent_roofline(Json{{k_compute, 6.0}, {k_memory, 93.5}}, config);
  EXPECT_EQ(memory["bottleneck"], "memory");
  EXPECT_EQ(memory["efficiency_pct"], 93.5);
  EXPECT_EQ(memory["at_roofline"], false);
  EXPECT_DOUBLE_EQ(memory["headroom_pct"].get<double>(), 6.5);
  EXPECT_THAT(memory["explanation"].get<std::string>(), HasSubstr("memory-bound"));
  const Json low = kernelagent_roofline(Json{{k_compute, 7.7}, {k_memory, 38.8}}, config);
  EXPECT_EQ(low["bottleneck"], "underutilized");
  const Json none = kernelagent_roofline(Json{{k_duration, 5.0}}, config);
  EXPECT_EQ(none["bottleneck"], "unknown");
  EXPECT_EQ(none["warnings"].size(), 2U);
}

TEST(KernelAgentRoofline, ReadsTensorCoresFromTheMetricKprofCollects) {
  const KernelAgentRooflineConfig config;
  const Json used =
      kernelagent_roofline(Json{{k_compute, 80.0}, {k_memory, 40.0}, {k_tensor, 60.0}}, config);
  EXPECT_EQ(used["uses_tensor_cores"], true);
  // The metric KernelAgent's roofline reads, which its profiler never collects, is not used.
  const Json unused = kernelagent_roofline(
      Json{{k_compute, 80.0},
           {k_memory, 40.0},
           {"sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active", 60.0}},
      config);
  EXPECT_EQ(unused["uses_tensor_cores"], false);
}

TEST(KernelAgentRoofline, TakesThresholdsFromTheConfig) {
  const KernelAgentRooflineConfig config =
      kernelagent_roofline_config(Json{{"threshold_pct", 50.0}, {"underutilized_threshold", 30}});
  const Json result = kernelagent_roofline(Json{{k_compute, 7.7}, {k_memory, 55.0}}, config);
  EXPECT_EQ(result["bottleneck"], "memory");
  EXPECT_EQ(result["at_roofline"], true);
  EXPECT_EQ(to_json(kernelagent_roofline_config(Json::object())),
            to_json(KernelAgentRooflineConfig{}));
}

TEST(KernelAgentShouldStop, StopsAtTheRooflineOrWhenTheEfficiencyStopsMoving) {
  const KernelAgentRooflineConfig config;
  const std::vector<double> one{96.0};
  EXPECT_TRUE(kernelagent_should_stop(one, true, config).stop);
  const std::vector<double> flat{50.0, 50.02, 50.01, 50.0, 50.03};
  const StopDecision converged = kernelagent_should_stop(flat, false, config);
  EXPECT_TRUE(converged.stop);
  EXPECT_THAT(converged.reason, HasSubstr("converged"));
  const std::vector<double> moving{40.0, 45.0, 50.0, 55.0, 60.0};
  EXPECT_FALSE(kernelagent_should_stop(moving, false, config).stop);
  const std::vector<double> few{50.0, 50.0};
  EXPECT_FALSE(kernelagent_should_stop(few, false, config).stop);
  KernelAgentRooflineConfig no_early = config;
  no_early.early_stop = false;
  EXPECT_FALSE(kernelagent_should_stop(one, true, no_early).stop);
}

TEST(KernelAgentGpuSpecs, GivesTheH200InKernelAgentsKeys) {
  const auto specs = kernelagent_gpu_specs("NVIDIA H200");
  ASSERT_TRUE(specs.has_value());
  EXPECT_EQ((*specs)["name"], "NVIDIA H200");
  EXPECT_EQ((*specs)["architecture"], "Hopper");
  EXPECT_DOUBLE_EQ((*specs)["peak_memory_bw_gbps"].get<double>(), 4800.0);
  EXPECT_EQ((*specs)["sm_count"], 132);
  EXPECT_FALSE(kernelagent_gpu_specs("NVIDIA GeForce 256").has_value());
}

TEST(KernelAgentGpuSpecs, KnowsKernelAgentsSpellingsOfTheSameParts) {
  const auto sxm = kernelagent_gpu_specs("NVIDIA H100 SXM5 80GB");
  ASSERT_TRUE(sxm.has_value());
  EXPECT_EQ((*sxm)["name"], "NVIDIA H100 80GB HBM3");
  EXPECT_TRUE(kernelagent_gpu_specs("NVIDIA H100 NVL 94GB").has_value());
  EXPECT_TRUE(kernelagent_gpu_specs("NVIDIA A100 SXM4 80GB").has_value());
}

} // namespace
} // namespace kprof
