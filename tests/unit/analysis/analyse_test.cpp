#include <cmath>
#include <filesystem>
#include <limits>
#include <set>
#include <string_view>
#include <tuple>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "analysis/facts.hpp"
#include "csv/ncu_reader_internal.hpp"
#include "kprof/analysis.hpp"
#include "kprof/metric_sets.hpp"
#include "kprof/ncu_output.hpp"
#include "unit/analysis/capture_builder.hpp"

namespace kprof {
namespace {

using test::Launch;
using ::testing::DoubleNear;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Optional;

constexpr const char* k_compute = "sm__throughput.avg.pct_of_peak_sustained_elapsed";
constexpr const char* k_memory = "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed";
constexpr const char* k_duration = "gpu__time_duration.sum";

// gemm_a twice (50 ns, then 70 ns), reduce_b twice (9 ns, 5 ns); the longer gemm_a launch is
// memory-bound, the shorter compute-bound.
Capture two_kernels(const std::string& device = "NVIDIA H200") {
  return test::make_raw_capture(
      {
          Launch{"gemm_a", {{k_duration, 50}, {k_compute, 90}, {k_memory, 20}}, "kprof", {}},
          Launch{"reduce_b", {{k_duration, 9}, {k_compute, 5}, {k_memory, 30}}, "kprof", {}},
          Launch{"gemm_a", {{k_duration, 70}, {k_compute, 20}, {k_memory, 95}}, "kprof", {}},
          Launch{"reduce_b", {{k_duration, 5}, {k_compute, 5}, {k_memory, 35}}, "other", {}},
      },
      device);
}

TEST(FactLookup, ConvertsDetailsPageDurationsToNanoseconds) {
  for (const auto& [unit, value, expected] :
       {std::tuple{"ns", 63904.0, 63904.0}, std::tuple{"usecond", 63.904, 63904.0},
        std::tuple{"us", 1.5, 1500.0}, std::tuple{"ms", 2.0, 2e6}, std::tuple{"msecond", 2.0, 2e6},
        std::tuple{"s", 0.5, 5e8}}) {
    const Capture page =
        test::make_capture(PageKind::details, {{"Duration", unit, "GPU Speed Of Light Throughput"}},
                           {Launch{"k", {{"Duration", value}}, "", {}}});
    const analysis::FactLookup facts(page);
    EXPECT_THAT(facts.duration_ns(page.kernels.front()), Optional(DoubleNear(expected, 1e-6)))
        << unit;
  }
}

TEST(FactLookup, IgnoresValuesInAUnitItCannotConvert) {
  const Capture capture =
      test::make_capture(PageKind::details, {{"Duration", "cycle", "Odd Section"}},
                         {Launch{"k", {{"Duration", 1000}}, "", {}}});
  EXPECT_EQ(analysis::FactLookup(capture).duration_ns(capture.kernels.front()), std::nullopt);
}

TEST(FactLookup, SkipsNanAndTextToTheNextSource) {
  // Tensor pipe: the cycles metric is NaN, the instruction metric is text, so nothing is known;
  // then with the instruction metric a number, that number is used.
  const std::string cycles = "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed";
  const std::string inst = "sm__inst_executed_pipe_tensor.avg.pct_of_peak_sustained_active";
  const Capture capture = test::make_raw_capture(
      {Launch{"k", {{cycles, std::numeric_limits<double>::quiet_NaN()}}, "", {{inst, "n/a"}}},
       Launch{"k", {{cycles, std::numeric_limits<double>::quiet_NaN()}, {inst, 12.5}}, "", {}}});
  const analysis::FactLookup facts(capture);
  EXPECT_EQ(facts.tensor_pipe_pct(capture.kernels[0]), std::nullopt);
  EXPECT_THAT(facts.tensor_pipe_pct(capture.kernels[1]), Optional(12.5));
}

TEST(Analyse, SumsDurationsPerNameAndFindsTheDominantKernel) {
  const Capture capture = two_kernels();
  auto analysis = analyse(capture, SelectOptions{});
  ASSERT_TRUE(analysis) << analysis.error().message;
  EXPECT_THAT(analysis->selected, ElementsAre(0U, 1U, 2U, 3U));
  ASSERT_EQ(analysis->kernels.size(), 2U);

  const KernelSummary& gemm = analysis->kernels[0];
  EXPECT_EQ(gemm.name, "gemm_a");
  EXPECT_THAT(gemm.launches, ElementsAre(0U, 2U));
  EXPECT_THAT(gemm.duration_ns, Optional(120.0));
  EXPECT_THAT(gemm.share, Optional(DoubleNear(120.0 / 134.0, 1e-12)));
  // The roofline is the longest launch's (index 2, memory-bound), not the first's.
  EXPECT_EQ(gemm.roofline.bottleneck, Bottleneck::memory);
  EXPECT_THAT(gemm.roofline.memory_sol_pct, Optional(95.0));

  const KernelSummary& reduce = analysis->kernels[1];
  EXPECT_EQ(reduce.name, "reduce_b");
  EXPECT_THAT(reduce.duration_ns, Optional(14.0));
  EXPECT_THAT(reduce.share, Optional(DoubleNear(14.0 / 134.0, 1e-12)));

  EXPECT_THAT(analysis->summary.total_duration_ns, Optional(134.0));
  EXPECT_EQ(analysis->summary.dominant_kernel, "gemm_a");
  EXPECT_EQ(analysis->summary.launches, 4U);
}

TEST(Analyse, AggregatesOnlyTheSelectedLaunches) {
  const Capture capture = two_kernels();
  auto analysis = analyse(capture, SelectOptions{Select::first, {}, ""});
  ASSERT_TRUE(analysis) << analysis.error().message;
  EXPECT_THAT(analysis->selected, ElementsAre(0U, 1U));
  EXPECT_THAT(analysis->summary.total_duration_ns, Optional(59.0));
  EXPECT_EQ(analysis->kernels[0].roofline.bottleneck, Bottleneck::compute);
  EXPECT_EQ(analysis->summary.launches, 2U);
}

TEST(Analyse, NamesTheGpuAndLooksUpItsSpec) {
  auto known = analyse(two_kernels("NVIDIA H200"), SelectOptions{});
  ASSERT_TRUE(known);
  EXPECT_EQ(known->gpu_name, "NVIDIA H200");
  ASSERT_TRUE(known->gpu);
  EXPECT_EQ(known->gpu->dram_bandwidth_bytes_per_s, 4.8e12);

  auto unknown = analyse(two_kernels("NVIDIA Imaginary X1"), SelectOptions{});
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->gpu_name, "NVIDIA Imaginary X1");
  EXPECT_EQ(unknown->gpu, std::nullopt);

