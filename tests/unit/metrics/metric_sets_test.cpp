#include "kprof/metric_sets.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kprof {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;

/// The recorded H200 output `file` (tests/fixtures/ncu/2025.3.1/).
std::filesystem::path fixture(const std::string& file) {
  return std::filesystem::path(KPROF_FIXTURES_DIR) / "ncu" / "2025.3.1" / file;
}

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in) << "cannot open " << path;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

const std::string& gh100_listing() {
  static const std::string k_text = read_text(fixture("ncu_query_metrics_gh100.txt"));
  return k_text;
}

MetricSet set_of(const std::vector<std::string>& names) {
  MetricSet set{"test", "", {}, {}};
  for (const std::string& name : names) {
    set.metrics.push_back({name, name, "Custom"});
  }
  return set;
}

bool contains_metric(const MetricSet& set, const std::string& name) {
  return std::any_of(set.metrics.begin(), set.metrics.end(),
                     [&name](const MetricSpec& spec) { return spec.name == name; });
}

// KernelAgent's ncu_profiler.py METRICS, as recorded in the curated fixtures.
const std::vector<std::string> k_kernel_agent_metrics = {
    "sm__cycles_active.avg",
    "sm__warps_active.avg.pct_of_peak_sustained_active",
    "launch__occupancy_limit_blocks",
    "launch__occupancy_limit_registers",
    "launch__occupancy_limit_shared_mem",
    "launch__registers_per_thread",
    "sm__inst_executed.sum",
    "sm__inst_executed_pipe_fp32.avg.pct_of_peak_sustained_active",
    "sm__inst_executed_pipe_tensor.avg.pct_of_peak_sustained_active",
    "dram__bytes_read.sum",
    "dram__bytes_write.sum",
    "dram__throughput.avg.pct_of_peak_sustained_elapsed",
    "dram__bytes.sum.per_second",
    "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed",
    "launch__shared_mem_per_block_allocated",
    "l1tex__t_sector_hit_rate.pct",
    "l1tex__throughput.avg.pct_of_peak_sustained_active",
    "lts__t_sector_hit_rate.pct",
    "lts__throughput.avg.pct_of_peak_sustained_active",
    "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed",
    "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct",
    "smsp__warp_issue_stalled_memory_dependency_per_warp_active.pct",
    "smsp__warp_issue_stalled_short_scoreboard_per_warp_active.pct",
    "smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct",
    "smsp__warp_issue_stalled_barrier_per_warp_active.pct",
    "smsp__warp_issue_stalled_branch_resolving_per_warp_active.pct",
    "smsp__sass_average_branch_targets_threads_uniform.pct",
    "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
    "sm__throughput.avg.pct_of_peak_sustained_elapsed",
    "gpu__time_duration.sum",
};

TEST(BuiltinMetricSets, AreDefaultLeanAndDeepInThatOrder) {
  std::vector<std::string> names;
  for (const MetricSet& set : builtin_metric_sets()) {
    names.push_back(set.name);
  }
  EXPECT_THAT(names, ElementsAre("default", "lean", "deep"));
}

TEST(BuiltinMetricSets, EveryMetricIsKnownToTheHopperListing) {
  for (const MetricSet& set : builtin_metric_sets()) {
    auto unknown = unknown_metrics(set, gh100_listing());
    ASSERT_TRUE(unknown) << unknown.error().message;
    EXPECT_THAT(*unknown, IsEmpty()) << "set " << set.name;
  }
}

TEST(BuiltinMetricSets, ReportKernelAgentsTwoMissingHopperMetricsAsUnknown) {
  auto unknown = unknown_metrics(set_of(k_kernel_agent_metrics), gh100_listing());
  ASSERT_TRUE(unknown) << unknown.error().message;
  EXPECT_THAT(*unknown, UnorderedElementsAre(
                            "sm__inst_executed_pipe_fp32.avg.pct_of_peak_sustained_active",
                            "smsp__warp_issue_stalled_memory_dependency_per_warp_active.pct"));
}

TEST(BuiltinMetricSets, DefaultKeepsEveryOtherKernelAgentMetricAndTheReplacements) {
  auto set = find_metric_set("default");
  ASSERT_TRUE(set);
  for (const std::string& name : k_kernel_agent_metrics) {
    if (name.find("pipe_fp32") != std::string::npos ||
        name.find("memory_dependency") != std::string::npos) {
      EXPECT_FALSE(contains_metric(*set, name)) << name;
    } else {
      EXPECT_TRUE(contains_metric(*set, name)) << name;
    }
  }
  EXPECT_TRUE(contains_metric(*set, "sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active"));
  EXPECT_TRUE(contains_metric(*set, "smsp__warp_issue_stalled_lg_throttle_per_warp_active.pct"));
  EXPECT_TRUE(contains_metric(*set, "smsp__warp_issue_stalled_mio_throttle_per_warp_active.pct"));
}

