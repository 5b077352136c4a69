// The per-launch facts a diagnosis reads (LaunchFacts), from either ncu page.
//
// Each fact has its columns in priority order: a details-page label ("Theoretical Occupancy"),
// then raw metric names, which also match a details page's "Command line profiler metrics"
// section (the deep set collects its metrics there). The columns are resolved once per capture;
// the value of a launch is the first that holds a finite number, with the column's name kept for
// the evidence. Nothing is derived here that the capture does not hold, except the GPU table's
// figures (named "datasheet: <GPU>") when the capture has no column for them.
#include <array>
#include <cmath>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/facts.hpp"
#include "analysis/internal.hpp"
#include "kprof/analysis.hpp"

namespace kprof {
namespace {

using analysis::Unit;

enum class Kind {
  label,  ///< a details-page label
  metric, ///< a metric or attribute name: on the raw page, and on a details page's own section
};

/// A member of LaunchFacts.
using Member = std::optional<SourcedNumber> LaunchFacts::*;

struct Candidate {
  Member member;
  std::string_view name;
  Kind kind;
  Unit unit;
};

// clang-format off
constexpr std::array k_candidates{
    Candidate{&LaunchFacts::duration_ns, "Duration", Kind::label, Unit::time_ns},
    Candidate{&LaunchFacts::duration_ns, "gpu__time_duration.sum", Kind::metric, Unit::time_ns},
    Candidate{&LaunchFacts::sm_count, "# SMs", Kind::label, Unit::as_printed},
    Candidate{&LaunchFacts::sm_count, "launch__sm_count", Kind::metric, Unit::as_printed},
    Candidate{&LaunchFacts::sm_count, "device__attribute_multiprocessor_count", Kind::metric, Unit::as_printed},
    Candidate{&LaunchFacts::waves_per_sm, "Waves Per SM", Kind::label, Unit::as_printed},
    Candidate{&LaunchFacts::waves_per_sm, "launch__waves_per_multiprocessor", Kind::metric, Unit::as_printed},
    Candidate{&LaunchFacts::max_warps_per_sm, "device__attribute_max_warps_per_multiprocessor", Kind::metric, Unit::as_printed},
    Candidate{&LaunchFacts::theoretical_occupancy_pct, "Theoretical Occupancy", Kind::label, Unit::percent},
    Candidate{&LaunchFacts::theoretical_occupancy_pct, "sm__maximum_warps_per_active_cycle_pct", Kind::metric, Unit::percent},
    Candidate{&LaunchFacts::achieved_occupancy_pct, "Achieved Occupancy", Kind::label, Unit::percent},
    Candidate{&LaunchFacts::achieved_occupancy_pct, "sm__warps_active.avg.pct_of_peak_sustained_active", Kind::metric, Unit::percent},
    Candidate{&LaunchFacts::block_limit_registers, "Block Limit Registers", Kind::label, Unit::as_printed},
    Candidate{&LaunchFacts::block_limit_registers, "launch__occupancy_limit_registers", Kind::metric, Unit::as_printed},
    Candidate{&LaunchFacts::block_limit_shared_mem, "Block Limit Shared Mem", Kind::label, Unit::as_printed},
    Candidate{&LaunchFacts::block_limit_shared_mem, "launch__occupancy_limit_shared_mem", Kind::metric, Unit::as_printed},
    Candidate{&LaunchFacts::block_limit_warps, "Block Limit Warps", Kind::label, Unit::as_printed},
    Candidate{&LaunchFacts::block_limit_warps, "launch__occupancy_limit_warps", Kind::metric, Unit::as_printed},
    Candidate{&LaunchFacts::block_limit_blocks, "Block Limit SM", Kind::label, Unit::as_printed},
    Candidate{&LaunchFacts::block_limit_blocks, "launch__occupancy_limit_blocks", Kind::metric, Unit::as_printed},
    Candidate{&LaunchFacts::block_limit_barriers, "Block Limit Barriers", Kind::label, Unit::as_printed},
    Candidate{&LaunchFacts::block_limit_barriers, "launch__occupancy_limit_barriers", Kind::metric, Unit::as_printed},
    Candidate{&LaunchFacts::registers_per_thread, "Registers Per Thread", Kind::label, Unit::as_printed},
    Candidate{&LaunchFacts::registers_per_thread, "launch__registers_per_thread", Kind::metric, Unit::as_printed},
    Candidate{&LaunchFacts::shared_mem_dynamic_bytes, "Dynamic Shared Memory Per Block", Kind::label, Unit::bytes_per_block},
    Candidate{&LaunchFacts::shared_mem_dynamic_bytes, "launch__shared_mem_per_block_dynamic", Kind::metric, Unit::bytes_per_block},
    Candidate{&LaunchFacts::shared_mem_static_bytes, "Static Shared Memory Per Block", Kind::label, Unit::bytes_per_block},
    Candidate{&LaunchFacts::shared_mem_static_bytes, "launch__shared_mem_per_block_static", Kind::metric, Unit::bytes_per_block},
    Candidate{&LaunchFacts::shared_mem_allocated_bytes, "launch__shared_mem_per_block_allocated", Kind::metric, Unit::bytes_per_block},
    Candidate{&LaunchFacts::spill_requests, "Local Memory Spilling Requests", Kind::label, Unit::as_printed},
    Candidate{&LaunchFacts::spill_requests, "derived__local_spilling_requests", Kind::metric, Unit::as_printed},
    Candidate{&LaunchFacts::spill_requests, "sass__inst_executed_register_spilling", Kind::metric, Unit::as_printed},
    Candidate{&LaunchFacts::branch_uniform_pct, "Branch Efficiency", Kind::label, Unit::percent},
    Candidate{&LaunchFacts::branch_uniform_pct, "smsp__sass_average_branch_targets_threads_uniform.pct", Kind::metric, Unit::percent},
    Candidate{&LaunchFacts::divergent_branches, "Avg. Divergent Branches", Kind::label, Unit::as_printed},
    Candidate{&LaunchFacts::divergent_branches, "smsp__sass_branch_targets_threads_divergent.avg", Kind::metric, Unit::as_printed},
    Candidate{&LaunchFacts::active_threads_per_warp, "Avg. Active Threads Per Warp", Kind::label, Unit::as_printed},
    Candidate{&LaunchFacts::active_threads_per_warp, "smsp__thread_inst_executed_per_inst_executed.ratio", Kind::metric, Unit::as_printed},
    Candidate{&LaunchFacts::predicated_on_threads_per_warp, "Avg. Not Predicated Off Threads Per Warp", Kind::label, Unit::as_printed},
    Candidate{&LaunchFacts::predicated_on_threads_per_warp, "smsp__thread_inst_executed_pred_on_per_inst_executed.ratio", Kind::metric, Unit::as_printed},
    Candidate{&LaunchFacts::global_load_sector_use_pct, "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct", Kind::metric, Unit::percent},
    Candidate{&LaunchFacts::dram_throughput_pct, "DRAM Throughput", Kind::label, Unit::percent},
    Candidate{&LaunchFacts::dram_throughput_pct, "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed", Kind::metric, Unit::percent},
    Candidate{&LaunchFacts::dram_throughput_pct, "dram__throughput.avg.pct_of_peak_sustained_elapsed", Kind::metric, Unit::percent},
    Candidate{&LaunchFacts::l2_throughput_pct, "L2 Cache Throughput", Kind::label, Unit::percent},
    Candidate{&LaunchFacts::l2_throughput_pct, "lts__throughput.avg.pct_of_peak_sustained_elapsed", Kind::metric, Unit::percent},
    Candidate{&LaunchFacts::l2_throughput_pct, "lts__throughput.avg.pct_of_peak_sustained_active", Kind::metric, Unit::percent},
    Candidate{&LaunchFacts::l1_throughput_pct, "L1/TEX Cache Throughput", Kind::label, Unit::percent},
    Candidate{&LaunchFacts::l1_throughput_pct, "l1tex__throughput.avg.pct_of_peak_sustained_elapsed", Kind::metric, Unit::percent},
    Candidate{&LaunchFacts::l1_throughput_pct, "l1tex__throughput.avg.pct_of_peak_sustained_active", Kind::metric, Unit::percent},
    Candidate{&LaunchFacts::fma_pipe_pct, "sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active", Kind::metric, Unit::percent},
    Candidate{&LaunchFacts::tensor_pipe_pct, "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed", Kind::metric, Unit::percent},
    Candidate{&LaunchFacts::tensor_pipe_pct, "sm__inst_executed_pipe_tensor.avg.pct_of_peak_sustained_active", Kind::metric, Unit::percent},
    Candidate{&LaunchFacts::long_scoreboard_stall_pct, "smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct", Kind::metric, Unit::percent},
    Candidate{&LaunchFacts::lg_throttle_stall_pct, "smsp__warp_issue_stalled_lg_throttle_per_warp_active.pct", Kind::metric, Unit::percent},
    Candidate{&LaunchFacts::mio_throttle_stall_pct, "smsp__warp_issue_stalled_mio_throttle_per_warp_active.pct", Kind::metric, Unit::percent},
    Candidate{&LaunchFacts::barrier_stall_pct, "smsp__warp_issue_stalled_barrier_per_warp_active.pct", Kind::metric, Unit::percent},
    Candidate{&LaunchFacts::issue_active_pct, "Issue Slots Busy", Kind::label, Unit::percent},
    Candidate{&LaunchFacts::issue_active_pct, "sm__inst_issued.avg.pct_of_peak_sustained_active", Kind::metric, Unit::percent},
    Candidate{&LaunchFacts::sm_active_cycles, "SM Active Cycles", Kind::label, Unit::count},
    Candidate{&LaunchFacts::sm_active_cycles, "sm__cycles_active.avg", Kind::metric, Unit::count},
    Candidate{&LaunchFacts::elapsed_cycles, "Elapsed Cycles", Kind::label, Unit::count},
    Candidate{&LaunchFacts::elapsed_cycles, "gpc__cycles_elapsed.max", Kind::metric, Unit::count},
};
// clang-format on

struct Source {
  Member member;
  std::size_t column = 0;
  double scale = 1.0;
};

} // namespace

std::optional<analysis::Unit> analysis::launch_fact_unit(const Column& column) {
  for (const Candidate& candidate : k_candidates) {
    const bool named = candidate.kind == Kind::label ? is_label_column(column, candidate.name)
                                                     : column.name == candidate.name;
    if (named && unit_scale(candidate.unit, column.unit)) {
      return candidate.unit;
    }
  }
  return std::nullopt;
}

struct LaunchFactReader::Impl {
  Impl(const Capture& captured, std::optional<GpuSpec> spec, const RooflineThresholds& limits)
      : capture(captured), facts(captured), gpu(std::move(spec)), thresholds(limits) {}