  auto absent = analyse(two_kernels(""), SelectOptions{});
  ASSERT_TRUE(absent);
  EXPECT_EQ(absent->gpu_name, "");
  EXPECT_EQ(absent->gpu, std::nullopt);
}

TEST(Analyse, LeavesSharesAndDominantEmptyWithoutDurations) {
  const Capture capture =
      test::make_raw_capture({Launch{"k", {{k_compute, 10}, {k_memory, 80}}, "", {}}});
  auto analysis = analyse(capture, SelectOptions{});
  ASSERT_TRUE(analysis) << analysis.error().message;
  EXPECT_EQ(analysis->summary.total_duration_ns, std::nullopt);
  EXPECT_EQ(analysis->summary.dominant_kernel, "");
  EXPECT_EQ(analysis->kernels[0].share, std::nullopt);
  EXPECT_EQ(analysis->kernels[0].roofline.bottleneck, Bottleneck::memory);
}

TEST(Analyse, FailsWithNoKernelsOnAnEmptyCapture) {
  const Capture capture = test::make_raw_capture({});
  auto analysis = analyse(capture, SelectOptions{});
  ASSERT_FALSE(analysis);
  EXPECT_EQ(analysis.error().category, ErrorCategory::no_kernels);
}

TEST(Analyse, SaysWhichKernelFilterRemovedEverything) {
  auto analysis = analyse(two_kernels(), SelectOptions{Select::all, {"softmax", "attn"}, ""});
  ASSERT_FALSE(analysis);
  EXPECT_EQ(analysis.error().category, ErrorCategory::no_kernels);
  EXPECT_THAT(analysis.error().message, HasSubstr("'softmax' or 'attn'"));
  EXPECT_THAT(analysis.error().message, HasSubstr("gemm_a, reduce_b"));
}

TEST(Analyse, SaysWhichNvtxRangeRemovedEverything) {
  auto analysis = analyse(two_kernels(), SelectOptions{Select::all, {"gemm"}, "other"});
  ASSERT_FALSE(analysis);
  EXPECT_EQ(analysis.error().category, ErrorCategory::no_kernels);
  EXPECT_THAT(analysis.error().message, HasSubstr("NVTX range 'other'"));
  EXPECT_THAT(analysis.error().message, HasSubstr("ranges seen: 'kprof'"));
}

TEST(AnalyseRecordedRuns, FindsTheDominantTwostageKernel) {
  const Capture capture = test::read_fixture("curated_nvtx_twostage.csv");
  auto analysis = analyse(capture, SelectOptions{});
  ASSERT_TRUE(analysis) << analysis.error().message;
  EXPECT_EQ(analysis->gpu_name, "NVIDIA H200");
  EXPECT_TRUE(analysis->gpu);
  ASSERT_EQ(analysis->kernels.size(), 2U);
  EXPECT_EQ(analysis->kernels[0].name, "partial_sum_kernel");
  EXPECT_EQ(analysis->kernels[1].name, "scale_kernel");
  // 6,208 ns + 9,856 ns
  EXPECT_THAT(analysis->summary.total_duration_ns, Optional(DoubleNear(16064.0, 1e-9)));
  EXPECT_EQ(analysis->summary.dominant_kernel, "scale_kernel");
  EXPECT_THAT(analysis->kernels[1].share, Optional(DoubleNear(9856.0 / 16064.0, 1e-12)));
  EXPECT_EQ(analysis->kernels[0].roofline.bottleneck, Bottleneck::latency);
  EXPECT_EQ(analysis->kernels[1].roofline.bottleneck, Bottleneck::latency);
}

TEST(AnalyseRecordedRuns, AnalysesOneCandidateOfABatch) {
  const Capture capture = test::read_fixture("batch4_flat_regex_ranges.csv");
  auto analysis = analyse(capture, SelectOptions{Select::all, {}, "kprof:cand3"});
  ASSERT_TRUE(analysis) << analysis.error().message;
  ASSERT_EQ(analysis->kernels.size(), 1U);
  EXPECT_EQ(analysis->kernels[0].name, "matmul_kernel");
  EXPECT_THAT(analysis->summary.total_duration_ns, Optional(DoubleNear(206272.0, 1e-9)));
  EXPECT_EQ(analysis->kernels[0].roofline.bottleneck, Bottleneck::compute);
  EXPECT_TRUE(analysis->kernels[0].roofline.tensor_cores_used);
}

TEST(AnalyseRecordedRuns, ReadsDurationsAndVerdictsFromTheDetailsPage) {
  const Capture capture = test::read_fixture("batch4_details_sections_rules.csv");
  auto analysis = analyse(capture, SelectOptions{});
  ASSERT_TRUE(analysis) << analysis.error().message;
  ASSERT_EQ(analysis->kernels.size(), 5U);
  // 181,568 + 6,240 + 9,920 + 63,104 + 205,472 ns
  EXPECT_THAT(analysis->summary.total_duration_ns, Optional(DoubleNear(466304.0, 1e-9)));
  EXPECT_EQ(analysis->summary.dominant_kernel, "matmul_kernel");
  const auto verdict_of = [&analysis](const std::string& name) {
    for (const KernelSummary& kernel : analysis->kernels) {
      if (kernel.name == name) {
        return kernel.roofline;
      }
    }
    ADD_FAILURE() << "no " << name;
    return Roofline{};
  };
  const Roofline add = verdict_of("add_kernel");
  EXPECT_EQ(add.bottleneck, Bottleneck::memory);
  EXPECT_THAT(add.memory_sol_pct, Optional(DoubleNear(89.98, 1e-9)));
  EXPECT_THAT(add.compute_sol_pct, Optional(DoubleNear(5.72, 1e-9)));
  // Memory Workload Analysis "Memory Throughput" [byte/s]: no DRAM byte counts on this page.
  EXPECT_THAT(add.dram_bytes_per_s, Optional(DoubleNear(4327867465632.71, 1)));
  EXPECT_EQ(verdict_of("matmul_kernel").bottleneck, Bottleneck::compute);
  EXPECT_EQ(verdict_of("partial_sum_kernel").bottleneck, Bottleneck::latency);
}

// --- what a report reads: read_options_for ---------------------------------------------------

MetricSet resolved(std::string_view word) {
  auto set = resolve_metric_set(word, MetricSetUse::read);
  EXPECT_TRUE(set.ok());
  return set.ok() ? std::move(set).value() : MetricSet{};
}

TEST(ReadOptionsFor, KeepsTheSetsMetricsAndEveryColumnTheAnalysisReads) {
  const MetricSet lean = resolved("lean");
  const ReadOptions options = read_options_for(lean);
  ASSERT_TRUE(options.keep_column);
  for (const MetricSpec& spec : lean.metrics) {
    EXPECT_TRUE(options.keep_column(spec.name)) << spec.name;
  }
  for (const std::string_view name : analysis_columns()) {
    EXPECT_TRUE(options.keep_column(name)) << name;
  }
  EXPECT_TRUE(options.keep_column("sm__cycles_active.avg"));
  EXPECT_TRUE(options.keep_column("device__attribute_display_name"));
  EXPECT_TRUE(options.keep_column("profiler__replayer_passes"));
  EXPECT_TRUE(options.keep_column("Duration")); // the details label of the duration fact
  EXPECT_FALSE(options.keep_column("l1tex__t_sector_hit_rate.pct"));
  EXPECT_FALSE(options.project_details_page);
}

TEST(ReadOptionsFor, AllKeepsEveryColumn) {
  const ReadOptions options = read_options_for(resolved("all"));
  EXPECT_FALSE(options.keep_column);
}

TEST(ReadOptionsFor, AnalysisColumnsNameEachColumnOnce) {
  const std::vector<std::string_view> names = analysis_columns();
  const std::set<std::string_view> distinct(names.begin(), names.end());
  EXPECT_EQ(distinct.size(), names.size());
  EXPECT_TRUE(distinct.contains("gpu__time_duration.sum"));
  EXPECT_TRUE(distinct.contains("gpc__cycles_elapsed.max"));
  EXPECT_TRUE(distinct.contains("Memory Throughput"));
}

TEST(ReadOptionsFor, AProjectedSetFullCaptureAnalysesLikeTheWholeOne) {
  for (const char* word : {"lean", "default", "dram__bytes_read.sum"}) {
    const Capture whole = test::read_fixture("set_full_vadd.csv");
    auto projected =
        read_ncu_csv_file(test::fixture("set_full_vadd.csv"), read_options_for(resolved(word)));
    ASSERT_TRUE(projected.ok()) << projected.error().message;
    EXPECT_LT(projected->columns.size(), 50U) << word;
    auto from_whole = analyse(whole, {});
    auto from_projected = analyse(*projected, {});
    ASSERT_TRUE(from_whole.ok() && from_projected.ok());
    EXPECT_EQ(from_projected->gpu_name, "NVIDIA H200");
    ASSERT_EQ(from_projected->kernels.size(), from_whole->kernels.size());
    const Roofline& a = from_whole->kernels[0].roofline;
    const Roofline& b = from_projected->kernels[0].roofline;
    EXPECT_EQ(b.bottleneck, a.bottleneck) << word;
    EXPECT_EQ(b.compute_sol_pct, a.compute_sol_pct) << word;
    EXPECT_EQ(b.memory_sol_pct, a.memory_sol_pct) << word;
    EXPECT_EQ(b.dram_bytes_per_s, a.dram_bytes_per_s) << word;
    EXPECT_EQ(b.dram_peak_fraction, a.dram_peak_fraction) << word;
    EXPECT_EQ(b.tensor_pipe_pct, a.tensor_pipe_pct) << word;
    EXPECT_EQ(from_projected->kernels[0].duration_ns, from_whole->kernels[0].duration_ns);
  }
}

TEST(ReadOptionsFor, KeepsADetailsPageWholeWithItsRules) {
  const Capture whole = test::read_fixture("details_page_softmax.csv");
  auto projected = read_ncu_csv_file(test::fixture("details_page_softmax.csv"),
                                     read_options_for(resolved("default")));
  ASSERT_TRUE(projected.ok()) << projected.error().message;
  EXPECT_EQ(projected->page, PageKind::details);
  EXPECT_EQ(csv::capture_difference(whole, *projected), "");
  EXPECT_FALSE(projected->kernels[0].rules.empty());
}

} // namespace
} // namespace kprof

