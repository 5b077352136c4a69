// kprof: where every file of a run directory lives.
//
// A run directory (ProfileOptions::out_dir) holds, per round N:
//   roundNNN/                      the round's result: harness.py, plan.json, status.json, ncu.log,
//                                  report.ncu-rep, metrics.csv, report.json or error.json (with
//                                  --source also source.csv and rows.csv: ncu.log then holds the
//                                  source page and rows.csv the rows); a batch
//                                  round has cand<K>/ (report.json | error.json, metrics.csv),
//                                  gpu<G>-part<P>/ (one ncu session each) and batch.json
//   roundNNN.attempt-K/            a failed or interrupted re-run of round N, kept beside the good
//                                  round it did not replace (docs/history.md)
//   roundNNN.kernel-K/             a plain round N of another kernel file than roundNNN/'s: the
//                                  earlier one, moved aside by a good result of a later one, or a
//                                  later one that failed beside a good roundNNN/ (docs/history.md)
//   .roundNNN.staging-<pid>-<hex>  a round being assembled; renamed into place at the end
//   roundNNN_ncu_metrics.json      KernelAgent's file of a plain round,
//   roundNNN_cand<K>_ncu_metrics.json  and of candidate K of a batch round
//   kprof.db                       the history (SQLite)
//   .cache/                        ncu --query-metrics listings
// RoundLayout is the one place that spells these names; the profiler, `report --round`, the
// history and Python ask it instead of formatting names themselves.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <sys/types.h>

namespace kprof {

class RoundLayout {
public:
  /// The files inside a round (or attempt, or staging) directory, or inside a candidate's or
  /// session's directory of one.
  static constexpr std::string_view k_harness_script = "harness.py";
  static constexpr std::string_view k_plan = "plan.json";
  static constexpr std::string_view k_status = "status.json";
  static constexpr std::string_view k_ncu_log = "ncu.log";
  /// Many launches: the call's timeline (the harness's `--timeline` mode, outside ncu) and the
  /// file that lets the session's harness go on to its profiled call (HarnessPlan::timeline_gate).
  static constexpr std::string_view k_timeline = "timeline.json";
  static constexpr std::string_view k_timeline_gate = "timeline-gate";
  /// The truth's own process (`--truth`, outside ncu): its plan, its status (the harness's
  /// format, with each measured candidate's check, timing and reference) and the gate that
  /// names the candidates it measures once the session ended.
  static constexpr std::string_view k_truth_plan = "truth-plan.json";
  static constexpr std::string_view k_truth_status = "truth-status.json";
  static constexpr std::string_view k_truth_gate = "truth-gate";
  /// `kprof model --extract`: what the harness's extract mode is asked for (ExtractRequest).
  static constexpr std::string_view k_extract_spec = "extract-spec.json";
  static constexpr std::string_view k_ncu_report_base = "report"; ///< ncu -o adds ".ncu-rep"
  /// The source page of the session's report (`--source`): per-line counters.
  static constexpr std::string_view k_source_page = "source.csv";
  /// The rows of a session whose log holds its source page (`--source`): the raw or details
  /// page imported from its report, kept so that its reports can be analysed again without ncu.
  static constexpr std::string_view k_rows_page = "rows.csv";
  static constexpr std::string_view k_ncu_report = "report.ncu-rep";
  /// An empty folder given to ncu as --section-folder by a session that collects only metrics
  /// (NcuCommand::empty_section_folder).
  static constexpr std::string_view k_empty_section_folder = "no-sections";
  /// Where a session's harness and its compile workers meet (HarnessPlan::compile_ahead_dir).
  static constexpr std::string_view k_compile_ahead = "compile-ahead";
  static constexpr std::string_view k_metrics_csv = "metrics.csv";
  static constexpr std::string_view k_report = "report.json";
  static constexpr std::string_view k_error = "error.json";
  static constexpr std::string_view k_batch = "batch.json";
  static constexpr std::string_view k_history_db = "kprof.db";
  /// In a round (or attempt) directory: its history entries while their rows are not written
  /// yet (docs/history.md, "A round without its row").
  static constexpr std::string_view k_history_pending = ".history-pending.json";

