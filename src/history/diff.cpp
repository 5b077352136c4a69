// diff_reports() and render_diff(): what changed between two rounds.
//
// Kernels are matched by name. For each matched kernel the metrics of the metric set (from
// metadata.metric_set, both sides) that are numbers on both sides and differ are ranked by
// |b - a| / max(|a|, |b|): a bounded relative change that also ranks a move away from zero,
// where (b - a) / |a| is undefined. The document reports (b - a) / |a| as relative_change.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "history/report_view.hpp"
#include "history/text.hpp"
#include "kprof/history.hpp"
#include "kprof/numbers.hpp"

namespace kprof {

namespace {

using history::member;
using history::number_at;
using history::text_at;

constexpr int k_diff_schema_version = 1;
/// Moved metrics shown per kernel in the one-line prompt text.
constexpr std::size_t k_prompt_metrics = 2;

Json number_or_null(const std::optional<double>& value) {
  return value ? Json(*value) : Json(nullptr);
}

std::optional<double> number_of(const Json& value) {
  if (!value.is_number()) {
    return std::nullopt;
  }
  const auto number = value.get<double>();
  return std::isfinite(number) ? std::optional<double>(number) : std::nullopt;
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

Json side(const Json& doc, const std::string& given_label, const char* fallback) {
  const auto ref = history::round_of(doc);
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

std::vector<Moved> moved_metrics(const Json& doc_a, const Json& doc_b, const std::string& name,
                                 std::size_t limit) {
  const Json* launch_a = history::representative_launch(doc_a, name);
  const Json* launch_b = history::representative_launch(doc_b, name);
  if (launch_a == nullptr || launch_b == nullptr) {
    return {};
  }
  std::vector<history::MetricLabel> labels = history::metric_labels(doc_a);
  for (auto& label : history::metric_labels(doc_b)) {
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
        labels.push_back({item.key(), item.key()});
      }
    }
  }
  std::vector<Moved> moved;
  for (const auto& label : labels) {
    const auto a = history::metric_value(*launch_a, label.name);
    const auto b = history::metric_value(*launch_b, label.name);
    if (!a || !b || *a == *b) {
      continue;
    }
    std::string unit = history::metric_unit(*launch_b, label.name);
    if (unit.empty()) {
      unit = history::metric_unit(*launch_a, label.name);
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

Json kernel_diff(const Json& a, const Json& b, const std::string& name, std::size_t limit) {
  const auto duration_a = history::kernel_duration_ns(a, name);
  const auto duration_b = history::kernel_duration_ns(b, name);
  const Json* roof_a = history::roofline_entry(a, name);
  const Json* roof_b = history::roofline_entry(b, name);
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
  out["max_sol_pct"] = pair(number_or_null(history::max_of(compute_a, memory_a)),
                            number_or_null(history::max_of(compute_b, memory_b)));
  Json moved = Json::array();
  for (const auto& metric : moved_metrics(a, b, name, limit)) {
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
  return out;
}

// ---- rendering -------------------------------------------------------------------------------

const Json& at_or_null(const Json& object, std::string_view key) {
  static const Json null_value;
  const Json* value = member(object, key);
  return value != nullptr ? *value : null_value;
}

const Json& at_path(const Json& object, std::string_view key, std::string_view inner) {
  return at_or_null(at_or_null(object, key), inner);
}

std::string label_of(const Json& diff, std::string_view which) {
  std::string label = text_at(at_or_null(diff, which), "label");
  return label.empty() ? std::string(which == "a" ? "A" : "B") : label;
}

/// "(2.00x faster)", "(1.25x slower)", "(unchanged)"; "" when unknown.
std::string speed_words(const Json& speedup) {
  const auto value = number_of(speedup);
  if (!value || *value <= 0) {
    return {};
  }
  if (format_fixed(*value, 2) == "1.00") {
    return "unchanged";
  }
  if (*value > 1) {
    return format_fixed(*value, 2) + "x faster";
  }
  return format_fixed(1.0 / *value, 2) + "x slower";
}

std::string change_words(const Json& durations, const Json& speedup) {
  std::string text =
      fmt::format("{} -> {}", history::short_duration(number_of(at_or_null(durations, "a"))),
                  history::short_duration(number_of(at_or_null(durations, "b"))));
  if (const std::string words = speed_words(speedup); !words.empty()) {
    text += fmt::format(" ({})", words);
  }
  return text;
}

/// "now memory-bound at 91% of peak", "still compute-bound at 80% of peak",
/// "latency-bound, busiest unit at 30% of peak"; "" when b has no verdict.
std::string verdict_words(const Json& kernel) {
  const Json& bottleneck = at_or_null(kernel, "bottleneck");
  const std::string before = text_at(bottleneck, "a");
  const std::string after = text_at(bottleneck, "b");
  if (after.empty()) {
    return {};
  }
  std::string prefix;
  if (!before.empty()) {
    prefix = before == after ? "still " : "now ";
  }
  if (after == "memory" || after == "compute") {
    const auto sol = number_of(at_path(kernel, after + "_sol_pct", "b"));
    if (sol) {
      return fmt::format("{}{}-bound at {} of peak", prefix, after, history::short_percent(sol));
    }
    return fmt::format("{}{}-bound", prefix, after);
  }
  const auto sol = number_of(at_path(kernel, "max_sol_pct", "b"));
  if (sol) {
    return fmt::format("{}{}-bound, busiest unit at {} of peak", prefix, after,
                       history::short_percent(sol));
  }
  return fmt::format("{}{}-bound", prefix, after);
}

/// "DRAM throughput 45% -> 91%", "Registers 40 -> 32 register/thread" (a unit both sides
/// share is said once).
std::string metric_change(const Json& metric) {
  const std::string unit = text_at(metric, "unit");
  std::string before = history::short_value(number_at(metric, "a"), unit);
  const std::string after = history::short_value(number_at(metric, "b"), unit);
  const std::string suffix = " " + unit;
  const auto ends_with_unit = [&suffix](const std::string& text) {
    return text.size() > suffix.size() &&
           text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  if (!unit.empty() && ends_with_unit(before) && ends_with_unit(after)) {
    before.resize(before.size() - suffix.size());
  }
  return fmt::format("{} {} -> {}", text_at(metric, "label"), before, after);
}

std::string names_of(const Json& list) {
  std::string out;
  if (list.is_array()) {
    for (const auto& name : list) {
      if (name.is_string()) {
        out += out.empty() ? "" : ", ";
        out += name.get<std::string>();
      }
    }
  }
  return out;
}

std::string render_prompt(const Json& diff) {
  const std::string label_a = label_of(diff, "a");
  const std::string label_b = label_of(diff, "b");
  const Json& total = at_or_null(diff, "total");
  std::string out =
      fmt::format("{} vs {}: total {}", label_b, label_a,
                  change_words(at_or_null(total, "duration_ns"), at_or_null(total, "speedup")));
  const Json& kernels = at_or_null(diff, "kernels");
  const bool several = kernels.is_array() && kernels.size() > 1;
  if (kernels.is_array()) {
    for (const auto& kernel : kernels) {
      std::vector<std::string> parts;
      if (several) {
        parts.push_back(
            change_words(at_or_null(kernel, "duration_ns"), at_or_null(kernel, "speedup")));
      }
      std::size_t shown = 0;
      bool duration_moved = false;
      const Json& moved = at_or_null(kernel, "moved_metrics");
      if (moved.is_array()) {
        for (const auto& metric : moved) {
          if (shown == k_prompt_metrics) {
            break;
          }
          if (text_at(metric, "metric") == history::k_duration_metric) {
            duration_moved = true; // the durations say it already
            continue;
          }
          parts.push_back(metric_change(metric));
          ++shown;
        }
      }
      if (parts.empty()) {
        parts.emplace_back(duration_moved ? "no other metric moved" : "no metric moved");
      }
      const std::string segment =
          fmt::format("{}: {}", text_at(kernel, "name"), fmt::join(parts, ", "));
      out += "; " + segment;
      if (const std::string verdict = verdict_words(kernel); !verdict.empty()) {
        out += "; " + verdict;
      }
    }
  }
  if (const std::string only = names_of(at_or_null(diff, "only_in_a")); !only.empty()) {
    out += fmt::format("; only in {}: {}", label_a, only);
  }
  if (const std::string only = names_of(at_or_null(diff, "only_in_b")); !only.empty()) {
    out += fmt::format("; only in {}: {}", label_b, only);
  }
  return out + "\n";
}

std::string render_table(const Json& diff) {
  const std::string label_a = label_of(diff, "a");
  const std::string label_b = label_of(diff, "b");
  const Json& total = at_or_null(diff, "total");
  std::string out =
      fmt::format("{} vs {}\ntotal: {}\n", label_b, label_a,
                  change_words(at_or_null(total, "duration_ns"), at_or_null(total, "speedup")));
  const Json& kernels = at_or_null(diff, "kernels");
  if (kernels.is_array() && !kernels.empty()) {
    std::vector<std::vector<std::string>> cells;
    cells.push_back({"kernel", label_a, label_b, "speedup", "bottleneck"});
    for (const auto& kernel : kernels) {
      const Json& durations = at_or_null(kernel, "duration_ns");
      const auto speedup = number_of(at_or_null(kernel, "speedup"));
      const Json& bottleneck = at_or_null(kernel, "bottleneck");
      std::string verdict = text_at(bottleneck, "a");
      const std::string after = text_at(bottleneck, "b");
      if (after != verdict) {
        verdict =
            fmt::format("{} -> {}", verdict.empty() ? "-" : verdict, after.empty() ? "-" : after);
      }
      cells.push_back({text_at(kernel, "name"),
                       history::short_duration(number_of(at_or_null(durations, "a"))),
                       history::short_duration(number_of(at_or_null(durations, "b"))),
                       speedup ? format_fixed(*speedup, 2) + "x" : std::string("-"),
                       verdict.empty() ? std::string("-") : verdict});
    }
    out += "\n" + history::columns(cells);
    for (const auto& kernel : kernels) {
      const Json& moved = at_or_null(kernel, "moved_metrics");
      if (!moved.is_array() || moved.empty()) {
        continue;
      }
      out += fmt::format("\n{}: metrics that moved most\n", text_at(kernel, "name"));
      std::vector<std::vector<std::string>> rows;
      for (const auto& metric : moved) {
        const std::string unit = text_at(metric, "unit");
        const auto relative = number_at(metric, "relative_change");
        std::string change = "from 0";
        if (relative) {
          change = (*relative >= 0 ? "+" : "") + format_fixed(*relative * 100.0, 1) + "%";
        }
        rows.push_back({"  " + text_at(metric, "label"),
                        history::short_value(number_at(metric, "a"), unit), "->",
                        history::short_value(number_at(metric, "b"), unit), change});
      }
      out += history::columns(rows);
    }
  }
  if (const std::string only = names_of(at_or_null(diff, "only_in_a")); !only.empty()) {
    out += fmt::format("\nonly in {}: {}\n", label_a, only);
  }
  if (const std::string only = names_of(at_or_null(diff, "only_in_b")); !only.empty()) {
    out += fmt::format("{}only in {}: {}\n",
                       names_of(at_or_null(diff, "only_in_a")).empty() ? "\n" : "", label_b, only);
  }
  return out;
}

std::string csv_value(const Json& value) {
  if (value.is_string()) {
    return history::csv_field(value.get<std::string>());
  }
  return history::csv_number(number_of(value));
}

std::string render_csv(const Json& diff) {
  using history::csv_field;
  std::string out = "scope,kernel,metric,label,unit,a,b,change,relative_change\n";
  const auto line = [&out](std::string_view scope, std::string_view kernel, std::string_view metric,
                           std::string_view label, std::string_view unit, const Json& a,
                           const Json& b, const Json& change, const Json& relative) {
    out += fmt::format("{},{},{},{},{},{},{},{},{}\n", scope, csv_field(kernel), csv_field(metric),
                       csv_field(label), csv_field(unit), csv_value(a), csv_value(b),
                       csv_value(change), csv_value(relative));
  };
  const auto duration_line = [&](std::string_view scope, std::string_view kernel,
                                 const Json& durations) {
    const auto a = number_of(at_or_null(durations, "a"));
    const auto b = number_of(at_or_null(durations, "b"));
    const Json change = a && b ? Json(*b - *a) : Json(nullptr);
    const Json relative = a && b && *a != 0 ? Json((*b - *a) / std::fabs(*a)) : Json(nullptr);
    line(scope, kernel, "duration_ns", "Duration", "ns", at_or_null(durations, "a"),
         at_or_null(durations, "b"), change, relative);
  };
  const Json null_value;
  duration_line("total", "", at_path(diff, "total", "duration_ns"));
  const Json& kernels = at_or_null(diff, "kernels");
  if (kernels.is_array()) {
    for (const auto& kernel : kernels) {
      const std::string name = text_at(kernel, "name");
      duration_line("kernel", name, at_or_null(kernel, "duration_ns"));
      const Json& bottleneck = at_or_null(kernel, "bottleneck");
      line("kernel", name, "bottleneck", "Bottleneck", "", at_or_null(bottleneck, "a"),
           at_or_null(bottleneck, "b"), null_value, null_value);
      const Json& moved = at_or_null(kernel, "moved_metrics");
      if (moved.is_array()) {
        for (const auto& metric : moved) {
          line("metric", name, text_at(metric, "metric"), text_at(metric, "label"),
               text_at(metric, "unit"), at_or_null(metric, "a"), at_or_null(metric, "b"),
               at_or_null(metric, "change"), at_or_null(metric, "relative_change"));
        }
      }
    }
  }
  for (const char* which : {"only_in_a", "only_in_b"}) {
    const Json& names = at_or_null(diff, which);
    if (names.is_array()) {
      for (const auto& name : names) {
        line(which, name.is_string() ? name.get<std::string>() : std::string(), "", "", "",
             null_value, null_value, null_value, null_value);
      }
    }
  }
  return out;
}

} // namespace

Result<Json> diff_reports(const Json& a, const Json& b, const DiffOptions& options) {
  if (auto valid = validate_report(a); !valid) {
    return valid.error().with_context("while comparing reports: report A");
  }
  if (auto valid = validate_report(b); !valid) {
    return valid.error().with_context("while comparing reports: report B");
  }
  const auto names_a = history::kernel_names(a);
  const auto names_b = history::kernel_names(b);
  const auto contains = [](const std::vector<std::string>& names, const std::string& name) {
    return std::find(names.begin(), names.end(), name) != names.end();
  };

  Json diff = Json::object();
  diff["schema_version"] = k_diff_schema_version;
  diff["a"] = side(a, options.label_a, "A");
  diff["b"] = side(b, options.label_b, "B");

  const Json& summary_a = at_or_null(a, "summary");
  const Json& summary_b = at_or_null(b, "summary");
  const auto total_a = number_at(summary_a, "total_duration_ns");
  const auto total_b = number_at(summary_b, "total_duration_ns");
  Json total = Json::object();
  total["duration_ns"] = pair(number_or_null(total_a), number_or_null(total_b));
  total["speedup"] = number_or_null(speedup_of(total_a, total_b));
  const std::string dominant_a = history::dominant_kernel(a);
  const std::string dominant_b = history::dominant_kernel(b);
  total["dominant_kernel"] = pair(dominant_a.empty() ? Json(nullptr) : Json(dominant_a),
                                  dominant_b.empty() ? Json(nullptr) : Json(dominant_b));
  diff["total"] = std::move(total);

  Json kernels = Json::array();
  Json only_a = Json::array();
  for (const auto& name : names_a) {
    if (contains(names_b, name)) {
      kernels.push_back(kernel_diff(a, b, name, options.top_metrics));
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
  switch (format) {
  case Format::json:
    return diff.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
  case Format::csv:
    return render_csv(diff);
  case Format::prompt:
    return render_prompt(diff);
  case Format::table:
  case Format::html: // no HTML of its own: `kprof view` draws history and diff
    return render_table(diff);
  }
  return render_table(diff);
}

} // namespace kprof
