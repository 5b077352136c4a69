// kprof: the history of profiling rounds (SQLite), the diff of two reports, and convergence.
//
// Every round (and every candidate of a batch round) is one row of an SQLite database, usually
// out_dir/kprof.db, written in one transaction together with its kernels, metric values,
// roofline verdicts and the full report document. Several kprof processes may record into the
// same database at once (WAL, busy timeout, bounded retries). docs/history.md has the schema,
// the migration policy and the rules of diff and convergence.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kprof/error.hpp"
#include "kprof/files.hpp"
#include "kprof/report.hpp"
#include "kprof/status.hpp"

struct sqlite3;

namespace kprof {

/// The newest history database layout this kprof writes (SQLite `PRAGMA user_version`): 2
/// numbered the attempts of a round, 3 keeps each report document in a table of its own
/// (`documents`, written in pieces; docs/history.md), 4 the truth beside the counters of each
/// row (measured median, speed-up, share of the speed of light, the check's verdict), 7 the
/// median's timing mode and eager median (rows of different modes are ranked on the latter).
inline constexpr int k_history_schema_version = 7;
/// The launches of each kernel (by name) whose metric values a round's `metrics` rows hold: the
/// first ones. The round's document holds every launch; a capture of 20,000 launches inserted
/// 540,000 rows, a fifth of `kprof report BIG.csv --round 1`'s time (docs/performance.md).
inline constexpr int k_metric_rows_launches = 64;

/// The time a history ranks its rows on (best_so_far, best, converged(); docs/history.md,
/// "Which time"): `measured`, the candidates' measured medians, when any ok row of the history
/// has one (rows without one then do not compete), else `ncu`, ncu's total duration;
/// `measured_eager`, the eager medians (eager_median_us), when the measured rows were timed in
/// different modes (a CUDA graph's median leaves out the host's launches an eager one counts).
enum class RankedTime { measured, measured_eager, ncu };
std::string_view to_string(RankedTime basis); ///< "measured", "measured_eager", "ncu"

struct HistoryRow;
/// `measured` when any ok row of `rows` has a measured median (`measured_eager` when those
/// rows name more than one timing mode), else `ncu`.
RankedTime ranked_time(const std::vector<HistoryRow>& rows);
/// The row's time in ns on `basis`; nullopt when it has none.
std::optional<double> ranked_ns(const HistoryRow& row, RankedTime basis);

/// A round and, optionally, one candidate of it: "3" or "3:1" on the command line.
struct RoundRef {
  int round = 0;
  std::optional<int> candidate; ///< nullopt: the only row of the round, or its best candidate