  /// `out_dir` is used as given (make it absolute first when children run elsewhere).
  explicit RoundLayout(std::filesystem::path out_dir) : m_out_dir(std::move(out_dir)) {}

  [[nodiscard]] const std::filesystem::path& out_dir() const { return m_out_dir; }

  /// "round007" for 7.
  static std::string round_name(int round);
  /// out_dir/round007
  [[nodiscard]] std::filesystem::path round_dir(int round) const;

  /// ".round007.staging-" : every staging directory of round 7 starts with it.
  static std::string staging_prefix(int round);
  /// out_dir/.round007.staging-<tag>; `tag` is "<pid>-<hex>" (see staging_tag()).
  [[nodiscard]] std::filesystem::path staging_dir(int round, std::string_view tag) const;
  /// "<pid>-<8 random hex digits>" for this process.
  static std::string staging_tag();
  /// The pid in a staging directory's name (".round007.staging-1234-0badcafe" -> 1234), or in
  /// the name of a replaced round on its way out (".round007.old-1234-0badcafe"); nullopt when
  /// `name` is neither.
  static std::optional<pid_t> staging_owner(std::string_view name);

  /// A directory name of out_dir as a round: "round007" is {7, 0} (in place), "round007.attempt-2"
  /// is {7, 2}; nullopt for any other name (staging directories included).
  struct RoundDirName {
    int round = 0;
    int attempt = 0; ///< 0: roundNNN itself, K: roundNNN.attempt-K
  };
  static std::optional<RoundDirName> parse_round_dir_name(std::string_view name);

  /// out_dir/round007.attempt-2: the kept failed attempt number `attempt` (>= 1) of round 7.
  [[nodiscard]] std::filesystem::path attempt_dir(int round, int attempt) const;
  /// 1 + the highest attempt number kept for `round` (1 when none).
  [[nodiscard]] int next_attempt(int round) const;

  /// out_dir/round007.kernel-2: the `number`-th (>= 1) kernel file profiled as round 7 that is
  /// not the one in round007/.
  [[nodiscard]] std::filesystem::path kernel_dir(int round, int number) const;
  /// 1 + the highest kernel_dir() number of `round` (1 when none).
  [[nodiscard]] int next_kernel(int round) const;

  /// "round007_ncu_metrics.json" (plain round) or "round007_cand2_ncu_metrics.json".
  static std::string kernelagent_file_name(int round, std::optional<int> candidate);
  /// out_dir/<kernelagent_file_name()>
  [[nodiscard]] std::filesystem::path kernelagent_file(int round,
                                                       std::optional<int> candidate) const;

  /// out_dir/kprof.db
  [[nodiscard]] std::filesystem::path history_db() const;
  /// out_dir/.cache (the metric listings of ncu --query-metrics)
  [[nodiscard]] std::filesystem::path cache_dir() const;
  /// out_dir/.standby: one directory per waiting standby harness, "<kprof pid>-gpu<N>-<k>"
  /// (removed when used or stopped; those of a dead kprof are removed by the next one).
  [[nodiscard]] std::filesystem::path standby_dir() const;

  /// Where candidate `candidate` of a round keeps its report: `round_dir` itself for a plain
  /// round (nullopt), round_dir/cand<K> for candidate K of a batch round.
  static std::filesystem::path candidate_dir(const std::filesystem::path& round_dir,
                                             std::optional<int> candidate);
  /// Where one ncu session of a round works: `round_dir` itself for a plain round, else
  /// round_dir/gpu<G>-part<P>.
  static std::filesystem::path session_dir(const std::filesystem::path& round_dir, bool batch,
                                           int gpu, int part);

private:
  /// 1 + the highest K of the out_dir entries named <round_name(round)><marker>K.
  [[nodiscard]] int next_number(int round, std::string_view marker) const;

  std::filesystem::path m_out_dir;
};

} // namespace kprof
