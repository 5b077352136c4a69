#include "profile/round_writer.hpp"

#include <fmt/format.h>

#include "kprof/files.hpp"
#include "kprof/report.hpp"
#include "kprof/report_view.hpp"
#include "kprof/version.hpp"

namespace kprof {
namespace fs = std::filesystem;

Json failure_document(Json metadata, const Error& error) {
  if (!metadata.is_object()) {
    metadata = Json::object();
  }
  metadata["status"] = CandidateStatus::failed;
  metadata["error"] = to_json(error);
  if (!metadata.contains("kprof_version")) {
    metadata["kprof_version"] = std::string(k_version);
  }
  if (!metadata.contains("generated_at")) {
    metadata["generated_at"] = utc_timestamp();
  }
  Json failure = Json::object();
  failure["schema_version"] = k_report_schema_version;
  failure["metadata"] = std::move(metadata);
  failure["error"] = to_json(error);
  return failure;
}

Result<void> prepare_run_directory(const fs::path& out_dir) {
  if (auto created = kprof::create_directories(out_dir); !created) {
    return created.error();
  }
  if (auto safe = safe_directory_chain(out_dir); !safe) {
    return make_error(ErrorCategory::io,
                      fmt::format("--out {}: {}; kprof runs ncu and its harness there, so it must "
                                  "be a directory only you (or root) can write, under directories "
                                  "no other user can write unless they are sticky like /tmp",
                                  out_dir.string(), safe.error().message));
  }
  return {};
}

Result<RoundWriter> RoundWriter::begin(RoundLayout layout, int round, bool batch) {
  auto staged = StagedRound::begin(std::move(layout), round, batch);
  if (!staged) {
    return std::move(staged).error();
  }
  return RoundWriter(std::move(staged).value());
}

fs::path RoundWriter::settle(bool good, const fs::path& kernel) {
  const fs::path round_dir = m_staged.layout().round_dir(m_staged.round());
  fs::path destination = m_staged.settle(good, m_staged.batch() ? fs::path() : kernel);
  m_notes.clear();
  m_kept_note.clear();
  if (!m_staged.displaced().empty()) {
    m_notes.push_back(fmt::format("{} held another kernel file's result: moved to {}",
                                  round_dir.filename().string(), m_staged.displaced().string()));
  }
  if (!m_staged.in_place()) {
    m_kept_note = fmt::format("{} keeps its earlier result; this attempt is kept in {}",
                              round_dir.filename().string(), destination.string());
    m_notes.push_back(m_kept_note);
  }
  return destination;
}

Result<void> RoundWriter::add(CandidateResult candidate, const Json& metadata) {
  const bool has_report = candidate.report || candidate.streamed_report;
  if (!has_report && (candidate.status != CandidateStatus::failed || !candidate.error)) {
    candidate.error =
        make_error(ErrorCategory::internal,
                   fmt::format("{} has no report although it ended {}", candidate.kernel.string(),
                               to_string(candidate.status)),
                   candidate.error ? candidate.error->message : std::string());
    candidate.status = CandidateStatus::failed;
  }
  if (candidate.error && !m_kept_note.empty()) {
    candidate.error->message += fmt::format(" ({})", m_kept_note);
    if (candidate.report && candidate.report->contains("metadata")) {
      (*candidate.report)["metadata"]["error"] = to_json(candidate.error);
    }
  }
  if (candidate.report) {
    if (auto w = m_staged.write_report(candidate.index, HeldReport(*candidate.report)); !w) {
      return w;
    }
  } else if (candidate.streamed_report) {
    if (auto w = m_staged.write_report(candidate.index, *candidate.streamed_report); !w) {
      return w;
    }
    // What reads the report's text from now on (the history's document, a caller's stdout)
    // reads the report.json just written instead of making each launch again.
    auto written =
        open_written_report(std::move(candidate.streamed_report),
                            m_staged.staged_candidate_dir(candidate.index) / RoundLayout::k_report);
    if (!written) {
      return written.error();
    }
    candidate.streamed_report = *std::move(written);
  } else if (auto w = m_staged.write_error(candidate.index,
                                           failure_document(metadata, *candidate.error));
             !w) {
    return w;
  }
  m_candidates.push_back(std::move(candidate));
  return {};
}

Result<RoundResult> RoundWriter::commit(Json run_metadata, double wall_seconds,
                                        const CommitSettings& settings) {
  RoundResult result;
  result.round = m_staged.round();
  result.dir = m_staged.destination();
  result.in_place = m_staged.in_place();
  result.batch = m_staged.batch();
  result.wall_seconds = wall_seconds;
  result.metadata = std::move(run_metadata);
  result.candidates = std::move(m_candidates);
  m_candidates.clear();
  for (CandidateResult& candidate : result.candidates) {
    candidate.dir = m_staged.final_candidate_dir(candidate.index); // where commit() puts it
  }
  if (result.batch) {
    // The round's own record of its candidates: the one shape, each report in its cand<i>/.
    if (auto w = m_staged.write_batch(round_document(result, ReportDetail::summary)); !w) {
      return w.error();
    }
  }
  auto committed = m_staged.commit(result.candidates, settings);
  if (!committed) {
    return std::move(committed).error();
  }
  result.dir = *committed;
  return result;
}

namespace {

/// record_report_round of `candidate`, whose report is set.
Result<RoundResult> record_report_candidate(const fs::path& out_dir, int round,
                                            CandidateResult candidate, const fs::path& file,
                                            bool record_history) {
  auto writer = RoundWriter::begin(RoundLayout(out_dir), round, false);
  if (!writer) {
    return std::move(writer).error();
  }
  candidate.kernel = file;
  candidate.status = CandidateStatus::ok;
  candidate.attempts = 1;
  writer->settle(true, file);
  if (auto added = writer->add(std::move(candidate)); !added) {
    return added.error();
  }
  Json metadata = Json::object();
  metadata["round"] = round;
  CommitSettings settings;
  settings.record_history = record_history;
  return writer->commit(std::move(metadata), 0, settings);
}

} // namespace

Result<RoundResult> record_report_round(const fs::path& out_dir, int round,
                                        std::shared_ptr<const ReportSource> report,
                                        const fs::path& file, bool record_history) {
  KPROF_ASSERT(report != nullptr);
  CandidateResult candidate;
  candidate.streamed_report = std::move(report);
  return record_report_candidate(out_dir, round, std::move(candidate), file, record_history);
}

Result<RoundResult> record_report_round(const fs::path& out_dir, int round, Json report,
                                        const fs::path& file, bool record_history) {
  CandidateResult candidate;
  candidate.report = std::move(report);
  return record_report_candidate(out_dir, round, std::move(candidate), file, record_history);
}

} // namespace kprof
