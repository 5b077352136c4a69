// The report document (schema in docs/json-schema.md): built from a Capture and its Analysis,
// validated when read back, and handed to the sinks.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include <fmt/format.h>

#include "kprof/diagnosis.hpp"
#include "kprof/files.hpp"
#include "kprof/numbers.hpp"
#include "kprof/report.hpp"
#include "kprof/report_view.hpp"
#include "kprof/version.hpp"
#include "report/report_parts.hpp"
#include "report/sinks.hpp"

namespace kprof {

namespace {

using report_detail::column_keys;
using report_detail::number_json;

Json optional_number(const std::optional<double>& value) {
  return value ? number_json(*value) : Json(nullptr);
}

Json triple(const std::array<std::int64_t, 3>& values) {
  return Json::array({values[0], values[1], values[2]});
}

Json gpu_spec_json(const GpuSpec& spec) {
  Json out = Json::object();
  out["name"] = spec.name;
  out["architecture"] = spec.architecture;
  out["dram_bandwidth_bytes_per_s"] = number_json(spec.dram_bandwidth_bytes_per_s);
  out["fp32_flops"] = number_json(spec.fp32_flops);
  out["bf16_tensor_flops"] = number_json(spec.bf16_tensor_flops);
  out["sm_count"] = spec.sm_count;
  out["l2_bytes"] = number_json(spec.l2_bytes);
  out["max_warps_per_sm"] = spec.max_warps_per_sm;
  return out;
}

Json metric_set_json(const MetricSet& set) {
  Json metrics = Json::array();
  for (const MetricSpec& spec : set.metrics) {
    Json entry = Json::object();
    entry["name"] = spec.name;
    entry["label"] = spec.label;
    entry["group"] = spec.group;
    metrics.push_back(std::move(entry));
  }
  Json out = Json::object();
  out["name"] = set.name;
  out["metrics"] = std::move(metrics);
  return out;
}

Json value_json(const MetricValue& value) {
  switch (value.kind) {
  case ValueKind::number:
    return number_json(value.number);
  case ValueKind::text:
    return Json(std::string(value.text));
  case ValueKind::null:
    break;
  }
  return Json(nullptr);
}

Json rule_json(const RuleResult& rule) {
  Json out = Json::object();
  out["section"] = rule.section;
  out["name"] = rule.name;
  out["type"] = rule.type;
  out["description"] = rule.description;
  out["speedup_type"] = rule.speedup_type;
  out["estimated_speedup"] = optional_number(rule.estimated_speedup);
  return out;
}

} // namespace

namespace report_detail {

Json kernel_json(const Capture& capture, const KernelRecord& record,
                 const std::vector<std::string>& keys, const DiagnosisContext* diagnosis) {
  Json out = Json::object();
  out["name"] = record.name;
  out["id"] = record.id;
  out["nvtx_range"] = record.nvtx_range.empty() ? Json(nullptr) : Json(record.nvtx_range);
  out["grid"] = triple(record.grid);
  out["block"] = triple(record.block);
  out["device"] = record.device;
  out["cc"] = record.cc;
  const bool details = capture.page == PageKind::details;
  Json metrics = Json::object();
  for (std::size_t i = 0; i < capture.columns.size(); ++i) {
    if (keys[i].empty()) {
      continue;
    }
    const MetricValue value = capture.value(record, i);
    Json entry = Json::object();
    entry["value"] = value_json(value);
    entry["unit"] = capture.columns[i].unit;
    if (details) {
      entry["section"] = capture.columns[i].section;
    }
    metrics[keys[i]] = std::move(entry);
  }
  out["metrics"] = std::move(metrics);
  if (!record.rules.empty()) {
    Json rules = Json::array();
    for (const RuleResult& rule : record.rules) {
      rules.push_back(rule_json(rule));
    }
    out["rules"] = std::move(rules);
  }
  if (diagnosis != nullptr) {
    DiagnosisMembers members = diagnosis_members(*diagnosis, record);
    out["diagnosis"] = std::move(members.causes);
    out["diagnosis_notes"] = std::move(members.notes);
  }
  return out;
}

} // namespace report_detail

namespace {

using report_detail::kernel_json;

Json roofline_json(const Roofline& roofline) {
  Json out = Json::object();
  out["compute_sol_pct"] = optional_number(roofline.compute_sol_pct);
  out["memory_sol_pct"] = optional_number(roofline.memory_sol_pct);
  out["bottleneck"] = std::string(to_string(roofline.bottleneck));
  out["headroom_pct"] = optional_number(roofline.headroom_pct);
  out["tensor_pipe_pct"] = optional_number(roofline.tensor_pipe_pct);
  out["tensor_cores_used"] = roofline.tensor_cores_used;
  out["dram_bytes_per_s"] = optional_number(roofline.dram_bytes_per_s);
  out["dram_peak_fraction"] = optional_number(roofline.dram_peak_fraction);
  out["fp32_flops_per_s"] = optional_number(roofline.fp32_flops_per_s);
  out["fp32_flop_per_dram_byte"] = optional_number(roofline.fp32_flop_per_dram_byte);
  out["explanation"] = roofline.explanation;
  return out;
}

/// KernelAgent's per-launch record: the set's metrics that the capture has, rounded like
/// metrics_to_prompt does (NaN and missing become null, text stays text).
Json kernel_agent_record(const Capture& capture, const KernelRecord& record, const MetricSet& set) {
  Json out = Json::object();
  for (const MetricSpec& spec : set.metrics) {
    const std::optional<std::size_t> column = capture.column_index(spec.name);
    if (!column) {
      continue;
    }
    const MetricValue value = capture.value(record, *column);
    if (value.kind == ValueKind::number) {
      out[spec.name] = number_json(report_detail::kernel_agent_number(value.number));
    } else {
      out[spec.name] = value_json(value);
    }
  }
  return out;
}

Json kernel_agent_metrics(const Capture& capture, const Analysis& analysis, const MetricSet& set) {
  Json out = Json::object();
  report_detail::for_each_agent_entry(
      capture, analysis, set,
      [&out](const std::string& name, Json entry) { out[name] = std::move(entry); });
  return out;
}

Json summary_json(const Analysis& analysis) {
  Json kernels = Json::array();
  for (const KernelSummary& kernel : analysis.kernels) {
    Json entry = Json::object();
    entry["name"] = kernel.name;
    entry["launches"] = kernel.launches.size();
    entry["duration_ns"] = optional_number(kernel.duration_ns);
    entry["share"] = optional_number(kernel.share);
    entry["library"] = kernel.library;
    kernels.push_back(std::move(entry));
  }
  Json out = Json::object();
  out["total_duration_ns"] = optional_number(analysis.summary.total_duration_ns);
  out["launches"] = analysis.summary.launches;
  out["dominant_kernel"] = analysis.summary.dominant_kernel.empty()
                               ? Json(nullptr)
                               : Json(analysis.summary.dominant_kernel);
  out["kernels"] = std::move(kernels);
  return out;
}

// ---- validation ----------------------------------------------------------------------------

Error invalid(std::string what) {
  return make_error(ErrorCategory::malformed_input,
                    fmt::format("not a kprof report: {}", std::move(what)));
}

/// Checks that `object[key]` exists and satisfies `check`; `path` names the object in messages.
template <class Check>
Result<void> require(const Json& object, std::string_view path, std::string_view key,
                     std::string_view expected, Check check) {
  const Json* value = report_detail::member(object, key);
  const std::string where = path.empty() ? std::string(key) : fmt::format("{}.{}", path, key);
  if (value == nullptr) {
    return invalid(fmt::format("missing key '{}'", where));
  }
  if (!check(*value)) {
    return invalid(fmt::format("'{}' is {}, expected {}", where, value->type_name(), expected));
  }
  return {};
}

bool is_string(const Json& v) {
  return v.is_string();
}
bool is_object(const Json& v) {
  return v.is_object();
}
bool is_array(const Json& v) {
  return v.is_array();
}
bool is_count(const Json& v) {
  return v.is_number_unsigned() || (v.is_number_integer() && v >= 0);
}
bool is_number_or_null(const Json& v) {
  return v.is_number() || v.is_null();
}
bool is_string_or_null(const Json& v) {
  return v.is_string() || v.is_null();
}
bool is_value(const Json& v) {
  return v.is_number() || v.is_string() || v.is_null();
}

#define KPROF_REQUIRE(object, path, key, expected, check)                                          \
  do {                                                                                             \
    if (Result<void> checked = require((object), (path), (key), (expected), (check));              \
        !checked.ok()) {                                                                           \
      return std::move(checked).error();                                                           \
    }                                                                                              \
  } while (false)

Result<void> validate_metadata(const Json& metadata) {
  KPROF_REQUIRE(metadata, "metadata", "kprof_version", "a string", is_string);
  KPROF_REQUIRE(metadata, "metadata", "page", "\"raw\" or \"details\"",
                [](const Json& v) { return v.is_string() && (v == "raw" || v == "details"); });
  KPROF_REQUIRE(metadata, "metadata", "gpu", "a string or null", is_string_or_null);
  KPROF_REQUIRE(metadata, "metadata", "metric_set", "an object", is_object);
  const Json& set = metadata.at("metric_set");
  KPROF_REQUIRE(set, "metadata.metric_set", "name", "a string", is_string);
  KPROF_REQUIRE(set, "metadata.metric_set", "metrics", "an array", is_array);
  std::size_t index = 0;
  for (const Json& spec : set.at("metrics")) {
    const std::string path = fmt::format("metadata.metric_set.metrics[{}]", index++);
    if (!spec.is_object()) {
      return invalid(fmt::format("'{}' is {}, expected an object", path, spec.type_name()));
    }
    KPROF_REQUIRE(spec, path, "name", "a string", is_string);
    KPROF_REQUIRE(spec, path, "label", "a string", is_string);
    KPROF_REQUIRE(spec, path, "group", "a string", is_string);
  }
  return {};
}

/// kernels[].diagnosis, when present: an array of causes (docs/json-schema.md).
Result<void> validate_diagnosis(const Json& kernel, const std::string& path) {
  if (report_detail::member(kernel, "diagnosis") == nullptr) {
    return {};
  }
  KPROF_REQUIRE(kernel, path, "diagnosis", "an array", is_array);
  std::size_t index = 0;
  for (const Json& cause : kernel.at("diagnosis")) {
    const std::string cause_path = fmt::format("{}.diagnosis[{}]", path, index++);
    if (!cause.is_object()) {
      return invalid(fmt::format("'{}' is {}, expected an object", cause_path, cause.type_name()));
    }
    KPROF_REQUIRE(cause, cause_path, "category", "a string", is_string);
    KPROF_REQUIRE(cause, cause_path, "title", "a string", is_string);
    KPROF_REQUIRE(cause, cause_path, "line", "an object or null",
                  [](const Json& v) { return v.is_object() || v.is_null(); });
    KPROF_REQUIRE(cause, cause_path, "evidence", "an array", is_array);
    KPROF_REQUIRE(cause, cause_path, "estimated_speedup_pct", "a number or null",
                  is_number_or_null);
    KPROF_REQUIRE(cause, cause_path, "source", "a string", is_string);
  }
  return {};
}

// Above the tree's cognitive-complexity cap: one flat check per key of docs/json-schema.md,
// in its order; the count is the keys, not nesting.
// NOLINTNEXTLINE(readability-function-cognitive-complexity)
Result<void> validate_kernels(const Json& kernels) {
  std::size_t index = 0;
  for (const Json& kernel : kernels) {
    const std::string path = fmt::format("kernels[{}]", index++);
    if (!kernel.is_object()) {
      return invalid(fmt::format("'{}' is {}, expected an object", path, kernel.type_name()));
    }
    KPROF_REQUIRE(kernel, path, "name", "a string", is_string);
    KPROF_REQUIRE(kernel, path, "id", "an integer",
                  [](const Json& v) { return v.is_number_integer(); });
    KPROF_REQUIRE(kernel, path, "metrics", "an object", is_object);
    for (const auto& [name, entry] : kernel.at("metrics").items()) {
      const std::string entry_path = fmt::format("{}.metrics[\"{}\"]", path, name);
      if (!entry.is_object()) {
        return invalid(
            fmt::format("'{}' is {}, expected an object", entry_path, entry.type_name()));
      }
      KPROF_REQUIRE(entry, entry_path, "value", "a number, string or null", is_value);
      KPROF_REQUIRE(entry, entry_path, "unit", "a string", is_string);
    }
    if (report_detail::member(kernel, "rules") != nullptr) {
      KPROF_REQUIRE(kernel, path, "rules", "an array", is_array);
      std::size_t rule_index = 0;
      for (const Json& rule : kernel.at("rules")) {
        const std::string rule_path = fmt::format("{}.rules[{}]", path, rule_index++);
        if (!rule.is_object()) {
          return invalid(
              fmt::format("'{}' is {}, expected an object", rule_path, rule.type_name()));
        }
        KPROF_REQUIRE(rule, rule_path, "name", "a string", is_string);
        KPROF_REQUIRE(rule, rule_path, "type", "a string", is_string);
        KPROF_REQUIRE(rule, rule_path, "description", "a string", is_string);
        KPROF_REQUIRE(rule, rule_path, "estimated_speedup", "a number or null", is_number_or_null);
      }
    }
    if (Result<void> checked = validate_diagnosis(kernel, path); !checked.ok()) {
      return checked;
    }
  }
  return {};
}

Result<void> validate_summary(const Json& summary) {
  KPROF_REQUIRE(summary, "summary", "total_duration_ns", "a number or null", is_number_or_null);
  KPROF_REQUIRE(summary, "summary", "launches", "a count", is_count);
  KPROF_REQUIRE(summary, "summary", "dominant_kernel", "a string or null", is_string_or_null);
  KPROF_REQUIRE(summary, "summary", "kernels", "an array", is_array);
  std::size_t index = 0;
  for (const Json& kernel : summary.at("kernels")) {
    const std::string path = fmt::format("summary.kernels[{}]", index++);
    if (!kernel.is_object()) {
      return invalid(fmt::format("'{}' is {}, expected an object", path, kernel.type_name()));
    }
    KPROF_REQUIRE(kernel, path, "name", "a string", is_string);
    KPROF_REQUIRE(kernel, path, "launches", "a count", is_count);
    KPROF_REQUIRE(kernel, path, "duration_ns", "a number or null", is_number_or_null);
    KPROF_REQUIRE(kernel, path, "share", "a number or null", is_number_or_null);
  }
  return {};
}

Result<void> validate_roofline(const Json& roofline) {
  for (const auto& [name, entry] : roofline.items()) {
    const std::string path = fmt::format("roofline[\"{}\"]", name);
    if (!entry.is_object()) {
      return invalid(fmt::format("'{}' is {}, expected an object", path, entry.type_name()));
    }
    KPROF_REQUIRE(entry, path, "bottleneck", "a string", is_string);
    for (const char* key : {"compute_sol_pct", "memory_sol_pct", "headroom_pct", "tensor_pipe_pct",
                            "dram_bytes_per_s", "dram_peak_fraction"}) {
      KPROF_REQUIRE(entry, path, key, "a number or null", is_number_or_null);
    }
    for (const char* key : {"fp32_flops_per_s", "fp32_flop_per_dram_byte"}) {
      if (entry.contains(key)) { // absent in the reports of earlier versions
        KPROF_REQUIRE(entry, path, key, "a number or null", is_number_or_null);
      }
    }
    KPROF_REQUIRE(entry, path, "tensor_cores_used", "a boolean",
                  [](const Json& v) { return v.is_boolean(); });
  }
  return {};
}

#undef KPROF_REQUIRE

} // namespace

namespace report_detail {

std::vector<std::pair<std::string_view, std::vector<std::size_t>>>
launches_by_name(const Capture& capture, const Analysis& analysis) {
  std::vector<std::pair<std::string_view, std::vector<std::size_t>>> by_name;
  std::unordered_map<std::string_view, std::size_t> position;
  for (const std::size_t index : analysis.selected) {
    const std::string_view name = capture.kernels[index].name;
    const auto [it, inserted] = position.try_emplace(name, by_name.size());
    if (inserted) {
      by_name.emplace_back(name, std::vector<std::size_t>{});
    }
    by_name[it->second].second.push_back(index);
  }
  return by_name;
}

Json agent_record(const Capture& capture, const KernelRecord& record, const MetricSet& set) {
  return kernel_agent_record(capture, record, set);
}

void for_each_agent_entry(const Capture& capture, const Analysis& analysis, const MetricSet& set,
                          const std::function<void(const std::string&, Json)>& each) {
  for (const auto& [name, launches] : launches_by_name(capture, analysis)) {
    const std::string key(name);
    if (launches.size() == 1) {
      each(key, kernel_agent_record(capture, capture.kernels[launches.front()], set));
      continue;
    }
    Json list = Json::array();
    for (const std::size_t index : launches) {
      list.push_back(kernel_agent_record(capture, capture.kernels[index], set));
    }
    each(key, std::move(list));
  }
}

std::vector<std::string> column_keys(const Capture& capture) {
  std::unordered_map<std::string_view, int> name_counts;
  for (const Column& column : capture.columns) {
    ++name_counts[column.name];
  }
  std::vector<std::string> keys;
  keys.reserve(capture.columns.size());
  std::unordered_set<std::string> taken;
  for (const Column& column : capture.columns) {
    std::string key = column.name;
    if (name_counts[column.name] > 1 && !column.section.empty()) {
      key = fmt::format("{}/{}", column.section, column.name);
    }
    if (!taken.insert(key).second) {
      key.clear();
    }
    keys.push_back(std::move(key));
  }
  return keys;
}

std::optional<KernelSource> kernel_source_of(const Json& metadata) {
  const std::string path = json_read::text_at(metadata, "kernel_file");
  if (path.empty()) {
    return std::nullopt;
  }
  KernelSource source;
  source.path = path;
  if (Result<std::string> text = read_file(path); text.ok()) {
    source.text = std::move(text).value();
  } else {
    source.error = text.error().message;
  }
  return source;
}

DiagnosisContext::DiagnosisContext(const Capture& capture, std::optional<GpuSpec> gpu,
                                   std::string set, const Json& metadata)
    : facts(capture, std::move(gpu)), page(capture.page), metric_set(std::move(set)),
      kernel_source(kernel_source_of(metadata)) {}

DiagnosisMembers diagnosis_members(const DiagnosisContext& context, const KernelRecord& launch,
                                   const std::vector<SourceBlock>* blocks,
                                   const KernelHotLines* hot_lines) {
  const LaunchFacts launch_facts = context.facts.read(launch);
  DiagnosisInput input;
  input.launch = &launch;
  input.facts = &launch_facts;
  input.page = context.page;
  input.metric_set = context.metric_set;
  input.blocks = blocks;
  input.hot_lines = hot_lines;
  input.kernel_source = context.kernel_source ? &*context.kernel_source : nullptr;
  const Diagnosis diagnosis = diagnose(input);
  DiagnosisMembers members{Json::array(), Json::array()};
  for (const DiagnosisCause& cause : diagnosis.causes) {
    members.causes.push_back(cause);
  }
  for (const std::string& note : diagnosis.notes) {
    members.notes.push_back(note);
  }
  return members;
}

double kernel_agent_number(double value) {
  constexpr int k_kernel_agent_digits = 3;
  return round_to(value, k_kernel_agent_digits);
}

Json report_skeleton(const Capture& capture, const Analysis& analysis, const MetricSet& metrics,
                     const Json& run_metadata) {
  KPROF_ASSERT(run_metadata.is_object() || run_metadata.is_null());
  for (const std::size_t index : analysis.selected) {
    KPROF_ASSERT(index < capture.kernels.size());
  }

  Json metadata = Json::object();
  metadata["kprof_version"] = std::string(k_version);
  metadata["source"] = capture.source;
  metadata["generated_at"] = utc_timestamp();
  metadata["page"] = capture.page == PageKind::details ? "details" : "raw";
  metadata["gpu"] = analysis.gpu_name.empty() ? Json(nullptr) : Json(analysis.gpu_name);
  metadata["gpu_spec"] = analysis.gpu ? gpu_spec_json(*analysis.gpu) : Json(nullptr);
  metadata["metric_set"] = metric_set_json(metrics);
  metadata["select"] = "all";
  if (run_metadata.is_object()) {
    for (const auto& [key, value] : run_metadata.items()) {
      metadata[key] = value;
    }
  }

  Json roofline = Json::object();
  for (const KernelSummary& kernel : analysis.kernels) {
    roofline[kernel.name] = roofline_json(kernel.roofline);
  }

  Json doc = Json::object();
  doc["schema_version"] = k_report_schema_version;
  doc["metadata"] = std::move(metadata);
  doc["kernels"] = Json::array();
  doc["summary"] = summary_json(analysis);
  doc["roofline"] = std::move(roofline);
  doc["metrics"] = Json::object();
  return doc;
}

} // namespace report_detail

Json build_report(const Capture& capture, const Analysis& analysis, const MetricSet& metrics,
                  const Json& run_metadata) {
  Json doc = report_detail::report_skeleton(capture, analysis, metrics, run_metadata);
  const std::vector<std::string> keys = column_keys(capture);
  const report_detail::DiagnosisContext diagnosis(capture, analysis.gpu, metrics.name,
                                                  doc["metadata"]);
  Json& kernels = doc["kernels"];
  for (const std::size_t index : analysis.selected) {
    kernels.push_back(kernel_json(capture, capture.kernels[index], keys, &diagnosis));
  }
  doc["metrics"] = kernel_agent_metrics(capture, analysis, metrics);
  return doc;
}

Json build_report_of_representatives(const Capture& capture, const Analysis& analysis,
                                     const MetricSet& metrics, const Json& run_metadata) {
  Json doc = report_detail::report_skeleton(capture, analysis, metrics, run_metadata);
  const std::vector<std::string> keys = column_keys(capture);
  const report_detail::DiagnosisContext diagnosis(capture, analysis.gpu, metrics.name,
                                                  doc["metadata"]);
  // Per name, its launch the way ReportView picks one: the first, replaced by a later launch
  // only when that one is strictly longer. Compared without their diagnosis (which does not
  // change a duration), made whole once picked.
  struct Kept {
    std::size_t index = 0;
    std::optional<double> duration_ns;
  };
  std::vector<Kept> kept;
  std::unordered_map<std::string, std::size_t> slot_of;
  for (const std::size_t index : analysis.selected) {
    const KernelRecord& record = capture.kernels[index];
    const std::optional<double> duration =
        ReportView::launch_duration_ns(kernel_json(capture, record, keys, nullptr));
    const auto [slot, first] = slot_of.try_emplace(record.name, kept.size());
    if (first) {
      kept.push_back(Kept{index, duration});
      continue;
    }
    Kept& held = kept[slot->second];
    if (duration && (!held.duration_ns || *duration > *held.duration_ns)) {
      held = Kept{index, duration};
    }
  }
  Json& kernels = doc["kernels"];
  for (const Kept& entry : kept) {
    kernels.push_back(kernel_json(capture, capture.kernels[entry.index], keys, &diagnosis));
  }
  return doc;
}

namespace {

/// Picks each kernel name's representative launch the way ReportView does (the first, replaced
/// by a later launch only when that one is strictly longer), names in the order of their first
/// launch: what report_outline() and parse_report_outline() keep of kernels[].
class RepresentativePicker {
public:
  /// Offers the next launch: the slot it takes (the index of its name), or nullopt when the
  /// launch already kept for its name stays.
  std::optional<std::size_t> offer(const Json& launch) {
    const std::optional<double> duration = ReportView::launch_duration_ns(launch);
    const auto [slot, first] =
        m_slot_of.try_emplace(json_read::text_at(launch, "name"), m_durations.size());
    if (first) {
      m_durations.push_back(duration);
      return slot->second;
    }
    std::optional<double>& held = m_durations[slot->second];
    if (duration && (!held || *duration > *held)) {
      held = duration;
      return slot->second;
    }
    return std::nullopt;
  }

private:
  std::unordered_map<std::string, std::size_t> m_slot_of;
  std::vector<std::optional<double>> m_durations;
};

/// Puts `launch` into slot `slot` of `kept` (a new slot is the next one).
template <class Launch>
void keep_in_slot(std::vector<Launch>& kept, std::size_t slot, Launch launch) {
  if (slot == kept.size()) {
    kept.push_back(std::move(launch));
  } else {
    kept[slot] = std::move(launch);
  }
}

} // namespace

Json report_outline(const Json& report) {
  if (!report.is_object()) {
    return report;
  }
  Json out = Json::object();
  for (const auto& [key, value] : report.items()) {
    if (key == "kernels" && value.is_array()) {
      RepresentativePicker picker;
      std::vector<const Json*> kept;
      for (const Json& launch : value) {
        if (const std::optional<std::size_t> slot = picker.offer(launch)) {
          keep_in_slot(kept, *slot, &launch);
        }
      }
      Json kernels = Json::array();
      for (const Json* launch : kept) {
        kernels.push_back(*launch);
      }
      out[key] = std::move(kernels);
    } else if (key == "metrics" && value.is_object()) {
      out[key] = Json::object();
    } else {
      out[key] = value;
    }
  }
  return out;
}

Result<Json> parse_report_outline(std::istream& in) {
  RepresentativePicker picker;
  std::vector<Json> kept;
  std::string member;    // the top-level member being read
  bool launches = false; // it is kernels[], an array: its elements are launches
  const Json::parser_callback_t keep = [&](int depth, Json::parse_event_t event, Json& parsed) {
    if (depth == 1 && event == Json::parse_event_t::key) {
      member = parsed.is_string() ? parsed.get<std::string>() : std::string();
      launches = false;
      return true;
    }
    if (depth == 1 && event == Json::parse_event_t::array_start) {
      launches = member == "kernels";
      return true;
    }
    if (depth == 2 && event == Json::parse_event_t::key && member == "metrics") {
      return false; // the KernelAgent metrics' members: not built, the object stays in its place
    }
    const bool element = event == Json::parse_event_t::object_end ||
                         event == Json::parse_event_t::array_end ||
                         event == Json::parse_event_t::value;
    if (depth == 2 && element && launches) {
      if (const std::optional<std::size_t> slot = picker.offer(parsed)) {
        keep_in_slot(kept, *slot, std::move(parsed));
      }
      return false; // out of the tree: the outline's kernels[] is `kept`
    }
    return true;
  };
  Json doc;
  try {
    doc = Json::parse(in, keep);
  } catch (const Json::parse_error& error) {
    return make_error(ErrorCategory::malformed_input, error.what());
  }
  if (doc.is_object()) {
    if (const auto kernels = doc.find("kernels"); kernels != doc.end() && kernels->is_array()) {
      *kernels = Json(std::move(kept));
    }
  }
  return doc;
}

Result<void> validate_report(const Json& doc) {
  if (!doc.is_object()) {
    return invalid(fmt::format("the document is {}, expected an object", doc.type_name()));
  }
  const Json* version = report_detail::member(doc, "schema_version");
  if (version == nullptr) {
    return invalid("missing key 'schema_version'");
  }
  if (!version->is_number_integer()) {
    return invalid(
        fmt::format("'schema_version' is {}, expected an integer", version->type_name()));
  }
  const auto number = version->get<std::int64_t>();
  if (number > k_report_schema_version) {
    return make_error(ErrorCategory::malformed_input,
                      fmt::format("report written by a newer kprof (schema_version {}; this kprof "
                                  "reads schema_version {})",
                                  number, k_report_schema_version));
  }
  if (number < 1) {
    return invalid(fmt::format("unknown schema_version {}", number));
  }
  for (const auto& [key, check] :
       std::initializer_list<std::pair<std::string_view, bool (*)(const Json&)>>{
           {"metadata", is_object},
           {"kernels", is_array},
           {"summary", is_object},
           {"roofline", is_object},
           {"metrics", is_object}}) {
    if (Result<void> checked =
            require(doc, "", key, key == "kernels" ? "an array" : "an object", check);
        !checked.ok()) {
      return checked;
    }
  }
  if (Result<void> checked = validate_metadata(doc.at("metadata")); !checked.ok()) {
    return checked;
  }
  if (Result<void> checked = validate_kernels(doc.at("kernels")); !checked.ok()) {
    return checked;
  }
  if (Result<void> checked = validate_summary(doc.at("summary")); !checked.ok()) {
    return checked;
  }
  return validate_roofline(doc.at("roofline"));
}

namespace {

/// What a file that is not JSON is, for `path is not a kprof report: ...`, with what to do;
/// `parse_error` is nlohmann's message, named only where it helps (JSON cut short or edited).
std::string what_text_is(std::string_view text, const std::filesystem::path& path,
                         std::string_view parse_error) {
  using namespace std::string_view_literals;
  const std::string shown = path.string();
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) {
    return "it is empty";
  }
  if (text[first] == '{' || text[first] == '[') {
    return fmt::format("it is not valid JSON (cut short or edited?): {}", parse_error);
  }
  if (text.starts_with("SQLite format 3\0"sv)) {
    return "it is an SQLite database (a run's kprof.db?): compare two of its rounds with "
           "`kprof diff DIR A B`, DIR being the directory that holds it";
  }
  if (text.starts_with("NVR\0"sv)) {
    return fmt::format("it is an Nsight Compute report (.ncu-rep): make a kprof report of it "
                       "with `kprof report {} --format json --out report.json`",
                       shown);
  }
  const std::size_t line_end = text.find('\n');
  const std::string_view first_line = text.substr(0, line_end);
  if (text.starts_with("==") || text.find("\"ID\",") != std::string_view::npos) {
    return fmt::format("it is ncu's CSV output: make a kprof report of it with `kprof report {} "
                       "--format json --out report.json`",
                       shown);
  }
  if (first_line.find(',') != std::string_view::npos) {
    return "it is CSV or other text, not JSON";
  }
  if (text.find('\0') != std::string_view::npos) {
    return "it is binary data, not JSON";
  }
  return "it is text, not JSON";
}

/// What a JSON document that is not a report is, when it is another file kprof writes.
std::string what_document_is(const Json& doc) {
  if (!doc.is_object()) {
    return {};
  }
  const Json* kind = report_detail::member(doc, "kind");
  if (kind != nullptr && *kind == "round") {
    return "it is a round (a batch round's batch.json, or what kprof batch printed): compare two "
           "candidates' reports, such as cand0/report.json and cand1/report.json";
  }
  if (kind != nullptr && kind->is_string() && *kind != "report") {
    return fmt::format("it is a kprof {} document, not a report", kind->get<std::string>());
  }
  if (report_detail::member(doc, "kernels") == nullptr) {
    if (report_detail::member(doc, "candidates") != nullptr) {
      return "it is a batch summary (batch.json): compare two candidates' reports, such as "
             "cand0/report.json and cand1/report.json";
    }
    if (report_detail::member(doc, "error") != nullptr) {
      return "it is the error record of a failed round (error.json): that round has no report";
    }
  }
  return {};
}

} // namespace

