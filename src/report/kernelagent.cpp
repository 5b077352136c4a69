#include "kprof/kernelagent.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include <fmt/format.h>

#include "kprof/analysis.hpp"
#include "kprof/capture.hpp"
#include "kprof/numbers.hpp"
#include "kprof/report.hpp"
#include "kprof/report_view.hpp"
#include "report/json_writer.hpp"
#include "report/sinks.hpp"

namespace kprof {
namespace {

/// A cell of the text: numbers rounded and tidied like KernelAgent's prompt, others unchanged.
Json cell(const Json& value, const KernelAgentTextOptions& options) {
  if (value.is_number_float()) {
    const double number = value.get<double>();
    return kernelagent_value(options.round_digits && std::isfinite(number)
                                 ? round_to(number, *options.round_digits)
                                 : number);
  }
  return value;
}

/// Python's json.dumps(value) without indent: ", " between items and ": " after keys.
void append_compact(std::string& out, const Json& value) {
  if (value.is_object()) {
    out += '{';
    bool first = true;
    for (const auto& [key, item] : value.items()) {
      out += first ? "" : ", ";
      first = false;
      out += Json(key).dump(-1, ' ', false, Json::error_handler_t::replace);
      out += ": ";
      append_compact(out, item);
    }
    out += '}';
  } else if (value.is_array()) {
    out += '[';
    bool first = true;
    for (const Json& item : value) {
      out += first ? "" : ", ";
      first = false;
      append_compact(out, item);
    }
    out += ']';
  } else {
    out += value.dump(-1, ' ', false, Json::error_handler_t::replace);
  }
}

/// Units whose values ncu prints as whole numbers, so that KernelAgent's pandas columns of them
/// stay integers; every other column holds a fraction or a scaled unit somewhere and is float.
bool integral_unit(std::string_view unit) {
  return unit == "register/thread" || unit == "block" || unit == "inst";
}

/// A metrics-block record ({metric: value}) with KernelAgent's number types.
Json typed_record(const Json& record, const ReportKernel* kernel) {
  if (!record.is_object()) {
    return record;
  }
  Json out = Json::object();
  for (const auto& [metric, value] : record.items()) {
    const bool integral = kernel != nullptr && kernel->representative != nullptr &&
                          integral_unit(ReportView::metric_unit(*kernel->representative, metric));
    if (value.is_number() && !integral) {
      out[metric] = value.get<double>();
    } else {
      out[metric] = value;
    }
  }
  return out;
}

/// KernelAgent's timestamp (datetime.utcnow().isoformat() + "Z", microseconds) from the report.
Json kernelagent_timestamp(const Json& metadata) {
  const std::string profiled = json_read::text_at(metadata, "profiled_at");
  if (!profiled.empty()) {
    return profiled;
  }
  std::string generated = json_read::text_at(metadata, "generated_at");
  if (generated.empty()) {
    return nullptr;
  }
  if (generated.back() == 'Z' && generated.find('.') == std::string::npos) {
    generated.insert(generated.size() - 1, ".000000");
  }
  return generated;
}

Json member_or_null(const Json& object, std::string_view key) {
  const Json* found = json_read::member(object, key);
  return found == nullptr ? Json(nullptr) : *found;
}

/// The launch of a list of records with the largest gpu__time_duration.sum, else the last.
const Json& longest_record(const Json& records) {
  const Json* best = &records.back();
  std::optional<double> best_duration;
  for (const Json& record : records) {
    const std::optional<double> duration = json_read::number_at(record, "gpu__time_duration.sum");
    if (duration && (!best_duration || *duration > *best_duration)) {
      best = &record;
      best_duration = duration;
    }
  }
  return *best;
}

std::string percent(double value) {
  return format_fixed(value, 1) + "%";
}

} // namespace

namespace {

/// KernelAgent's order of a report's kernel names: the candidate's own kernels before library
/// kernels (is_library_kernel), each longest total duration first.
std::vector<ReportKernel> agent_order(const Json& outline) {
  const ReportView view(outline);
  std::vector<ReportKernel> order = view.kernels_by_duration();
  std::stable_partition(order.begin(), order.end(),
                        [](const ReportKernel& kernel) { return !is_library_kernel(kernel.name); });
  return order;
}

/// The members of the body's `metrics`, in the body's order, each name once (as a lookup by name
/// finds it): the names of `order` that the report's KernelAgent `metrics` has, with their
/// kernel (their records are typed, typed_record), then the report's other names in document
/// order, without one (their records stay as they are).
void for_each_body_member(
    const ReportSource& report, const std::vector<ReportKernel>& order,
    const std::function<void(const AgentMember& member, const ReportKernel* kernel)>& place) {
  const std::vector<AgentMember> members = report.agent_members();
  std::unordered_map<std::string, std::size_t> member_of;
  for (std::size_t i = 0; i < members.size(); ++i) {
    member_of.try_emplace(members[i].name, i);
  }
  std::unordered_set<std::string> placed;
  for (const ReportKernel& kernel : order) {
    const auto found = member_of.find(kernel.name);
    if (found != member_of.end() && placed.insert(kernel.name).second) {
      place(members[found->second], &kernel);
    }
  }
  for (const AgentMember& member : members) {
    if (placed.insert(member.name).second) {
      place(member, nullptr);
    }
  }
}

/// A record of the body: typed for a kernel of the summary, else as the report has it.
Json body_record(const Json& record, const ReportKernel* kernel) {
  return kernel != nullptr ? typed_record(record, kernel) : record;
}

/// The body's `metadata`, from the report's.
Json body_metadata(const Json& outline) {
  const Json empty = Json::object();
  const Json* metadata = json_read::member(outline, "metadata");
  const Json& md = metadata != nullptr && metadata->is_object() ? *metadata : empty;
  Json meta = Json::object();
  meta["kernel_file"] = member_or_null(md, "kernel_file");
  meta["problem_file"] = member_or_null(md, "problem_file");
  meta["round_num"] = member_or_null(md, "round");
  meta["timestamp"] = kernelagent_timestamp(md);
  meta["ncu_version"] = member_or_null(md, "ncu_version");
  return meta;
}

} // namespace

Json kernelagent_round_json(const Json& report) {
  const HeldReport held(report);
  Json block = Json::object();
  for_each_body_member(held, agent_order(report),
                       [&](const AgentMember& member, const ReportKernel* kernel) {
                         Json value = member.list ? Json::array() : Json();
                         held.for_each_agent_record(member.name, [&](const Json& record) {
                           if (member.list) {
                             value.push_back(body_record(record, kernel));
                           } else {
                             value = body_record(record, kernel);
                           }
                         });
                         block[member.name] = std::move(value);
                       });
  Json out = Json::object();
  out["metrics"] = std::move(block);
  out["metadata"] = body_metadata(report);
  return out;
}

void write_kernelagent_round_json(const ReportSource& report, const TextOut& out) {
  // json_text(body, 2), written record by record in the body's order (each name's records made
  // again from the report when its turn comes), so no member is held.
  report_detail::JsonWriter writer(2, out);
  writer.begin_object();
  writer.key(R"("metrics")");
  writer.begin_object();
  for_each_body_member(report, agent_order(report.outline()),
                       [&](const AgentMember& member, const ReportKernel* kernel) {
                         writer.key(report_detail::json_quoted(member.name));
                         if (member.list) {
                           writer.begin_array();
                         }
                         report.for_each_agent_record(member.name, [&](const Json& record) {
                           writer.tree(body_record(record, kernel));
                           writer.flush_if_full();
                         });
                         if (member.list) {
                           writer.end_array();
                         }
                       });
  writer.end_object();
  writer.key(R"("metadata")");
  writer.tree(body_metadata(report.outline()));
  writer.end_object();
  writer.raw("\n");
  writer.flush();
}

Json kernelagent_kernel_metrics(const Json& metrics) {
  Json out = Json::object();
  out["kernel"] = nullptr;
  out["metrics"] = Json::object();
  if (!metrics.is_object() || metrics.empty()) {
    return out;
  }
  const bool flat = std::none_of(metrics.begin(), metrics.end(), [](const Json& value) {
    return value.is_object() || value.is_array();
  });
  if (flat) {
    out["metrics"] = metrics;
    return out;
  }
  auto chosen = metrics.items().begin();
  for (auto it = metrics.items().begin(); it != metrics.items().end(); ++it) {
    if (!is_library_kernel(it.key())) {
      chosen = it;
      break;
    }
  }
  const Json& value = chosen.value();
  out["kernel"] = chosen.key();
  if (value.is_object()) {
    out["metrics"] = value;
  } else if (value.is_array() && !value.empty() && longest_record(value).is_object()) {
    out["metrics"] = longest_record(value);
  }
  return out;
}

Json to_json(const KernelAgentRooflineConfig& config) {
  Json out = Json::object();
  out["threshold_pct"] = config.threshold_pct;
  out["early_stop"] = config.early_stop;
  out["convergence_rounds"] = config.convergence_rounds;
  out["min_improvement_pct"] = config.min_improvement_pct;
  out["tensor_core_threshold"] = config.tensor_core_threshold;
  out["underutilized_threshold"] = config.underutilized_threshold;
  return out;
}

KernelAgentRooflineConfig kernelagent_roofline_config(const Json& json) {
  KernelAgentRooflineConfig config;
  const auto take = [&json](std::string_view key, double& field) {
    if (const std::optional<double> value = json_read::number_at(json, key)) {
      field = *value;
    }
  };
  take("threshold_pct", config.threshold_pct);
  take("min_improvement_pct", config.min_improvement_pct);
  take("tensor_core_threshold", config.tensor_core_threshold);
  take("underutilized_threshold", config.underutilized_threshold);
  if (const std::optional<bool> early = json_read::bool_at(json, "early_stop")) {
    config.early_stop = *early;
  }
  if (const std::optional<double> rounds = json_read::number_at(json, "convergence_rounds")) {
    config.convergence_rounds = static_cast<int>(*rounds);
  }
  return config;
}

Json kernelagent_roofline(const Json& flat_metrics, const KernelAgentRooflineConfig& config) {
  // One hand-built launch: kprof's own verdict reads it like a capture's raw page.
  Capture capture;
  capture.source = "<KernelAgent metrics>";
  KernelRecord record;
  if (flat_metrics.is_object()) {
    for (const auto& [name, value] : flat_metrics.items()) {
      if (value.is_number()) {
        capture.columns.push_back(Column{name, "", ""});
        Cell cell;
        cell.kind = ValueKind::number;
        cell.number = value.get<double>();
        record.cells.push_back(cell);
      }
    }
  }
  capture.index_columns();
  capture.kernels.push_back(std::move(record));
  const RooflineThresholds thresholds{config.underutilized_threshold, config.tensor_core_threshold};
  const Roofline roofline = roofline_of(capture, capture.kernels.front(), std::nullopt, thresholds);

  const double compute = roofline.compute_sol_pct.value_or(0.0);
  const double memory = roofline.memory_sol_pct.value_or(0.0);
  const double efficiency = std::max(compute, memory);
  const bool known = roofline.compute_sol_pct || roofline.memory_sol_pct;
  Json warnings = Json::array();
  if (!roofline.compute_sol_pct) {
    warnings.push_back("compute SOL (sm__throughput.avg.pct_of_peak_sustained_elapsed) not "
                       "collected");
  }
  if (!roofline.memory_sol_pct) {
    warnings.push_back("memory SOL (gpu__compute_memory_throughput.avg.pct_of_peak_sustained_"
                       "elapsed) not collected");
  }
  std::string bottleneck = "unknown";
  if (known) {
    bottleneck = roofline.bottleneck == Bottleneck::latency
                     ? "underutilized"
                     : std::string(to_string(roofline.bottleneck));
  }
  Json out = Json::object();
  out["compute_sol_pct"] = compute;
  out["memory_sol_pct"] = memory;
  out["efficiency_pct"] = efficiency;
  out["at_roofline"] = known && efficiency >= config.threshold_pct;
  out["headroom_pct"] = std::max(0.0, 100.0 - efficiency);
  out["bottleneck"] = bottleneck;
  out["uses_tensor_cores"] = roofline.tensor_cores_used;
  out["warnings"] = std::move(warnings);
  out["explanation"] = roofline.explanation;
  return out;
}

StopDecision kernelagent_should_stop(std::span<const double> efficiencies, bool at_roofline,
                                     const KernelAgentRooflineConfig& config) {
  if (config.early_stop && at_roofline && !efficiencies.empty()) {
    return {true, fmt::format("at the roofline: {} SOL, at least {}", percent(efficiencies.back()),
                              percent(config.threshold_pct))};
  }
  const auto window = static_cast<std::size_t>(std::max(config.convergence_rounds, 1));
  if (efficiencies.size() >= window) {
    const auto recent = efficiencies.subspan(efficiencies.size() - window);
    const auto [low, high] = std::minmax_element(recent.begin(), recent.end());
    const double spread = *high - *low;
    if (spread < config.min_improvement_pct) {
      return {true, fmt::format("converged: SOL moved {} over the last {} profiles, less than {}",
                                format_fixed(spread, 2) + " points", window,
                                format_fixed(config.min_improvement_pct, 2) + " points")};
    }
  }
  return {};
}

std::optional<Json> kernelagent_gpu_specs(std::string_view device_name) {
  const std::optional<GpuSpec> spec = find_gpu_spec(device_name);
  if (!spec) {
    return std::nullopt;
  }
  constexpr double k_giga = 1e9;
  constexpr double k_tera = 1e12;
  constexpr double k_mib = 1024.0 * 1024.0;
  Json out = Json::object();
  out["name"] = spec->name;
  out["architecture"] = spec->architecture;
  out["peak_memory_bw_gbps"] = spec->dram_bandwidth_bytes_per_s / k_giga;
  out["peak_fp32_tflops"] = spec->fp32_flops / k_tera;
  out["peak_fp16_tflops"] = spec->bf16_tensor_flops / k_tera;
  out["peak_bf16_tflops"] = spec->bf16_tensor_flops / k_tera;
  out["sm_count"] = spec->sm_count;
  out["l2_cache_mb"] = spec->l2_bytes / k_mib;
  return out;
}

Json kernelagent_hot_lines(const Json& report) {
  Json out = Json::object();
  const ReportView view(report);
  for (const ReportKernel& kernel : view.kernels()) {
    if (kernel.representative == nullptr) {
      continue;
    }
    std::string text = report_detail::hot_lines_section(*kernel.representative);
    if (!text.empty()) {
      out[kernel.name] = std::move(text);
    }
  }
  return out;
}

std::string kernelagent_truth(const Json& report) {
  std::string out;
  for (const std::string& line : report_detail::truth_lines(report)) {
    out += line + "\n";
  }
  return out;
}

Json kernelagent_value(double value) {
  return report_detail::number_json(value);
}

Json kernelagent_capture_rows(const Capture& capture, const MetricSet& set,
                              const SelectOptions& select) {
  std::vector<std::pair<std::string, std::size_t>> present;
  for (const MetricSpec& spec : set.metrics) {
    if (auto column = capture.column_index(spec.name)) {
      present.emplace_back(spec.name, *column);
    }
  }
  // None of the requested columns there (a details page names labels, not metrics): the rows
  // keep only their kernel names, as KernelAgent's load_ncu_metrics returns them.
  Json rows = Json::array();
  for (const std::size_t index : select_kernels(capture, select)) {
    const KernelRecord& kernel = capture.kernels[index];
    Json row = Json::object();
    row["Kernel Name"] = kernel.name;
    for (const auto& [name, column] : present) {
      const MetricValue value = capture.value(kernel, column);
      if (value.kind == ValueKind::number) {
        row[name] = kernelagent_value(value.number);
      } else if (value.kind == ValueKind::text) {
        row[name] = std::string(value.text);
      } else {
        row[name] = nullptr;
      }
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

Result<Json> kernelagent_rows(const Json& report) {
  if (auto valid = validate_report(report); !valid) {
    return std::move(valid).error();
  }
  std::vector<std::string> names;
  for (const Json& spec : report["metadata"]["metric_set"]["metrics"]) {
    names.push_back(spec["name"].get<std::string>());
  }
  Json rows = Json::array();
  for (const Json& kernel : report["kernels"]) {
    Json row = Json::object();
    row["Kernel Name"] = kernel["name"];
    const Json& metrics = kernel["metrics"];
    for (const std::string& name : names) {
      if (metrics.contains(name)) {
        row[name] = metrics[name]["value"];
      }
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

Result<std::string> kernelagent_metrics_text(const Json& rows,
                                             const KernelAgentTextOptions& options) {
  const bool all_rows_are_objects =
      rows.is_array() &&
      std::all_of(rows.begin(), rows.end(), [](const Json& row) { return row.is_object(); });
  if (!all_rows_are_objects) {
    return make_error(ErrorCategory::usage, "the metric rows must be a list of mappings");
  }
  const bool keyed = std::all_of(rows.begin(), rows.end(),
                                 [&](const Json& row) { return row.contains(options.key_by); });
  Json data;
  if (!keyed) {
    data = Json::array();
    for (const Json& row : rows) {
      Json listed = Json::object();
      for (const auto& [key, value] : row.items()) {
        listed[key] = cell(value, options);
      }
      data.push_back(std::move(listed));
    }
  } else {
    data = Json::object();
    for (const Json& row : rows) {
      const Json& key = row[options.key_by];
      const std::string name = key.is_string() ? key.get<std::string>() : key.dump();
      Json record = Json::object();
      for (const auto& [column, value] : row.items()) {
        const bool kept = !options.keep_columns ||
                          std::find(options.keep_columns->begin(), options.keep_columns->end(),
                                    column) != options.keep_columns->end();
        if (column != options.key_by && kept) {
          record[column] = cell(value, options);
        }
      }
      if (!data.contains(name)) {
        data[name] = std::move(record);
      } else if (data[name].is_array()) {
        data[name].push_back(std::move(record));
      } else {
        data[name] = Json::array({data[name], std::move(record)});
      }
    }
  }
  if (options.compact) {
    std::string text;
    append_compact(text, data);
    return text;
  }
  return data.dump(2, ' ', false, Json::error_handler_t::replace);
}

} // namespace kprof
