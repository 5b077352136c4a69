#include "analysis/facts.hpp"

#include "kprof/analysis.hpp"
#include "kprof/ncu_output.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <string_view>

namespace kprof::analysis {
namespace {

struct Candidate {
  Fact fact;
  std::string_view name;
  bool is_label; ///< details-page label (matched as "Label" or "Section/Label")
  Unit unit;
};

// Priority order within a fact: the raw metric first, then its details-page label.
constexpr std::array k_candidates{
    Candidate{Fact::duration_ns, "gpu__time_duration.sum", false, Unit::time_ns},
    Candidate{Fact::duration_ns, "Duration", true, Unit::time_ns},
    Candidate{Fact::compute_sol_pct, "sm__throughput.avg.pct_of_peak_sustained_elapsed", false,
              Unit::percent},
    Candidate{Fact::compute_sol_pct, "Compute (SM) Throughput", true, Unit::percent},
    Candidate{Fact::memory_sol_pct,
              "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", false,
              Unit::percent},
    // Also a Memory Workload Analysis label in byte/s: the unit tells them apart.
    Candidate{Fact::memory_sol_pct, "Memory Throughput", true, Unit::percent},
    Candidate{Fact::dram_sol_pct, "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed", false,
              Unit::percent},
    Candidate{Fact::dram_sol_pct, "dram__throughput.avg.pct_of_peak_sustained_elapsed", false,
              Unit::percent},
    Candidate{Fact::dram_sol_pct, "DRAM Throughput", true, Unit::percent},
    Candidate{Fact::tensor_pipe_pct,
              "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed", false,
              Unit::percent},
    Candidate{Fact::tensor_pipe_pct,
              "sm__inst_executed_pipe_tensor.avg.pct_of_peak_sustained_active", false,
              Unit::percent},
    Candidate{Fact::dram_bytes_read, "dram__bytes_read.sum", false, Unit::bytes},
    Candidate{Fact::dram_bytes_write, "dram__bytes_write.sum", false, Unit::bytes},
    Candidate{Fact::dram_bytes_per_s, "dram__bytes.sum.per_second", false, Unit::bytes_per_s},
    Candidate{Fact::dram_bytes_per_s, "Memory Throughput", true, Unit::bytes_per_s},
    Candidate{Fact::achieved_occupancy_pct, "sm__warps_active.avg.pct_of_peak_sustained_active",
              false, Unit::percent},
    Candidate{Fact::achieved_occupancy_pct, "Achieved Occupancy", true, Unit::percent},
    Candidate{Fact::registers_per_thread, "launch__registers_per_thread", false, Unit::count},
    Candidate{Fact::registers_per_thread, "Registers Per Thread", true, Unit::count},
    Candidate{Fact::sm_active_cycles, "sm__cycles_active.avg", false, Unit::count},
    Candidate{Fact::sm_active_cycles, "SM Active Cycles", true, Unit::count},
    Candidate{Fact::elapsed_cycles, "gpc__cycles_elapsed.max", false, Unit::count},
    Candidate{Fact::elapsed_cycles, "Elapsed Cycles", true, Unit::count},
    Candidate{Fact::fadd_per_cycle,
              "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum.per_cycle_elapsed", false,
              Unit::per_cycle},
    Candidate{Fact::fmul_per_cycle,
              "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum.per_cycle_elapsed", false,
              Unit::per_cycle},
    Candidate{Fact::ffma_per_cycle,
              "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum.per_cycle_elapsed", false,
              Unit::per_cycle},
    Candidate{Fact::cycles_per_second, "smsp__cycles_elapsed.avg.per_second", false, Unit::hertz},
};

struct Scale {
  std::string_view unit;
  double factor;
};

bool matches(const Column& column, const Candidate& candidate) {
  if (column.name == candidate.name) {
    return true;
  }
  return candidate.is_label && is_label_column(column, candidate.name);
}

} // namespace

std::optional<double> unit_scale(Unit family, std::string_view unit) {
  if (unit.empty()) {
    return 1.0;
  }
  static constexpr std::array k_time{
      Scale{"ns", 1},   Scale{"nsecond", 1},   Scale{"us", 1e3}, Scale{"usecond", 1e3},
      Scale{"ms", 1e6}, Scale{"msecond", 1e6}, Scale{"s", 1e9},  Scale{"second", 1e9}};
  static constexpr std::array k_bytes{
      Scale{"byte", 1},    Scale{"Kbyte", 1e3},  Scale{"Mbyte", 1e6},
      Scale{"Gbyte", 1e9}, Scale{"Tbyte", 1e12}, Scale{"KB", 1e3},
      Scale{"MB", 1e6},    Scale{"GB", 1e9},     Scale{"TB", 1e12}};
  static constexpr std::array k_per_cycle{Scale{"inst/cycle", 1}, Scale{"Kinst/cycle", 1e3},
                                          Scale{"Minst/cycle", 1e6}, Scale{"Ginst/cycle", 1e9}};
  static constexpr std::array k_hertz{Scale{"hz", 1},
                                      Scale{"Khz", 1e3},
                                      Scale{"Mhz", 1e6},
                                      Scale{"Ghz", 1e9},
                                      Scale{"cycle/second", 1},
                                      Scale{"cycle/msecond", 1e3},
                                      Scale{"cycle/usecond", 1e6},
                                      Scale{"cycle/nsecond", 1e9}};
  static constexpr std::array k_count{Scale{"cycle", 1}, Scale{"Kcycle", 1e3}, Scale{"Mcycle", 1e6},
                                      Scale{"Gcycle", 1e9}, Scale{"register/thread", 1}};
  auto look_up = [](const auto& scales, std::string_view wanted) -> std::optional<double> {
    for (const Scale& scale : scales) {
      if (scale.unit == wanted) {
        return scale.factor;
      }
    }
    return std::nullopt;
  };
  switch (family) {
  case Unit::time_ns:
    return look_up(k_time, unit);
  case Unit::percent:
    return unit == "%" ? std::optional<double>(1.0) : std::nullopt;
  case Unit::bytes:
    return look_up(k_bytes, unit);
  case Unit::bytes_per_s:
    for (std::string_view per : {std::string_view("/s"), std::string_view("/second")}) {
      if (unit.ends_with(per)) {
        return look_up(k_bytes, unit.substr(0, unit.size() - per.size()));
      }
    }
    return std::nullopt;
  case Unit::count:
    return look_up(k_count, unit);
  case Unit::bytes_per_block: {
    constexpr std::string_view k_per_block = "/block";
    return unit.ends_with(k_per_block)
               ? look_up(k_bytes, unit.substr(0, unit.size() - k_per_block.size()))
               : look_up(k_bytes, unit);
  }
  case Unit::as_printed:
    return 1.0;
  case Unit::per_cycle:
    return look_up(k_per_cycle, unit);
  case Unit::hertz:
    return look_up(k_hertz, unit);
  }
  return std::nullopt;
}

bool is_label_column(const Column& column, std::string_view label) {
  if (column.name == label) {
    return true;
  }
  // The reader names a details label "Section/Label" when the label is not unique.
  const std::string_view name = column.name;
  return name.size() > label.size() && name.ends_with(label) &&
         name[name.size() - label.size() - 1] == '/';
}

std::optional<Unit> fact_unit(const Column& column) {
  for (const Candidate& candidate : k_candidates) {
    if (matches(column, candidate) && unit_scale(candidate.unit, column.unit)) {
      return candidate.unit;
    }
  }
  return std::nullopt;
}

FactLookup::FactLookup(const Capture& capture) : m_capture(&capture) {
  for (const Candidate& candidate : k_candidates) {
    const bool wanted =
        candidate.is_label ? capture.page == PageKind::details : capture.page == PageKind::raw;
    if (!wanted) {
      continue;
    }
    for (std::size_t column = 0; column < capture.columns.size(); ++column) {
      if (!matches(capture.columns[column], candidate)) {
        continue;
      }
      if (const auto scale = unit_scale(candidate.unit, capture.columns[column].unit)) {
        m_sources[static_cast<std::size_t>(candidate.fact)].push_back({column, *scale});
      }
    }
  }
}

std::optional<double> FactLookup::get(const KernelRecord& kernel, Fact fact) const {
  for (const Source& source : m_sources[static_cast<std::size_t>(fact)]) {
    if (source.column >= kernel.cells.size()) {
      continue;
    }
    const Cell& cell = kernel.cells[source.column];
    if (cell.kind == ValueKind::number && std::isfinite(cell.number)) {
      return cell.number * source.scale;
    }
  }
  return std::nullopt;
}

} // namespace kprof::analysis