namespace {

/// load_report's refusal of a directory.
std::optional<Error> directory_error(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::is_directory(path, ec)) {
    return std::nullopt;
  }
  return make_error(ErrorCategory::input_not_found,
                    fmt::format("{} is a directory, not a report file (a run directory? compare "
                                "two of its rounds with `kprof diff DIR A B`)",
                                path.string()));
}

/// load_report's words for `text`, the file, when it is no JSON.
Error not_json_error(const std::filesystem::path& path, std::string_view text,
                     std::string_view parse_error) {
  return make_error(ErrorCategory::malformed_input,
                    fmt::format("{} is not a kprof report: {}", path.string(),
                                what_text_is(text, path, parse_error)));
}

/// `doc` when it is a report this kprof reads, else load_report's words for what it is.
Result<Json> checked_report(Json doc, const std::filesystem::path& path) {
  if (Result<void> checked = validate_report(doc); !checked.ok()) {
    if (const std::string what = what_document_is(doc); !what.empty()) {
      return make_error(ErrorCategory::malformed_input,
                        fmt::format("{} is not a kprof report: {}", path.string(), what),
                        checked.error().message);
    }
    return checked.error().with_context(fmt::format("while reading report {}", path.string()));
  }
  return doc;
}

} // namespace

Result<Json> load_report(const std::filesystem::path& path) {
  if (auto refused = directory_error(path)) {
    return *refused;
  }
  Result<std::string> text = read_file(path);
  if (!text.ok()) {
    return Error(text.error());
  }
  Json doc;
  try {
    doc = Json::parse(text.value());
  } catch (const Json::parse_error& error) {
    return not_json_error(path, *text, error.what());
  }
  return checked_report(std::move(doc), path);
}