namespace kprof {
namespace {

const std::filesystem::path k_planted =
    std::filesystem::path(KPROF_FIXTURES_DIR) / "ncu" / "2025.3.1" / "planted";

const KernelRecord& launch_named(const Capture& capture, std::string_view prefix) {
  for (const KernelRecord& launch : capture.kernels) {
    if (launch.name.starts_with(prefix)) {
      return launch;
    }
  }
  ADD_FAILURE() << "no launch " << prefix;
  return capture.kernels.front();
}

TEST(LaunchFacts, ReadADetailsPagesLabelsAndTheDeepSetsMetricsWithTheirColumns) {
  Result<Capture> capture = read_ncu_csv_file(k_planted / "vec_f32" / "details.csv");
  ASSERT_TRUE(capture.ok()) << capture.error().message;
  const LaunchFactReader reader(*capture, gpu_spec_of(*capture));
  const LaunchFacts facts = reader.read(launch_named(*capture, "smem_heavy_scale_kernel"));
  ASSERT_TRUE(facts.sm_count.has_value());
  EXPECT_EQ(facts.sm_count->value, 132);
  EXPECT_EQ(facts.sm_count->metric, "# SMs");
  ASSERT_TRUE(facts.theoretical_occupancy_pct.has_value());
  EXPECT_EQ(facts.theoretical_occupancy_pct->value, 6.25);
  ASSERT_TRUE(facts.block_limit_shared_mem.has_value());
  EXPECT_EQ(facts.block_limit_shared_mem->value, 2);
  ASSERT_TRUE(facts.shared_mem_dynamic_bytes.has_value());
  EXPECT_EQ(facts.shared_mem_dynamic_bytes->value, 102400);
  // The deep set's metrics sit on the details page under their own names.
  const LaunchFacts strided = reader.read(launch_named(*capture, "strided_load_kernel"));
  ASSERT_TRUE(strided.global_load_sector_use_pct.has_value());
  EXPECT_EQ(strided.global_load_sector_use_pct->value, 12.5);
  EXPECT_EQ(strided.global_load_sector_use_pct->metric,
            "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct");
  EXPECT_EQ(strided.roofline.bottleneck, Bottleneck::memory);
}

TEST(LaunchFacts, TakeTheSmsFromTheGpuTableWhenALeanCaptureHasNoColumnForThem) {
  Result<MetricSet> lean = find_metric_set("lean");
  ASSERT_TRUE(lean.ok());
  Result<Capture> capture =
      read_ncu_csv_file(k_planted / "vec_f32" / "raw.csv", read_options_for(*lean));
  ASSERT_TRUE(capture.ok()) << capture.error().message;
  const LaunchFactReader reader(*capture, gpu_spec_of(*capture));
  const LaunchFacts facts = reader.read(capture->kernels.front());
  ASSERT_TRUE(facts.sm_count.has_value());
  EXPECT_EQ(facts.sm_count->value, 132);
  EXPECT_EQ(facts.sm_count->metric, "datasheet: NVIDIA H100 80GB HBM3");
  EXPECT_FALSE(facts.theoretical_occupancy_pct.has_value());
}

TEST(LibraryKernels, AreNamedByTheirLibrariesNamespacesAndPrefixes) {
  EXPECT_TRUE(is_library_kernel(
      "void at::vectorized_elementwise_kernel<4, at::FillFunctor<float>, std::array<char *, 1>>"
      "(int, T2, T3)"));
  EXPECT_TRUE(is_library_kernel("void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm>(T1)"));
  EXPECT_TRUE(is_library_kernel("sm90_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize128x128x32"));
  EXPECT_TRUE(is_library_kernel("void cub::DeviceReduceKernel<...>(T1)"));
  EXPECT_FALSE(is_library_kernel("strided_load_kernel"));
  EXPECT_FALSE(is_library_kernel("histogram_atomic_kernel(const int *, int *, int)"));
  EXPECT_FALSE(is_library_kernel("matmul_kernel"));
  // analyse() marks them in the summary.
  const Capture capture = test::make_raw_capture(
      {Launch{"my_kernel", {{k_duration, 50}}, "kprof", {}},
       Launch{"void at::native::reduce_kernel<512, 1>(T3)", {{k_duration, 5}}, "kprof", {}}},
      "NVIDIA H200");
  Result<Analysis> analysis = analyse(capture, SelectOptions{});
  ASSERT_TRUE(analysis.ok());
  ASSERT_EQ(analysis->kernels.size(), 2U);
  EXPECT_FALSE(analysis->kernels[0].library);
  EXPECT_TRUE(analysis->kernels[1].library);
}

TEST(ImpossibleValues, ANegativeDurationRefusesTheCaptureNamingTheLaunchAndTheColumn) {
  const Capture capture = test::make_raw_capture({
      Launch{"gemm_a", {{k_duration, 50}, {k_compute, 90}, {k_memory, 20}}, "", {}},
      Launch{"reduce_b", {{k_duration, -1}, {k_compute, 5}, {k_memory, 30}}, "", {}},
  });
  const auto analysis = analyse(capture, SelectOptions{});
  ASSERT_FALSE(analysis.ok()) << "a launch of -1 ns must not be diagnosed as launch-bound";
  EXPECT_EQ(analysis.error().category, ErrorCategory::malformed_input);
  EXPECT_THAT(analysis.error().message,
              HasSubstr("launch ID 1 (reduce_b): 'gpu__time_duration.sum' is -1: a duration "
                        "cannot be negative"));
}

TEST(ImpossibleValues, ANegativePercentageOnADetailsPageIsRefusedWithItsUnit) {
  const Capture capture = test::make_capture(
      PageKind::details,
      {{"Duration", "us", "GPU Speed Of Light Throughput"},
       {"Compute (SM) Throughput", "%", "GPU Speed Of Light Throughput"}},
      {Launch{"k", {{"Duration", 3.0}, {"Compute (SM) Throughput", -1.0}}, "", {}}});
  const auto analysis = analyse(capture, SelectOptions{});
  ASSERT_FALSE(analysis.ok());
  EXPECT_THAT(analysis.error().message,
              HasSubstr("'Compute (SM) Throughput' is -1 %: a percentage cannot be negative"));
}

TEST(ImpossibleValues, AreCheckedOnlyInTheColumnsTheAnalysisReadsAndInTheSelectedLaunches) {
  // A metric of the user's own may be negative (a NUMA node of -1), and a launch the selection
  // leaves out is not read.
  const Capture capture = test::make_raw_capture({
      Launch{"k", {{k_duration, -5}, {"device__attribute_host_numa_id", -1}}, "", {}},
      Launch{"k", {{k_duration, 7}, {"device__attribute_host_numa_id", -1}}, "", {}},
  });
  SelectOptions last;
  last.select = Select::last;
  const auto analysis = analyse(capture, last);
  ASSERT_TRUE(analysis.ok()) << analysis.error().message;
  EXPECT_THAT(analysis->summary.total_duration_ns, Optional(7.0));
}

TEST(ImpossibleValues, NameWhatEveryFactColumnHolds) {
  EXPECT_EQ(quantity_of(Column{k_duration, "ns", ""}), "a duration");
  EXPECT_EQ(quantity_of(Column{"Duration", "msecond", "GPU Speed Of Light Throughput"}),
            "a duration");
  EXPECT_EQ(quantity_of(Column{"GPU Speed Of Light Throughput/Memory Throughput", "%", ""}),
            "a percentage");
  EXPECT_EQ(quantity_of(Column{"Memory Throughput", "Gbyte/s", ""}), "a throughput");
  EXPECT_EQ(quantity_of(Column{"launch__registers_per_thread", "register/thread", ""}), "a count");
  EXPECT_EQ(quantity_of(Column{"dram__bytes_read.sum", "Mbyte", ""}), "a byte count");
  EXPECT_EQ(quantity_of(Column{"device__attribute_host_numa_id", "", ""}), std::nullopt);
  EXPECT_EQ(quantity_of(Column{"Duration", "cycle", ""}), std::nullopt) << "not read as a fact";
}

} // namespace
} // namespace kprof
