// Helpers for the report tests: hand-built Captures and Analyses, golden-file comparison.
#pragma once

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "kprof/analysis.hpp"
#include "kprof/capture.hpp"
#include "kprof/files.hpp"
#include "kprof/metric_sets.hpp"
#include "kprof/report.hpp"

namespace kprof::test {

/// A value of a hand-built capture: a number, a text, or null.
struct TestValue {
  ValueKind kind = ValueKind::null;
  double number = 0.0;
  std::string text;

  TestValue() = default;
  TestValue(double value) : kind(ValueKind::number), number(value) {}  // NOLINT
  TestValue(const char* value) : kind(ValueKind::text), text(value) {} // NOLINT
};

/// Builds a Capture column by column and launch by launch.
class CaptureBuilder {
public:
  explicit CaptureBuilder(PageKind page = PageKind::raw) {
    m_capture.page = page;
    m_capture.source = "test.csv";
  }

  CaptureBuilder& column(std::string name, std::string unit, std::string section = {}) {
    m_capture.columns.push_back(Column{std::move(name), std::move(unit), std::move(section)});
    return *this;
  }

  /// Adds a launch; `values` are in column order (missing trailing values are null).
  CaptureBuilder& launch(std::string name, std::int64_t id, std::vector<TestValue> values,
                         std::vector<RuleResult> rules = {}, std::string nvtx_range = "kprof") {
    KernelRecord record;
    record.id = id;
    record.name = std::move(name);
    record.nvtx_range = std::move(nvtx_range);
    record.grid = {1024, 1, 1};
    record.block = {128, 1, 1};
    record.device = 0;
    record.cc = "9.0";
    record.rules = std::move(rules);
    values.resize(m_capture.columns.size());
    for (const TestValue& value : values) {
      Cell cell;
      cell.kind = value.kind;
      cell.number = value.number;
      if (value.kind == ValueKind::text) {
        cell.text = static_cast<std::uint32_t>(m_capture.text_pool.size());
        m_capture.text_pool.push_back(value.text);
      }
      record.cells.push_back(cell);
    }
    m_capture.kernels.push_back(std::move(record));
    return *this;
  }

  Capture build() {
    m_capture.index_columns();
    return m_capture;
  }

private:
  Capture m_capture;
};

inline MetricSet test_metric_set() {
  return MetricSet{
      "test",
      "for tests",
      {{"gpu__time_duration.sum", "Duration", "Time"},
       {"sm__throughput.avg.pct_of_peak_sustained_elapsed", "Compute SOL", "Speed of light"},
       {"gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", "Memory SOL",
        "Speed of light"},
       {"dram__bytes_read.sum", "DRAM bytes read", "Memory"},
       {"launch__cluster_scheduling_policy", "Cluster policy", "Launch"},
       {"not__in_the_capture.sum", "Absent", "Memory"}},
      {}};
}

/// Two kernels on the raw page, values from curated_nvtx_twostage.csv.
inline Capture twostage_like_capture() {
  return CaptureBuilder()
      .column("gpu__time_duration.sum", "ns")
      .column("sm__throughput.avg.pct_of_peak_sustained_elapsed", "%")
      .column("gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", "%")
      .column("dram__bytes_read.sum", "byte")
      .column("launch__cluster_scheduling_policy", "")
      .column("launch__waves_per_multiprocessor", "")
      .launch("partial_sum_kernel", 0, {6208.0, 7.70, 56.50, 16781824.0, "PolicySpread", 0.48})
      .launch("scale_kernel", 1, {9856.0, 9.44, 38.79, 16788480.0, "PolicySpread", 0.78})
      .build();
}

inline Roofline test_roofline(double compute, double memory, Bottleneck bottleneck) {
  Roofline roofline;
  roofline.compute_sol_pct = compute;
  roofline.memory_sol_pct = memory;
  roofline.bottleneck = bottleneck;
  roofline.headroom_pct = 100.0 - std::max(compute, memory);
  roofline.tensor_pipe_pct = 0.0;
  roofline.tensor_cores_used = false;
  roofline.explanation = "test verdict";
  return roofline;
}

/// The analysis the analysis module would give for twostage_like_capture() with select=all.
inline Analysis twostage_like_analysis() {
  Analysis analysis;
  analysis.selected = {0, 1};
  analysis.kernels = {KernelSummary{"partial_sum_kernel",
                                    {0},
                                    6208.0,
                                    6208.0 / 16064.0,
                                    test_roofline(7.70, 56.50, Bottleneck::latency)},
                      KernelSummary{"scale_kernel",
                                    {1},
                                    9856.0,
                                    9856.0 / 16064.0,
                                    test_roofline(9.44, 38.79, Bottleneck::latency)}};
  analysis.summary.total_duration_ns = 16064.0;
  analysis.summary.dominant_kernel = "scale_kernel";
  analysis.summary.launches = 2;
  analysis.gpu_name = "NVIDIA H200";
  GpuSpec spec;
  spec.name = "NVIDIA H200";
  spec.architecture = "Hopper";
  spec.dram_bandwidth_bytes_per_s = 4.8e12;
  spec.sm_count = 132;
  analysis.gpu = spec;
  return analysis;
}

inline Json twostage_like_report(const Json& run_metadata = Json::object()) {
  return build_report(twostage_like_capture(), twostage_like_analysis(), test_metric_set(),
                      run_metadata);
}

/// A fresh temp directory for one test; fails the test when it cannot be created.
inline TempDir make_temp_dir() {
  Result<TempDir> dir = TempDir::create("kprof-report-test");
  if (!dir.ok()) {
    ADD_FAILURE() << dir.error().message;
    std::abort();
  }
  return std::move(dir).value();
}

inline std::string slurp(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// Compares `actual` with tests/unit/report/golden/<name>. With KPROF_UPDATE_GOLDEN=1 the file
/// is rewritten instead (review the diff by eye before committing it).
inline void expect_golden(const std::string& actual, const std::string& name) {
  const std::filesystem::path path = std::filesystem::path(KPROF_REPORT_GOLDEN_DIR) / name;
  const char* update = std::getenv("KPROF_UPDATE_GOLDEN");
  if (update != nullptr && std::string_view(update) == "1") {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << actual;
    ASSERT_TRUE(out.good()) << "could not write golden file " << path;
    std::cout << "[ GOLDEN   ] rewrote " << path << '\n';
    return;
  }
  ASSERT_TRUE(std::filesystem::exists(path))
      << "golden file " << path << " is missing; run with KPROF_UPDATE_GOLDEN=1 to create it";
  EXPECT_EQ(slurp(path), actual) << "output differs from golden file " << path
                                 << "; if the change is intended, rerun with KPROF_UPDATE_GOLDEN=1"
                                    " and review the diff";
}

} // namespace kprof::test
