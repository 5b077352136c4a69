// The roofline verdict of one kernel, from ncu's speed-of-light numbers.
//
// ncu's SOL percentages already are "fraction of the roof" for the compute (SM) and memory
// units, so the verdict needs no FLOP count: the busier unit bounds the kernel, unless both are
// far from their peak, in which case the kernel is under-utilized (too little parallelism, or
// stalled on latency) and neither roof is the problem.
#include <algorithm>
#include <string>

#include "analysis/facts.hpp"
#include "analysis/internal.hpp"
#include "kprof/analysis.hpp"
#include "kprof/numbers.hpp"

namespace kprof {

std::string_view to_string(Bottleneck bottleneck) {
  switch (bottleneck) {
  case Bottleneck::memory:
    return "memory";
  case Bottleneck::compute:
    return "compute";
  case Bottleneck::latency:
    return "latency";
  }
  return "latency";
}

namespace analysis {
namespace {

std::string percent(double value) {
  return format_fixed(value, 1) + "%";
}

std::string_view short_gpu_name(std::string_view name) {
  constexpr std::string_view k_vendor = "NVIDIA ";
  return name.starts_with(k_vendor) ? name.substr(k_vendor.size()) : name;
}

std::string sol_text(std::string_view unit, const std::optional<double>& value) {
  return value ? std::string(unit) + " SOL " + percent(*value)
               : std::string(unit) + " SOL not collected";
}

std::string verdict_text(const Roofline& roofline, const RooflineThresholds& thresholds) {
  const auto& compute = roofline.compute_sol_pct;
  const auto& memory = roofline.memory_sol_pct;
  if (!compute && !memory) {
    return "no verdict: neither compute nor memory SOL was collected";
  }
  switch (roofline.bottleneck) {
  case Bottleneck::memory:
    return "memory-bound: " + sol_text("memory", memory) + " vs " +
           (compute ? "compute " + percent(*compute) : "compute not collected");
  case Bottleneck::compute: {
    std::string text = "compute-bound: " + sol_text("compute", compute) + " vs " +
                       (memory ? "memory " + percent(*memory) : "memory not collected");
    if (roofline.tensor_pipe_pct && roofline.tensor_cores_used) {
      text += "; tensor pipe " + percent(*roofline.tensor_pipe_pct) + " active";
    }
    return text;
  }
  case Bottleneck::latency:
    return "latency-bound (under-utilized): " + sol_text("compute", compute) + " and " +
           sol_text("memory", memory) + ", both below " + format_number(thresholds.latency_pct) +
           "%" + ": too little parallelism or waiting on latency";
  }
  return {};
}

std::string dram_text(const Roofline& roofline, const std::optional<GpuSpec>& gpu) {
  if (!roofline.dram_bytes_per_s) {
    return {};
  }
  std::string text = "; DRAM " + format_with_unit(*roofline.dram_bytes_per_s, "byte/s");
  if (roofline.dram_peak_fraction && gpu) {
    text += " = " + format_fixed(*roofline.dram_peak_fraction * 100.0, 0) + "% of " +
            std::string(short_gpu_name(gpu->name)) + " peak " +
            format_with_unit(gpu->dram_bandwidth_bytes_per_s, "byte/s");
  }
  return text;
}

} // namespace

Roofline roofline_of(const FactLookup& facts, const KernelRecord& kernel,
                     const std::optional<GpuSpec>& gpu, const RooflineThresholds& thresholds) {
  Roofline roofline;
  roofline.compute_sol_pct = facts.compute_sol_pct(kernel);
  roofline.memory_sol_pct = facts.memory_sol_pct(kernel);

  if (roofline.compute_sol_pct || roofline.memory_sol_pct) {
    const double compute = roofline.compute_sol_pct.value_or(0.0);
    const double memory = roofline.memory_sol_pct.value_or(0.0);
    const double busiest = std::max(compute, memory);
    if (busiest < thresholds.latency_pct) {
      roofline.bottleneck = Bottleneck::latency;
    } else if (memory >= compute) {
      roofline.bottleneck = Bottleneck::memory;
    } else {
      roofline.bottleneck = Bottleneck::compute;
    }
    roofline.headroom_pct = 100.0 - busiest;
  }

  roofline.tensor_pipe_pct = facts.tensor_pipe_pct(kernel);
  roofline.tensor_cores_used =
      roofline.tensor_pipe_pct && *roofline.tensor_pipe_pct >= thresholds.tensor_in_use_pct;

  const auto read = facts.get(kernel, Fact::dram_bytes_read);
  const auto write = facts.get(kernel, Fact::dram_bytes_write);
  const auto duration = facts.duration_ns(kernel);
  if (read && write && duration && *duration > 0) {
    roofline.dram_bytes_per_s = (*read + *write) / (*duration * 1e-9);
  } else {
    roofline.dram_bytes_per_s = facts.get(kernel, Fact::dram_bytes_per_s);
  }
  if (roofline.dram_bytes_per_s && gpu && gpu->dram_bandwidth_bytes_per_s > 0) {
    roofline.dram_peak_fraction = *roofline.dram_bytes_per_s / gpu->dram_bandwidth_bytes_per_s;
  }

  const auto fadd = facts.get(kernel, Fact::fadd_per_cycle);
  const auto fmul = facts.get(kernel, Fact::fmul_per_cycle);
  const auto ffma = facts.get(kernel, Fact::ffma_per_cycle);
  const auto hertz = facts.get(kernel, Fact::cycles_per_second);
  if (fadd && fmul && ffma && hertz) {
    roofline.fp32_flops_per_s = (*fadd + *fmul + 2.0 * *ffma) * *hertz;
    if (*roofline.fp32_flops_per_s > 0 && roofline.dram_bytes_per_s &&
        *roofline.dram_bytes_per_s > 0) {
      roofline.fp32_flop_per_dram_byte = *roofline.fp32_flops_per_s / *roofline.dram_bytes_per_s;
    }
  }

  roofline.explanation = verdict_text(roofline, thresholds) + dram_text(roofline, gpu);
  return roofline;
}

} // namespace analysis

Roofline roofline_of(const Capture& capture, const KernelRecord& kernel,
                     const std::optional<GpuSpec>& gpu, const RooflineThresholds& thresholds) {
  return analysis::roofline_of(analysis::FactLookup(capture), kernel, gpu, thresholds);
}

} // namespace kprof
