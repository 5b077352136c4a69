// The one JSON shape of a round and of its candidates (kprof/round.hpp, docs/json-schema.md
// "Rounds"): the only place that names their keys.
#include "kprof/round.hpp"

#include <algorithm>
#include <numeric>
#include <utility>

#include <fmt/format.h>

#include "kprof/report.hpp"
#include "kprof/report_view.hpp"
#include "kprof/round_layout.hpp"
#include "kprof/truth.hpp"

namespace kprof {
namespace fs = std::filesystem;

namespace {

/// The file of a candidate's document: its report.json, else its error.json (the round's
/// writer writes one of them for every candidate); nullopt without a directory.
std::optional<fs::path> candidate_document(const CandidateResult& candidate) {
  if (candidate.dir.empty()) {
    return std::nullopt;
  }
  return candidate.dir /
         (candidate.report_document() != nullptr ? RoundLayout::k_report : RoundLayout::k_error);
}

/// A report's truth.timing, when it has one.
const Json* timing_of(const Json& report) {
  const Json* truth = json_read::member(report, "truth");
  return truth != nullptr ? json_read::member(*truth, "timing") : nullptr;
}

/// The measured median of a report's candidate (truth.timing.median_us), when it was timed.
std::optional<double> measured_median_us(const Json& report) {
  const Json* timing = timing_of(report);
  return timing != nullptr ? json_read::number_at(*timing, "median_us") : std::nullopt;
}

/// Whether the timed candidates of a round were timed in more than one mode (a CUDA graph's
/// median leaves out the host's launches an eager one counts): they are then ranked on their
/// eager medians, like against like.
bool modes_differ(std::span<const CandidateResult> candidates) {
  std::string first;
  for (const CandidateResult& candidate : candidates) {
    const Json* report = candidate.report_document();
    const Json* timing = report != nullptr ? timing_of(*report) : nullptr;
    if (timing == nullptr || !json_read::number_at(*timing, "median_us")) {
      continue;
    }
    const std::string mode = timing_mode(*timing);
    if (first.empty()) {
      first = mode;
    } else if (mode != first) {
      return true;
    }
  }
  return false;
}

/// A candidate's place in the ranking, by tier then time: a right (or unchecked) candidate by
/// its measured median (its eager median when `eager`: modes_differ), then one without a
/// measurement by ncu's total duration, then wrong outputs (by the same times), then reports
/// without a duration; a candidate without a report last.
std::pair<int, double> ranking_key(const CandidateResult& candidate, bool eager) {
  const Json* report = candidate.report_document();
  if (report == nullptr) {
    return {9, 0};
  }
  const bool wrong = candidate.error && candidate.error->category == ErrorCategory::wrong_output;
  const int tier = wrong ? 3 : 0;
  const Json* timing = timing_of(*report);
  if (const auto median = timing == nullptr ? std::nullopt
                          : eager           ? eager_median_us(*timing)
                                            : measured_median_us(*report)) {
    return {tier, *median * 1000.0};
  }
  if (const auto total = ReportView(*report).total_duration_ns()) {
    return {tier + 1, *total};
  }
  return {6, 0};
}

/// The summary's "truth": what an agent decides on ({median_us, check, speedup, ideal_us,
/// bound, speed_of_light_share}), null when the candidate was neither timed nor checked.
Json truth_summary(const Json& report) {
  const Json* truth = json_read::member(report, "truth");
  if (truth == nullptr || !truth->is_object()) {
    return nullptr;
  }
  const Json* check = json_read::member(*truth, "check");
  const Json* reference = json_read::member(*truth, "reference");
  const Json* light = json_read::member(*truth, "speed_of_light");
  const std::string verdict = check != nullptr ? json_read::text_at(*check, "verdict") : "";
  const std::string bound = light != nullptr ? json_read::text_at(*light, "bound") : "";
  return Json{
      {"median_us", number_json(measured_median_us(report))},
      {"check", verdict.empty() ? Json(nullptr) : Json(verdict)},
      {"speedup", number_json(reference != nullptr ? json_read::number_at(*reference, "speedup")
                                                   : std::nullopt)},
      {"ideal_us",
       number_json(light != nullptr ? json_read::number_at(*light, "ideal_us") : std::nullopt)},
      {"bound", bound.empty() ? Json(nullptr) : Json(bound)},
      {"speed_of_light_share",
       number_json(light != nullptr ? json_read::number_at(*light, "share") : std::nullopt)}};
}

Error malformed_round(std::string_view key) {
  return make_error(ErrorCategory::malformed_input,
                    fmt::format("not a kprof round: '{}' is missing or has the wrong type", key));
}

Result<CandidateResult> candidate_from_json(const Json& entry) {
  if (!entry.is_object()) {
    return malformed_round("candidates[]");
  }
  CandidateResult candidate;
  const Json* index = json_read::member(entry, "candidate");
  if (index == nullptr || !index->is_number_integer()) {
    return malformed_round("candidates[].candidate");
  }
  candidate.index = index->get<int>();
  candidate.kernel = json_read::text_at(entry, "kernel_file");
  auto status = parse_candidate_status(json_read::text_at(entry, "status"));
  if (!status) {
    return malformed_round("candidates[].status");
  }
  candidate.status = *status;
  if (const Json* error = json_read::member(entry, "error")) {
    candidate.error = error_from_json(*error);
  }
  if (const Json* report = json_read::member(entry, "report");
      report != nullptr && report->is_object()) {
    candidate.report = *report;
  }
  candidate.dir = json_read::text_at(entry, "dir");
  candidate.gpu = static_cast<int>(json_read::number_at(entry, "gpu").value_or(0));
  candidate.attempts = static_cast<int>(json_read::number_at(entry, "attempts").value_or(0));
  return candidate;
}

} // namespace

const Json* CandidateResult::report_document() const {
  if (report) {
    return &*report;
  }
  return streamed_report ? &streamed_report->outline() : nullptr;
}

Json report_summary(const Json& report) {
  const ReportView view(report);
  Json kernels = Json::array();
  for (const ReportKernel& kernel : view.kernels_by_duration()) {
    Json entry{{"name", kernel.name},
               {"launches", kernel.launch_count},
               {"duration_ns", number_json(kernel.duration_ns)},
               {"share", number_json(kernel.share)}};
    const Json* roofline = kernel.roofline;
    const std::string bottleneck =
        roofline != nullptr ? json_read::text_at(*roofline, "bottleneck") : std::string();
    entry["bottleneck"] = bottleneck.empty() ? Json(nullptr) : Json(bottleneck);
    entry["compute_sol_pct"] = number_json(
        roofline != nullptr ? json_read::number_at(*roofline, "compute_sol_pct") : std::nullopt);
    entry["memory_sol_pct"] = number_json(
        roofline != nullptr ? json_read::number_at(*roofline, "memory_sol_pct") : std::nullopt);
    std::size_t hot = 0;
    bool diagnosis = false;
    if (kernel.representative != nullptr) {
      if (const Json* lines = json_read::member(*kernel.representative, "hot_lines")) {
        if (const Json* list = json_read::member(*lines, "lines");
            list != nullptr && list->is_array()) {
          hot = list->size();
        }
      }
      const Json* found = json_read::member(*kernel.representative, "diagnosis");
      diagnosis = found != nullptr && !found->is_null();
    }
    entry["hot_lines"] = hot;
    entry["diagnosis"] = diagnosis;
    kernels.push_back(std::move(entry));
  }
  const std::string gpu = json_read::text_at(view.metadata(), "gpu");
  const std::string dominant = view.dominant_kernel();
  return Json{{"gpu", gpu.empty() ? Json(nullptr) : Json(gpu)},
              {"page", view.details_page() ? "details" : "raw"},
              {"total_duration_ns", number_json(view.total_duration_ns())},
              {"launches", view.launch_count()},
              {"dominant_kernel", dominant.empty() ? Json(nullptr) : Json(dominant)},
              {"kernels", std::move(kernels)},
              {"truth", truth_summary(report)}};
}

std::vector<std::optional<int>> candidate_ranks(std::span<const CandidateResult> candidates) {
  std::vector<std::size_t> order(candidates.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::vector<std::pair<int, double>> keys;
  keys.reserve(candidates.size());
  const bool eager = modes_differ(candidates);
  for (const CandidateResult& candidate : candidates) {
    keys.push_back(ranking_key(candidate, eager));
  }
  std::stable_sort(order.begin(), order.end(),
                   [&keys](std::size_t a, std::size_t b) { return keys[a] < keys[b]; });
  std::vector<std::optional<int>> ranks(candidates.size());
  int rank = 1;
  for (const std::size_t position : order) {
    if (candidates[position].report_document() != nullptr) {
      ranks[position] = rank++;
    }
  }
  return ranks;
}

Json candidate_json(const CandidateResult& candidate, std::optional<int> rank,
                    ReportDetail detail) {
  const Json* report = candidate.report_document();
  const std::optional<fs::path> document = candidate_document(candidate);
  bool standby = false;
  if (report != nullptr) {
    if (const Json* metadata = json_read::member(*report, "metadata")) {
      standby = json_read::bool_at(*metadata, "standby").value_or(false);
    }
  }
  Json out = Json::object();
  out["candidate"] = candidate.index;
  out["kernel_file"] = candidate.kernel.string();
  out["status"] = candidate.status;
  out["rank"] = rank ? Json(*rank) : Json(nullptr);
  out["gpu"] = candidate.gpu;
  out["attempts"] = candidate.attempts;
  out["dir"] = candidate.dir.string();
  out["document"] = document ? Json(document->string()) : Json(nullptr);
  out["standby"] = standby;
  out["summary"] = report != nullptr ? report_summary(*report) : Json(nullptr);
  out["error"] = to_json(candidate.error);
  out["report"] = detail == ReportDetail::full && report != nullptr ? *report : Json(nullptr);
  return out;
}

Json round_document(const RoundResult& round, ReportDetail detail) {
  Json doc = Json::object();
  doc["schema_version"] = k_document_schema_version;
  doc["kind"] = std::string(to_string(DocumentKind::round));
  doc["round"] = round.round;
  doc["dir"] = round.dir.string();
  doc["in_place"] = round.in_place;
  doc["batch"] = round.batch;
  doc["wall_seconds"] = number_json(round.wall_seconds);
  doc["served_by"] = round.served_by.who.empty()
                         ? Json(nullptr)
                         : Json{{"who", round.served_by.who},
                                {"socket", round.served_by.socket.empty()
                                               ? Json(nullptr)
                                               : Json(round.served_by.socket.string())}};
  doc["metadata"] = round.metadata;
  const std::vector<std::optional<int>> ranks = candidate_ranks(round.candidates);
  Json candidates = Json::array();
  for (std::size_t i = 0; i < round.candidates.size(); ++i) {
    candidates.push_back(candidate_json(round.candidates[i], ranks[i], detail));
  }
  doc["candidates"] = std::move(candidates);
  if (round.extracted) {
    if (*round.extracted) {
      doc["extracted"] = **round.extracted;
    } else {
      doc["extract_error"] = to_json(round.extracted->error());
    }
  }
  return doc;
}

Json report_summary_schema() {
  const Json number = Json{{"type", Json::array({"number", "null"})}};
  const Json text = Json{{"type", Json::array({"string", "null"})}};
  const Json kernel{{"type", "object"},
                    {"properties", Json{{"name", Json{{"type", "string"}}},
                                        {"launches", Json{{"type", "integer"}}},
                                        {"duration_ns", number},
                                        {"share", number},
                                        {"bottleneck", text},
                                        {"compute_sol_pct", number},
                                        {"memory_sol_pct", number},
                                        {"hot_lines", Json{{"type", "integer"}}},
                                        {"diagnosis", Json{{"type", "boolean"}}}}}};
  return Json{{"type", Json::array({"object", "null"})},
              {"properties",
               Json{{"gpu", text},
                    {"page", Json{{"type", "string"}}},
                    {"total_duration_ns", number},
                    {"launches", Json{{"type", "integer"}}},
                    {"dominant_kernel", text},
                    {"kernels", Json{{"type", "array"}, {"items", kernel}}},
                    {"truth", Json{{"type", Json::array({"object", "null"})},
                                   {"properties", Json{{"median_us", number},
                                                       {"check", text},
                                                       {"speedup", number},
                                                       {"ideal_us", number},
                                                       {"bound", text},
                                                       {"speed_of_light_share", number}}}}}}}};
}

Json candidate_json_schema() {
  Json error = error_json_schema();
  error["type"] = Json::array({"object", "null"});
  const Json integer_or_null{{"type", Json::array({"integer", "null"})}};
  const Json text_or_null{{"type", Json::array({"string", "null"})}};
  return Json{
      {"type", "object"},
      {"properties", Json{{"candidate", Json{{"type", "integer"}}},
                          {"kernel_file", Json{{"type", "string"}}},
                          {"status", Json{{"type", "string"},
                                          {"enum", Json::array({"ok", "partial", "failed"})}}},
                          {"rank", integer_or_null},
                          {"gpu", Json{{"type", "integer"}}},
                          {"attempts", Json{{"type", "integer"}}},
                          {"dir", Json{{"type", "string"}}},
                          {"document", text_or_null},
                          {"standby", Json{{"type", "boolean"}}},
                          {"summary", report_summary_schema()},
                          {"error", std::move(error)},
                          {"report", Json{{"type", Json::array({"object", "null"})}}}}},
      {"required", Json::array({"candidate", "kernel_file", "status", "rank", "gpu", "attempts",
                                "dir", "document", "standby", "summary", "error", "report"})}};
}

Json round_json_schema() {
  const Json served_by{
      {"type", Json::array({"object", "null"})},
      {"properties", Json{{"who", Json{{"type", "string"}}},
                          {"socket", Json{{"type", Json::array({"string", "null"})}}}}}};
  return Json{
      {"type", "object"},
      {"properties",
       Json{{"schema_version", Json{{"type", "integer"}}},
            {"kind", Json{{"type", "string"}, {"const", "round"}}},
            {"round", Json{{"type", "integer"}}},
            {"dir", Json{{"type", "string"}, {"description", "the round directory"}}},
            {"in_place", Json{{"type", "boolean"},
                              {"description", "false: a failed re-run kept beside the good round "
                                              "(roundNNN.attempt-K)"}}},
            {"batch", Json{{"type", "boolean"}}},
            {"wall_seconds", Json{{"type", Json::array({"number", "null"})}}},
            {"served_by", served_by},
            {"metadata", Json{{"type", "object"}}},
            {"candidates", Json{{"type", "array"}, {"items", candidate_json_schema()}}},
            {"extracted",
             Json{{"type", "object"},
                  {"description", "kprof model --extract: extracted.json's document, per kernel "
                                  "its case's directory or why it has none"}}},
            {"extract_error", error_json_schema()}}},
      {"required", Json::array({"schema_version", "kind", "round", "dir", "in_place", "batch",
                                "wall_seconds", "served_by", "metadata", "candidates"})}};
}

Result<RoundResult> round_result_from_json(const Json& json) {
  const Json* candidates = json_read::member(json, "candidates");
  if (candidates == nullptr || !candidates->is_array()) {
    return malformed_round("candidates");
  }
  RoundResult round;
  round.round = static_cast<int>(json_read::number_at(json, "round").value_or(0));
  round.dir = json_read::text_at(json, "dir");
  round.in_place = json_read::bool_at(json, "in_place").value_or(true);
  round.batch = json_read::bool_at(json, "batch").value_or(false);
  round.wall_seconds = json_read::number_at(json, "wall_seconds").value_or(0.0);
  if (const Json* served = json_read::member(json, "served_by")) {
    round.served_by.who = json_read::text_at(*served, "who");
    round.served_by.socket = json_read::text_at(*served, "socket");
  }
  const Json* metadata = json_read::member(json, "metadata");
  round.metadata = metadata != nullptr && metadata->is_object() ? *metadata : Json::object();
  for (const Json& entry : *candidates) {
    auto candidate = candidate_from_json(entry);
    if (!candidate) {
      return std::move(candidate).error();
    }
    round.candidates.push_back(std::move(candidate).value());
  }
  if (const Json* extracted = json_read::member(json, "extracted")) {
    round.extracted = Result<Json>(*extracted);
  } else if (const Json* failed = json_read::member(json, "extract_error")) {
    if (auto error = error_from_json(*failed)) {
      round.extracted = Result<Json>(std::move(*error));
    }
  }
  return round;
}

std::optional<Error> round_error(const RoundResult& round) {
  if (round.candidates.empty()) {
    return std::nullopt;
  }
  if (!round.batch) {
    return round.candidates.front().error;
  }
  const bool every_failed =
      std::all_of(round.candidates.begin(), round.candidates.end(),
                  [](const CandidateResult& c) { return c.status == CandidateStatus::failed; });
  return every_failed ? round.candidates.front().error : std::nullopt;
}

} // namespace kprof