  friend bool operator==(const RoundRef&, const RoundRef&) = default;
};

/// Parses "3" (round 3) or "3:1" (round 3, candidate 1). Both numbers are decimal and >= 0;
/// anything else (empty, signs, spaces, "3:", "a") is a usage error naming the argument.
Result<RoundRef> parse_round_ref(std::string_view text);

/// "round 3" or "round 3 candidate 1": how reports, diffs and tables name a round.
std::string to_string(const RoundRef& ref);

/// What one profiling round (or one candidate of a batch round) left behind.
struct RoundEntry {
  int round = 0;                ///< >= 0
  std::optional<int> candidate; ///< >= 0; nullopt for a plain (non-batch) round
  std::string label;            ///< the kernel file; "" takes metadata.kernel_file
  CandidateStatus status = CandidateStatus::ok;
  std::optional<Error> error;   ///< why the round failed (or partly failed)
  std::optional<Json> document; ///< the report document (ok and partial rounds)
  std::string created_at;       ///< ISO 8601 UTC; "" means now
  /// "" : this result is the one in roundNNN/ (it replaces the earlier in-place row of the same
  /// round and candidate). Otherwise the directory of a failed attempt kept beside a good round
  /// ("round001.attempt-2"): the row is added and nothing is replaced.
  std::string kept_at;
  /// With kept_at empty: the result this one replaced in roundNNN/ was of another kernel file and
  /// was moved to this directory ("round001.kernel-1") instead of being removed, so its row stays,
  /// with kept_at set to it (docs/history.md). "" : the replaced row goes.
  std::string displaced_to;
  /// Instead of `document`: a report read launch by launch, never held as a tree (`kprof report
  /// FILE --round N`); its row is the one `document` would give.
  std::shared_ptr<const ReportSource> report_source;
};

/// One recorded round as `kprof history` shows it. Durations are nanoseconds; SOL values are the
/// dominant kernel's roofline (percent of peak).
struct HistoryRow {
  std::int64_t id = 0; ///< the runs.id of the row
  int round = 0;
  std::optional<int> candidate;
  std::string label;
  CandidateStatus status = CandidateStatus::ok;
  std::string created_at;
  std::optional<double> total_duration_ns;
  std::string dominant_kernel; ///< "" when unknown
  std::string bottleneck;      ///< "memory", "compute", "latency" or ""
  std::optional<double> compute_sol_pct;
  std::optional<double> memory_sol_pct;
  std::optional<double> max_sol_pct; ///< max(compute, memory) of the dominant kernel
  /// The truth beside the counters (the report's `truth`, docs/json-schema.md): the candidate's
  /// measured median (truth.timing.median_us), its speed-up over the PyTorch reference
  /// (truth.reference.speedup), its share of the problem's speed of light
  /// (truth.speed_of_light.share: the ideal time over the measured one) and the check's verdict
  /// ("pass", "fail"; "" when not checked). nullopt when not measured.
  std::optional<double> measured_median_us;
  /// The median's timing mode (truth.timing.mode: "eager", "graph"; "" in rows recorded before
  /// schema 7) and its eager median (eager_median_us of kprof/truth.hpp).
  std::string measured_mode;
  std::optional<double> measured_eager_us;
  std::optional<double> speedup;
  std::optional<double> speed_of_light_share;
  std::string check;
  std::optional<Error> error; ///< category and message of a failed round
  /// This row set a new record: the lowest time (ranked_time: the measured median, else ncu's
  /// total duration) among ok rows of its round and every earlier round, strictly lower than
  /// any earlier round's. Computed by rows().
  bool best_so_far = false;
  /// This row is the best ok row of the whole history (the last row with best_so_far).
  bool best = false;
  /// 1, 2, ...: the how-many-th recorded attempt of this round and candidate (1 in a version 1
  /// database).
  int attempt = 1;
  std::string kept_at; ///< see RoundEntry::kept_at; "" for the row whose files are roundNNN/
  /// The most recent attempt of its round and candidate (a failed re-run kept beside a good round
  /// is latest; the good row is not).
  bool latest = true;
  /// False for a round that was committed to its directory but whose row is not in kprof.db
  /// yet (its writer was killed in between; history_rows()). Such a row has id 0 and attempt 0
  /// (not numbered yet), and is never best; the next writer records it.
  bool recorded = true;

  [[nodiscard]] RoundRef ref() const { return RoundRef{round, candidate}; }
};

/// Owns one open history database (RAII; move-only). Not for sharing between threads; each
/// process (or thread) opens its own store. A store must not be carried across fork().
class HistoryStore {
public:
  /// Opens or creates the database at `path` (and its parent directories): WAL journal, 10 s
  /// busy timeout, foreign keys on, pending migrations applied in one transaction. Fails with
  /// io (the directory cannot be created) or database (cannot open, not an SQLite file, busy,
  /// or "written by a newer kprof" when its schema version is above k_history_schema_version).
  /// An existing file of 0 bytes is refused (database: "... is empty (0 bytes): not a kprof
  /// history"), so that no schema is written into a file that something else truncated.
  static Result<HistoryStore> open(const std::filesystem::path& path);

  /// Opens an existing history for reading only (`kprof history`, `kprof diff`): never creates,
  /// migrates or writes anything, so a history in a read-only directory, a 0444 file or one of
  /// an older schema version can be read. SQLite opens it with mode=ro while its WAL or rollback
  /// journal holds something (a writer may be at work, or was killed: its committed rounds are
  /// seen, also through a -wal and -shm the reader cannot write), and with immutable=1 when
  /// there is none, so that no -wal/-shm file is left beside it. When mode=ro cannot use a live
  /// journal (a -wal without its -shm in a directory where none can be made), it reads a
  /// private copy of the file and its journal (in $TMPDIR, removed with the store) rather than
  /// the file alone, which would miss the rounds in the journal. Fails with
  /// input_not_found (no such file), io (a directory or not a regular file), or database (an
  /// empty file: "... is empty (0 bytes): not a kprof history"; not an SQLite database; no
  /// kprof schema; "written by a newer kprof"). Writing through the store fails (database).
  static Result<HistoryStore> open_read_only(const std::filesystem::path& path);

  /// The database a reader names: `dir_or_file` itself when it is a file, else
  /// dir_or_file/kprof.db (RoundLayout::history_db). input_not_found "no history in X (expected
  /// X/kprof.db)" when that file does not exist. The one place `kprof diff DIR A B` and Python's
  /// kprof.History find a run's history.
  static Result<std::filesystem::path> database_of(const std::filesystem::path& dir_or_file);