Result<Json> load_report_outline(const std::filesystem::path& path) {
  if (auto refused = directory_error(path)) {
    return *refused;
  }
  std::error_code ec;
  std::ifstream in;
  if (std::filesystem::is_regular_file(path, ec)) {
    in.open(path, std::ios::binary);
  }
  if (!in) {
    return load_report(path); // its words for a missing, unreadable or special file
  }
  auto outline = parse_report_outline(in);
  if (!outline) {
    // The text, to say what it is instead (never its tree).
    Result<std::string> text = read_file(path);
    if (!text.ok()) {
      return Error(text.error());
    }
    return not_json_error(path, *text, outline.error().message);
  }
  return checked_report(std::move(outline).value(), path);
}

std::string_view to_string(Format format) {
  switch (format) {
  case Format::json:
    return "json";
  case Format::csv:
    return "csv";
  case Format::prompt:
    return "prompt";
  case Format::table:
    return "table";
  case Format::html:
    return "html";
  }
  return "json";
}

Result<Format> parse_format(std::string_view word) {
  for (const Format format :
       {Format::json, Format::csv, Format::prompt, Format::table, Format::html}) {
    if (word == to_string(format)) {
      return format;
    }
  }
  return make_error(
      ErrorCategory::usage,
      fmt::format("unknown format '{}' (valid: json, csv, prompt, table, html)", word));
}

