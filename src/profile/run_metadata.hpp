// kprof: the facts of a run written into every report, error file and batch summary, typed.
//
// RunMetadata is the round's part (the same for every candidate), SessionFacts what one ncu
// session adds, CandidateMetadata one candidate's "metadata" block. to_json() is the one place
// that names their JSON keys and fixes their order (docs/json-schema.md).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "kprof/error.hpp"
#include "kprof/harness.hpp"
#include "kprof/json_file.hpp"
#include "kprof/report_file.hpp"
#include "kprof/status.hpp"
#include "kprof/truth.hpp"

namespace kprof {

struct RunMetadata {
  int round = 0;
  std::string problem_file;
  std::string ncu;
  std::string ncu_version;
  std::string clock_control;
  std::string metric_check;
  std::string select;
  std::string python;
  int warmup = 0;
  std::string inputs;
  std::string cast;
  std::vector<int> gpus;
  std::optional<double> wall_seconds; ///< set once the round is done

  /// The round's block (RoundResult::metadata, batch.json's "metadata").
  [[nodiscard]] Json to_json() const;
};

/// What one ncu session adds to the metadata of the candidates it decided.
struct SessionFacts {
  std::vector<std::string> ncu_argv;
  double gpu_lock_wait_seconds = 0;
  std::string ncu_exit; ///< ProcessResult::describe(), or "not started"
  double session_wall_seconds = 0;
  std::string session_dir;  ///< relative to the round directory ("." for a plain round)
  std::string rows_file;    ///< SessionOutcome::rows_file: the file of session_dir with the rows
  bool has_harness = false; ///< the harness wrote its status: the fields below are set
  double harness_setup_seconds = 0;
  double harness_inputs_seconds = 0;
  std::string primer;        ///< the standby's primer: "ran", "failed: ...", empty when none ran
  double primer_seconds = 0; ///< spent before the hand-over, so not in the answer's time
  std::string triton_primer; ///< HarnessStatus::triton_primer
  double triton_primer_seconds = 0;
  double compile_target_seconds = 0; ///< HarnessStatus::compile_target_seconds
  double triton_key_seconds = 0;     ///< HarnessStatus::triton_key_seconds
  /// Exporting and reading the source page after the session (source counters on), 0 otherwise.
  double source_export_seconds = 0;
  std::string python_version;
  std::string torch_version;
  std::string triton_version;
  std::string gpu_name;
  std::optional<double> import_seconds; ///< the candidate's own, when the harness reported it
  std::optional<double> warmup_seconds;
  std::optional<double> call_seconds;
  /// The host-wide profiled-call lock, when the harness reported one: "held" or "not held: ...",
  /// and how long the candidate waited for it.
  std::string call_lock;
  double call_lock_wait_seconds = 0;
  /// The session ran on a standby (session_wall_seconds then counts from the hand-over).
  bool standby = false;
  std::string standby_unavailable; ///< SessionOutcome::standby_unavailable
  /// Many launches: what the call's timeline holds and what ncu's replays did, or why there is
  /// no timeline (timeline_note); empty for a session without one.
  std::string timeline;
  /// The candidate's own cast, when the harness reported it: what it applied (the run's "cast"
  /// stays the word asked for, e.g. "auto") and why.
  std::optional<CastDtype> cast_applied;
  std::string cast_reason;
  std::string compiled_ahead;      ///< HarnessCandidateStatus::compiled_ahead
  double compile_wait_seconds = 0; ///< HarnessCandidateStatus::compile_wait_seconds
  double compile_seconds = 0;      ///< HarnessCandidateStatus::compile_seconds
  /// What the harness measured beside the counters (check, timing, reference), when it did.
  std::optional<TruthEvidence> truth;
};

/// One candidate's "metadata" block of report.json / error.json.
struct CandidateMetadata {
  RunMetadata run;
  std::optional<int> candidate; ///< null for a plain round
  std::string kernel_file;
  /// When the candidate's result was put together, with microseconds (utc_timestamp_micros());
  /// KernelAgent's timestamp. Left out of the JSON when empty.
  std::string profiled_at;
  CandidateStatus status = CandidateStatus::failed;
  int attempts = 0;
  int gpu_index = 0;
  std::optional<SessionFacts> session; ///< absent when no session decided the candidate
  std::string source;                  ///< the ncu.log its rows came from
  std::optional<Error> error;
  std::optional<double> replay_passes; ///< set with select, when a report was built
  std::string select;
  /// Hot lines asked for (--source): {"source_page": path | null, "error": {...} | null}.
  std::optional<Json> hot_lines;
  /// What the report was built from, its paths relative to the report's directory (set with
  /// select, when a report was built).
  std::optional<ReportInputs> built_from;

  [[nodiscard]] Json to_json() const;
};

} // namespace kprof