  HistoryStore(HistoryStore&& other) noexcept;
  HistoryStore& operator=(HistoryStore&& other) noexcept;
  HistoryStore(const HistoryStore&) = delete;
  HistoryStore& operator=(const HistoryStore&) = delete;
  ~HistoryStore();

  /// Records one round in one transaction (BEGIN IMMEDIATE, retried a bounded number of times
  /// when the database is busy or locked): the run row, its kernels, metric values (number or
  /// text), roofline verdicts, error and the document text. An entry in place (kept_at empty)
  /// replaces the in-place row with the same round and candidate; a kept attempt is added beside
  /// it. Either gets the next attempt number. Returns the new run id. Fails with usage (negative
  /// round or candidate, neither document nor error), malformed_input (the document
  /// is not a valid report, see validate_report) or database (busy after every retry, disk full).
  Result<std::int64_t> record_round(const RoundEntry& entry);

  /// Records every entry in ONE write transaction, each exactly as record_round() would, in
  /// order (a later entry in place replaces an earlier one of the same round and candidate, as
  /// two calls would). Every entry is validated before the transaction starts, so one entry that
  /// record_round() would refuse records nothing at all; so does a database failure. Returns
  /// the run ids in the order of `entries` (empty for no entries: nothing is written). Fails
  /// with usage, malformed_input or database as record_round() does, the message naming the
  /// entry at fault. record_round(entry) is record_rounds() of that one entry. Use it to import
  /// many finished results (a shard of a batch) at the cost of one commit.
  Result<std::vector<std::int64_t>> record_rounds(std::span<const RoundEntry> entries);

  /// Records, in ONE write transaction, each entry that the history does not hold yet (holds()),
  /// exactly as record_rounds() would, and skips the others; so recording the same committed
  /// round twice (its writer, then the next one that found it unrecorded) leaves one row.
  /// Returns the ids of the rows it added. Fails as record_rounds() does.
  Result<std::vector<std::int64_t>> record_missing_rounds(std::span<const RoundEntry> entries);

  /// True when a row of the history is `entry` as recorded: the same round, candidate, kept_at,
  /// created_at, status and label. False for an entry without created_at (it would be stamped
  /// "now" when recorded). Fails with usage or malformed_input as record_round() would refuse
  /// the entry, or database.
  [[nodiscard]] Result<bool> holds(const RoundEntry& entry) const;

  /// Every row, ordered by round, candidate (a plain round first) and attempt, with best_so_far,
  /// best and latest computed (kept failed attempts never count as best). Reads version 1
  /// databases too. database error on failure.
  [[nodiscard]] Result<std::vector<HistoryRow>> rows() const;

  /// The concrete row `ref` names: itself when it names a candidate (or a plain round);
  /// otherwise the only row of the round, or else its ok row with the lowest total duration.
  /// input_not_found when the round (or candidate) is not recorded, or when no candidate of a
  /// round with several succeeded.
  [[nodiscard]] Result<RoundRef> resolve(const RoundRef& ref) const;

  /// The report document recorded for `ref` (resolved as resolve() does). input_not_found when
  /// there is no such row or the row has no document (a failed round); database on failure.
  [[nodiscard]] Result<Json> document(const RoundRef& ref) const;
  /// Same as document(RoundRef{round, candidate}).
  [[nodiscard]] Result<Json> document(int round, std::optional<int> candidate) const;
  /// report_outline(document(ref)) (kprof/report.hpp), read from the database in pieces and
  /// parsed as a stream (parse_report_outline), so neither the text nor the tree of a report of
  /// many launches is held. Errors as document(); database when the stored text is not a report.
  [[nodiscard]] Result<Json> document_outline(const RoundRef& ref) const;

  [[nodiscard]] const std::filesystem::path& path() const { return m_path; }
  /// The schema version of the open database (PRAGMA user_version). After open() it is
  /// k_history_schema_version; after open_read_only() it may be older: readers must not select
  /// columns that a database of this version lacks.
  [[nodiscard]] int schema_version() const { return m_schema_version; }

  /// Closes sqlite3 handles; public only so that std::unique_ptr can use it.
  struct Closer {
    void operator()(sqlite3* db) const noexcept;
  };

private:
  HistoryStore(std::filesystem::path path, std::unique_ptr<sqlite3, Closer> db,
               int schema_version = k_history_schema_version,
               std::optional<TempDir> snapshot = std::nullopt);
  Result<std::vector<std::int64_t>> record(std::span<const RoundEntry> entries, bool skip_recorded);