namespace {

/// The edge of the text formats (csv, prompt, table): the sink renders the document with its
/// strings made printable (report_detail::printable_copy), so that no sink, and no renderer of
/// another document kind, has to escape what it prints. JSON escapes by itself (json_text) and
/// HTML by escape_html, so they render the document as it is.
class PrintableSink final : public Sink {
public:
  explicit PrintableSink(std::unique_ptr<Sink> inner) : m_inner(std::move(inner)) {}

  [[nodiscard]] Format format() const override { return m_inner->format(); }

  [[nodiscard]] std::string render(const Json& doc, const RenderOptions& options) const override {
    if (const std::optional<Json> escaped = report_detail::printable_copy(doc)) {
      return m_inner->render(*escaped, options);
    }
    return m_inner->render(doc, options);
  }

private:
  std::unique_ptr<Sink> m_inner;
};

} // namespace

std::unique_ptr<Sink> make_sink(Format format) {
  switch (format) {
  case Format::json:
    return report_detail::make_json_sink();
  case Format::csv:
    return std::make_unique<PrintableSink>(report_detail::make_csv_sink());
  case Format::prompt:
    return std::make_unique<PrintableSink>(report_detail::make_prompt_sink());
  case Format::table:
    return std::make_unique<PrintableSink>(report_detail::make_table_sink());
  case Format::html:
    return report_detail::make_html_sink();
  }
  KPROF_ASSERT(false && "unknown Format");
  return nullptr;
}

std::string render(Format format, const Json& doc, const RenderOptions& options) {
  return make_sink(format)->render(doc, options);
}

} // namespace kprof
