#include <algorithm>
#include <set>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "analysis/facts.hpp"
#include "kprof/analysis.hpp"
#include "unit/analysis/capture_builder.hpp"

namespace kprof {
namespace {

using test::Launch;
using ::testing::DoubleNear;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::Optional;

constexpr const char* k_compute = "sm__throughput.avg.pct_of_peak_sustained_elapsed";
constexpr const char* k_memory = "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed";
constexpr const char* k_tensor_cycles =
    "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed";
constexpr const char* k_tensor_inst =
    "sm__inst_executed_pipe_tensor.avg.pct_of_peak_sustained_active";
constexpr const char* k_read = "dram__bytes_read.sum";
constexpr const char* k_write = "dram__bytes_write.sum";
constexpr const char* k_per_second = "dram__bytes.sum.per_second";
constexpr const char* k_duration = "gpu__time_duration.sum";

std::optional<GpuSpec> h200() {
  return find_gpu_spec("NVIDIA H200");
}

/// The roofline of the only launch of a raw capture with `numbers`.
Roofline roofline_for(std::map<std::string, double> numbers,
                      const std::optional<GpuSpec>& gpu = h200(),
                      const RooflineThresholds& thresholds = {}) {
  const Capture capture = test::make_raw_capture({Launch{"k", std::move(numbers), "", {}}});
  return roofline_of(capture, capture.kernels.front(), gpu, thresholds);
}

/// The roofline of the launch named `kernel` in a recorded fixture.
Roofline fixture_roofline(const std::string& file, const std::string& kernel) {
  const Capture capture = test::read_fixture(file);
  if (capture.kernels.empty()) {
    return {};
  }
  const KernelRecord& record = capture.kernels[test::launch_named(capture, kernel)];
  const auto device = capture.device_name();
  return roofline_of(capture, record, device ? find_gpu_spec(*device) : std::nullopt);
}

TEST(Roofline, CallsAKernelMemoryBoundWhenMemorySolLeads) {
  // vadd on the H200 (curated_nvtx_vadd.csv).
  const Roofline roofline = roofline_for({{k_compute, 5.81},
                                          {k_memory, 90.32},
                                          {k_read, 536887040},
                                          {k_write, 249017856},
                                          {k_duration, 180864}});
  EXPECT_EQ(roofline.bottleneck, Bottleneck::memory);
  EXPECT_THAT(roofline.headroom_pct, Optional(DoubleNear(9.68, 1e-9)));
  EXPECT_THAT(roofline.dram_bytes_per_s, Optional(DoubleNear(4.34528e12, 1e7)));
  EXPECT_THAT(roofline.dram_peak_fraction, Optional(DoubleNear(0.9053, 1e-4)));
  EXPECT_EQ(roofline.explanation,
            "memory-bound: memory SOL 90.3% vs compute 5.8%; DRAM 4.35 TB/s = 91% of H200 peak "
            "4.80 TB/s");
}

TEST(Roofline, CallsAKernelComputeBoundAndSeesTensorCoresInUse) {
  const Roofline roofline =
      roofline_for({{k_compute, 78.93}, {k_memory, 75.62}, {k_tensor_cycles, 78.93}});
  EXPECT_EQ(roofline.bottleneck, Bottleneck::compute);
  EXPECT_THAT(roofline.headroom_pct, Optional(DoubleNear(21.07, 1e-9)));
  EXPECT_TRUE(roofline.tensor_cores_used);
  EXPECT_THAT(roofline.explanation, HasSubstr("compute-bound: compute SOL 78.9% vs memory 75.6%"));
  EXPECT_THAT(roofline.explanation, HasSubstr("tensor pipe 78.9% active"));
}

TEST(Roofline, CallsAKernelLatencyBoundWhenBothUnitsAreBelowTheThreshold) {
  const Roofline roofline = roofline_for({{k_compute, 7.70}, {k_memory, 56.50}});
  EXPECT_EQ(roofline.bottleneck, Bottleneck::latency);
  EXPECT_THAT(roofline.headroom_pct, Optional(DoubleNear(43.5, 1e-9)));
  EXPECT_THAT(roofline.explanation, HasSubstr("latency-bound"));
  EXPECT_THAT(roofline.explanation, HasSubstr("both below 60%"));
}

TEST(Roofline, TreatsTheLatencyThresholdAsInclusiveAndTiesAsMemoryBound) {
  EXPECT_EQ(roofline_for({{k_compute, 60.0}, {k_memory, 60.0}}).bottleneck, Bottleneck::memory);
  EXPECT_EQ(roofline_for({{k_compute, 60.0}, {k_memory, 59.9}}).bottleneck, Bottleneck::compute);
  EXPECT_EQ(roofline_for({{k_compute, 59.9}, {k_memory, 59.9}}).bottleneck, Bottleneck::latency);
}

TEST(Roofline, FollowsTheCallersLatencyThreshold) {
  RooflineThresholds thresholds;
  thresholds.latency_pct = 50.0;
  EXPECT_EQ(roofline_for({{k_compute, 7.70}, {k_memory, 56.50}}, h200(), thresholds).bottleneck,
            Bottleneck::memory);
}

TEST(Roofline, FallsBackToTensorInstructionsAndAppliesTheInUseThreshold) {
  const Roofline fallback = roofline_for({{k_compute, 70}, {k_memory, 20}, {k_tensor_inst, 40}});
  EXPECT_THAT(fallback.tensor_pipe_pct, Optional(40.0));
  EXPECT_TRUE(fallback.tensor_cores_used);

  // softmax: 1.63% tensor pipe is noise, not tensor-core use.
  const Roofline idle = roofline_for(
      {{k_compute, 60.48}, {k_memory, 80.40}, {k_tensor_cycles, 1.63}, {k_tensor_inst, 1.70}});
  EXPECT_THAT(idle.tensor_pipe_pct, Optional(1.63));
  EXPECT_FALSE(idle.tensor_cores_used);
}

TEST(Roofline, UsesReportedDramBandwidthWhenBytesOrDurationAreMissing) {
  const Roofline roofline = roofline_for({{k_compute, 5}, {k_memory, 90}, {k_per_second, 2.5e12}});
  EXPECT_THAT(roofline.dram_bytes_per_s, Optional(2.5e12));
  EXPECT_THAT(roofline.dram_peak_fraction, Optional(DoubleNear(2.5 / 4.8, 1e-12)));
}

TEST(Roofline, LeavesThePeakFractionOutWhenTheGpuIsUnknown) {
  const Roofline roofline = roofline_for(
      {{k_compute, 5}, {k_memory, 90}, {k_read, 1e6}, {k_write, 1e6}, {k_duration, 1000}},
      std::nullopt);
  EXPECT_THAT(roofline.dram_bytes_per_s, Optional(DoubleNear(2e12, 1)));
  EXPECT_EQ(roofline.dram_peak_fraction, std::nullopt);
  EXPECT_THAT(roofline.explanation, Not(HasSubstr("peak")));
}

TEST(Roofline, SaysNoVerdictWithoutSpeedOfLightNumbers) {
  const Roofline roofline = roofline_for({{k_duration, 1000}});
  EXPECT_EQ(roofline.compute_sol_pct, std::nullopt);
  EXPECT_EQ(roofline.memory_sol_pct, std::nullopt);
  EXPECT_EQ(roofline.headroom_pct, std::nullopt);
  EXPECT_THAT(roofline.explanation, HasSubstr("no verdict"));
}

TEST(Roofline, DecidesOnTheOneSolThatWasCollected) {
  const Roofline roofline = roofline_for({{k_memory, 85}});
  EXPECT_EQ(roofline.bottleneck, Bottleneck::memory);
  EXPECT_THAT(roofline.explanation, HasSubstr("compute not collected"));
}

TEST(Roofline, ReadsTheDetailsPageLabelsAndTellsTheTwoMemoryThroughputsApart) {
  // Memory Throughput is both a SOL percentage and a byte/s figure; the reader names such labels
  // "Section/Label".
  const Capture capture = test::make_capture(
      PageKind::details,
      {{"Duration", "us", "GPU Speed Of Light Throughput"},
       {"Memory Workload Analysis/Memory Throughput", "Tbyte/s", "Memory Workload Analysis"},
       {"GPU Speed Of Light Throughput/Memory Throughput", "%", "GPU Speed Of Light Throughput"},
       {"Compute (SM) Throughput", "%", "GPU Speed Of Light Throughput"}},
      {Launch{"softmax_kernel",
              {{"Duration", 63.104},
               {"Memory Workload Analysis/Memory Throughput", 3.86},
               {"GPU Speed Of Light Throughput/Memory Throughput", 80.34},
               {"Compute (SM) Throughput", 60.16}},
              "",
              {}}});
  const Roofline roofline = roofline_of(capture, capture.kernels.front(), h200());
  EXPECT_THAT(roofline.memory_sol_pct, Optional(80.34));
  EXPECT_THAT(roofline.compute_sol_pct, Optional(60.16));
  EXPECT_EQ(roofline.bottleneck, Bottleneck::memory);
  EXPECT_THAT(roofline.dram_bytes_per_s, Optional(DoubleNear(3.86e12, 1)));
}

TEST(RooflineOnRecordedRuns, FindsVaddMemoryBound) {
  const Roofline roofline = fixture_roofline("curated_nvtx_vadd.csv", "add_kernel");
  EXPECT_EQ(roofline.bottleneck, Bottleneck::memory);
  EXPECT_THAT(roofline.memory_sol_pct, Optional(DoubleNear(90.32, 1e-9)));
  EXPECT_THAT(roofline.compute_sol_pct, Optional(DoubleNear(5.81, 1e-9)));
  // (536,887,040 + 249,017,856) bytes / 180,864 ns
  EXPECT_THAT(roofline.dram_bytes_per_s, Optional(DoubleNear(4.34528e12, 1e7)));
  EXPECT_FALSE(roofline.tensor_cores_used);
  EXPECT_THAT(roofline.explanation, HasSubstr("of H200 peak 4.80 TB/s"));
}

TEST(RooflineOnRecordedRuns, FindsSoftmaxMemoryBound) {
  const Roofline roofline = fixture_roofline("curated_nvtx_softmax.csv", "softmax_kernel");
  EXPECT_EQ(roofline.bottleneck, Bottleneck::memory);
  EXPECT_THAT(roofline.memory_sol_pct, Optional(DoubleNear(80.40, 1e-9)));
  EXPECT_THAT(roofline.compute_sol_pct, Optional(DoubleNear(60.48, 1e-9)));
  EXPECT_FALSE(roofline.tensor_cores_used);
}

TEST(RooflineOnRecordedRuns, FindsMatmulComputeBoundOnTensorCores) {
  const Roofline roofline = fixture_roofline("curated_nvtx_matmul.csv", "matmul_kernel");
  EXPECT_EQ(roofline.bottleneck, Bottleneck::compute);
  EXPECT_THAT(roofline.compute_sol_pct, Optional(DoubleNear(78.93, 1e-9)));
  EXPECT_THAT(roofline.memory_sol_pct, Optional(DoubleNear(75.62, 1e-9)));
  EXPECT_THAT(roofline.tensor_pipe_pct, Optional(DoubleNear(78.93, 1e-9)));
  EXPECT_TRUE(roofline.tensor_cores_used);
}

TEST(RooflineOnRecordedRuns, FindsBothTwostageKernelsLatencyBound) {
  const Roofline partial = fixture_roofline("curated_nvtx_twostage.csv", "partial_sum_kernel");
  EXPECT_EQ(partial.bottleneck, Bottleneck::latency);
  EXPECT_THAT(partial.memory_sol_pct, Optional(DoubleNear(56.50, 1e-9)));
  EXPECT_THAT(partial.compute_sol_pct, Optional(DoubleNear(7.70, 1e-9)));
  const Roofline scale = fixture_roofline("curated_nvtx_twostage.csv", "scale_kernel");
  EXPECT_EQ(scale.bottleneck, Bottleneck::latency);
  EXPECT_THAT(scale.memory_sol_pct, Optional(DoubleNear(38.79, 1e-9)));
  EXPECT_THAT(scale.compute_sol_pct, Optional(DoubleNear(9.44, 1e-9)));
}

TEST(RooflineOnRecordedRuns, ConvertsTheHumanUnitsOfAnImportedReport) {
  // ncu --import prints us, Mbyte, Kbyte and Tbyte/s: (16.787968 Mbyte + 598.016 Kbyte) /
  // 9.6 us = 1.81104 TB/s, which is what ncu itself reports.
  const Roofline roofline = fixture_roofline("import_raw_twostage.csv", "scale_kernel");
  EXPECT_EQ(roofline.bottleneck, Bottleneck::latency);
  EXPECT_THAT(roofline.dram_bytes_per_s, Optional(DoubleNear(1.81104e12, 1e6)));
}

TEST(RooflineOnRecordedRuns, ReadsTheDetailsPage) {
  const Roofline roofline = fixture_roofline("details_page_softmax.csv", "softmax_kernel");
  EXPECT_EQ(roofline.bottleneck, Bottleneck::memory);
  EXPECT_THAT(roofline.memory_sol_pct, Optional(DoubleNear(79.28, 1e-9)));
  EXPECT_THAT(roofline.compute_sol_pct, Optional(DoubleNear(59.13, 1e-9)));
}

TEST(FindGpuSpec, MatchesNamesAsNcuPrintsThemIgnoringCase) {
  for (const char* name : {"NVIDIA H200", "nvidia h200", " NVIDIA H200\n"}) {
    const auto spec = find_gpu_spec(name);
    ASSERT_TRUE(spec) << name;
    EXPECT_EQ(spec->name, "NVIDIA H200");
  }
  for (const char* name : {"NVIDIA H100 80GB HBM3", "NVIDIA H100 PCIe", "NVIDIA A100-SXM4-80GB",
                           "NVIDIA B200", "NVIDIA L40S"}) {
    EXPECT_TRUE(find_gpu_spec(name)) << name;
  }
  EXPECT_FALSE(find_gpu_spec("NVIDIA GeForce RTX 4090"));
  EXPECT_FALSE(find_gpu_spec(""));
}

constexpr const char* k_fadd =
    "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum.per_cycle_elapsed";
constexpr const char* k_fmul =
    "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum.per_cycle_elapsed";
constexpr const char* k_ffma =
    "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum.per_cycle_elapsed";
constexpr const char* k_hertz = "smsp__cycles_elapsed.avg.per_second";

TEST(Fp32Roofline, CountsAnFmaAsTwoFlopsAtTheElapsedClock) {
  const Roofline roofline = roofline_for({{k_fadd, 100},
                                          {k_fmul, 50},
                                          {k_ffma, 25},
                                          {k_hertz, 2e9},
                                          {k_per_second, 1e12},
                                          {k_duration, 1000}});
  EXPECT_THAT(roofline.fp32_flops_per_s, Optional(DoubleNear(200 * 2e9, 1)));
  EXPECT_THAT(roofline.fp32_flop_per_dram_byte, Optional(DoubleNear(0.4, 1e-12)));
}

TEST(Fp32Roofline, HasNoPointWithoutFp32WorkOrWithoutItsMetrics) {
  const Roofline idle =
      roofline_for({{k_fadd, 0}, {k_fmul, 0}, {k_ffma, 0}, {k_hertz, 2e9}, {k_per_second, 1e12}});
  EXPECT_THAT(idle.fp32_flops_per_s, Optional(0.0));
  EXPECT_FALSE(idle.fp32_flop_per_dram_byte);
  const Roofline partial = roofline_for({{k_fadd, 10}, {k_hertz, 2e9}, {k_per_second, 1e12}});
  EXPECT_FALSE(partial.fp32_flops_per_s);
  EXPECT_FALSE(partial.fp32_flop_per_dram_byte);
  const Roofline no_dram = roofline_for({{k_fadd, 10}, {k_fmul, 0}, {k_ffma, 0}, {k_hertz, 2e9}});
  EXPECT_TRUE(no_dram.fp32_flops_per_s);
  EXPECT_FALSE(no_dram.fp32_flop_per_dram_byte);
}

TEST(Fp32Roofline, ReadsTheScaledUnitsNcuPrints) {
  // The raw page prints "hz" or "Ghz", the details page "cycle/nsecond"; rates "inst/cycle".
  EXPECT_THAT(analysis::unit_scale(analysis::Unit::hertz, "Ghz"), Optional(1e9));
  EXPECT_THAT(analysis::unit_scale(analysis::Unit::hertz, "hz"), Optional(1.0));
  EXPECT_THAT(analysis::unit_scale(analysis::Unit::hertz, "cycle/nsecond"), Optional(1e9));
  EXPECT_THAT(analysis::unit_scale(analysis::Unit::hertz, "cycle/usecond"), Optional(1e6));
  EXPECT_THAT(analysis::unit_scale(analysis::Unit::per_cycle, "inst/cycle"), Optional(1.0));
  EXPECT_THAT(analysis::unit_scale(analysis::Unit::per_cycle, "Kinst/cycle"), Optional(1e3));
  EXPECT_FALSE(analysis::unit_scale(analysis::Unit::hertz, "byte/s"));
  EXPECT_FALSE(analysis::unit_scale(analysis::Unit::per_cycle, "cycle"));
}

TEST(Fp32Roofline, NamesTheMetricsItNeeds) {
  const std::vector<std::string_view> names = fp32_roofline_columns();
  EXPECT_EQ(names, (std::vector<std::string_view>{k_fadd, k_fmul, k_ffma, k_hertz, k_per_second}));
  for (const std::string_view name : names) {
    const auto columns = analysis_columns();
    EXPECT_NE(std::find(columns.begin(), columns.end(), name), columns.end()) << name;
  }
}

TEST(FindGpuSpec, GivesTheH200WhatTheRecordedDeviceReports) {
  const auto spec = find_gpu_spec("NVIDIA H200");
  ASSERT_TRUE(spec);
  EXPECT_EQ(spec->architecture, "Hopper");
  EXPECT_EQ(spec->sm_count, 132);        // device__attribute_multiprocessor_count
  EXPECT_EQ(spec->l2_bytes, 62914560.0); // device__attribute_l2_cache_size
  EXPECT_EQ(spec->dram_bandwidth_bytes_per_s, 4.8e12);
  EXPECT_EQ(spec->bf16_tensor_flops, 989e12);
}

TEST(KnownGpus, CoverHopperAmpereBlackwellAndAdaWithPositiveFigures) {
  std::set<std::string> architectures;
  for (const GpuSpec& spec : known_gpus()) {
    architectures.insert(spec.architecture);
    EXPECT_GT(spec.dram_bandwidth_bytes_per_s, 0) << spec.name;
    EXPECT_GT(spec.fp32_flops, 0) << spec.name;
    EXPECT_GT(spec.bf16_tensor_flops, spec.fp32_flops) << spec.name;
    EXPECT_GT(spec.sm_count, 0) << spec.name;
    EXPECT_GT(spec.l2_bytes, 0) << spec.name;
    EXPECT_TRUE(find_gpu_spec(spec.name)) << spec.name;
  }
  EXPECT_EQ(architectures,
            (std::set<std::string>{"Hopper", "Ampere", "Blackwell", "Ada Lovelace"}));
}

} // namespace
} // namespace kprof