  std::filesystem::path m_path;
  /// The private copy that open_read_only() reads when SQLite cannot read the file in place
  /// (its journal is live but no -shm file can be made beside it); removed with the store,
  /// after m_db (declared after it) is closed.
  std::optional<TempDir> m_snapshot;
  std::unique_ptr<sqlite3, Closer> m_db;
  int m_schema_version = k_history_schema_version;
};

// ---- committed rounds and their rows --------------------------------------------------------
// A round directory is moved into place (StagedRound::commit) before its rows are written, and
// no rename and SQLite transaction can be one step. So the writer first puts the round's
// entries, without their documents, in the staging directory as `.history-pending.json`
// (RoundLayout::k_history_pending), and removes that file once the rows are in kprof.db. A
// writer killed in between leaves the file: the next writer in the run directory records the
// rows (record_pending_rounds), and `kprof history` lists the round as not recorded yet
// (history_rows). docs/history.md, "A round without its row".

/// A committed round (or kept attempt) directory that holds `.history-pending.json`.
struct PendingRound {
  std::filesystem::path dir;
  /// Its entries, kept_at set from the directory's name, documents loaded from the candidates'
  /// report.json (RoundLayout::candidate_dir).
  std::vector<RoundEntry> entries;
};

/// Writes `entries` (one round's, with created_at set) to `dir`/.history-pending.json, atomically,
/// without their documents: those are the report.json files of the candidates in `dir`. io error.
Result<void> write_pending_round(const std::filesystem::path& dir,
                                 std::span<const RoundEntry> entries);

/// Every directory of run directory `out_dir` that is a round (roundNNN) or a kept attempt
/// (roundNNN.attempt-K) and holds `.history-pending.json`, in the order their rows were meant to
/// be written (by round; in place before its attempts, attempts by K). A file that cannot be
/// read or parsed, or names a report.json that cannot be loaded, leaves its directory out.
/// Never fails (an unreadable `out_dir` has none).
std::vector<PendingRound> pending_rounds(const std::filesystem::path& out_dir);

/// Records every pending round of `out_dir` except the one in `except` (the caller's own, which
/// it records itself from memory), each in one transaction with record_missing_rounds(), and
/// removes each one's `.history-pending.json` once its rows are in. A round that cannot be
/// recorded keeps its file for the next writer. Returns the number of rows added.
std::size_t record_pending_rounds(HistoryStore& store, const std::filesystem::path& out_dir,
                                  const std::filesystem::path& except = {});

/// What `kprof history DIR` lists: `store`'s rows() (none when `store` is null: DIR has no
/// kprof.db yet) and, for every entry of DIR's pending rounds that `store` does not hold, a row
/// with `recorded` false, placed by round and candidate after the recorded ones of the same
/// round and candidate; `latest` is computed over all of them, `best_so_far` and `best` only
/// over the recorded rows. Reads only. database error when the store cannot be read.
Result<std::vector<HistoryRow>> history_rows(const HistoryStore* store,
                                             const std::filesystem::path& out_dir);

/// The row `entry` would be once recorded, with `recorded` false (id 0, attempt 0). usage or
/// malformed_input when record_round() would refuse the entry.
Result<HistoryRow> unrecorded_row(const RoundEntry& entry);

/// The rows as a document: {"schema_version": 1, "kind": "history", "rows": [{round,
/// candidate, label, status, created_at, total_duration_ns, dominant_kernel, bottleneck,
/// compute_sol_pct, memory_sol_pct, max_sol_pct, best_so_far, best, attempt (null when not
/// recorded), latest, kept_at, recorded, error}]}. Never fails.
Json history_document(const std::vector<HistoryRow>& rows);

/// render(format, history_document(rows)):
///   table (and prompt): one line per round and candidate, '*' before each row with best_so_far;
///   json: the document; csv: a header line and one line per row (RFC 4180 quoting).
/// Never fails; an empty history renders as "no rounds recorded" (table) or no rows.
std::string render_history(const std::vector<HistoryRow>& rows, Format format);

/// How the two sides of a diff are named and how much of it is kept.
struct DiffOptions {
  std::string label_a;         ///< "" takes "round N[ candidate C]" from metadata, else "A"
  std::string label_b;         ///< "" takes it from metadata, else "B"
  std::size_t top_metrics = 8; ///< metrics listed per kernel, largest relative change first
  std::string source_a; ///< where report a came from (its file), named in errors; "" for none
  std::string source_b;
};

/// Compares report `a` (before) with report `b` (after), both validated with validate_report,
/// and with no impossible value by the rule that refuses a capture (check_not_negative,
/// kprof/analysis.hpp: a negative summary.total_duration_ns, summary.kernels[].duration_ns,
/// roofline SOL percentage, or launch metric that quantity_of() names): malformed_input naming
/// the side (and its source) and the key otherwise. The result (docs/history.md "Diff"):
///   {schema_version, kind: "diff", a: {label, round, candidate}, b: {...},
///    total: {duration_ns: {a, b}, speedup, dominant_kernel: {a, b}},
///    kernels: [{name, duration_ns: {a, b}, speedup, bottleneck: {a, b, shifted},
///               compute_sol_pct: {a, b}, memory_sol_pct: {a, b}, max_sol_pct: {a, b},
///               moved_metrics: [{metric, label, unit, a, b, change, relative_change}]}],
///    only_in_a: [names], only_in_b: [names]}
/// Kernels are matched by name, in a's order. speedup is a/b (null when either is unknown or
/// zero). Unknown values are null.
Result<Json> diff_reports(const Json& a, const Json& b, const DiffOptions& options = {});

/// Renders a diff_reports() result (the same as render(format, diff); a diff without "kind" is
/// taken as one): prompt is one line for an LLM ("round 3 vs round 2: total
/// 2.42 ms -> 1.21 ms (2.00x faster); scale_kernel: DRAM throughput 45% -> 91%; now memory-bound
/// at 91% of peak"), table a few aligned lines for a person, json the document itself, csv one
/// line per compared value. Never fails on a diff_reports() result.
std::string render_diff(const Json& diff, Format format);

/// The shortest convergence window converged() accepts: one round.
inline constexpr int k_min_convergence_window = 1;

/// When to stop optimising: the thresholds of converged().
struct ConvergenceOptions {
  double sol_threshold_pct = 95; ///< the best row is at the roofline at this max SOL
  /// Rounds without improvement before stopping (k_min_convergence_window or more).
  int window = 5;
  double min_improvement = 0.01; ///< relative; improvements up to this count as none
};

enum class ConvergenceReason {
  at_roofline,         ///< the best row's max SOL reached sol_threshold_pct
  no_improvement,      ///< the last `window` rounds improved the best by at most min_improvement
  improving,           ///< neither: keep going (also when there are too few rounds to judge)
  no_successful_round, ///< no ok row with a duration yet
};

/// "at_roofline", "no_improvement", "improving", "no_successful_round".
std::string_view to_string(ConvergenceReason reason);

/// The verdict of converged().
struct Convergence {
  bool converged = false;
  ConvergenceReason reason = ConvergenceReason::improving;
  std::optional<RoundRef> best;           ///< the best ok row
  RankedTime basis = RankedTime::ncu;     ///< the time the rows were ranked on (ranked_time)
  std::optional<double> best_duration_ns; ///< the best row's time on `basis`
  std::optional<double> best_sol_pct;     ///< its max(compute, memory) SOL
  /// Relative improvement of the best duration over the last `window` rounds ((before - now) /
  /// before); nullopt when there are fewer than window + 1 rounds or no ok row before them.
  std::optional<double> improvement;
  int rounds = 0;      ///< distinct rounds in the history
  std::string details; ///< one sentence for a person
};

/// Judges a history (rows in any order; failed rounds count as rounds without improvement).
/// Rows are ranked on ranked_time(rows). Converged when the best ok row's max SOL >=
/// sol_threshold_pct (at_roofline), or, with at
/// least window + 1 rounds, when the best time improved by at most min_improvement
/// (relative) over the last `window` rounds (no_improvement). usage error when the options are
/// out of range (window < 1, threshold not in (0, 100], min_improvement < 0).
Result<Convergence> converged(const std::vector<HistoryRow>& rows,
                              const ConvergenceOptions& options = {});

/// {converged, reason, best: {round, candidate} | null, basis ("measured" | "ncu"),
///  best_duration_ns, best_sol_pct, improvement, rounds, details}.
Json to_json(const Convergence& convergence);

/// to_json() as a document: {schema_version, kind: "convergence", converged, ...}. Its text
/// (table and prompt) is "converged: <details>" or "not converged: <details>". Never fails.
Json convergence_document(const Convergence& convergence);

} // namespace kprof
