// kprof internal: the facts the analysis needs, read from either ncu page.
//
// The raw page names metrics (gpu__time_duration.sum); the details page names labels
// ("Duration", in a section, with a unit that may be us or ms). FactLookup resolves, once per
// capture, which columns hold each fact and how to scale them to one unit, so selection and the
// roofline never care which page they read.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

#include "kprof/capture.hpp"

namespace kprof::analysis {

/// The facts, each in one fixed unit.
enum class Fact : std::size_t {
  duration_ns,     ///< gpu__time_duration.sum | "Duration"
  compute_sol_pct, ///< sm__throughput.avg.pct_of_peak_sustained_elapsed | "Compute (SM) Throughput"
  memory_sol_pct,  ///< gpu__compute_memory_throughput.avg.pct_... | "Memory Throughput" [%]
  dram_sol_pct,    ///< gpu__dram_throughput / dram__throughput .avg.pct_... | "DRAM Throughput"
  tensor_pipe_pct, ///< sm__pipe_tensor_cycles_active..., else sm__inst_executed_pipe_tensor...
  dram_bytes_read, ///< dram__bytes_read.sum
  dram_bytes_write,       ///< dram__bytes_write.sum
  dram_bytes_per_s,       ///< dram__bytes.sum.per_second | "Memory Throughput" [byte/s]
  achieved_occupancy_pct, ///< sm__warps_active.avg.pct_of_peak_sustained_active | "Achieved
                          ///< Occupancy"
  registers_per_thread,   ///< launch__registers_per_thread | "Registers Per Thread"
  sm_active_cycles,       ///< sm__cycles_active.avg | "SM Active Cycles"
  elapsed_cycles,         ///< gpc__cycles_elapsed.max | "Elapsed Cycles"
  // The fp32 roofline's inputs (ncu's SpeedOfLightRooflineChart metrics), raw page only:
  fadd_per_cycle,    ///< smsp__sass_thread_inst_executed_op_fadd_pred_on.sum.per_cycle_elapsed
  fmul_per_cycle,    ///< smsp__sass_thread_inst_executed_op_fmul_pred_on.sum.per_cycle_elapsed
  ffma_per_cycle,    ///< smsp__sass_thread_inst_executed_op_ffma_pred_on.sum.per_cycle_elapsed
  cycles_per_second, ///< smsp__cycles_elapsed.avg.per_second [hz]
};
inline constexpr std::size_t k_fact_count = 16;

/// The unit family of a fact: what its column's printed unit may be and how it scales.
enum class Unit {
  time_ns,
  percent,
  bytes,
  bytes_per_s,
  count,
  bytes_per_block, ///< "byte/block", "Kbyte/block", ...: bytes
  as_printed,      ///< any unit, the number kept as printed ("SM", "block", "warp", "")
  per_cycle,       ///< "inst/cycle", "Kinst/cycle", ...: instructions per cycle
  hertz,           ///< "hz", "Khz", "Mhz", "Ghz", "cycle/second", "cycle/nsecond", ...: per second
};

/// The factor that turns a value printed in `unit` into the family's unit; nullopt when the unit
/// is not one of the family's (a "Memory Throughput" in byte/s is no percentage). An empty unit
/// counts as the base unit (hand-built captures, attributes).
std::optional<double> unit_scale(Unit family, std::string_view unit);

/// True when `column` is the details-page label `label`, named "Label" or "Section/Label".
bool is_label_column(const Column& column, std::string_view label);

/// The unit family FactLookup reads `column` in, when one of its facts is read from it (a raw
/// metric or a details-page label, on either page); nullopt otherwise.
std::optional<Unit> fact_unit(const Column& column);
/// The same for LaunchFactReader's facts (launch_facts.cpp).
std::optional<Unit> launch_fact_unit(const Column& column);

/// Column lookup for one Capture. Holds a reference: the Capture must outlive it.
class FactLookup {
public:
  explicit FactLookup(const Capture& capture);

  /// The fact for `kernel`: the first source column (raw metric first, then details label) that
  /// holds a finite number, scaled to the fact's unit. nullopt when none does.
  [[nodiscard]] std::optional<double> get(const KernelRecord& kernel, Fact fact) const;

  [[nodiscard]] std::optional<double> duration_ns(const KernelRecord& kernel) const {
    return get(kernel, Fact::duration_ns);
  }
  [[nodiscard]] std::optional<double> compute_sol_pct(const KernelRecord& kernel) const {
    return get(kernel, Fact::compute_sol_pct);
  }
  [[nodiscard]] std::optional<double> memory_sol_pct(const KernelRecord& kernel) const {
    return get(kernel, Fact::memory_sol_pct);
  }
  [[nodiscard]] std::optional<double> tensor_pipe_pct(const KernelRecord& kernel) const {
    return get(kernel, Fact::tensor_pipe_pct);
  }
  [[nodiscard]] std::optional<double> sm_active_cycles(const KernelRecord& kernel) const {
    return get(kernel, Fact::sm_active_cycles);
  }

  [[nodiscard]] const Capture& capture() const { return *m_capture; }

private:
  struct Source {
    std::size_t column = 0;
    double scale = 1.0;
  };
  const Capture* m_capture;
  std::array<std::vector<Source>, k_fact_count> m_sources;
};

} // namespace kprof::analysis
