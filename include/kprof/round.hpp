// kprof: the result of a round and of each of its candidates, and their one JSON shape
// (docs/json-schema.md, "Rounds"). Every shell reads a round through these: the CLI's batch
// output, the round's batch.json, `kprof serve`'s reply, the MCP tools' structured results and
// the Python module's results; the names of their keys appear in round.cpp alone.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "kprof/error.hpp"
#include "kprof/json_file.hpp"
#include "kprof/status.hpp"

namespace kprof {

class ReportSource; // kprof/report.hpp

/// The outcome of one candidate in a round.
struct CandidateResult {
  int index = 0;
  std::filesystem::path kernel;
  CandidateStatus status = CandidateStatus::failed;
  std::optional<Error> error; ///< set unless status == ok
  std::optional<Json> report; ///< the report document (ok and partial)
  /// Instead of `report`: a report read launch by launch, never held as a tree (`kprof report
  /// FILE --round N`, record_report_round); the round's files and history row are the ones
  /// `report` would give. Its JSON carries the report's outline (one launch per kernel name).
  std::shared_ptr<const ReportSource> streamed_report;
  std::filesystem::path dir; ///< where its files are
  int gpu = 0;
  int attempts = 0;

  /// The report document, held or the outline of a streamed one; nullptr without a report.
  [[nodiscard]] const Json* report_document() const;
};

/// Who answered a round that a shell asked for (run_request): the asking process's own profiler
/// or a running `kprof serve` of the same output directory (docs/standby.md). Empty for a round
/// that no shell asked for (a round directory's own batch.json).
struct ServedBy {
  std::string who;              ///< "kprof" (the command), "kprof mcp", "python", "kprof serve"
  std::filesystem::path socket; ///< kprof serve's socket, when it answered
};

struct RoundResult {
  int round = 0;
  /// out_dir/roundNNN, or out_dir/roundNNN.attempt-K when this attempt failed (or was
  /// interrupted) and roundNNN/ keeps its earlier good result (in_place false; docs/history.md).
  std::filesystem::path dir;
  bool in_place = true;
  bool batch = false; ///< a batch round (candidates in cand<i>/), not a single profile
  std::vector<CandidateResult> candidates;
  double wall_seconds = 0;
  Json metadata; ///< run facts (argv, ncu version, GPU, clock control, ...)
  ServedBy served_by;
  /// false for a round that kprof's interruption cut short under a profiler whose
  /// ProfileOptions::record_interrupted_rounds is off: nothing of it was written (no directory,
  /// no KernelAgent file, no history row), `dir` is empty and the candidates say how far they
  /// came. round_document() leaves it out (kprof serve sends only recorded rounds).
  bool recorded = true;
  /// `kprof model --extract` asked with the round (RoundRequest::extract) and the round's
  /// candidate ok: extracted.json's document, or why there is none (the round stands either
  /// way). nullopt when no extraction was asked or the round failed.
  std::optional<Result<Json>> extracted;
};

/// How much of its report a candidate's JSON carries.
enum class ReportDetail {
  full,    ///< "report": the report document
  summary, ///< "report": null; "summary" and "document" say what it holds and where it is
};

/// The facts of a report document: {gpu, page, total_duration_ns, launches, dominant_kernel,
/// kernels: [{name, launches, duration_ns, share, bottleneck, compute_sol_pct, memory_sol_pct,
/// hot_lines, diagnosis}]}, kernels longest first. Never fails (unknown facts are null).
Json report_summary(const Json& report);

/// Each candidate's place in the round: 1 for the shortest measured median (their eager medians
/// when the candidates were timed in different modes; kprof/truth.hpp, eager_median_us), else
/// total duration, a report without a duration after every report with one, wrong outputs
/// after right ones, nullopt for a candidate without a report. Ties keep the candidates' order.
std::vector<std::optional<int>> candidate_ranks(std::span<const CandidateResult> candidates);

/// The one shape of a candidate: {candidate, kernel_file, status, rank, gpu, attempts, dir,
/// document, standby, summary, error, report}. `document` is the file the round's writer wrote
/// for it in `dir` (report.json, else error.json); `report` the report document with
/// ReportDetail::full, else null.
Json candidate_json(const CandidateResult& candidate, std::optional<int> rank, ReportDetail detail);

/// The one shape of a round: {schema_version, kind: "round", round, dir, in_place, batch,
/// wall_seconds, served_by: {who, socket} | null, metadata, candidates: [candidate_json, in the
/// candidates' order, each with its rank]}, and with an extraction (RoundResult::extracted)
/// either `extracted` (extracted.json's document) or `extract_error` (error_json).
Json round_document(const RoundResult& round, ReportDetail detail);

/// The JSON Schemas of report_summary(), candidate_json() and round_document() (the MCP tools'
/// output schemas; a test checks every document against them).
Json report_summary_schema();
Json candidate_json_schema();
Json round_json_schema();

/// A round_document (ReportDetail::full) read back: what `kprof serve` replies. malformed_input
/// naming the key when `json` is not one.
Result<RoundResult> round_result_from_json(const Json& json);

/// The round's verdict as a command's: a single profile fails with its candidate's error (a
/// partial one too); a batch succeeds when it ran and fails only when every candidate failed
/// (with the first candidate's error). nullopt when it succeeded.
std::optional<Error> round_error(const RoundResult& round);

} // namespace kprof
