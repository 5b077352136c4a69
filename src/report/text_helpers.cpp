// Helpers shared by the sinks: tolerant document accessors, kernel grouping, value and rule
// formatting. Everything here reads only the document, so a report loaded from disk renders
// exactly like a fresh one.
#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <unordered_map>

#include <fmt/format.h>

#include "kprof/numbers.hpp"
#include "report/sinks.hpp"

namespace kprof::report_detail {

namespace {

/// 2^53: doubles below this magnitude hold every integer exactly.
constexpr double k_exact_integer_limit = 9007199254740992.0;

/// Duration of one launch as the document holds it (raw or details page).
std::optional<double> launch_duration_ns(const Json& kernel) {
  const Json* metrics = member(kernel, "metrics");
  if (metrics == nullptr) {
    return std::nullopt;
  }
  for (const std::string_view key :
       {"gpu__time_duration.sum", "Duration", "GPU Speed Of Light Throughput/Duration"}) {
    const Json* entry = member(*metrics, key);
    if (entry == nullptr) {
      continue;
    }
    const std::optional<double> value = number_at(*entry, "value");
    if (!value) {
      continue;
    }
    const std::string unit = string_at(*entry, "unit");
    if (unit == "us" || unit == "usecond") {
      return *value * 1e3;
    }
    if (unit == "ms" || unit == "msecond") {
      return *value * 1e6;
    }
    return *value;
  }
  return std::nullopt;
}

int rule_type_rank(std::string_view type) {
  if (type == "OPT") {
    return 0;
  }
  if (type == "ERR") {
    return 1;
  }
  if (type == "WRN") {
    return 2;
  }
  if (type == "INF") {
    return 3;
  }
  return 4;
}

} // namespace

Json number_json(double value) {
  if (!std::isfinite(value)) {
    return Json(nullptr);
  }
  if (std::fabs(value) < k_exact_integer_limit && std::trunc(value) == value) {
    return Json(static_cast<std::int64_t>(value));
  }
  return Json(value);
}

const Json* member(const Json& object, std::string_view key) {
  if (!object.is_object()) {
    return nullptr;
  }
  const auto found = object.find(key);
  return found == object.end() ? nullptr : &*found;
}

std::optional<double> number_at(const Json& object, std::string_view key) {
  const Json* value = member(object, key);
  if (value == nullptr || !value->is_number()) {
    return std::nullopt;
  }
  return value->get<double>();
}

std::string string_at(const Json& object, std::string_view key, std::string_view fallback) {
  const Json* value = member(object, key);
  if (value == nullptr || !value->is_string()) {
    return std::string(fallback);
  }
  return value->get<std::string>();
}

std::optional<bool> bool_at(const Json& object, std::string_view key) {
  const Json* value = member(object, key);
  if (value == nullptr || !value->is_boolean()) {
    return std::nullopt;
  }
  return value->get<bool>();
}

std::vector<KernelGroup> kernel_groups_by_duration(const Json& doc) {
  std::vector<KernelGroup> groups;
  std::unordered_map<std::string, std::size_t> by_name;
  const auto group_of = [&](const std::string& name) -> KernelGroup& {
    const auto [it, inserted] = by_name.try_emplace(name, groups.size());
    if (inserted) {
      groups.push_back(KernelGroup{});
      groups.back().name = name;
    }
    return groups[it->second];
  };

  if (const Json* summary = member(doc, "summary"); summary != nullptr) {
    if (const Json* kernels = member(*summary, "kernels");
        kernels != nullptr && kernels->is_array()) {
      for (const Json& entry : *kernels) {
        KernelGroup& group = group_of(string_at(entry, "name"));
        group.launch_count = static_cast<std::size_t>(number_at(entry, "launches").value_or(0));
        group.duration_ns = number_at(entry, "duration_ns");
        group.share = number_at(entry, "share");
      }
    }
  }
  if (const Json* kernels = member(doc, "kernels"); kernels != nullptr && kernels->is_array()) {
    for (const Json& kernel : *kernels) {
      group_of(string_at(kernel, "name")).launches.push_back(&kernel);
    }
  }
  const Json* roofline = member(doc, "roofline");
  for (KernelGroup& group : groups) {
    if (group.launch_count == 0) {
      group.launch_count = group.launches.size();
    }
    if (roofline != nullptr) {
      group.roofline = member(*roofline, group.name);
    }
    std::optional<double> longest;
    for (const Json* launch : group.launches) {
      const std::optional<double> duration = launch_duration_ns(*launch);
      if (group.representative == nullptr || (duration && (!longest || *duration > *longest))) {
        group.representative = launch;
        if (duration) {
          longest = duration;
        }
      }
    }
  }
  std::stable_sort(groups.begin(), groups.end(), [](const KernelGroup& a, const KernelGroup& b) {
    if (a.duration_ns && b.duration_ns) {
      return *a.duration_ns > *b.duration_ns;
    }
    return a.duration_ns.has_value() && !b.duration_ns.has_value();
  });
  return groups;
}

namespace {

std::string value_text(const Json& entry) {
  const Json* value = member(entry, "value");
  if (value == nullptr || value->is_null()) {
    return {};
  }
  if (value->is_string()) {
    return value->get<std::string>();
  }
  if (value->is_number()) {
    return format_with_unit(value->get<double>(), string_at(entry, "unit"));
  }
  return {};
}

std::vector<ValueGroup> raw_value_groups(const Json& doc, const Json& metrics) {
  std::vector<ValueGroup> groups;
  const Json* metadata = member(doc, "metadata");
  const Json* set = metadata == nullptr ? nullptr : member(*metadata, "metric_set");
  const Json* specs = set == nullptr ? nullptr : member(*set, "metrics");
  if (specs == nullptr || !specs->is_array()) {
    return groups;
  }
  std::map<std::string, std::size_t, std::less<>> by_heading;
  for (const Json& spec : *specs) {
    const std::string name = string_at(spec, "name");
    const Json* entry = member(metrics, name);
    if (entry == nullptr) {
      continue;
    }
    std::string text = value_text(*entry);
    if (text.empty()) {
      continue;
    }
    const std::string heading = string_at(spec, "group", "Other");
    const auto [it, inserted] = by_heading.try_emplace(heading, groups.size());
    if (inserted) {
      groups.push_back(ValueGroup{heading, {}});
    }
    groups[it->second].values.push_back(
        LabelledValue{string_at(spec, "label", name), std::move(text)});
  }
  return groups;
}

std::vector<ValueGroup> details_value_groups(const Json& metrics) {
  std::vector<ValueGroup> groups;
  std::map<std::string, std::size_t, std::less<>> by_heading;
  for (const auto& [key, entry] : metrics.items()) {
    std::string text = value_text(entry);
    if (text.empty()) {
      continue;
    }
    const std::string section = string_at(entry, "section");
    std::string label = key;
    if (!section.empty() && label.size() > section.size() + 1 && label.starts_with(section) &&
        label[section.size()] == '/') {
      label.erase(0, section.size() + 1);
    }
    const auto [it, inserted] = by_heading.try_emplace(section, groups.size());
    if (inserted) {
      groups.push_back(ValueGroup{section.empty() ? "Other" : section, {}});
    }
    groups[it->second].values.push_back(LabelledValue{std::move(label), std::move(text)});
  }
  return groups;
}

} // namespace

std::vector<ValueGroup> value_groups(const Json& doc, const Json& kernel) {
  const Json* metrics = member(kernel, "metrics");
  if (metrics == nullptr || !metrics->is_object()) {
    return {};
  }
  const Json* metadata = member(doc, "metadata");
  const bool details = metadata != nullptr && string_at(*metadata, "page") == "details";
  return details ? details_value_groups(*metrics) : raw_value_groups(doc, *metrics);
}

std::vector<const Json*> top_rules(const Json& kernel, std::size_t max_rules) {
  std::vector<const Json*> rules;
  const Json* all = member(kernel, "rules");
  if (all == nullptr || !all->is_array()) {
    return rules;
  }
  for (const Json& rule : *all) {
    if (rule.is_object()) {
      rules.push_back(&rule);
    }
  }
  std::stable_sort(rules.begin(), rules.end(), [](const Json* a, const Json* b) {
    const int rank_a = rule_type_rank(string_at(*a, "type"));
    const int rank_b = rule_type_rank(string_at(*b, "type"));
    if (rank_a != rank_b) {
      return rank_a < rank_b;
    }
    const double speedup_a = number_at(*a, "estimated_speedup").value_or(-1.0);
    const double speedup_b = number_at(*b, "estimated_speedup").value_or(-1.0);
    return speedup_a > speedup_b;
  });
  if (rules.size() > max_rules) {
    rules.resize(max_rules);
  }
  return rules;
}

std::string rule_tag(const Json& rule) {
  std::string tag = "[" + string_at(rule, "type", "?");
  if (const std::optional<double> speedup = number_at(rule, "estimated_speedup")) {
    tag += fmt::format(", est. {}%", format_fixed(*speedup, 1));
    if (const std::string kind = string_at(rule, "speedup_type"); !kind.empty()) {
      tag += " " + kind;
    }
  }
  tag += "]";
  return tag;
}

std::string first_sentence(std::string_view text) {
  const auto is_space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  while (!text.empty() && is_space(text.front())) {
    text.remove_prefix(1);
  }
  for (std::size_t i = 0; i + 1 < text.size(); ++i) {
    if (text[i] == '.' && is_space(text[i + 1])) {
      text = text.substr(0, i + 1);
      break;
    }
  }
  while (!text.empty() && is_space(text.back())) {
    text.remove_suffix(1);
  }
  return std::string(text);
}

std::string share_text(double share) {
  return format_fixed(share * 100.0, 0) + "%";
}

std::string duration_text(std::optional<double> ns, std::string_view missing) {
  return ns ? format_with_unit(*ns, "ns") : std::string(missing);
}

std::string percent_text(std::optional<double> pct, std::string_view missing) {
  return pct ? format_fixed(*pct, 1) + "%" : std::string(missing);
}

std::string gpu_line(const Json& doc) {
  const Json* metadata = member(doc, "metadata");
  std::string line = "GPU: ";
  std::string name = metadata == nullptr ? std::string() : string_at(*metadata, "gpu");
  const Json* spec = metadata == nullptr ? nullptr : member(*metadata, "gpu_spec");
  if (name.empty() && spec != nullptr) {
    name = string_at(*spec, "name");
  }
  line += name.empty() ? "unknown" : name;
  if (spec != nullptr) {
    if (const std::optional<double> bandwidth = number_at(*spec, "dram_bandwidth_bytes_per_s");
        bandwidth && *bandwidth > 0) {
      line += fmt::format(" (peak DRAM {})", format_with_unit(*bandwidth, "byte/s"));
    }
  }
  return line;
}

} // namespace kprof::report_detail
