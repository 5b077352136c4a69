// history_document(): the rows of `kprof history` as a document, which the sinks render
// (src/report/history_text.cpp).
#include "kprof/history.hpp"
#include "kprof/status.hpp"

namespace kprof {

namespace {

Json optional_number(const std::optional<double>& value) {
  return value ? Json(*value) : Json(nullptr);
}

Json row_json(const HistoryRow& row) {
  Json out = Json::object();
  out["round"] = row.round;
  out["candidate"] = row.candidate ? Json(*row.candidate) : Json(nullptr);
  out["label"] = row.label;
  out["status"] = std::string(to_string(row.status));
  out["created_at"] = row.created_at;
  out["total_duration_ns"] = optional_number(row.total_duration_ns);
  out["dominant_kernel"] = row.dominant_kernel.empty() ? Json(nullptr) : Json(row.dominant_kernel);
  out["bottleneck"] = row.bottleneck.empty() ? Json(nullptr) : Json(row.bottleneck);
  out["compute_sol_pct"] = optional_number(row.compute_sol_pct);
  out["memory_sol_pct"] = optional_number(row.memory_sol_pct);
  out["max_sol_pct"] = optional_number(row.max_sol_pct);
  out["measured_median_us"] = optional_number(row.measured_median_us);
  out["measured_mode"] = row.measured_mode.empty() ? Json(nullptr) : Json(row.measured_mode);
  out["measured_eager_us"] = optional_number(row.measured_eager_us);
  out["speedup"] = optional_number(row.speedup);
  out["speed_of_light_share"] = optional_number(row.speed_of_light_share);
  out["check"] = row.check.empty() ? Json(nullptr) : Json(row.check);
  out["best_so_far"] = row.best_so_far;
  out["best"] = row.best;
  out["attempt"] = row.recorded ? Json(row.attempt) : Json(nullptr);
  out["latest"] = row.latest;
  out["kept_at"] = row.kept_at.empty() ? Json(nullptr) : Json(row.kept_at);
  out["recorded"] = row.recorded;
  out["error"] = to_json(row.error);
  return out;
}

} // namespace

Json history_document(const std::vector<HistoryRow>& rows) {
  Json doc = Json::object();
  doc["schema_version"] = k_document_schema_version;
  doc["kind"] = std::string(to_string(DocumentKind::history));
  doc["ranked_on"] = std::string(to_string(ranked_time(rows)));
  doc["rows"] = Json::array();
  for (const auto& row : rows) {
    doc["rows"].push_back(row_json(row));
  }
  return doc;
}

std::string render_history(const std::vector<HistoryRow>& rows, Format format) {
  return render(format, history_document(rows));
}

} // namespace kprof
