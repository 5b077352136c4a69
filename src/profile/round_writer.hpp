// kprof: the one writer of a round. `profile`, `batch`, `batch --slurm` and `report --round`
// all hand their candidates to a RoundWriter, which alone decides what a candidate's document
// is when it has no report (failure_document), what a batch round's batch.json says (the round's
// round_document, kprof/round.hpp), and how the round reaches the output directory: staged, settled
// (a failed re-run never replaces a good round), committed once, recorded in the history in one
// transaction, with the KernelAgent files (StagedRound).
#pragma once

#include <filesystem>
#include <optional>
#include <vector>

#include "kprof/error.hpp"
#include "kprof/json_file.hpp"
#include "kprof/profiler.hpp"
#include "kprof/round_layout.hpp"
#include "profile/staged_round.hpp"

namespace kprof {

/// error.json of a candidate without a report: `metadata` (the candidate's metadata block, as
/// far as it is known) with status "failed", the error, and kprof's version and the time unless
/// it already names them; the error again at the top.
[[nodiscard]] Json failure_document(Json metadata, const Error& error);

/// Makes `out_dir` and checks that kprof may run code from under it (`profile`, `batch`,
/// `batch --slurm` and `serve` run ncu, the harness and job scripts from directories there): no
/// other user may be able to swap what is made in it (safe_directory_chain), else they could run
/// their code as this user or have ncu write through their links. io error saying which directory
/// fails and what `--out` must be; nothing is written under an `--out` that fails.
Result<void> prepare_run_directory(const std::filesystem::path& out_dir);

class RoundWriter {
public:
  /// Starts round `round` of `layout` in its staging directory (StagedRound::begin).
  static Result<RoundWriter> begin(RoundLayout layout, int round, bool batch);

  /// Where the sessions work: the staging directory, its harness and session directories.
  [[nodiscard]] const StagedRound& staging() const { return m_staged; }

  /// Decides where the round goes (StagedRound::settle): `good` when it has a result worth
  /// replacing an earlier one with; `kernel` the kernel file of a plain round. Returns the
  /// destination; the progress lines it earns (a result moved aside, an attempt kept) are in
  /// notes().
  std::filesystem::path settle(bool good, const std::filesystem::path& kernel = {});
  /// What settle() did, for the progress output: empty when it replaced the round in place.
  [[nodiscard]] const std::vector<std::string>& notes() const { return m_notes; }
  /// Set by settle() when the round keeps its earlier result: what each failed candidate's error
  /// adds to say so.
  [[nodiscard]] const std::string& kept_note() const { return m_kept_note; }

  /// Writes candidate's document into the staging directory and keeps it for commit(): its
  /// report.json and metrics.csv when it has a report (`report`, or `streamed_report` read
  /// launch by launch); otherwise its error.json, from `metadata` (failure_document). A
  /// candidate without a report is failed: one that claims otherwise, or has no error, is
  /// failed with an internal error saying so. When settle() kept an attempt, the candidate's
  /// error (and its held report's) says so (kept_note()). io error when the file cannot be
  /// written.
  Result<void> add(CandidateResult candidate, const Json& metadata = Json::object());

  /// Writes batch.json (batch rounds: the round's round_document, each report summarised) and
  /// commits the round (StagedRound::commit): the candidates added, `run_metadata` and
  /// `wall_seconds` make the RoundResult.
  Result<RoundResult> commit(Json run_metadata, double wall_seconds,
                             const CommitSettings& settings);

private:
  explicit RoundWriter(StagedRound staged) : m_staged(std::move(staged)) {}

  StagedRound m_staged;
  std::vector<CandidateResult> m_candidates;
  std::vector<std::string> m_notes;
  std::string m_kept_note;
};

} // namespace kprof