TEST(BuiltinMetricSets, DefaultHoldsEveryMetricTheRooflineReads) {
  auto set = find_metric_set("default");
  ASSERT_TRUE(set);
  for (const char* name :
       {"gpu__time_duration.sum", "sm__throughput.avg.pct_of_peak_sustained_elapsed",
        "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
        "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed",
        "sm__inst_executed_pipe_tensor.avg.pct_of_peak_sustained_active", "dram__bytes_read.sum",
        "dram__bytes_write.sum", "dram__bytes.sum.per_second", "sm__cycles_active.avg"}) {
    EXPECT_TRUE(contains_metric(*set, name)) << name;
  }
}

TEST(BuiltinMetricSets, GiveEveryMetricALabelAGroupAndNoDuplicate) {
  const std::set<std::string> groups = {"Time",           "Speed of light", "Memory",    "Cache",
                                        "Compute",        "Tensor",         "Occupancy", "Stalls",
                                        "Access pattern", "Roofline"};
  for (const MetricSet& set : builtin_metric_sets()) {
    std::set<std::string> names;
    for (const MetricSpec& spec : set.metrics) {
      EXPECT_FALSE(spec.label.empty()) << spec.name;
      EXPECT_TRUE(groups.contains(spec.group)) << spec.name << " in group '" << spec.group << "'";
      EXPECT_TRUE(names.insert(spec.name).second) << "duplicate " << spec.name;
    }
  }
}

TEST(BuiltinMetricSets, LeanIsDurationTheTwoSolAndDramBytes) {
  auto set = find_metric_set("lean");
  ASSERT_TRUE(set);
  EXPECT_EQ(metrics_argument(*set),
            "gpu__time_duration.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,"
            "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed,"
            "dram__bytes_read.sum,dram__bytes_write.sum");
  EXPECT_THAT(set->sections, IsEmpty());
}

TEST(BuiltinMetricSets, DeepAddsSectionsThatNcuLists) {
  auto deep = find_metric_set("deep");
  auto defaults = find_metric_set("default");
  ASSERT_TRUE(deep);
  ASSERT_TRUE(defaults);
  // The default metrics, then the fp32 roofline's inputs (the HTML roofline chart).
  EXPECT_EQ(metrics_argument(*deep),
            metrics_argument(*defaults) +
                ",smsp__sass_thread_inst_executed_op_fadd_pred_on.sum.per_cycle_elapsed"
                ",smsp__sass_thread_inst_executed_op_fmul_pred_on.sum.per_cycle_elapsed"
                ",smsp__sass_thread_inst_executed_op_ffma_pred_on.sum.per_cycle_elapsed"
                ",smsp__cycles_elapsed.avg.per_second");
  EXPECT_THAT(deep->sections,
              ElementsAre("SpeedOfLight", "Occupancy", "LaunchStats", "MemoryWorkloadAnalysis",
                          "ComputeWorkloadAnalysis", "SchedulerStats", "WarpStateStats"));

  // Identifiers are the first column of `ncu --list-sections`.
  std::set<std::string> identifiers;
  std::istringstream listing(read_text(fixture("ncu_list_sections.txt")));
  for (std::string line; std::getline(listing, line);) {
    identifiers.insert(line.substr(0, line.find(' ')));
  }
  for (const std::string& section : deep->sections) {
    EXPECT_TRUE(identifiers.contains(section)) << section;
  }
}

TEST(FindMetricSet, RejectsAnUnknownNameListingTheValidOnes) {
  auto set = find_metric_set("fast");
  ASSERT_FALSE(set);
  EXPECT_EQ(set.error().category, ErrorCategory::usage);
  EXPECT_THAT(set.error().message, HasSubstr("'fast'"));
  EXPECT_THAT(set.error().message, HasSubstr("default, lean, deep"));
}

TEST(ResolveMetricSet, ReturnsABuiltinSetByName) {
  auto set = resolve_metric_set("lean");
  ASSERT_TRUE(set);
  EXPECT_EQ(set->name, "lean");
}

