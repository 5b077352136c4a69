// kprof: a round assembled in a staging directory and moved into place by one commit().
//
// Design note. Everything a round writes goes first to out_dir/.roundNNN.staging-<pid>-<hex>
// (RoundLayout): the harness, the sessions' files, each candidate's report.json or error.json,
// batch.json. commit() then moves the staging directory into place and, only after that, writes
// the KernelAgent files (and their copies in logs_dir) and the history rows, so nothing outside
// the staging directory changes before the round is whole. A StagedRound that is never committed
// removes its staging directory.
#pragma once

#include <filesystem>
#include <optional>
#include <vector>

#include "kprof/error.hpp"
#include "kprof/history.hpp"
#include "kprof/json_file.hpp"
#include "kprof/profiler.hpp"
#include "kprof/report.hpp"
#include "kprof/round_layout.hpp"

namespace kprof {

/// What commit() does besides the rename.
struct CommitSettings {
  bool record_history = true;                    ///< rows in out_dir/kprof.db
  std::optional<std::filesystem::path> logs_dir; ///< also copy the KernelAgent files here
  /// With logs_dir: the KernelAgent files only in logs_dir, none in out_dir.
  bool kernelagent_logs_only = false;
};

class StagedRound {
public:
  /// Creates the staging directory of `round` (and out_dir), after removing the staging
  /// directories of dead kprof processes (RoundLayout::staging_owner no longer alive). io error
  /// when it cannot.
  static Result<StagedRound> begin(RoundLayout layout, int round, bool batch);

  StagedRound(StagedRound&& other) noexcept;
  StagedRound& operator=(StagedRound&& other) = delete;
  StagedRound(const StagedRound&) = delete;
  StagedRound& operator=(const StagedRound&) = delete;
  ~StagedRound();

  [[nodiscard]] const std::filesystem::path& dir() const { return m_staging; }
  [[nodiscard]] int round() const { return m_round; }
  [[nodiscard]] bool batch() const { return m_batch; }
  [[nodiscard]] const RoundLayout& layout() const { return m_layout; }
  /// staging/harness.py
  [[nodiscard]] std::filesystem::path script() const;
  /// Where session `part` on `gpu` works, inside the staging directory.
  [[nodiscard]] std::filesystem::path session_dir(int gpu, int part) const;
  /// Candidate `index`'s directory inside the staging directory.
  [[nodiscard]] std::filesystem::path staged_candidate_dir(int index) const;
  /// Candidate `index`'s directory at the round's destination.
  [[nodiscard]] std::filesystem::path final_candidate_dir(int index) const;

  /// report.json (written as it is read, in pieces) and metrics.csv of candidate `index`.
  Result<void> write_report(int index, const ReportSource& report) const;
  /// error.json of candidate `index`.
  Result<void> write_error(int index, const Json& failure) const;
  /// batch.json (batch rounds).
  Result<void> write_batch(const Json& batch) const;

  /// Decides where the round goes, before its files name their final paths: into roundNNN/
  /// (replacing an earlier run of it) unless that would lose a good result, i.e. roundNNN/ holds
  /// a report.json and this attempt is not `good` (interrupted, or no candidate ok or partial);
  /// then into roundNNN.attempt-K/ beside it (docs/history.md). A plain round whose `kernel`
  /// differs from the kernel file of the result in roundNNN/ is another entry of the round, not
  /// a re-run: in place, it moves that result aside to roundNNN.kernel-K/ instead of replacing
  /// it; kept, it goes to roundNNN.kernel-K/ itself. Returns the destination.
  std::filesystem::path settle(bool good, const std::filesystem::path& kernel = {});
  /// False once settle() chose a kept attempt directory.
  [[nodiscard]] bool in_place() const { return m_in_place; }
  /// Where commit() moves the round (settle() decides it).
  [[nodiscard]] const std::filesystem::path& destination() const { return m_destination; }
  /// Where commit() moves the result it does not replace (roundNNN.kernel-K/), else empty.
  [[nodiscard]] const std::filesystem::path& displaced() const { return m_displaced; }

  /// Moves the round to its destination (settle(); in place when settle() was not called),
  /// moving a displaced() result aside first. In place, it then writes the KernelAgent file of
  /// every candidate with a report (out_dir and logs_dir, or logs_dir only with
  /// kernelagent_logs_only); a kept attempt leaves them alone, so they keep matching the good
  /// round. Records `candidates` in the history in one transaction (a kept attempt with
  /// RoundEntry::kept_at, a displacing one with RoundEntry::displaced_to),
  /// after the rounds of out_dir that an earlier writer committed but did not record
  /// (record_pending_rounds); until its rows are in, the round holds the note of them
  /// (RoundLayout::k_history_pending), so that a kprof killed in between leaves them to the
  /// next writer. Sets each candidate's `dir`. Returns the destination. io or database error;
  /// after a failed rename the staging directory is removed and nothing else has changed.
  Result<std::filesystem::path> commit(std::vector<CandidateResult>& candidates,
                                       const CommitSettings& settings);

private:
  StagedRound(RoundLayout layout, int round, bool batch, std::filesystem::path staging)
      : m_layout(std::move(layout)), m_round(round), m_batch(batch), m_staging(std::move(staging)),
        m_destination(m_layout.round_dir(round)) {}
  [[nodiscard]] std::optional<int> candidate_key(int index) const;
  /// The history entries of `candidates`, all stamped with the time of this call.
  [[nodiscard]] std::vector<RoundEntry>
  history_entries(const std::vector<CandidateResult>& candidates,
                  const std::filesystem::path& final_dir) const;

  RoundLayout m_layout;
  int m_round = 0;
  bool m_batch = false;
  std::filesystem::path m_staging;     ///< empty once committed or moved from
  std::filesystem::path m_destination; ///< roundNNN/, roundNNN.attempt-K/ or roundNNN.kernel-K/
  std::filesystem::path m_displaced;   ///< see displaced()
  bool m_in_place = true;
};

} // namespace kprof
