// Text of the history documents: the rows of `kprof history` (table, prompt, CSV) and the
// convergence verdict of `kprof history --converged`. Both read only the documents that
// history_document() and convergence_document() build (docs/json-schema.md).
#include <string>
#include <vector>

#include <fmt/format.h>

#include "kprof/numbers.hpp"
#include "kprof/report_view.hpp"
#include "report/sinks.hpp"

namespace kprof::report_detail {

namespace {

std::string or_dash(const std::string& text) {
  return text.empty() ? "-" : text;
}

std::string optional_index(const Json& object, std::string_view key, std::string_view missing) {
  const std::optional<int> index = json_read::index_at(object, key);
  return index ? std::to_string(*index) : std::string(missing);
}

const Json& rows_of(const Json& doc) {
  static const Json k_none = Json::array();
  const Json* rows = member(doc, "rows");
  return rows != nullptr && rows->is_array() ? *rows : k_none;
}

const Json& error_of(const Json& row) {
  static const Json k_none = Json::object();
  const Json* error = member(row, "error");
  return error != nullptr && error->is_object() ? *error : k_none;
}

/// False for a committed round whose row is not in kprof.db yet (docs/history.md).
bool recorded(const Json& row) {
  return bool_at(row, "recorded").value_or(true);
}

/// The attempt number; "" for a row not recorded yet (it has none until it is).
std::string attempt_number(const Json& row) {
  return recorded(row) ? optional_index(row, "attempt", "1") : std::string();
}

std::string history_csv(const Json& doc) {
  std::string out =
      "round,candidate,label,status,created_at,total_duration_ns,dominant_kernel,bottleneck,"
      "compute_sol_pct,memory_sol_pct,max_sol_pct,best_so_far,best,error_category,"
      "error_message,attempt,latest,kept_at,recorded,measured_median_us,speedup,"
      "speed_of_light_share,check,measured_mode,measured_eager_us\n";
  for (const Json& row : rows_of(doc)) {
    const Json& error = error_of(row);
    out += fmt::format(
        "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n",
        optional_index(row, "round", ""), optional_index(row, "candidate", ""),
        csv_field(text_at(row, "label")), text_at(row, "status"),
        csv_field(text_at(row, "created_at")), csv_number(number_at(row, "total_duration_ns")),
        csv_field(text_at(row, "dominant_kernel")), text_at(row, "bottleneck"),
        csv_number(number_at(row, "compute_sol_pct")), csv_number(number_at(row, "memory_sol_pct")),
        csv_number(number_at(row, "max_sol_pct")),
        bool_at(row, "best_so_far").value_or(false) ? 1 : 0,
        bool_at(row, "best").value_or(false) ? 1 : 0, text_at(error, "category"),
        csv_field(text_at(error, "message")), attempt_number(row),
        bool_at(row, "latest").value_or(true) ? 1 : 0, csv_field(text_at(row, "kept_at")),
        recorded(row) ? 1 : 0, csv_number(number_at(row, "measured_median_us")),
        csv_number(number_at(row, "speedup")), csv_number(number_at(row, "speed_of_light_share")),
        text_at(row, "check"), text_at(row, "measured_mode"),
        csv_number(number_at(row, "measured_eager_us")));
  }
  return out;
}

/// "2 latest", "1", "2 (round001.attempt-2)": the attempt column of the table, shown once any
/// row is a re-run.
std::string attempt_text(const Json& row) {
  std::string out = recorded(row) ? optional_index(row, "attempt", "1") : std::string("-");
  if (bool_at(row, "latest").value_or(true)) {
    out += " latest";
  }
  if (const std::string kept = text_at(row, "kept_at"); !kept.empty()) {
    out += " (" + kept + ")";
  }
  return out;
}

/// The truth's cells of a row (the measured median, the speed-up over PyTorch, the share of the
/// problem's speed of light), "-" where not measured.
std::vector<std::string> truth_cells(const Json& row) {
  const std::optional<double> median = number_at(row, "measured_median_us");
  const std::optional<double> speedup = number_at(row, "speedup");
  const std::optional<double> share = number_at(row, "speed_of_light_share");
  // A median timed as a CUDA graph's replay says so: it leaves out the host's launches.
  const std::string graph = text_at(row, "measured_mode") == "graph" ? " (graph)" : "";
  return {median ? duration_text(*median * 1000.0) + graph : "-",
          speedup ? format_fixed(*speedup, 2) + "x" : "-",
          share ? short_percent_text(*share * 100.0) : "-"};
}

std::string history_table(const Json& doc) {
  const Json& rows = rows_of(doc);
  if (rows.empty()) {
    return "no rounds recorded\n";
  }
  std::vector<std::vector<std::string>> cells;
  bool any_rerun = false;
  bool any_measured = false;
  bool measured_ok = false; // the rows are ranked on the measured median (ranked_time)
  for (const Json& row : rows) {
    any_rerun = any_rerun || (recorded(row) && optional_index(row, "attempt", "1") != "1");
    const bool measured = number_at(row, "measured_median_us").has_value();
    any_measured = any_measured || measured;
    measured_ok = measured_ok || (measured && text_at(row, "status") == "ok");
  }
  cells.push_back({" ", "round", "cand", "status", "duration", "max SOL", "bottleneck", "kernel",
                   "label", "error"});
  if (any_measured) { // after ncu's duration: the measured median, vs PyTorch, of the SOL
    const std::vector<std::string> names = {"measured", "vs torch", "of SOL"};
    cells.back().insert(cells.back().begin() + 5, names.begin(), names.end());
  }
  if (any_rerun) {
    cells.back().insert(cells.back().begin() + 3, "attempt");
  }
  bool any_best = false;
  bool any_unrecorded = false;
  for (const Json& row : rows) {
    const bool best_so_far = bool_at(row, "best_so_far").value_or(false);
    any_best = any_best || best_so_far;
    any_unrecorded = any_unrecorded || !recorded(row);
    std::string error;
    if (const Json& found = error_of(row); !found.empty()) {
      // One line per row: a multi-line message is cut at its first line break.
      error =
          first_line(fmt::format("{}: {}", text_at(found, "category"), text_at(found, "message")));
    }
    cells.push_back({best_so_far ? "*" : (recorded(row) ? " " : "!"),
                     optional_index(row, "round", "-"), optional_index(row, "candidate", "-"),
                     text_at(row, "status"), duration_text(number_at(row, "total_duration_ns")),
                     short_percent_text(number_at(row, "max_sol_pct")),
                     or_dash(text_at(row, "bottleneck")), or_dash(text_at(row, "dominant_kernel")),
                     or_dash(text_at(row, "label")), error});
    if (any_measured) {
      const std::vector<std::string> truth = truth_cells(row);
      cells.back().insert(cells.back().begin() + 5, truth.begin(), truth.end());
    }
    if (any_rerun) {
      cells.back().insert(cells.back().begin() + 3, attempt_text(row));
    }
  }
  std::string out = columns(cells);
  if (any_best) {
    if (text_at(doc, "ranked_on") == "measured_eager") {
      out += "* new best so far (lowest eager median among ok rounds up to that round: the "
             "rounds were timed in different modes, and a CUDA graph's median leaves out the "
             "host's launches; ncu's duration is not compared)\n";
    } else {
      out += measured_ok ? "* new best so far (lowest measured median among ok rounds up to that "
                           "round; ncu's duration is not compared)\n"
                         : "* new best so far (lowest total duration among ok rounds up to that "
                           "round)\n";
    }
  }
  if (any_unrecorded) {
    out += "! in its round directory but not recorded in kprof.db yet (its writer stopped before "
           "the row); the next profile or batch in this directory records it\n";
  }
  return out;
}

} // namespace

std::string history_text(const Json& doc, Format format) {
  return format == Format::csv ? history_csv(doc) : history_table(doc);
}

std::string convergence_text(const Json& doc, Format format) {
  const bool converged = bool_at(doc, "converged").value_or(false);
  if (format == Format::csv) {
    const Json* best = member(doc, "best");
    const Json& no_best = Json::object();
    const Json& found = best != nullptr ? *best : no_best;
    return fmt::format(
        "converged,reason,best_round,best_candidate,best_duration_ns,best_sol_pct,"
        "improvement,rounds,details\n{},{},{},{},{},{},{},{},{}\n",
        converged ? 1 : 0, text_at(doc, "reason"), optional_index(found, "round", ""),
        optional_index(found, "candidate", ""), csv_number(number_at(doc, "best_duration_ns")),
        csv_number(number_at(doc, "best_sol_pct")), csv_number(number_at(doc, "improvement")),
        optional_index(doc, "rounds", ""), csv_field(text_at(doc, "details")));
  }
  return fmt::format("{}: {}\n", converged ? "converged" : "not converged",
                     text_at(doc, "details"));
}

} // namespace kprof::report_detail