  const Capture& capture;
  analysis::FactLookup facts;
  std::optional<GpuSpec> gpu;
  RooflineThresholds thresholds;
  std::vector<Source> sources; ///< in candidate priority order
};

LaunchFactReader::LaunchFactReader(const Capture& capture, std::optional<GpuSpec> gpu,
                                   const RooflineThresholds& thresholds)
    : m_impl(std::make_unique<Impl>(capture, std::move(gpu), thresholds)) {
  const bool details = capture.page == PageKind::details;
  for (const Candidate& candidate : k_candidates) {
    if (candidate.kind == Kind::label && !details) {
      continue;
    }
    for (std::size_t column = 0; column < capture.columns.size(); ++column) {
      const Column& col = capture.columns[column];
      const bool named = candidate.kind == Kind::label
                             ? analysis::is_label_column(col, candidate.name)
                             : col.name == candidate.name;
      if (!named) {
        continue;
      }
      if (const auto scale = analysis::unit_scale(candidate.unit, col.unit)) {
        m_impl->sources.push_back(Source{candidate.member, column, *scale});
      }
    }
  }
}

LaunchFactReader::~LaunchFactReader() = default;

const std::optional<GpuSpec>& LaunchFactReader::gpu() const {
  return m_impl->gpu;
}

LaunchFacts LaunchFactReader::read(const KernelRecord& launch) const {
  LaunchFacts facts;
  for (const Source& source : m_impl->sources) {
    std::optional<SourcedNumber>& slot = facts.*source.member;
    if (slot || source.column >= launch.cells.size()) {
      continue;
    }
    const Cell& cell = launch.cells[source.column];
    if (cell.kind == ValueKind::number && std::isfinite(cell.number)) {
      slot = SourcedNumber{cell.number * source.scale, m_impl->capture.columns[source.column].name};
    }
  }
  if (const std::optional<GpuSpec>& gpu = m_impl->gpu) {
    const std::string datasheet = "datasheet: " + gpu->name;
    if (!facts.sm_count && gpu->sm_count > 0) {
      facts.sm_count = SourcedNumber{static_cast<double>(gpu->sm_count), datasheet};
    }
    if (!facts.max_warps_per_sm && gpu->max_warps_per_sm > 0) {
      facts.max_warps_per_sm = SourcedNumber{static_cast<double>(gpu->max_warps_per_sm), datasheet};
    }
  }
  facts.roofline = analysis::roofline_of(m_impl->facts, launch, m_impl->gpu, m_impl->thresholds);
  return facts;
}

std::optional<GpuSpec> gpu_spec_of(const Capture& capture) {
  if (auto name = capture.device_name()) {
    return find_gpu_spec(*name);
  }
  return std::nullopt;
}

} // namespace kprof
