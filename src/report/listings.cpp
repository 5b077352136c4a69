// The small artefacts of the CLI as documents, and their text: a metric set (`kprof metrics`),
// the ranking of a batch round (`kprof batch`) and the checks of `kprof doctor`. The builders
// make versioned documents (docs/json-schema.md); the text renderers read only those documents,
// so the JSON sink prints exactly what the text shows.
#include <algorithm>
#include <array>
#include <filesystem>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "kprof/numbers.hpp"
#include "kprof/report_view.hpp"
#include "report/sinks.hpp"

namespace kprof {

using json_read::member;
using json_read::number_at;
using json_read::text_at;

namespace {

constexpr std::array<std::pair<DocumentKind, std::string_view>, 7> k_kind_words = {
    {{DocumentKind::report, "report"},
     {DocumentKind::history, "history"},
     {DocumentKind::diff, "diff"},
     {DocumentKind::convergence, "convergence"},
     {DocumentKind::metric_set, "metric_set"},
     {DocumentKind::round, "round"},
     {DocumentKind::doctor, "doctor"}}};

/// The last line of `text` that is not blank, without its indentation ("" when none).
std::string last_line(std::string_view text) {
  const auto is_blank = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  while (!text.empty() && is_blank(text.back())) {
    text.remove_suffix(1);
  }
  if (const std::size_t newline = text.rfind('\n'); newline != std::string_view::npos) {
    text.remove_prefix(newline + 1);
  }
  while (!text.empty() && is_blank(text.front())) {
    text.remove_prefix(1);
  }
  return std::string(text);
}

} // namespace

std::string_view to_string(DocumentKind kind) {
  for (const auto& [known, word] : k_kind_words) {
    if (known == kind) {
      return word;
    }
  }
  return "report";
}

Result<DocumentKind> document_kind(const Json& doc) {
  const Json* kind = member(doc, "kind");
  if (kind == nullptr) {
    return DocumentKind::report;
  }
  const std::string word = kind->is_string() ? kind->get<std::string>() : json_text(*kind, -1);
  for (const auto& [known, known_word] : k_kind_words) {
    if (known_word == word) {
      return known;
    }
  }
  std::string words;
  for (const auto& [known, known_word] : k_kind_words) {
    words += words.empty() ? "" : "|";
    words += known_word;
  }
  return make_error(ErrorCategory::malformed_input,
                    fmt::format("'{}' is not a kind of kprof document ({}); is it from a newer "
                                "kprof?",
                                word, words));
}

Json metric_set_document(const MetricSet& set, bool list_builtin_sets) {
  Json doc = Json::object();
  doc["schema_version"] = k_document_schema_version;
  doc["kind"] = std::string(to_string(DocumentKind::metric_set));
  doc["name"] = set.name;
  doc["description"] = set.description;
  doc["metrics"] = Json::array();
  for (const MetricSpec& metric : set.metrics) {
    doc["metrics"].push_back(
        Json{{"name", metric.name}, {"label", metric.label}, {"group", metric.group}});
  }
  doc["sections"] = set.sections;
  if (list_builtin_sets) {
    Json names = Json::array();
    for (const MetricSet& builtin : builtin_metric_sets()) {
      names.push_back(builtin.name);
    }
    doc["other_sets"] = std::move(names);
  }
  return doc;
}

Json doctor_document(const std::vector<DoctorLine>& checks) {
  Json doc = Json::object();
  doc["schema_version"] = k_document_schema_version;
  doc["kind"] = std::string(to_string(DocumentKind::doctor));
  // A failed check without an error (an optional tool missing) does not stop profiling.
  doc["ok"] = std::none_of(checks.begin(), checks.end(),
                           [](const DoctorLine& check) { return !check.ok && check.error; });
  doc["checks"] = Json::array();
  for (const DoctorLine& check : checks) {
    doc["checks"].push_back(Json{{"name", check.name},
                                 {"ok", check.ok},
                                 {"detail", check.detail},
                                 {"error", to_json(check.error)}});
  }
  return doc;
}

namespace report_detail {

std::optional<std::string> artefact_text(const Json& doc, Format format) {
  const Result<DocumentKind> kind = document_kind(doc);
  if (!kind) {
    return json_text(doc);
  }
  switch (*kind) {
  case DocumentKind::report:
    return std::nullopt;
  case DocumentKind::history:
    return history_text(doc, format);
  case DocumentKind::diff:
    return diff_text(doc, format);
  case DocumentKind::convergence:
    return convergence_text(doc, format);
  case DocumentKind::metric_set:
    return metric_set_text(doc, format);
  case DocumentKind::round:
    return round_text(doc, format);
  case DocumentKind::doctor:
    return doctor_text(doc, format);
  }
  return json_text(doc);
}

std::string metric_set_text(const Json& doc, Format format) {
  static const Json k_none = Json::array();
  const Json* found = member(doc, "metrics");
  const Json& metrics = found != nullptr && found->is_array() ? *found : k_none;
  if (format == Format::csv) {
    std::string out = "name,label,group\n";
    for (const Json& metric : metrics) {
      out += fmt::format("{},{},{}\n", csv_field(text_at(metric, "name")),
                         csv_field(text_at(metric, "label")), csv_field(text_at(metric, "group")));
    }
    return out;
  }
  std::string out =
      fmt::format("metric set '{}': {}\n", text_at(doc, "name"), text_at(doc, "description"));
  std::size_t width = 0;
  for (const Json& metric : metrics) {
    width = std::max(width, text_at(metric, "name").size());
  }
  for (const Json& metric : metrics) {
    out += fmt::format("  {:<{}}  {:<14} {}\n", text_at(metric, "name"), width,
                       text_at(metric, "group"), text_at(metric, "label"));
  }
  if (const Json* sections = member(doc, "sections"); sections != nullptr && sections->is_array()) {
    for (const Json& section : *sections) {
      if (section.is_string()) {
        out += fmt::format("  section {}\n", section.get<std::string>());
      }
    }
  }
  if (const Json* others = member(doc, "other_sets"); others != nullptr && others->is_array()) {
    out += "other sets:";
    for (const Json& name : *others) {
      if (name.is_string()) {
        out += " " + name.get<std::string>();
      }
    }
    out += "\n";
  }
  return out;
}

std::string doctor_text(const Json& doc, Format format) {
  static const Json k_none = Json::array();
  const Json* found = member(doc, "checks");
  const Json& checks = found != nullptr && found->is_array() ? *found : k_none;
  if (format == Format::csv) {
    std::string out = "name,ok,detail,error_category,error_message\n";
    for (const Json& check : checks) {
      const Json* error = member(check, "error");
      const Json& no_error = Json::object();
      const Json& err = error != nullptr ? *error : no_error;
      out += fmt::format("{},{},{},{},{}\n", csv_field(text_at(check, "name")),
                         json_read::bool_at(check, "ok").value_or(false) ? 1 : 0,
                         csv_field(text_at(check, "detail")), csv_field(text_at(err, "category")),
                         csv_field(text_at(err, "message")));
    }
    return out;
  }
  std::string out;
  std::vector<std::string> blocking; // the failed checks that stop profiling (those with an error)
  for (const Json& check : checks) {
    const bool ok = json_read::bool_at(check, "ok").value_or(false);
    out += fmt::format("{:<9} {}  {}\n", text_at(check, "name"), ok ? "ok  " : "FAIL",
                       text_at(check, "detail"));
    const Json* error = member(check, "error");
    if (ok || error == nullptr || !error->is_object()) {
      continue;
    }
    blocking.push_back(text_at(check, "name"));
    // The why of a failed import or run (its last line: "ModuleNotFoundError: ..."), which the
    // message alone does not say.
    if (const std::string why = last_line(text_at(*error, "detail"));
        !why.empty() && why != text_at(check, "detail")) {
      out += fmt::format("{:<15}{}\n", "", why);
    }
  }
  if (json_read::bool_at(doc, "ok").value_or(false)) {
    out += "profiling can work here\n";
  } else if (blocking.size() == 1) {
    out += fmt::format("profiling will not work here until the {} check above passes\n",
                       blocking.front());
  } else {
    out += fmt::format("profiling will not work here until the {} failed checks above pass ({})\n",
                       blocking.size(), fmt::join(blocking, ", "));
  }
  return out;
}

std::string round_text(const Json& doc, Format format) {
  static const Json k_none = Json::array();
  const Json* found = member(doc, "candidates");
  const Json& candidates = found != nullptr && found->is_array() ? *found : k_none;
  struct Line {
    std::string rank;
    std::string candidate;
    std::string status;
    std::optional<double> duration_ns;
    std::optional<double> measured_us; ///< the harness's measured median (summary.truth)
    std::string check;                 ///< pass, fail, unchecked, or empty
    std::string dominant;
    std::string kernel_file;
    std::string error_category;
    std::string error_message;
  };
  // Ranked: rank 1 first, candidates without a rank (no report) last, in their order.
  std::vector<const Json*> order;
  for (const Json& candidate : candidates) {
    order.push_back(&candidate);
  }
  std::stable_sort(order.begin(), order.end(), [](const Json* a, const Json* b) {
    const int none = std::numeric_limits<int>::max();
    return json_read::index_at(*a, "rank").value_or(none) <
           json_read::index_at(*b, "rank").value_or(none);
  });
  std::vector<Line> lines;
  for (const Json* entry : order) {
    const Json& candidate = *entry;
    Line line;
    const std::optional<int> rank = json_read::index_at(candidate, "rank");
    line.rank = rank ? std::to_string(*rank) : std::string();
    const std::optional<int> index = json_read::index_at(candidate, "candidate");
    line.candidate = index ? std::to_string(*index) : std::string();
    line.status = text_at(candidate, "status");
    if (const Json* summary = member(candidate, "summary");
        summary != nullptr && summary->is_object()) {
      line.duration_ns = number_at(*summary, "total_duration_ns");
      line.dominant = text_at(*summary, "dominant_kernel");
      if (const Json* truth = member(*summary, "truth"); truth != nullptr && truth->is_object()) {
        line.measured_us = number_at(*truth, "median_us");
        line.check = text_at(*truth, "check");
      }
    }
    line.kernel_file = text_at(candidate, "kernel_file");
    if (const Json* error = member(candidate, "error"); error != nullptr && error->is_object()) {
      line.error_category = text_at(*error, "category");
      line.error_message = text_at(*error, "message");
    }
    lines.push_back(std::move(line));
  }
  if (format == Format::csv) {
    std::string out = "rank,candidate,status,total_duration_ns,dominant_kernel,kernel_file,"
                      "error_category,error_message,measured_median_us,check\n";
    for (const Line& line : lines) {
      out += fmt::format("{},{},{},{},{},{},{},{},{},{}\n", line.rank, line.candidate, line.status,
                         csv_number(line.duration_ns), csv_field(line.dominant),
                         csv_field(line.kernel_file), line.error_category,
                         csv_field(line.error_message), csv_number(line.measured_us), line.check);
    }
    return out;
  }
  const std::optional<double> wall = number_at(doc, "wall_seconds");
  std::string out = fmt::format("round {}: {} candidates in {} s\n",
                                json_read::index_at(doc, "round").value_or(0), lines.size(),
                                wall ? format_fixed(*wall, 1) : std::string("?"));
  out += fmt::format("{:<4} {:<5} {:<8} {:>10} {:>12}  {:<28} {}\n", "rank", "cand", "status",
                     "measured", "GPU time", "dominant kernel", "file / error");
  for (const Line& line : lines) {
    std::string dominant = line.dominant.empty() ? std::string("-") : line.dominant;
    dominant = fit(dominant, 28, "~"); // 27 columns and "~"
    std::string last = std::filesystem::path(line.kernel_file).filename().string();
    if (!line.error_category.empty()) {
      // One line per candidate: a multi-line message is cut at its first line break.
      last = first_line(fmt::format("{}: {}", line.error_category, line.error_message));
    }
    const std::optional<double> measured_ns =
        line.measured_us ? std::optional<double>(*line.measured_us * 1000.0) : std::nullopt;
    out +=
        fmt::format("{:<4} {:<5} {:<8} {:>10} {:>12}  {:<28} {}\n",
                    line.rank.empty() ? std::string("-") : line.rank, line.candidate, line.status,
                    duration_text(measured_ns), duration_text(line.duration_ns), dominant, last);
  }
  return out;
}

} // namespace report_detail

} // namespace kprof