TEST(ResolveMetricSet, TurnsACommaListIntoACustomSetLabelledByName) {
  auto set = resolve_metric_set(" dram__bytes_read.sum, sm__throughput.avg.pct_of_peak_sustained_"
                                "elapsed,,dram__bytes_read.sum ");
  ASSERT_TRUE(set) << set.error().message;
  EXPECT_EQ(set->name, "custom");
  ASSERT_EQ(set->metrics.size(), 2U);
  EXPECT_EQ(set->metrics[0].name, "dram__bytes_read.sum");
  EXPECT_EQ(set->metrics[0].label, "dram__bytes_read.sum");
  EXPECT_EQ(metrics_argument(*set),
            "dram__bytes_read.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed");
}

TEST(ResolveMetricSet, RejectsAWordThatIsNeitherSetNorMetric) {
  for (const char* text : {"", "fastest", "dram__bytes_read.sum,oops"}) {
    auto set = resolve_metric_set(text);
    ASSERT_FALSE(set) << text;
    EXPECT_EQ(set.error().category, ErrorCategory::usage);
    EXPECT_THAT(set.error().message, HasSubstr("default, lean, deep")) << text;
  }
}

TEST(UnknownMetrics, ReadsNamesBehindUppercaseConfigurationPrefixes) {
  const std::string listing =
      "Chip gh100\n"
      "------------ ------- ----- ----------\n"
      "Metric Name  Metric Type Metric Unit Metric Description\n"
      "------------ ------- ----- ----------\n"
      "CTC.TriageCompute.ctc__rx_bytes Counter byte # of bytes\n"
      "TriageCompute.sm__throughput Throughput % SM throughput\n"
      "lrc__requests_size_128B Counter  # of requests, wrapped\n"
      "                                 description continued\n"
      "dram__bytes_read Counter byte # of bytes read\n"
      "==PROF== Note that these metrics must be appended with a valid suffix.\n";
  auto unknown = unknown_metrics(
      set_of({"ctc__rx_bytes.sum", "sm__throughput.avg.pct_of_peak_sustained_elapsed",
              "lrc__requests_size_128B.sum", "dram__bytes_read.sum.per_second", "launch__grid_size",
              "device__attribute_display_name", "dram__bytes_write.sum",
              "description__continued.sum"}),
      listing);
  ASSERT_TRUE(unknown) << unknown.error().message;
  EXPECT_THAT(*unknown, ElementsAre("dram__bytes_write.sum", "description__continued.sum"));
}

TEST(UnknownMetrics, RejectsTextThatIsNotAQueryListing) {
  auto unknown = unknown_metrics(set_of({"dram__bytes_read.sum"}),
                                 "==ERROR== the application returned an error code (1)\n");
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().category, ErrorCategory::malformed_input);
}

TEST(MetricSets, AllIsAReadingSetListingTheDefaultMetricsAndKeepingEveryColumn) {
  auto all = resolve_metric_set("all", MetricSetUse::read);
  ASSERT_TRUE(all.ok()) << all.error().message;
  EXPECT_EQ(all->name, "all");
  EXPECT_TRUE(all->keep_all_columns);
  auto defaults = find_metric_set("default");
  ASSERT_TRUE(defaults.ok());
  EXPECT_EQ(metrics_argument(*all), metrics_argument(*defaults));
  EXPECT_TRUE(all->sections.empty());
}

TEST(MetricSets, AllCannotBeCollectedAndTheErrorSaysWhyAndWhatToUse) {
  for (const MetricSetUse use : {MetricSetUse::collect}) {
    auto all = resolve_metric_set(" all ", use);
    ASSERT_FALSE(all.ok());
    EXPECT_EQ(all.error().category, ErrorCategory::usage);
    EXPECT_THAT(all.error().message, HasSubstr("keeps every column when reading a capture"));
    EXPECT_THAT(all.error().message, HasSubstr("default, lean, deep"));
  }
  // Collecting is the default, so a caller that does not say cannot collect "all" by mistake.
  EXPECT_FALSE(resolve_metric_set("all").ok());
}

TEST(MetricSets, NoCollectableSetKeepsEveryColumn) {
  for (const MetricSet& set : builtin_metric_sets()) {
    EXPECT_FALSE(set.keep_all_columns) << set.name;
    EXPECT_NE(set.name, "all");
  }
  EXPECT_FALSE(find_metric_set("all").ok());
  auto lean = resolve_metric_set("lean", MetricSetUse::read);
  ASSERT_TRUE(lean.ok());
  EXPECT_FALSE(lean->keep_all_columns);
}

} // namespace
} // namespace kprof
