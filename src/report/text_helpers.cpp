// Helpers shared by the text sinks: value and rule formatting over ReportView. Everything here
// reads only the document, so a report loaded from disk renders exactly like a fresh one.
#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <map>
#include <string>
#include <unordered_map>

#include <fmt/format.h>

#include "kprof/numbers.hpp"
#include "kprof/strings.hpp"
#include "report/sinks.hpp"

namespace kprof::report_detail {

namespace {

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

namespace {

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

/// The unit a value is shown in next to `label`: a count's unit that the label already says is
/// dropped ("Registers per thread 48", not "48 register/thread"; "Block limit: blocks 32"), a
/// "per Y" the label says leaves X of "X/Y" ("Shared memory per block 1.15 KB").
std::string unit_beside(std::string_view label, std::string unit) {
  const std::string said = lower(label);
  if (const std::size_t slash = unit.find('/'); slash != std::string::npos) {
    if (said.find("per " + lower(std::string_view(unit).substr(slash + 1))) != std::string::npos) {
      unit.resize(slash);
    }
  }
  // Only words that name what is counted; a byte, a second or a percent scales or is a symbol.
  static constexpr std::array<std::string_view, 9> k_counted{
      "register", "block", "cycle", "inst", "warp", "thread", "sector", "sm", "cluster"};
  const std::string counted = lower(unit);
  if (std::find(k_counted.begin(), k_counted.end(), counted) != k_counted.end() &&
      said.find(counted) != std::string::npos) {
    return {};
  }
  return unit;
}

std::string value_text(const Json& entry, std::string_view label) {
  const Json* value = member(entry, "value");
  if (value == nullptr || value->is_null()) {
    return {};
  }
  if (value->is_string()) {
    return value->get<std::string>();
  }
  if (const std::optional<double> number = json_read::number_of(*value)) {
    const std::string unit = text_at(entry, "unit");
    const std::string shown = unit_beside(label, unit);
    if (shown.empty() && !unit.empty()) {
      // The count without its unit, scaled as it was ("14.18K", not "14180").
      std::string text = format_with_unit(*number, unit);
      if (text.ends_with(" " + unit)) {
        text.resize(text.size() - unit.size() - 1);
      }
      return text;
    }
    if (shown == "%") {
      return percent_text(*number, ""); // "56.5%", as the table's columns and the diagnosis
    }
    return format_with_unit(*number, shown);
  }
  return {};
}

std::vector<ValueGroup> raw_value_groups(const ReportView& view, const Json& metrics) {
  std::vector<ValueGroup> groups;
  std::map<std::string, std::size_t, std::less<>> by_heading;
  for (MetricLabel& spec : view.metric_labels()) {
    const Json* entry = member(metrics, spec.name);
    if (entry == nullptr) {
      continue;
    }
    std::string text = value_text(*entry, spec.label);
    if (text.empty()) {
      continue;
    }
    const auto [it, inserted] = by_heading.try_emplace(spec.group, groups.size());
    if (inserted) {
      groups.push_back(ValueGroup{spec.group, {}});
    }
    groups[it->second].values.push_back(LabelledValue{std::move(spec.label), std::move(text)});
  }
  return groups;
}

std::vector<ValueGroup> details_value_groups(const Json& metrics) {
  std::vector<ValueGroup> groups;
  std::map<std::string, std::size_t, std::less<>> by_heading;
  for (const auto& [key, entry] : metrics.items()) {
    const std::string section = text_at(entry, "section");
    std::string label = key;
    if (!section.empty() && label.size() > section.size() + 1 && label.starts_with(section) &&
        label[section.size()] == '/') {
      label.erase(0, section.size() + 1);
    }
    std::string text = value_text(entry, label);
    if (text.empty()) {
      continue;
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

std::vector<ValueGroup> value_groups(const ReportView& view, const Json& kernel) {
  const Json* metrics = member(kernel, "metrics");
  if (metrics == nullptr || !metrics->is_object()) {
    return {};
  }
  return view.details_page() ? details_value_groups(*metrics) : raw_value_groups(view, *metrics);
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
    const int rank_a = rule_type_rank(text_at(*a, "type"));
    const int rank_b = rule_type_rank(text_at(*b, "type"));
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
  std::string tag = "[" + text_at(rule, "type", "?");
  if (const std::optional<double> speedup = number_at(rule, "estimated_speedup")) {
    tag += fmt::format(", est. {}%", format_fixed(*speedup, 1));
    if (const std::string kind = text_at(rule, "speedup_type"); !kind.empty()) {
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

std::string percent_text(std::optional<double> pct, std::string_view missing) {
  return pct ? format_fixed(*pct, 1) + "%" : std::string(missing);
}

std::size_t display_width(std::string_view text) {
  std::size_t width = 0;
  for (const char c : text) {
    if ((static_cast<unsigned char>(c) & 0xC0U) != 0x80U) {
      ++width;
    }
  }
  return width;
}

std::string fit(std::string_view text, std::size_t width, std::string_view ellipsis) {
  if (display_width(text) <= width) {
    return std::string(text);
  }
  if (width == 0) {
    return {};
  }
  std::size_t columns = 0;
  std::size_t end = 0;
  while (end < text.size() && columns < width - 1) {
    ++end;
    while (end < text.size() && (static_cast<unsigned char>(text[end]) & 0xC0U) == 0x80U) {
      ++end;
    }
    ++columns;
  }
  return std::string(text.substr(0, end)) + std::string(ellipsis);
}

std::string first_line(std::string text) {
  if (const auto newline = text.find('\n'); newline != std::string::npos) {
    text.resize(newline);
  }
  return text;
}

std::string columns(const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> widths;
  for (const auto& row : rows) {
    widths.resize(std::max(widths.size(), row.size()), 0);
    for (std::size_t i = 0; i < row.size(); ++i) {
      widths[i] = std::max(widths[i], row[i].size());
    }
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t i = 0; i < row.size(); ++i) {
      line += row[i];
      if (i + 1 < row.size()) {
        line.append(widths[i] - row[i].size() + 2, ' ');
      }
    }
    while (!line.empty() && line.back() == ' ') {
      line.pop_back();
    }
    out += line;
    out += '\n';
  }
  return out;
}

std::string csv_field(std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) {
    return std::string(text);
  }
  std::string quoted = "\"";
  for (const char c : text) {
    if (c == '"') {
      quoted += '"';
    }
    quoted += c;
  }
  quoted += '"';
  return quoted;
}

std::string csv_number(const std::optional<double>& value) {
  return value ? format_number(*value) : std::string();
}

std::string short_value_text(const std::optional<double>& value, std::string_view unit) {
  if (!value) {
    return "-";
  }
  if (unit == "%") {
    return short_percent_text(value);
  }
  if (unit.empty()) {
    return format_number(round_to(*value, 3));
  }
  return format_with_unit(*value, unit);
}

namespace {

bool json_is_printable(const Json& value) {
  switch (value.type()) {
  case Json::value_t::string:
    return is_printable(value.get_ref<const Json::string_t&>(), Multiline::yes);
  case Json::value_t::object: {
    const auto& members = value.get_ref<const Json::object_t&>();
    return std::all_of(members.begin(), members.end(), [](const auto& member_pair) {
      return is_printable(member_pair.first, Multiline::yes) &&
             json_is_printable(member_pair.second);
    });
  }
  case Json::value_t::array: {
    const auto& elements = value.get_ref<const Json::array_t&>();
    return std::all_of(elements.begin(), elements.end(), json_is_printable);
  }
  default:
    return true;
  }
}

/// `value` with its strings made printable. Objects are rebuilt member by member at the end of
/// the ordered map (no lookup per key, which is linear there); two keys that escape to the same
/// text would both stay, and readers take the first.
Json printable_json(const Json& value) {
  switch (value.type()) {
  case Json::value_t::string:
    return Json(printable(value.get_ref<const Json::string_t&>(), Multiline::yes));
  case Json::value_t::object: {
    Json out = Json::object();
    auto& members = out.get_ref<Json::object_t&>();
    const auto& from = value.get_ref<const Json::object_t&>();
    members.reserve(from.size());
    for (const auto& [key, member_value] : from) {
      members.emplace_back(printable(key, Multiline::yes), printable_json(member_value));
    }
    return out;
  }
  case Json::value_t::array: {
    Json out = Json::array();
    auto& elements = out.get_ref<Json::array_t&>();
    const auto& from = value.get_ref<const Json::array_t&>();
    elements.reserve(from.size());
    for (const Json& element : from) {
      elements.push_back(printable_json(element));
    }
    return out;
  }
  default:
    return value;
  }
}

} // namespace

std::optional<Json> printable_copy(const Json& doc) {
  if (json_is_printable(doc)) {
    return std::nullopt;
  }
  return printable_json(doc);
}

std::string gpu_line(const Json& doc) {
  const Json* metadata = member(doc, "metadata");
  std::string line = "GPU: ";
  std::string name = metadata == nullptr ? std::string() : text_at(*metadata, "gpu");
  const Json* spec = metadata == nullptr ? nullptr : member(*metadata, "gpu_spec");
  if (name.empty() && spec != nullptr) {
    name = text_at(*spec, "name");
  }
  if (name.empty() && metadata != nullptr) {
    name = text_at(*metadata, "gpu_name"); // the harness's device name (details pages)
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
