// diff_reports(): what changed between two rounds (its text: src/report/diff_text.cpp).
//
// Kernels are matched by name. For each matched kernel the metrics of the metric set (from
// metadata.metric_set, both sides) that are numbers on both sides and differ are ranked by
// |b - a| / max(|a|, |b|): a bounded relative change that also ranks a move away from zero,
// where (b - a) / |a| is undefined. The document reports (b - a) / |a| as relative_change.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "kprof/analysis.hpp"
#include "kprof/history.hpp"
#include "kprof/hot_lines.hpp"
#include "kprof/numbers.hpp"
#include "kprof/report_view.hpp"

namespace kprof {

namespace {

using json_read::member;
using json_read::number_at;
using json_read::number_of;
using json_read::text_at;

constexpr int k_diff_schema_version = 1;

Json number_or_null(const std::optional<double>& value) {
  return value ? Json(*value) : Json(nullptr);
}

Json pair(const Json& a, const Json& b) {
  return Json{{"a", a}, {"b", b}};
}

std::optional<double> speedup_of(const std::optional<double>& a, const std::optional<double>& b) {
  if (!a || !b || *a <= 0 || *b <= 0) {
    return std::nullopt;
  }
  return *a / *b;
}

std::optional<RoundRef> round_of(const ReportView& view) {
  if (const std::optional<int> round = view.round()) {
    return RoundRef{*round, view.candidate()};
  }
  return std::nullopt;
}

Json side(const ReportView& doc, const std::string& given_label, const char* fallback) {
  const auto ref = round_of(doc);
  std::string label = given_label;
  if (label.empty()) {
    label = ref ? to_string(*ref) : std::string(fallback);
  }
  Json out = Json::object();
  out["label"] = label;
  out["round"] = ref ? Json(ref->round) : Json(nullptr);
  out["candidate"] = ref && ref->candidate ? Json(*ref->candidate) : Json(nullptr);
  return out;
}

struct Moved {
  std::string metric;
  std::string label;
  std::string unit;
  double a = 0;
  double b = 0;
  double score = 0;
};

std::vector<Moved> moved_metrics(const ReportView& doc_a, const ReportView& doc_b,
                                 const ReportKernel& kernel_a, const ReportKernel& kernel_b,
                                 std::size_t limit) {
  const Json* launch_a = kernel_a.representative;
  const Json* launch_b = kernel_b.representative;
  if (launch_a == nullptr || launch_b == nullptr) {
    return {};
  }
  std::vector<MetricLabel> labels = doc_a.metric_labels();
  for (auto& label : doc_b.metric_labels()) {
    const bool seen = std::any_of(labels.begin(), labels.end(),
                                  [&](const auto& known) { return known.name == label.name; });
    if (!seen) {
      labels.push_back(std::move(label));
    }
  }
  if (labels.empty()) { // no metric set recorded: every metric of the launch
    if (const Json* metrics = member(*launch_a, "metrics");
        metrics != nullptr && metrics->is_object()) {
      for (const auto& item : metrics->items()) {
        labels.push_back({item.key(), item.key(), {}});
      }
    }
  }
  std::vector<Moved> moved;
  for (const auto& label : labels) {
    const auto a = ReportView::metric_value(*launch_a, label.name);
    const auto b = ReportView::metric_value(*launch_b, label.name);
    if (!a || !b || *a == *b) {
      continue;
    }
    std::string unit = ReportView::metric_unit(*launch_b, label.name);
    if (unit.empty()) {
      unit = ReportView::metric_unit(*launch_a, label.name);
    }
    const double score = std::fabs(*b - *a) / std::max(std::fabs(*a), std::fabs(*b));
    moved.push_back(Moved{label.name, label.label, std::move(unit), *a, *b, score});
  }
  std::stable_sort(moved.begin(), moved.end(),
                   [](const Moved& x, const Moved& y) { return x.score > y.score; });
  if (moved.size() > limit) {
    moved.resize(limit);
  }
  return moved;
}

Json kernel_diff(const ReportView& a, const ReportView& b, const std::string& name,
                 std::size_t limit) {
  const ReportKernel* kernel_a = a.kernel(name);
  const ReportKernel* kernel_b = b.kernel(name);
  KPROF_ASSERT(kernel_a != nullptr && kernel_b != nullptr);
  const auto duration_a = kernel_a->duration_ns;
  const auto duration_b = kernel_b->duration_ns;
  const Json* roof_a = kernel_a->roofline;
  const Json* roof_b = kernel_b->roofline;
  const auto roof_number = [](const Json* roof, const char* key) {
    return roof != nullptr ? number_at(*roof, key) : std::nullopt;
  };
  const std::string bottleneck_a = roof_a != nullptr ? text_at(*roof_a, "bottleneck") : "";
  const std::string bottleneck_b = roof_b != nullptr ? text_at(*roof_b, "bottleneck") : "";
  const auto compute_a = roof_number(roof_a, "compute_sol_pct");
  const auto compute_b = roof_number(roof_b, "compute_sol_pct");
  const auto memory_a = roof_number(roof_a, "memory_sol_pct");
  const auto memory_b = roof_number(roof_b, "memory_sol_pct");

  Json out = Json::object();
  out["name"] = name;
  out["duration_ns"] = pair(number_or_null(duration_a), number_or_null(duration_b));
  out["speedup"] = number_or_null(speedup_of(duration_a, duration_b));
  const auto text_or_null = [](const std::string& text) {
    return text.empty() ? Json(nullptr) : Json(text);
  };
  out["bottleneck"] = Json{
      {"a", text_or_null(bottleneck_a)},
      {"b", text_or_null(bottleneck_b)},
      {"shifted", !bottleneck_a.empty() && !bottleneck_b.empty() && bottleneck_a != bottleneck_b}};
  out["compute_sol_pct"] = pair(number_or_null(compute_a), number_or_null(compute_b));
  out["memory_sol_pct"] = pair(number_or_null(memory_a), number_or_null(memory_b));
  out["max_sol_pct"] = pair(number_or_null(max_sol_pct(compute_a, memory_a)),
                            number_or_null(max_sol_pct(compute_b, memory_b)));
  Json moved = Json::array();
  for (const auto& metric : moved_metrics(a, b, *kernel_a, *kernel_b, limit)) {
    moved.push_back(
        Json{{"metric", metric.metric},
             {"label", metric.label},
             {"unit", metric.unit},
             {"a", metric.a},
             {"b", metric.b},
             {"change", metric.b - metric.a},
             {"relative_change",
              metric.a != 0 ? Json((metric.b - metric.a) / std::fabs(metric.a)) : Json(nullptr)}});
  }
  out["moved_metrics"] = std::move(moved);
  const Json* hot_a = kernel_a->representative != nullptr
                          ? member(*kernel_a->representative, "hot_lines")
                          : nullptr;
  const Json* hot_b = kernel_b->representative != nullptr
                          ? member(*kernel_b->representative, "hot_lines")
                          : nullptr;
  if (hot_a != nullptr && hot_b != nullptr) {
    Json lines = diff_hot_lines(*hot_a, *hot_b);
    if (lines.is_array() && lines.size() > limit) {
      lines.erase(lines.begin() + static_cast<std::ptrdiff_t>(limit), lines.end());
    }
    out["hot_lines"] = std::move(lines);
  }
  return out;
}

/// The values diff reads that cannot be negative, by the one rule of impossible values
/// (check_not_negative, kprof/analysis.hpp): the total and each kernel's duration, each kernel's
/// SOL percentages, and every metric of a launch that a fact is read from (quantity_of: its
/// duration, throughputs, counts). The speedups and percentages made of a negative one would be
/// nonsense. malformed_input naming the key.
Result<void> check_impossible_values(const Json& doc) {
  const Json* summary = member(doc, "summary");
  if (summary != nullptr) {
    if (const auto total = number_at(*summary, "total_duration_ns")) {
      if (auto valid = check_not_negative("summary.total_duration_ns", *total, "", "a duration");
          !valid) {
        return valid;
      }
    }
    if (const Json* kernels = member(*summary, "kernels"); kernels != nullptr) {
      for (std::size_t i = 0; i < kernels->size(); ++i) {
        if (const auto ns = number_at((*kernels)[i], "duration_ns")) {
          const std::string key = fmt::format("summary.kernels[{}].duration_ns", i);
          if (auto valid = check_not_negative(key, *ns, "", "a duration"); !valid) {
            return valid;
          }
        }
      }
    }
  }
  if (const Json* roofline = member(doc, "roofline");
      roofline != nullptr && roofline->is_object()) {
    for (const auto& [name, entry] : roofline->items()) {
      for (const char* key : {"compute_sol_pct", "memory_sol_pct"}) {
        if (const auto pct = number_at(entry, key)) {
          const std::string where = fmt::format("roofline[\"{}\"].{}", name, key);
          if (auto valid = check_not_negative(where, *pct, "", "a percentage"); !valid) {
            return valid;
          }
        }
      }
    }
  }
  if (const Json* launches = member(doc, "kernels"); launches != nullptr) {
    for (std::size_t i = 0; i < launches->size(); ++i) {
      const Json& launch = (*launches)[i];
      const Json* metrics = member(launch, "metrics");
      if (metrics == nullptr || !metrics->is_object()) {
        continue;
      }
      for (const auto& item : metrics->items()) {
        const Column column{item.key(), ReportView::metric_unit(launch, item.key()), ""};
        const auto quantity = quantity_of(column);
        const auto value = quantity ? ReportView::metric_value(launch, item.key()) : std::nullopt;
        if (!value) {
          continue;
        }
        const std::string where = fmt::format("kernels[{}].metrics.{}", i, item.key());
        if (auto valid = check_not_negative(where, *value, column.unit, *quantity); !valid) {
          return valid;
        }
      }
    }
  }
  return {};
}

/// validate_report() and check_impossible_values() for one side of a diff, the error naming the
/// side.
Result<void> check_side(const Json& doc, const char* side, const std::string& source) {
  Result<void> valid = validate_report(doc);
  if (valid) {
    valid = check_impossible_values(doc);
  }
  if (!valid) {
    return valid.error().with_context(
        source.empty() ? fmt::format("while comparing reports: report {}", side)
                       : fmt::format("while comparing reports: report {} ({})", side, source));
  }
  return {};
}

} // namespace

Result<Json> diff_reports(const Json& a, const Json& b, const DiffOptions& options) {
  if (auto valid = check_side(a, "A", options.source_a); !valid) {
    return valid.error();
  }
  if (auto valid = check_side(b, "B", options.source_b); !valid) {
    return valid.error();
  }
  const ReportView view_a(a);
  const ReportView view_b(b);
  const auto names_a = view_a.kernel_names();
  const auto names_b = view_b.kernel_names();
  const auto contains = [](const std::vector<std::string>& names, const std::string& name) {
    return std::find(names.begin(), names.end(), name) != names.end();
  };

  Json diff = Json::object();
  diff["schema_version"] = k_diff_schema_version;
  diff["kind"] = std::string(to_string(DocumentKind::diff));
  diff["a"] = side(view_a, options.label_a, "A");
  diff["b"] = side(view_b, options.label_b, "B");

  const auto total_a = view_a.total_duration_ns();
  const auto total_b = view_b.total_duration_ns();
  Json total = Json::object();
  total["duration_ns"] = pair(number_or_null(total_a), number_or_null(total_b));
  total["speedup"] = number_or_null(speedup_of(total_a, total_b));
  const std::string dominant_a = view_a.dominant_kernel();
  const std::string dominant_b = view_b.dominant_kernel();
  total["dominant_kernel"] = pair(dominant_a.empty() ? Json(nullptr) : Json(dominant_a),
                                  dominant_b.empty() ? Json(nullptr) : Json(dominant_b));
  diff["total"] = std::move(total);

  Json kernels = Json::array();
  Json only_a = Json::array();
  for (const auto& name : names_a) {
    if (contains(names_b, name)) {
      kernels.push_back(kernel_diff(view_a, view_b, name, options.top_metrics));
    } else {
      only_a.push_back(name);
    }
  }
  Json only_b = Json::array();
  for (const auto& name : names_b) {
    if (!contains(names_a, name)) {
      only_b.push_back(name);
    }
  }
  diff["kernels"] = std::move(kernels);
  diff["only_in_a"] = std::move(only_a);
  diff["only_in_b"] = std::move(only_b);
  return diff;
}

std::string render_diff(const Json& diff, Format format) {
  if (json_read::member(diff, "kind") != nullptr) {
    return render(format, diff);
  }
  Json tagged = diff; // a diff saved before documents named their kind
  tagged["kind"] = std::string(to_string(DocumentKind::diff));
  return render(format, tagged);
}

} // namespace kprof
