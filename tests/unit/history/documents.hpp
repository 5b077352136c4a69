// Hand-made report documents (schema_version 1) for the history tests: only what the history
// module reads, with values chosen by hand, so these tests do not depend on build_report().
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "kprof/report.hpp"

namespace kprof::testing {

struct MetricSample {
  std::string name;
  Json value; ///< a number, a string or null
  std::string unit;
};

struct KernelSample {
  std::string name;
  double duration_ns = 0;
  std::string bottleneck = "memory";
  double compute_sol_pct = 20;
  double memory_sol_pct = 45;
  std::vector<MetricSample> metrics; ///< besides gpu__time_duration.sum
};

/// The metric set every sample document declares (name, label, group).
inline Json sample_metric_set() {
  Json metrics = Json::array();
  for (const auto& [name, label, group] :
       std::vector<std::tuple<std::string, std::string, std::string>>{
           {"gpu__time_duration.sum", "Duration", "Time"},
           {"dram__throughput.avg.pct_of_peak_sustained_elapsed", "DRAM throughput", "Memory"},
           {"sm__throughput.avg.pct_of_peak_sustained_elapsed", "Compute throughput", "Compute"},
           {"launch__registers_per_thread", "Registers", "Launch"},
           {"launch__func_cache_config", "Cache config", "Launch"}}) {
    metrics.push_back(Json{{"name", name}, {"label", label}, {"group", group}});
  }
  return Json{{"name", "default"}, {"metrics", metrics}};
}

/// A valid report of one launch per kernel; the total is the sum of the kernel durations
/// unless `total_ns` is given.
inline Json make_report(std::optional<int> round, std::optional<int> candidate,
                        const std::vector<KernelSample>& kernels,
                        std::optional<double> total_ns = std::nullopt) {
  Json metadata = Json::object();
  metadata["kprof_version"] = "0.1.0";
  metadata["source"] = "ncu.csv";
  metadata["generated_at"] = "2026-01-02T03:04:05Z";
  metadata["page"] = "raw";
  metadata["gpu"] = "NVIDIA H200";
  metadata["metric_set"] = sample_metric_set();
  metadata["round"] = round ? Json(*round) : Json(nullptr);
  metadata["candidate"] = candidate ? Json(*candidate) : Json(nullptr);
  metadata["kernel_file"] = "kernel.py";
  metadata["problem_file"] = "problem.py";
  metadata["status"] = "ok";

  Json launches = Json::array();
  Json summary_kernels = Json::array();
  Json roofline = Json::object();
  Json agent_metrics = Json::object();
  double total = 0;
  std::string dominant;
  double dominant_ns = -1;
  int id = 0;
  for (const auto& kernel : kernels) {
    Json metrics = Json::object();
    metrics["gpu__time_duration.sum"] = Json{{"value", kernel.duration_ns}, {"unit", "ns"}};
    Json flat = Json::object();
    flat["gpu__time_duration.sum"] = kernel.duration_ns;
    for (const auto& metric : kernel.metrics) {
      metrics[metric.name] = Json{{"value", metric.value}, {"unit", metric.unit}};
      flat[metric.name] = metric.value;
    }
    launches.push_back(Json{{"name", kernel.name},
                            {"id", id++},
                            {"nvtx_range", nullptr},
                            {"grid", Json::array({1024, 1, 1})},
                            {"block", Json::array({256, 1, 1})},
                            {"device", 0},
                            {"cc", "9.0"},
                            {"metrics", metrics}});
    summary_kernels.push_back(Json{{"name", kernel.name},
                                   {"launches", 1},
                                   {"duration_ns", kernel.duration_ns},
                                   {"share", nullptr}});
    roofline[kernel.name] =
        Json{{"compute_sol_pct", kernel.compute_sol_pct},
             {"memory_sol_pct", kernel.memory_sol_pct},
             {"bottleneck", kernel.bottleneck},
             {"headroom_pct", 100 - std::max(kernel.compute_sol_pct, kernel.memory_sol_pct)},
             {"tensor_pipe_pct", 0.0},
             {"tensor_cores_used", false},
             {"dram_bytes_per_s", nullptr},
             {"dram_peak_fraction", nullptr},
             {"explanation", "hand-made"}};
    agent_metrics[kernel.name] = flat;
    total += kernel.duration_ns;
    if (kernel.duration_ns > dominant_ns) {
      dominant_ns = kernel.duration_ns;
      dominant = kernel.name;
    }
  }
  const double total_duration = total_ns.value_or(total);
  for (auto& kernel : summary_kernels) {
    kernel["share"] = kernel["duration_ns"].get<double>() / total_duration;
  }
  Json doc = Json::object();
  doc["schema_version"] = 1;
  doc["metadata"] = metadata;
  doc["kernels"] = launches;
  doc["summary"] = Json{{"total_duration_ns", total_duration},
                        {"launches", kernels.size()},
                        {"dominant_kernel", dominant.empty() ? Json(nullptr) : Json(dominant)},
                        {"kernels", summary_kernels}};
  doc["roofline"] = roofline;
  doc["metrics"] = agent_metrics;
  return doc;
}

/// One kernel called "scale_kernel" taking `duration_ns`.
inline Json simple_report(int round, std::optional<int> candidate, double duration_ns,
                          double memory_sol_pct = 45) {
  KernelSample kernel{"scale_kernel", duration_ns, "memory", 20, memory_sol_pct, {}};
  kernel.metrics.push_back(
      {"dram__throughput.avg.pct_of_peak_sustained_elapsed", Json(memory_sol_pct), "%"});
  kernel.metrics.push_back({"launch__registers_per_thread", Json(32), "register/thread"});
  kernel.metrics.push_back({"launch__func_cache_config", Json("CachePreferNone"), ""});
  return make_report(round, candidate, {kernel});
}

} // namespace kprof::testing
