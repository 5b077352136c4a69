// render_history(): the `kprof history` view in every output format.
#include <fmt/format.h>

#include "history/text.hpp"
#include "kprof/history.hpp"

namespace kprof {

namespace {

using history::csv_field;
using history::csv_number;

Json optional_number(const std::optional<double>& value) {
  return value ? Json(*value) : Json(nullptr);
}

Json row_json(const HistoryRow& row) {
  Json out = Json::object();
  out["round"] = row.round;
  out["candidate"] = row.candidate ? Json(*row.candidate) : Json(nullptr);
  out["label"] = row.label;
  out["status"] = row.status;
  out["created_at"] = row.created_at;
  out["total_duration_ns"] = optional_number(row.total_duration_ns);
  out["dominant_kernel"] = row.dominant_kernel.empty() ? Json(nullptr) : Json(row.dominant_kernel);
  out["bottleneck"] = row.bottleneck.empty() ? Json(nullptr) : Json(row.bottleneck);
  out["compute_sol_pct"] = optional_number(row.compute_sol_pct);
  out["memory_sol_pct"] = optional_number(row.memory_sol_pct);
  out["max_sol_pct"] = optional_number(row.max_sol_pct);
  out["best_so_far"] = row.best_so_far;
  out["best"] = row.best;
  if (row.error) {
    out["error"] = Json{{"category", to_string(row.error->category)},
                        {"message", row.error->message},
                        {"detail", row.error->detail}};
  } else {
    out["error"] = nullptr;
  }
  return out;
}

std::string render_json(const std::vector<HistoryRow>& rows) {
  Json doc = Json::object();
  doc["schema_version"] = 1;
  doc["rows"] = Json::array();
  for (const auto& row : rows) {
    doc["rows"].push_back(row_json(row));
  }
  return doc.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

std::string render_csv(const std::vector<HistoryRow>& rows) {
  std::string out =
      "round,candidate,label,status,created_at,total_duration_ns,dominant_kernel,bottleneck,"
      "compute_sol_pct,memory_sol_pct,max_sol_pct,best_so_far,best,error_category,"
      "error_message\n";
  for (const auto& row : rows) {
    out += fmt::format(
        "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", row.round,
        row.candidate ? fmt::format("{}", *row.candidate) : std::string(), csv_field(row.label),
        row.status, csv_field(row.created_at), csv_number(row.total_duration_ns),
        csv_field(row.dominant_kernel), row.bottleneck, csv_number(row.compute_sol_pct),
        csv_number(row.memory_sol_pct), csv_number(row.max_sol_pct), row.best_so_far ? 1 : 0,
        row.best ? 1 : 0, row.error ? to_string(row.error->category) : std::string_view(),
        csv_field(row.error ? row.error->message : std::string()));
  }
  return out;
}

std::string or_dash(const std::string& text) {
  return text.empty() ? "-" : text;
}

std::string render_table(const std::vector<HistoryRow>& rows) {
  if (rows.empty()) {
    return "no rounds recorded\n";
  }
  std::vector<std::vector<std::string>> cells;
  cells.push_back({" ", "round", "cand", "status", "duration", "max SOL", "bottleneck", "kernel",
                   "label", "error"});
  bool any_best = false;
  for (const auto& row : rows) {
    any_best = any_best || row.best_so_far;
    std::string error;
    if (row.error) {
      error = fmt::format("{}: {}", to_string(row.error->category), row.error->message);
      // One line per row: a multi-line message is cut at its first line break.
      if (const auto newline = error.find('\n'); newline != std::string::npos) {
        error.resize(newline);
      }
    }
    cells.push_back({row.best_so_far ? "*" : " ", fmt::format("{}", row.round),
                     row.candidate ? fmt::format("{}", *row.candidate) : std::string("-"),
                     row.status, history::short_duration(row.total_duration_ns),
                     history::short_percent(row.max_sol_pct), or_dash(row.bottleneck),
                     or_dash(row.dominant_kernel), or_dash(row.label), error});
  }
  std::string out = history::columns(cells);
  if (any_best) {
    out += "* new best so far (lowest total duration among ok rounds up to that round)\n";
  }
  return out;
}

} // namespace

std::string render_history(const std::vector<HistoryRow>& rows, Format format) {
  switch (format) {
  case Format::json:
    return render_json(rows);
  case Format::csv:
    return render_csv(rows);
  case Format::prompt:
  case Format::table:
  case Format::html: // no HTML of its own: `kprof view` draws history and diff
    return render_table(rows);
  }
  return render_table(rows);
}

} // namespace kprof
