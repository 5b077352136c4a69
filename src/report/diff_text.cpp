// Text of a diff document (diff_reports(), docs/history.md "Diff"): one line for an LLM
// (prompt), a few aligned lines for a person (table), one line per compared value (CSV).
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "kprof/numbers.hpp"
#include "kprof/report_view.hpp"
#include "report/sinks.hpp"

namespace kprof::report_detail {

namespace {

using json_read::number_of;

/// The metric every report carries for a launch's duration.
constexpr std::string_view k_duration_metric = "gpu__time_duration.sum";
/// Moved metrics shown per kernel in the one-line prompt text.
constexpr std::size_t k_prompt_metrics = 2;

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
  std::string text = fmt::format("{} -> {}", duration_text(number_of(at_or_null(durations, "a"))),
                                 duration_text(number_of(at_or_null(durations, "b"))));
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
      return fmt::format("{}{}-bound at {} of peak", prefix, after, short_percent_text(sol));
    }
    return fmt::format("{}{}-bound", prefix, after);
  }
  const auto sol = number_of(at_path(kernel, "max_sol_pct", "b"));
  if (sol) {
    return fmt::format("{}{}-bound, busiest unit at {} of peak", prefix, after,
                       short_percent_text(sol));
  }
  return fmt::format("{}{}-bound", prefix, after);
}

/// "DRAM throughput 45% -> 91%", "Registers 40 -> 32 register/thread" (a unit both sides
/// share is said once).
std::string metric_change(const Json& metric) {
  const std::string unit = text_at(metric, "unit");
  std::string before = short_value_text(number_at(metric, "a"), unit);
  const std::string after = short_value_text(number_at(metric, "b"), unit);
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

/// "`x = tl.load(...)` 50% -> 12%" (a line only on one side: "new 20%" / "gone (was 8%)").
std::string hot_line_change(const Json& entry) {
  const auto share = [](const Json& side) {
    const auto value = number_of(at_or_null(side, "share"));
    return value ? share_text(*value) : std::string("?");
  };
  const Json& before = at_or_null(entry, "before");
  const Json& after = at_or_null(entry, "after");
  std::string change;
  if (before.is_null()) {
    change = "new, " + share(after);
  } else if (after.is_null()) {
    change = "gone (was " + share(before) + ")";
  } else {
    change = share(before) + " -> " + share(after);
  }
  return fmt::format("`{}` {}", fit(text_at(entry, "source"), 60), change);
}

/// Up to `limit` hot-line changes of a kernel diff.
std::vector<std::string> hot_line_changes(const Json& kernel, std::size_t limit) {
  std::vector<std::string> out;
  const Json& lines = at_or_null(kernel, "hot_lines");
  if (lines.is_array()) {
    for (const auto& entry : lines) {
      if (out.size() == limit) {
        break;
      }
      out.push_back(hot_line_change(entry));
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
          if (text_at(metric, "metric") == k_duration_metric) {
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
      if (const auto lines = hot_line_changes(kernel, 3); !lines.empty()) {
        out += fmt::format("; hot lines (share of stall samples): {}", fmt::join(lines, ", "));
      }
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
                       duration_text(number_of(at_or_null(durations, "a"))),
                       duration_text(number_of(at_or_null(durations, "b"))),
                       speedup ? format_fixed(*speedup, 2) + "x" : std::string("-"),
                       verdict.empty() ? std::string("-") : verdict});
    }
    out += "\n" + columns(cells);
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
                        short_value_text(number_at(metric, "a"), unit), "->",
                        short_value_text(number_at(metric, "b"), unit), change});
      }
      out += columns(rows);
    }
    for (const auto& kernel : kernels) {
      const auto lines = hot_line_changes(kernel, 10);
      if (lines.empty()) {
        continue;
      }
      out += fmt::format("\n{}: hot lines, share of stall samples\n", text_at(kernel, "name"));
      for (const std::string& line : lines) {
        out += "  " + line + "\n";
      }
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
    return csv_field(value.get<std::string>());
  }
  return csv_number(number_of(value));
}

std::string render_csv(const Json& diff) {
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
      const Json& lines = at_or_null(kernel, "hot_lines");
      if (lines.is_array()) {
        for (const auto& entry : lines) {
          const Json& a = at_or_null(at_or_null(entry, "before"), "share");
          const Json& b = at_or_null(at_or_null(entry, "after"), "share");
          const auto before = number_of(a);
          const auto after = number_of(b);
          line("hot_line", name, text_at(entry, "source"), "Share of stall samples", "", a, b,
               before && after ? Json(*after - *before) : Json(nullptr), null_value);
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

std::string diff_text(const Json& diff, Format format) {
  switch (format) {
  case Format::csv:
    return render_csv(diff);
  case Format::prompt:
    return render_prompt(diff);
  case Format::json:
  case Format::table:
  case Format::html:
    break;
  }
  return render_table(diff);
}

} // namespace kprof::report_detail