namespace kprof {

std::vector<std::string_view> analysis_columns() {
  std::vector<std::string_view> names;
  const auto add = [&names](std::string_view name) {
    if (std::find(names.begin(), names.end(), name) == names.end()) {
      names.push_back(name);
    }
  };
  for (const analysis::Candidate& candidate : analysis::k_candidates) {
    add(candidate.name);
  }
  for (const std::string_view name : Capture::run_fact_columns()) {
    add(name);
  }
  return names;
}

std::vector<std::string_view> fp32_roofline_columns() {
  std::vector<std::string_view> names;
  for (const analysis::Fact fact :
       {analysis::Fact::fadd_per_cycle, analysis::Fact::fmul_per_cycle,
        analysis::Fact::ffma_per_cycle, analysis::Fact::cycles_per_second,
        analysis::Fact::dram_bytes_per_s}) {
    for (const analysis::Candidate& candidate : analysis::k_candidates) {
      if (candidate.fact == fact && !candidate.is_label) {
        names.push_back(candidate.name);
      }
    }
  }
  return names;
}

ReadOptions read_options_for(const MetricSet& set) {
  if (set.keep_all_columns) {
    return {};
  }
  std::vector<std::string> names;
  for (const MetricSpec& spec : set.metrics) {
    names.push_back(spec.name);
  }
  for (const std::string_view name : analysis_columns()) {
    names.emplace_back(name);
  }
  ReadOptions options = keep_columns_named(std::move(names));
  options.project_details_page = false;
  return options;
}

} // namespace kprof
