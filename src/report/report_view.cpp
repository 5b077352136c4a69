// ReportView and the tolerant JSON reads every document reader shares (kprof/report_view.hpp).
#include "kprof/report_view.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <unordered_map>

#include "kprof/numbers.hpp"

namespace kprof {

namespace json_read {

const Json* member(const Json& object, std::string_view key) {
  if (!object.is_object()) {
    return nullptr;
  }
  const auto found = object.find(key);
  return found == object.end() ? nullptr : &*found;
}

std::optional<double> number_of(const Json& value) {
  if (!value.is_number()) {
    return std::nullopt;
  }
  const auto number = value.get<double>();
  return std::isfinite(number) ? std::optional<double>(number) : std::nullopt;
}

std::optional<double> number_at(const Json& object, std::string_view key) {
  const Json* value = member(object, key);
  return value == nullptr ? std::nullopt : number_of(*value);
}

std::string text_at(const Json& object, std::string_view key, std::string_view fallback) {
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

std::optional<int> index_at(const Json& object, std::string_view key) {
  const Json* value = member(object, key);
  if (value == nullptr || !value->is_number_integer()) {
    return std::nullopt;
  }
  const auto number = value->get<std::int64_t>();
  if (number < 0 || number > std::numeric_limits<int>::max()) {
    return std::nullopt;
  }
  return static_cast<int>(number);
}

} // namespace json_read

using json_read::member;
using json_read::number_at;
using json_read::text_at;

std::string duration_text(std::optional<double> ns, std::string_view missing) {
  return ns && std::isfinite(*ns) ? format_with_unit(*ns, "ns") : std::string(missing);
}

std::string short_percent_text(std::optional<double> pct, std::string_view missing) {
  if (!pct || !std::isfinite(*pct)) {
    return std::string(missing);
  }
  return format_fixed(*pct, std::fabs(*pct) < 10 ? 1 : 0) + "%";
}

std::optional<double> duration_ns(double value, std::string_view unit) {
  if (unit.empty() || unit == "ns" || unit == "nsecond") {
    return value;
  }
  if (unit == "us" || unit == "usecond") {
    return value * 1e3;
  }
  if (unit == "ms" || unit == "msecond") {
    return value * 1e6;
  }
  if (unit == "s" || unit == "second") {
    return value * 1e9;
  }
  return std::nullopt;
}

std::optional<double> max_sol_pct(std::optional<double> compute_pct,
                                  std::optional<double> memory_pct) {
  if (compute_pct && memory_pct) {
    return std::max(*compute_pct, *memory_pct);
  }
  return compute_pct ? compute_pct : memory_pct;
}

namespace {

const Json& empty_object() {
  static const Json k_empty = Json::object();
  return k_empty;
}

/// The launch-duration keys: raw page, then the details page's label and section/label.
constexpr std::array<std::string_view, 3> k_duration_keys = {
    "gpu__time_duration.sum", "Duration", "GPU Speed Of Light Throughput/Duration"};

} // namespace

std::optional<double> ReportView::metric_value(const Json& launch, std::string_view metric) {
  const Json* metrics = member(launch, "metrics");
  const Json* entry = metrics == nullptr ? nullptr : member(*metrics, metric);
  if (entry == nullptr) {
    return std::nullopt;
  }
  if (entry->is_number()) { // the flat KernelAgent layout
    return json_read::number_of(*entry);
  }
  return number_at(*entry, "value");
}

std::string ReportView::metric_unit(const Json& launch, std::string_view metric) {
  const Json* metrics = member(launch, "metrics");
  const Json* entry = metrics == nullptr ? nullptr : member(*metrics, metric);
  return entry == nullptr ? std::string() : text_at(*entry, "unit");
}

std::string_view ReportView::launch_duration_metric(const Json& launch) {
  for (const std::string_view key : k_duration_keys) {
    if (const std::optional<double> value = metric_value(launch, key)) {
      if (duration_ns(*value, metric_unit(launch, key))) {
        return key;
      }
    }
  }
  return {};
}

std::optional<double> ReportView::launch_duration_ns(const Json& launch) {
  const std::string_view key = launch_duration_metric(launch);
  const std::optional<double> value = key.empty() ? std::nullopt : metric_value(launch, key);
  return value ? duration_ns(*value, metric_unit(launch, key)) : std::nullopt;
}

ReportView::ReportView(const Json& doc) : m_doc(&doc) {
  std::unordered_map<std::string, std::size_t> by_name;
  const auto kernel_of = [&](const std::string& name) -> ReportKernel& {
    const auto [it, inserted] = by_name.try_emplace(name, m_kernels.size());
    if (inserted) {
      m_kernels.push_back(ReportKernel{});
      m_kernels.back().name = name;
    }
    return m_kernels[it->second];
  };
  const Json* summary = member(doc, "summary");
  if (const Json* entries = summary == nullptr ? nullptr : member(*summary, "kernels");
      entries != nullptr && entries->is_array()) {
    for (const Json& entry : *entries) {
      ReportKernel& kernel = kernel_of(text_at(entry, "name"));
      const std::optional<double> launches = number_at(entry, "launches");
      kernel.launch_count = launches && *launches > 0 ? static_cast<std::size_t>(*launches) : 0;
      kernel.duration_ns = number_at(entry, "duration_ns");
      kernel.share = number_at(entry, "share");
      kernel.library = json_read::bool_at(entry, "library").value_or(false);
    }
  }
  if (const Json* launches = member(doc, "kernels"); launches != nullptr && launches->is_array()) {
    for (const Json& launch : *launches) {
      kernel_of(text_at(launch, "name")).launches.push_back(&launch);
    }
  }
  const Json* roofline = member(doc, "roofline");
  if (roofline != nullptr && roofline->is_object()) {
    for (const auto& item : roofline->items()) {
      kernel_of(item.key());
    }
  }
  for (ReportKernel& kernel : m_kernels) {
    if (kernel.launch_count == 0) {
      kernel.launch_count = kernel.launches.size();
    }
    if (roofline != nullptr) {
      const Json* entry = member(*roofline, kernel.name);
      kernel.roofline = entry != nullptr && entry->is_object() ? entry : nullptr;
    }
    std::optional<double> longest;
    for (const Json* launch : kernel.launches) {
      const std::optional<double> duration = launch_duration_ns(*launch);
      if (kernel.representative == nullptr || (duration && (!longest || *duration > *longest))) {
        kernel.representative = launch;
        if (duration) {
          longest = duration;
        }
      }
    }
    if (!kernel.duration_ns && kernel.representative != nullptr) {
      kernel.duration_ns = launch_duration_ns(*kernel.representative);
    }
  }
}

const Json& ReportView::metadata() const {
  const Json* metadata = member(*m_doc, "metadata");
  return metadata != nullptr && metadata->is_object() ? *metadata : empty_object();
}

bool ReportView::details_page() const {
  return text_at(metadata(), "page") == "details";
}

std::optional<double> ReportView::total_duration_ns() const {
  const Json* summary = member(*m_doc, "summary");
  return summary == nullptr ? std::nullopt : number_at(*summary, "total_duration_ns");
}

std::size_t ReportView::launch_count() const {
  const Json* summary = member(*m_doc, "summary");
  const std::optional<double> launches =
      summary == nullptr ? std::nullopt : number_at(*summary, "launches");
  return launches && *launches > 0 ? static_cast<std::size_t>(*launches) : 0;
}

std::string ReportView::dominant_kernel() const {
  if (const Json* summary = member(*m_doc, "summary")) {
    std::string name = text_at(*summary, "dominant_kernel");
    if (!name.empty()) {
      return name;
    }
  }
  return m_kernels.size() == 1 ? m_kernels.front().name : std::string();
}

std::optional<int> ReportView::round() const {
  return json_read::index_at(metadata(), "round");
}

std::optional<int> ReportView::candidate() const {
  return json_read::index_at(metadata(), "candidate");
}

std::vector<ReportKernel> ReportView::kernels_by_duration() const {
  std::vector<ReportKernel> sorted = m_kernels;
  std::stable_sort(sorted.begin(), sorted.end(), [](const ReportKernel& a, const ReportKernel& b) {
    if (a.duration_ns && b.duration_ns) {
      return *a.duration_ns > *b.duration_ns;
    }
    return a.duration_ns.has_value() && !b.duration_ns.has_value();
  });
  return sorted;
}

const ReportKernel* ReportView::kernel(std::string_view name) const {
  const auto found =
      std::find_if(m_kernels.begin(), m_kernels.end(),
                   [name](const ReportKernel& kernel) { return kernel.name == name; });
  return found == m_kernels.end() ? nullptr : &*found;
}

std::vector<std::string> ReportView::kernel_names() const {
  std::vector<std::string> names;
  names.reserve(m_kernels.size());
  for (const ReportKernel& kernel : m_kernels) {
    names.push_back(kernel.name);
  }
  return names;
}

std::vector<MetricLabel> ReportView::metric_labels() const {
  std::vector<MetricLabel> labels;
  const Json* set = member(metadata(), "metric_set");
  const Json* specs = set == nullptr ? nullptr : member(*set, "metrics");
  if (specs == nullptr || !specs->is_array()) {
    return labels;
  }
  for (const Json& spec : *specs) {
    MetricLabel label{text_at(spec, "name"), text_at(spec, "label"), text_at(spec, "group")};
    if (label.name.empty()) {
      continue;
    }
    if (label.label.empty()) {
      label.label = label.name;
    }
    if (label.group.empty()) {
      label.group = "Other";
    }
    labels.push_back(std::move(label));
  }
  return labels;
}

std::vector<std::pair<std::string, const Json*>>
kernels_with(const Json& doc, std::string_view member, std::string_view filter) {
  std::vector<std::pair<std::string, const Json*>> found;
  const ReportView view(doc);
  for (const ReportKernel& kernel : view.kernels_by_duration()) {
    if (kernel.representative == nullptr || kernel.name.find(filter) == std::string::npos) {
      continue;
    }
    const Json* value = json_read::member(*kernel.representative, member);
    if (value != nullptr && !value->is_null() && !(value->is_object() && value->empty())) {
      found.emplace_back(kernel.name, kernel.representative);
    }
  }
  return found;
}

} // namespace kprof
