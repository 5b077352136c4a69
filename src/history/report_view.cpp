#include "history/report_view.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace kprof::history {

const Json* member(const Json& object, std::string_view key) {
  if (!object.is_object()) {
    return nullptr;
  }
  const auto it = object.find(std::string(key));
  return it == object.end() ? nullptr : &*it;
}

std::optional<double> number_at(const Json& object, std::string_view key) {
  const Json* value = member(object, key);
  if (value == nullptr || !value->is_number()) {
    return std::nullopt;
  }
  const auto number = value->get<double>();
  if (!std::isfinite(number)) {
    return std::nullopt;
  }
  return number;
}

std::string text_at(const Json& object, std::string_view key) {
  const Json* value = member(object, key);
  if (value == nullptr || !value->is_string()) {
    return {};
  }
  return value->get<std::string>();
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

std::optional<double> max_of(std::optional<double> a, std::optional<double> b) {
  if (a && b) {
    return std::max(*a, *b);
  }
  return a ? a : b;
}

namespace {

void add_name(std::vector<std::string>& names, std::string name) {
  if (name.empty() || std::find(names.begin(), names.end(), name) != names.end()) {
    return;
  }
  names.push_back(std::move(name));
}

} // namespace

std::vector<std::string> kernel_names(const Json& doc) {
  std::vector<std::string> names;
  if (const Json* summary = member(doc, "summary")) {
    if (const Json* kernels = member(*summary, "kernels");
        kernels != nullptr && kernels->is_array()) {
      for (const auto& kernel : *kernels) {
        add_name(names, text_at(kernel, "name"));
      }
    }
  }
  if (const Json* kernels = member(doc, "kernels"); kernels != nullptr && kernels->is_array()) {
    for (const auto& kernel : *kernels) {
      add_name(names, text_at(kernel, "name"));
    }
  }
  if (const Json* roofline = member(doc, "roofline");
      roofline != nullptr && roofline->is_object()) {
    for (const auto& item : roofline->items()) {
      add_name(names, item.key());
    }
  }
  return names;
}

const Json* summary_entry(const Json& doc, std::string_view name) {
  const Json* summary = member(doc, "summary");
  if (summary == nullptr) {
    return nullptr;
  }
  const Json* kernels = member(*summary, "kernels");
  if (kernels == nullptr || !kernels->is_array()) {
    return nullptr;
  }
  for (const auto& kernel : *kernels) {
    if (text_at(kernel, "name") == name) {
      return &kernel;
    }
  }
  return nullptr;
}

const Json* roofline_entry(const Json& doc, std::string_view name) {
  const Json* roofline = member(doc, "roofline");
  if (roofline == nullptr) {
    return nullptr;
  }
  const Json* entry = member(*roofline, name);
  return entry != nullptr && entry->is_object() ? entry : nullptr;
}

std::optional<double> metric_value(const Json& launch, std::string_view metric) {
  const Json* metrics = member(launch, "metrics");
  if (metrics == nullptr) {
    return std::nullopt;
  }
  const Json* entry = member(*metrics, metric);
  if (entry == nullptr) {
    return std::nullopt;
  }
  if (entry->is_number()) { // tolerate the flat KernelAgent layout too
    const auto number = entry->get<double>();
    return std::isfinite(number) ? std::optional<double>(number) : std::nullopt;
  }
  return number_at(*entry, "value");
}

std::string metric_unit(const Json& launch, std::string_view metric) {
  const Json* metrics = member(launch, "metrics");
  if (metrics == nullptr) {
    return {};
  }
  const Json* entry = member(*metrics, metric);
  return entry == nullptr ? std::string() : text_at(*entry, "unit");
}

const Json* representative_launch(const Json& doc, std::string_view name) {
  const Json* kernels = member(doc, "kernels");
  if (kernels == nullptr || !kernels->is_array()) {
    return nullptr;
  }
  const Json* chosen = nullptr;
  std::optional<double> longest;
  for (const auto& kernel : *kernels) {
    if (text_at(kernel, "name") != name) {
      continue;
    }
    const auto duration = metric_value(kernel, k_duration_metric);
    if (duration) {
      if (!longest || *duration > *longest) {
        longest = duration;
        chosen = &kernel;
      }
    } else if (!longest) {
      chosen = &kernel; // no duration seen yet: the last one listed
    }
  }
  return chosen;
}

std::optional<double> kernel_duration_ns(const Json& doc, std::string_view name) {
  if (const Json* entry = summary_entry(doc, name)) {
    if (auto duration = number_at(*entry, "duration_ns")) {
      return duration;
    }
  }
  if (const Json* launch = representative_launch(doc, name)) {
    return metric_value(*launch, k_duration_metric);
  }
  return std::nullopt;
}

std::string dominant_kernel(const Json& doc) {
  if (const Json* summary = member(doc, "summary")) {
    std::string name = text_at(*summary, "dominant_kernel");
    if (!name.empty()) {
      return name;
    }
  }
  const auto names = kernel_names(doc);
  return names.size() == 1 ? names.front() : std::string();
}

std::optional<RoundRef> round_of(const Json& doc) {
  const Json* metadata = member(doc, "metadata");
  if (metadata == nullptr) {
    return std::nullopt;
  }
  const auto round = index_at(*metadata, "round");
  if (!round) {
    return std::nullopt;
  }
  return RoundRef{*round, index_at(*metadata, "candidate")};
}

std::vector<MetricLabel> metric_labels(const Json& doc) {
  std::vector<MetricLabel> labels;
  const Json* metadata = member(doc, "metadata");
  const Json* set = metadata != nullptr ? member(*metadata, "metric_set") : nullptr;
  const Json* metrics = set != nullptr ? member(*set, "metrics") : nullptr;
  if (metrics == nullptr || !metrics->is_array()) {
    return labels;
  }
  for (const auto& metric : *metrics) {
    MetricLabel label{text_at(metric, "name"), text_at(metric, "label")};
    if (label.name.empty()) {
      continue;
    }
    if (label.label.empty()) {
      label.label = label.name;
    }
    labels.push_back(std::move(label));
  }
  return labels;
}

} // namespace kprof::history
