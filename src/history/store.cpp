// The history store: one SQLite database per output directory.
//
// Design notes.
// - Schema changes are migrations: k_migrations[i] takes a database from user_version i to i+1.
//   They only ever append; a released migration is never edited. A database whose user_version
//   is above what this kprof knows is refused rather than half-understood.
// - Several kprof processes may profile into one directory at once. WAL lets readers run beside
//   the one writer; every write is one BEGIN IMMEDIATE transaction (the write lock is taken up
//   front, so no transaction can deadlock on a lock upgrade), SQLite's busy timeout waits for the
//   lock, and on top of it a bounded retry loop with exponential backoff covers the cases where
//   SQLite gives up early (SQLITE_BUSY during WAL recovery, SQLITE_LOCKED).
// - What does not grow with a report's launches is derived from the document before the
//   transaction starts; the launches are read inside it, one at a time, and their metric values
//   inserted as they come, and the document's compact text is written into its row in pieces
//   (a BLOB of the length counted beforehand, filled through sqlite3_blob_write), so recording a
//   150,000-launch report holds neither its 4 million metric values nor its text (which, held
//   whole, SQLite copied once more into the row's record). The lock is held that much longer.
#include <algorithm>
#include <array>
#include <charconv>
#include <chrono>
#include <cmath>
#include <istream>
#include <memory>
#include <span>
#include <streambuf>
#include <system_error>
#include <thread>
#include <utility>

#include <fmt/format.h>
#include <sqlite3.h>
#include <unistd.h>

#include "history/sqlite.hpp"
#include "kprof/files.hpp"
#include "kprof/history.hpp"
#include "kprof/report.hpp"
#include "kprof/report_view.hpp"
#include "kprof/round_layout.hpp"
#include "kprof/truth.hpp"

namespace kprof {

namespace fs = std::filesystem;
using history::exec;
using history::is_busy;
using history::Statement;

namespace {

constexpr std::array<std::string_view, k_history_schema_version> k_migrations = {
    // 0 -> 1: the first layout.
    R"sql(
CREATE TABLE runs (
  id                INTEGER PRIMARY KEY,
  round             INTEGER NOT NULL CHECK (round >= 0),
  candidate         INTEGER CHECK (candidate IS NULL OR candidate >= 0),
  label             TEXT NOT NULL,
  status            TEXT NOT NULL CHECK (status IN ('ok', 'partial', 'failed')),
  error_category    TEXT,
  error_message     TEXT,
  error_detail      TEXT,
  created_at        TEXT NOT NULL,
  total_duration_ns REAL,
  dominant_kernel   TEXT,
  bottleneck        TEXT,
  compute_sol_pct   REAL,
  memory_sol_pct    REAL,
  document          TEXT
);
CREATE UNIQUE INDEX runs_round_candidate ON runs (round, coalesce(candidate, -1));
CREATE INDEX runs_round ON runs (round, candidate);
CREATE TABLE kernels (
  run_id      INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  name        TEXT NOT NULL,
  launches    INTEGER,
  duration_ns REAL,
  share       REAL
);
CREATE INDEX kernels_run ON kernels (run_id);
CREATE TABLE metrics (
  run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  kernel TEXT NOT NULL,
  launch INTEGER NOT NULL,
  metric TEXT NOT NULL,
  value  REAL,
  text   TEXT,
  unit   TEXT
);
CREATE INDEX metrics_run ON metrics (run_id, kernel);
CREATE INDEX metrics_metric ON metrics (metric);
CREATE TABLE rooflines (
  run_id            INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  kernel            TEXT NOT NULL,
  bottleneck        TEXT,
  compute_sol_pct   REAL,
  memory_sol_pct    REAL,
  headroom_pct      REAL,
  tensor_cores_used INTEGER
);
CREATE INDEX rooflines_run ON rooflines (run_id);
)sql",
    // 1 -> 2: attempts. A failed re-run kept beside a good round (roundNNN.attempt-K) is a row of
    // its own; (round, candidate) is no longer unique, (round, candidate, attempt) is.
    R"sql(
ALTER TABLE runs ADD COLUMN attempt INTEGER NOT NULL DEFAULT 1 CHECK (attempt >= 1);
ALTER TABLE runs ADD COLUMN kept_at TEXT;
DROP INDEX runs_round_candidate;
CREATE UNIQUE INDEX runs_round_candidate_attempt ON runs (round, coalesce(candidate, -1), attempt);
)sql",
    // 2 -> 3: report documents in a table of their own. SQLite writes a value in pieces
    // (sqlite3_blob_write) only in a column no index covers, and runs has an index on an
    // expression, which SQLite takes to cover every column. Rows recorded before keep theirs in
    // runs.document.
    R"sql(
CREATE TABLE documents (
  run_id   INTEGER PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,
  document BLOB NOT NULL
);
)sql",
    // 3 -> 4: the truth beside the counters (the report's `truth`): rows recorded before have
    // none (NULL), as a round profiled with --no-timing and --no-check.
    R"sql(
ALTER TABLE runs ADD COLUMN measured_median_us REAL;
ALTER TABLE runs ADD COLUMN speedup REAL;
ALTER TABLE runs ADD COLUMN sol_share REAL;
ALTER TABLE runs ADD COLUMN check_verdict TEXT;
)sql",
    // 4 -> 5: no index on metrics (metric). Nothing in kprof looks metrics up by name, and a round
    // of 20,000 launches inserts 540,000 rows: keeping that index cost 0.9 s of 5.4 s of
    // `kprof report BIG.csv --round 1` (docs/performance.md).
    R"sql(
DROP INDEX IF EXISTS metrics_metric;
)sql",
    // 5 -> 6: the metric rows indexed by run only. The index serves deleting a run's rows (ON
    // DELETE CASCADE); nothing in kprof looks them up by kernel, and with the kernel's name in
    // it each of a round's 540,000 rows went into the middle of the index (docs/performance.md).
    R"sql(
DROP INDEX IF EXISTS metrics_run;
CREATE INDEX metrics_run ON metrics (run_id);
)sql",
    // 6 -> 7: the measured median's timing mode and eager median: rows timed in different modes
    // (a call of thousands of launches went into a CUDA graph in one round and not the next) are
    // ranked on their eager medians, like against like. Rows recorded before have NULL.
    R"sql(
ALTER TABLE runs ADD COLUMN measured_mode TEXT;
ALTER TABLE runs ADD COLUMN measured_eager_us REAL;
)sql",
};

constexpr int k_busy_timeout_ms = 10'000;
constexpr int k_max_attempts = 6;
constexpr std::chrono::milliseconds k_first_backoff{20};

/// Runs `body` inside BEGIN IMMEDIATE ... COMMIT, retrying the whole transaction when the
/// database is busy or locked. `body(int& code)` stores the SQLite result code of a failure.
template <class T, class Body>
Result<T> write_transaction(sqlite3* db, Body&& body) {
  Error last;
  for (int attempt = 0; attempt < k_max_attempts; ++attempt) {
    if (attempt > 0) {
      // Backoff doubles; the pid spreads processes that collided at the same moment.
      const auto jitter = std::chrono::milliseconds(getpid() % 13);
      std::this_thread::sleep_for(k_first_backoff * (1 << (attempt - 1)) + jitter);
    }
    int code = SQLITE_OK;
    if (auto begun = exec(db, "BEGIN IMMEDIATE", &code); !begun) {
      last = std::move(begun).error();
      if (is_busy(code)) {
        continue;
      }
      return last;
    }
    code = SQLITE_OK;
    Result<T> result = body(code);
    if (!result.ok()) {
      last = std::move(result).error();
    } else if (auto committed = exec(db, "COMMIT", &code); committed) {
      return result;
    } else {
      last = std::move(committed).error();
    }
    (void)exec(db, "ROLLBACK");
    if (!is_busy(code)) {
      return last;
    }
  }
  return make_error(
      ErrorCategory::database,
      fmt::format("the database stayed busy after {} attempts: {}", k_max_attempts, last.message));
}

/// Runs a statement that needs no transaction (a pragma), retrying while busy.
Result<void> exec_retrying(sqlite3* db, std::string_view sql) {
  Error last;
  for (int attempt = 0; attempt < k_max_attempts; ++attempt) {
    if (attempt > 0) {
      std::this_thread::sleep_for(k_first_backoff * (1 << (attempt - 1)));
    }
    int code = SQLITE_OK;
    auto done = exec(db, sql, &code);
    if (done) {
      return done;
    }
    last = std::move(done).error();
    if (!is_busy(code)) {
      return last;
    }
  }
  return last;
}

Result<int> read_user_version(sqlite3* db, int* code) {
  auto stmt = Statement::prepare(db, "PRAGMA user_version");
  if (!stmt) {
    if (code != nullptr) {
      *code = sqlite3_errcode(db);
    }
    return std::move(stmt).error();
  }
  auto row = stmt->step(code);
  if (!row) {
    return std::move(row).error();
  }
  return *row ? stmt->column_int(0) : 0;
}

/// The layout version of an open database (0 when it cannot be read).
int stored_schema_version(sqlite3* db) {
  auto version = read_user_version(db, nullptr);
  return version ? *version : 0;
}

/// The condition that picks the rows whose files are roundNNN/ (every row before version 2).
std::string_view in_place_rows(sqlite3* db) {
  return stored_schema_version(db) >= 2 ? " AND kept_at IS NULL" : "";
}

Error newer_schema_error(int version) {
  return make_error(
      ErrorCategory::database,
      fmt::format("written by a newer kprof (schema version {}; this kprof knows up to {}); "
                  "upgrade kprof or use another output directory",
                  version, k_history_schema_version));
}

/// The schema version, retried while the database is busy; "not an SQLite database" when the
/// file is something else.
Result<int> read_version_retrying(sqlite3* db) {
  int code = SQLITE_OK;
  auto version = read_user_version(db, &code);
  for (int attempt = 1; !version && is_busy(code) && attempt < k_max_attempts; ++attempt) {
    std::this_thread::sleep_for(k_first_backoff * (1 << (attempt - 1)));
    version = read_user_version(db, &code);
  }
  if (!version) {
    if ((code & 0xff) == SQLITE_NOTADB) {
      return make_error(ErrorCategory::database, "not an SQLite database (a kprof history file)");
    }
    return std::move(version).error();
  }
  return version;
}

/// SQLite would take an empty file for an empty database and write a schema into it; an empty
/// kprof.db is something truncated, not a history. Another kprof that is creating the database
/// leaves it empty only until its first transaction commits, so an empty file is looked at again
/// (with backoff, about 2.5 s in all) before it is refused.
Result<void> refuse_empty_file(const fs::path& path) {
  const auto empty = [&path] {
    std::error_code ec;
    const bool regular = fs::is_regular_file(path, ec);
    const auto size = regular ? fs::file_size(path, ec) : 1;
    return regular && !ec && size == 0;
  };
  for (int attempt = 0; empty(); ++attempt) {
    if (attempt == k_max_attempts + 1) {
      return make_error(ErrorCategory::database,
                        fmt::format("{} is empty (0 bytes): not a kprof history; remove it to "
                                    "start a new history there",
                                    path.string()));
    }
    std::this_thread::sleep_for(k_first_backoff * (1 << attempt));
  }
  return {};
}

/// `path` as an SQLite URI filename ('%', '?' and '#' percent-encoded) with `query`.
std::string sqlite_uri(const fs::path& path, std::string_view query) {
  std::string uri = "file:";
  for (const char c : path.string()) {
    if (c == '%' || c == '?' || c == '#') {
      uri += fmt::format("%{:02X}", static_cast<unsigned>(static_cast<unsigned char>(c)));
    } else {
      uri += c;
    }
  }
  uri += '?';
  uri += query;
  return uri;
}

/// Opens `path` read-only through its URI (mode=ro, plus immutable=1 when `immutable`) and reads
/// its schema version, so that a database SQLite cannot read this way fails here.
Result<std::unique_ptr<sqlite3, HistoryStore::Closer>> open_read_only_uri(const fs::path& path,
                                                                          bool immutable) {
  sqlite3* raw = nullptr;
  const std::string uri = sqlite_uri(path, immutable ? "mode=ro&immutable=1" : "mode=ro");
  const int rc = sqlite3_open_v2(
      uri.c_str(), &raw, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, nullptr);
  std::unique_ptr<sqlite3, HistoryStore::Closer> db(raw);
  if (rc != SQLITE_OK) {
    return history::sqlite_error(db.get(), rc, "cannot open");
  }
  sqlite3_extended_result_codes(db.get(), 1);
  sqlite3_busy_timeout(db.get(), k_busy_timeout_ms);
  if (auto version = read_version_retrying(db.get()); !version) {
    return std::move(version).error();
  }
  return db;
}

/// What lies beside a database file: no journal, one that holds nothing (a -wal of at most its
/// 32-byte header, an empty -journal), or a live one.
enum class Journal { none, empty, live };

Journal journal_of(const fs::path& path) {
  Journal journal = Journal::none;
  for (const auto& [suffix, header] : {std::pair{"-wal", 32U}, std::pair{"-journal", 0U}}) {
    std::error_code ec;
    const fs::path file(path.string() + suffix);
    if (!fs::exists(file, ec)) {
      continue;
    }
    const std::uintmax_t size = fs::file_size(file, ec);
    if (ec || size > header) {
      return Journal::live;
    }
    journal = Journal::empty;
  }
  return journal;
}

struct Snapshot {
  TempDir dir;
  std::unique_ptr<sqlite3, HistoryStore::Closer> db;
};

/// A private copy of `path` and its journal, brought up to date (the WAL checkpointed, a hot
/// journal rolled back) by a read-write connection to the copy, then opened read-only.
Result<Snapshot> read_only_snapshot(const fs::path& path) {
  auto dir = TempDir::create("kprof-history-copy");
  if (!dir) {
    return std::move(dir).error();
  }
  const fs::path copy = dir->path() / path.filename();
  for (const char* suffix : {"", "-wal", "-journal"}) {
    std::error_code ec;
    const fs::path from(path.string() + suffix);
    if (*suffix != '\0' && !fs::exists(from, ec)) {
      continue;
    }
    const fs::path to(copy.string() + suffix);
    fs::copy_file(from, to, ec);
    if (!ec) { // the copy is ours to write, whatever the modes of the original
      fs::permissions(to, fs::perms::owner_read | fs::perms::owner_write, ec);
    }
    if (ec) {
      return make_error(ErrorCategory::io,
                        fmt::format("cannot copy {}: {}", from.string(), ec.message()));
    }
  }
  {
    sqlite3* raw = nullptr;
    const int rc =
        sqlite3_open_v2(copy.c_str(), &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nullptr);
    std::unique_ptr<sqlite3, HistoryStore::Closer> writer(raw);
    if (rc != SQLITE_OK) {
      return history::sqlite_error(writer.get(), rc, "cannot open the copy");
    }
    if (auto version = read_version_retrying(writer.get()); !version) {
      return std::move(version).error();
    }
    if (sqlite3_db_readonly(writer.get(), "main") != 0) {
      return make_error(ErrorCategory::database, "the copy cannot be written");
    }
  } // closing the last connection folds the WAL into the copy and removes it
  std::error_code ec;
  if (fs::exists(copy.string() + "-wal", ec) || fs::exists(copy.string() + "-journal", ec)) {
    return make_error(ErrorCategory::database, "the journal of the copy could not be applied");
  }
  auto db = open_read_only_uri(copy, true);
  if (!db) {
    return std::move(db).error();
  }
  return Snapshot{std::move(dir).value(), std::move(db).value()};
}

Result<void> migrate(sqlite3* db) {
  auto version = read_version_retrying(db);
  if (!version) {
    return std::move(version).error();
  }
  if (*version > k_history_schema_version) {
    return newer_schema_error(*version);
  }
  if (*version == k_history_schema_version) {
    return {};
  }
  return write_transaction<void>(db, [db](int& failure_code) -> Result<void> {
    // Read again under the write lock: another process may have migrated meanwhile.
    auto current = read_user_version(db, &failure_code);
    if (!current) {
      return std::move(current).error();
    }
    if (*current > k_history_schema_version) {
      return newer_schema_error(*current);
    }
    for (int from = *current; from < k_history_schema_version; ++from) {
      if (auto applied = exec(db, k_migrations[static_cast<std::size_t>(from)], &failure_code);
          !applied) {
        return applied.error().with_context(fmt::format("migration {} -> {}", from, from + 1));
      }
    }
    return exec(db, fmt::format("PRAGMA user_version = {}", k_history_schema_version),
                &failure_code);
  });
}

ErrorCategory parse_category(std::string_view word) {
  return parse_error_category(word).value_or(ErrorCategory::internal);
}

// What one run inserts, derived from the entry before the transaction starts.
struct KernelFact {
  std::string name;
  std::optional<double> launches;
  std::optional<double> duration_ns;
  std::optional<double> share;
};

struct RooflineFact {
  std::string kernel;
  std::string bottleneck;
  std::optional<double> compute_sol_pct;
  std::optional<double> memory_sol_pct;
  std::optional<double> headroom_pct;
  std::optional<int> tensor_cores_used;
};

struct RunFacts {
  std::string label;
  std::string created_at;
  std::optional<double> total_duration_ns;
  std::string dominant_kernel;
  std::string bottleneck;
  std::optional<double> compute_sol_pct;
  std::optional<double> memory_sol_pct;
  std::optional<double> measured_median_us; ///< truth.timing.median_us (HistoryRow's)
  std::string measured_mode;                ///< truth.timing.mode ("" when not timed)
  std::optional<double> measured_eager_us;  ///< eager_median_us(truth.timing)
  std::optional<double> speedup;            ///< truth.reference.speedup
  std::optional<double> sol_share;          ///< truth.speed_of_light.share
  std::string check;                        ///< truth.check.verdict
  /// The report, whose launches and text are read again inside the transaction; null without.
  std::shared_ptr<const ReportSource> report;
  /// The length of its compact text (ReportSource::document_text(true)); set by record().
  std::size_t document_bytes = 0;
  std::vector<KernelFact> kernels;
  std::vector<RooflineFact> rooflines;
};

std::string metric_text(const Json& value) {
  if (value.is_string()) {
    return value.get<std::string>();
  }
  if (value.is_null()) {
    return {};
  }
  return json_text(value, -1);
}

/// The facts of the document's members that do not grow with its launches.
void collect_outline_facts(const Json& doc, RunFacts& facts) {
  using json_read::member;
  using json_read::number_at;
  using json_read::text_at;
  const ReportView view(doc);
  if (facts.label.empty()) {
    if (const Json* metadata = member(doc, "metadata")) {
      facts.label = text_at(*metadata, "kernel_file");
    }
  }
  if (const Json* summary = member(doc, "summary")) {
    facts.total_duration_ns = number_at(*summary, "total_duration_ns");
    if (const Json* kernels = member(*summary, "kernels");
        kernels != nullptr && kernels->is_array()) {
      for (const auto& kernel : *kernels) {
        facts.kernels.push_back(KernelFact{text_at(kernel, "name"), number_at(kernel, "launches"),
                                           number_at(kernel, "duration_ns"),
                                           number_at(kernel, "share")});
      }
    }
  }
  if (const Json* truth = member(doc, "truth")) {
    if (const Json* timing = member(*truth, "timing")) {
      facts.measured_median_us = number_at(*timing, "median_us");
      if (facts.measured_median_us) {
        facts.measured_mode = timing_mode(*timing);
        facts.measured_eager_us = eager_median_us(*timing);
      }
    }
    if (const Json* reference = member(*truth, "reference")) {
      facts.speedup = number_at(*reference, "speedup");
    }
    if (const Json* light = member(*truth, "speed_of_light")) {
      facts.sol_share = number_at(*light, "share");
    }
    if (const Json* check = member(*truth, "check")) {
      facts.check = text_at(*check, "verdict");
    }
  }
  facts.dominant_kernel = view.dominant_kernel();
  if (const ReportKernel* dominant = view.kernel(facts.dominant_kernel);
      dominant != nullptr && dominant->roofline != nullptr) {
    const Json* roofline = dominant->roofline;
    facts.bottleneck = text_at(*roofline, "bottleneck");
    facts.compute_sol_pct = number_at(*roofline, "compute_sol_pct");
    facts.memory_sol_pct = number_at(*roofline, "memory_sol_pct");
  }
  if (const Json* roofline = member(doc, "roofline");
      roofline != nullptr && roofline->is_object()) {
    for (const auto& item : roofline->items()) {
      const Json& entry = item.value();
      if (!entry.is_object()) {
        continue;
      }
      RooflineFact fact{item.key(),
                        text_at(entry, "bottleneck"),
                        number_at(entry, "compute_sol_pct"),
                        number_at(entry, "memory_sol_pct"),
                        number_at(entry, "headroom_pct"),
                        std::nullopt};
      if (const Json* used = member(entry, "tensor_cores_used");
          used != nullptr && used->is_boolean()) {
        fact.tensor_cores_used = used->get<bool>() ? 1 : 0;
      }
      facts.rooflines.push_back(std::move(fact));
    }
  }
}

/// Inserts the metric values of kernels[`index`] with `insert` (prepared on the metrics table).
Result<void> insert_launch_metrics(Statement& insert, std::int64_t run_id, const Json& kernel,
                                   int index, int& code) {
  using json_read::member;
  using json_read::text_at;
  const int launch = json_read::index_at(kernel, "id").value_or(index);
  const Json* metrics = member(kernel, "metrics");
  if (metrics == nullptr || !metrics->is_object()) {
    return {};
  }
  const std::string name = text_at(kernel, "name");
  for (const auto& item : metrics->items()) {
    const Json& entry = item.value();
    const Json* value = entry.is_object() ? member(entry, "value") : &entry;
    insert.reset();
    insert.bind(1, run_id);
    insert.bind(2, std::string_view(name));
    insert.bind(3, launch);
    insert.bind(4, std::string_view(item.key()));
    if (value != nullptr && value->is_number() && std::isfinite(value->get<double>())) {
      insert.bind(5, value->get<double>());
      insert.bind_null(6);
    } else {
      insert.bind_null(5);
      insert.bind_text_or_null(6, value != nullptr ? metric_text(*value) : std::string());
    }
    insert.bind_text_or_null(7, entry.is_object() ? text_at(entry, "unit") : std::string());
    if (auto done = insert.run(&code); !done) {
      return done;
    }
  }
  return {};
}

/// The length of the report's compact text, counted as it is written, never held.
std::size_t document_length(const ReportSource& report) {
  RenderOptions options;
  options.compact = true;
  std::size_t bytes = 0;
  report.write_json(options, [&bytes](std::string_view piece) { bytes += piece.size(); });
  return bytes > 0 ? bytes - 1 : 0; // the JSON sink's line break, which the compact text has not
}

/// Inserts the report's compact text as the document of run `run_id`: a BLOB of
/// facts.document_bytes zero bytes, then filled piece by piece as the report is written.
Result<void> write_document(sqlite3* db, std::int64_t run_id, const RunFacts& facts, int& code) {
  {
    auto insert =
        Statement::prepare(db, "INSERT INTO documents (run_id, document) VALUES (?1, ?2)");
    if (!insert) {
      code = sqlite3_errcode(db);
      return std::move(insert).error();
    }
    insert->bind(1, run_id);
    if (auto bound = insert->bind_zeroblob(2, facts.document_bytes); !bound) {
      return bound;
    }
    if (auto done = insert->run(&code); !done) {
      return done;
    }
  }
  auto blob = history::BlobWriter::open(db, "documents", "document", run_id);
  if (!blob) {
    code = sqlite3_errcode(db);
    return std::move(blob).error();
  }
  RenderOptions options;
  options.compact = true;
  std::uint64_t offset = 0;
  Result<void> written;
  facts.report->write_json(options, [&](std::string_view piece) {
    // The last piece ends with the JSON sink's line break, past the counted length.
    const std::size_t left =
        facts.document_bytes - std::min<std::size_t>(offset, facts.document_bytes);
    piece = piece.substr(0, std::min(piece.size(), left));
    if (!written || piece.empty()) {
      return;
    }
    written = blob->write(piece, offset);
    offset += piece.size();
  });
  if (written && offset != facts.document_bytes) {
    return make_error(ErrorCategory::internal,
                      fmt::format("the report's text was {} bytes when written, {} when counted",
                                  offset, facts.document_bytes));
  }
  return written;
}

Result<std::int64_t> insert_run(sqlite3* db, const RoundEntry& entry, const RunFacts& facts,
                                int& code) {
  // Numbered before the replaced row goes, so attempt numbers keep counting.
  int attempt = 1;
  {
    auto last = Statement::prepare(
        db, "SELECT coalesce(max(attempt), 0) FROM runs WHERE round = ?1 AND candidate IS ?2");
    if (!last) {
      code = sqlite3_errcode(db);
      return std::move(last).error();
    }
    last->bind(1, entry.round);
    last->bind(2, entry.candidate);
    auto row = last->step(&code);
    if (!row) {
      return std::move(row).error();
    }
    attempt = (*row ? last->column_int(0) : 0) + 1;
  }
  if (entry.kept_at.empty()) {
    // The new result replaced roundNNN/: the row of the result it replaced goes, or, when that
    // result was of another kernel file and moved aside, stays with its new directory.
    const bool displaced = !entry.displaced_to.empty();
    auto remove = Statement::prepare(
        db, displaced
                ? "UPDATE runs SET kept_at = ?3 WHERE round = ?1 AND candidate IS ?2 AND kept_at "
                  "IS NULL"
                : "DELETE FROM runs WHERE round = ?1 AND candidate IS ?2 AND kept_at IS NULL");
    if (!remove) {
      code = sqlite3_errcode(db);
      return std::move(remove).error();
    }
    remove->bind(1, entry.round);
    remove->bind(2, entry.candidate);
    if (displaced) {
      remove->bind(3, std::string_view(entry.displaced_to));
    }
    if (auto done = remove->run(&code); !done) {
      return std::move(done).error();
    }
  }
  auto insert = Statement::prepare(
      db, "INSERT INTO runs (round, candidate, label, status, error_category, error_message, "
          "error_detail, created_at, total_duration_ns, dominant_kernel, bottleneck, "
          "compute_sol_pct, memory_sol_pct, document, attempt, kept_at, measured_median_us, "
          "speedup, sol_share, check_verdict, measured_mode, measured_eager_us) "
          "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, "
          "?18, ?19, ?20, ?21, ?22)");
  if (!insert) {
    code = sqlite3_errcode(db);
    return std::move(insert).error();
  }
  insert->bind(1, entry.round);
  insert->bind(2, entry.candidate);
  insert->bind(3, std::string_view(facts.label));
  insert->bind(4, to_string(entry.status));
  if (entry.error) {
    insert->bind(5, to_string(entry.error->category));
    insert->bind(6, std::string_view(entry.error->message));
    insert->bind_text_or_null(7, entry.error->detail);
  } else {
    insert->bind_null(5);
    insert->bind_null(6);
    insert->bind_null(7);
  }
  insert->bind(8, std::string_view(facts.created_at));
  insert->bind(9, facts.total_duration_ns);
  insert->bind_text_or_null(10, facts.dominant_kernel);
  insert->bind_text_or_null(11, facts.bottleneck);
  insert->bind(12, facts.compute_sol_pct);
  insert->bind(13, facts.memory_sol_pct);
  insert->bind_null(14); // the document has a table of its own (write_document)
  insert->bind(15, attempt);
  insert->bind_text_or_null(16, entry.kept_at);
  insert->bind(17, facts.measured_median_us);
  insert->bind(18, facts.speedup);
  insert->bind(19, facts.sol_share);
  insert->bind_text_or_null(20, facts.check);
  insert->bind_text_or_null(21, facts.measured_mode);
  insert->bind(22, facts.measured_eager_us);
  if (auto done = insert->run(&code); !done) {
    return std::move(done).error();
  }
  const std::int64_t run_id = sqlite3_last_insert_rowid(db);
  if (facts.report != nullptr) {
    if (auto written = write_document(db, run_id, facts, code); !written) {
      return std::move(written).error();
    }
  }

  auto kernels = Statement::prepare(db, "INSERT INTO kernels (run_id, name, launches, duration_ns, "
                                        "share) VALUES (?1, ?2, ?3, ?4, ?5)");
  auto metrics = Statement::prepare(
      db, "INSERT INTO metrics (run_id, kernel, launch, metric, value, text, unit) "
          "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)");
  auto rooflines = Statement::prepare(
      db, "INSERT INTO rooflines (run_id, kernel, bottleneck, compute_sol_pct, memory_sol_pct, "
          "headroom_pct, tensor_cores_used) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)");
  for (auto* stmt : {&kernels, &metrics, &rooflines}) {
    if (!*stmt) {
      code = sqlite3_errcode(db);
      return stmt->error();
    }
  }
  for (const auto& kernel : facts.kernels) {
    kernels->reset();
    kernels->bind(1, run_id);
    kernels->bind(2, std::string_view(kernel.name));
    if (kernel.launches) {
      kernels->bind(3, static_cast<std::int64_t>(*kernel.launches));
    } else {
      kernels->bind_null(3);
    }
    kernels->bind(4, kernel.duration_ns);
    kernels->bind(5, kernel.share);
    if (auto done = kernels->run(&code); !done) {
      return std::move(done).error();
    }
  }
  if (facts.report != nullptr) {
    // The launches one at a time: a report's metric values are never all held. Each kernel's
    // first k_metric_rows_launches launches get rows (the others are not even made); the
    // document holds every launch.
    int index = 0;
    Result<void> inserted;
    facts.report->for_each_launch(
        [&](const Json& kernel) {
          if (inserted) {
            inserted = insert_launch_metrics(*metrics, run_id, kernel, index, code);
          }
          ++index;
        },
        false, k_metric_rows_launches);
    if (!inserted) {
      return std::move(inserted).error();
    }
  }
  for (const auto& roofline : facts.rooflines) {
    rooflines->reset();
    rooflines->bind(1, run_id);
    rooflines->bind(2, std::string_view(roofline.kernel));
    rooflines->bind_text_or_null(3, roofline.bottleneck);
    rooflines->bind(4, roofline.compute_sol_pct);
    rooflines->bind(5, roofline.memory_sol_pct);
    rooflines->bind(6, roofline.headroom_pct);
    rooflines->bind(7, roofline.tensor_cores_used);
    if (auto done = rooflines->run(&code); !done) {
      return std::move(done).error();
    }
  }
  return run_id;
}

/// Checks `entry` as record_round() promises and derives what its run inserts. `context` names
/// the entry in error messages.
Result<RunFacts> run_facts(const RoundEntry& entry, const std::string& context) {
  if (entry.round < 0 || (entry.candidate && *entry.candidate < 0)) {
    return make_error(ErrorCategory::usage,
                      fmt::format("{}: round and candidate must not be negative", context));
  }
  if (!entry.document && !entry.report_source && !entry.error) {
    return make_error(ErrorCategory::usage,
                      fmt::format("{}: a round needs a report document or an error", context));
  }
  RunFacts facts;
  facts.label = entry.label;
  facts.created_at = entry.created_at.empty() ? utc_timestamp() : entry.created_at;
  // The entry's document outlives the facts (record() holds the entries).
  facts.report =
      entry.document ? std::make_shared<const HeldReport>(*entry.document) : entry.report_source;
  if (facts.report != nullptr) {
    if (auto valid = validate_report(facts.report->outline()); !valid) {
      return valid.error().with_context(context);
    }
    collect_outline_facts(facts.report->outline(), facts);
  }
  return facts;
}

/// True when a row is `entry` as recorded (HistoryStore::holds). An entry without created_at is
/// never held: recording stamps it with the time of recording.
Result<bool> holds_row(sqlite3* db, const RoundEntry& entry, const RunFacts& facts, int& code) {
  if (entry.created_at.empty()) {
    return false;
  }
  const bool attempts = stored_schema_version(db) >= 2;
  auto stmt = Statement::prepare(
      db, fmt::format("SELECT 1 FROM runs WHERE round = ?1 AND candidate IS ?2 AND created_at = ?3 "
                      "AND status = ?4 AND label = ?5{} LIMIT 1",
                      attempts ? " AND kept_at IS ?6" : ""));
  if (!stmt) {
    code = sqlite3_errcode(db);
    return std::move(stmt).error();
  }
  stmt->bind(1, entry.round);
  stmt->bind(2, entry.candidate);
  stmt->bind(3, std::string_view(entry.created_at));
  stmt->bind(4, to_string(entry.status));
  stmt->bind(5, std::string_view(facts.label));
  if (attempts) {
    stmt->bind_text_or_null(6, entry.kept_at);
  }
  auto row = stmt->step(&code);
  if (!row) {
    return std::move(row).error();
  }
  return *row;
}

/// Marks best_so_far (running record per round) and best (the overall record). `rows` must be
/// ordered by round, then candidate.
void mark_best(std::vector<HistoryRow>& rows) {
  const RankedTime basis = ranked_time(rows);
  std::optional<double> record;
  HistoryRow* best = nullptr;
  std::size_t i = 0;
  while (i < rows.size()) {
    const int round = rows[i].round;
    HistoryRow* round_best = nullptr;
    for (; i < rows.size() && rows[i].round == round; ++i) {
      HistoryRow& row = rows[i];
      if (row.status != CandidateStatus::ok || !ranked_ns(row, basis) || !row.kept_at.empty()) {
        continue;
      }
      if (round_best == nullptr || *ranked_ns(row, basis) < *ranked_ns(*round_best, basis)) {
        round_best = &row;
      }
    }
    if (round_best != nullptr && (!record || *ranked_ns(*round_best, basis) < *record)) {
      record = ranked_ns(*round_best, basis);
      round_best->best_so_far = true;
      best = round_best;
    }
  }
  if (best != nullptr) {
    best->best = true;
  }
}

} // namespace

Result<RoundRef> parse_round_ref(std::string_view text) {
  const auto fail = [text]() -> Error {
    return make_error(ErrorCategory::usage,
                      fmt::format("'{}' is not a round: expected N (round N) or N:C (round N, "
                                  "candidate C), e.g. 3 or 3:1",
                                  text));
  };
  const auto parse_part = [](std::string_view part) -> std::optional<int> {
    if (part.empty() || part.front() < '0' || part.front() > '9') {
      return std::nullopt;
    }
    int value = 0;
    const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), value);
    if (ec != std::errc() || end != part.data() + part.size()) {
      return std::nullopt;
    }
    return value;
  };
  const auto colon = text.find(':');
  const auto round = parse_part(text.substr(0, colon));
  if (!round) {
    return fail();
  }
  if (colon == std::string_view::npos) {
    return RoundRef{*round, std::nullopt};
  }
  const auto candidate = parse_part(text.substr(colon + 1));
  if (!candidate) {
    return fail();
  }
  return RoundRef{*round, *candidate};
}

std::string to_string(const RoundRef& ref) {
  if (ref.candidate) {
    return fmt::format("round {} candidate {}", ref.round, *ref.candidate);
  }
  return fmt::format("round {}", ref.round);
}

void HistoryStore::Closer::operator()(sqlite3* db) const noexcept {
  sqlite3_close_v2(db);
}

HistoryStore::HistoryStore(fs::path path, std::unique_ptr<sqlite3, Closer> db, int schema_version,
                           std::optional<TempDir> snapshot)
    : m_path(std::move(path)), m_snapshot(std::move(snapshot)), m_db(std::move(db)),
      m_schema_version(schema_version) {}

HistoryStore::HistoryStore(HistoryStore&& other) noexcept = default;
HistoryStore& HistoryStore::operator=(HistoryStore&& other) noexcept = default;
HistoryStore::~HistoryStore() = default;

Result<HistoryStore> HistoryStore::open(const fs::path& path) {
  const std::string context = fmt::format("while opening the history database {}", path.string());
  if (auto empty = refuse_empty_file(path); !empty) {
    return empty.error().with_context(context);
  }
  if (path.has_parent_path()) {
    if (auto created = kprof::create_directories(path.parent_path()); !created) {
      return created.error().with_context(context);
    }
  }
  sqlite3* raw = nullptr;
  const int rc =
      sqlite3_open_v2(path.c_str(), &raw,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  std::unique_ptr<sqlite3, Closer> db(raw);
  if (rc != SQLITE_OK) {
    return history::sqlite_error(db.get(), rc, "cannot open").with_context(context);
  }
  sqlite3_extended_result_codes(db.get(), 1);
  sqlite3_busy_timeout(db.get(), k_busy_timeout_ms);
  if (auto done = exec(db.get(), "PRAGMA foreign_keys = ON"); !done) {
    return done.error().with_context(context);
  }
  // Read the version first: a newer database must be refused before we touch its journal mode,
  // and a file that is not a database fails here with a clear message.
  if (auto migrated = migrate(db.get()); !migrated) {
    return migrated.error().with_context(context);
  }
  if (auto wal = exec_retrying(db.get(), "PRAGMA journal_mode = WAL"); !wal) {
    return wal.error().with_context(context);
  }
  return HistoryStore(path, std::move(db));
}

Result<fs::path> HistoryStore::database_of(const fs::path& dir_or_file) {
  std::error_code ec;
  if (fs::is_regular_file(dir_or_file, ec)) {
    return dir_or_file;
  }
  const fs::path db = RoundLayout(dir_or_file).history_db();
  if (!fs::exists(db, ec)) {
    return make_error(
        ErrorCategory::input_not_found,
        fmt::format("no history in {} (expected {})", dir_or_file.string(), db.string()));
  }
  return db;
}

Result<HistoryStore> HistoryStore::open_read_only(const fs::path& path) {
  const std::string context =
      fmt::format("while opening the history database {} read-only", path.string());
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (!fs::exists(status)) {
    return make_error(ErrorCategory::input_not_found,
                      fmt::format("{}: there is no such file", context));
  }
  if (fs::is_directory(status)) {
    return make_error(ErrorCategory::io,
                      fmt::format("{}: it is a directory, not a kprof history", context));
  }
  if (!fs::is_regular_file(status)) {
    return make_error(ErrorCategory::io,
                      fmt::format("{}: it is not a regular file (a FIFO, socket or device), not a "
                                  "kprof history",
                                  context));
  }
  if (auto empty = refuse_empty_file(path); !empty) {
    return empty.error().with_context(context);
  }
  // mode=ro attaches to a live WAL (or rollback journal), but in WAL mode it creates the -wal and
  // -shm files when they are missing and, being read-only, cannot remove them again. Without
  // them nothing is in flight, and immutable=1 reads the file as it is, creating nothing.
  const Journal journal = journal_of(path);
  auto db = open_read_only_uri(path, journal == Journal::none);
  std::optional<TempDir> snapshot;
  if (!db && journal == Journal::empty) {
    db = open_read_only_uri(path, true); // nothing in the journal: the file is the history
  } else if (!db && journal == Journal::live) {
    // SQLite cannot use the journal here (a -wal without its -shm in a directory where none can
    // be made, a hot rollback journal on a read-only disk); immutable=1 would ignore the rounds
    // in it. A private copy with its journal reads them.
    auto copied = read_only_snapshot(path);
    if (!copied) {
      return make_error(ErrorCategory::database,
                        fmt::format("{}: {}; and a private copy could not be read either: {}",
                                    context, db.error().message, copied.error().message));
    }
    db = std::move(copied->db);
    snapshot.emplace(std::move(copied->dir));
  }
  if (!db) {
    return db.error().with_context(context);
  }
  auto version = read_version_retrying(db->get());
  if (!version) {
    return version.error().with_context(context);
  }
  if (*version > k_history_schema_version) {
    return newer_schema_error(*version).with_context(context);
  }
  if (*version < 1) {
    return make_error(ErrorCategory::database,
                      fmt::format("{}: an SQLite database without a kprof history in it "
                                  "(schema version {})",
                                  context, *version));
  }
  return HistoryStore(path, std::move(db).value(), *version, std::move(snapshot));
}

Result<std::int64_t> HistoryStore::record_round(const RoundEntry& entry) {
  auto recorded = record_rounds(std::span<const RoundEntry>(&entry, 1));
  if (!recorded) {
    return std::move(recorded).error();
  }
  KPROF_ASSERT(recorded->size() == 1);
  return recorded->front();
}

Result<std::vector<std::int64_t>> HistoryStore::record_rounds(std::span<const RoundEntry> entries) {
  return record(entries, false);
}

Result<std::vector<std::int64_t>>
HistoryStore::record_missing_rounds(std::span<const RoundEntry> entries) {
  return record(entries, true);
}

Result<bool> HistoryStore::holds(const RoundEntry& entry) const {
  auto facts = run_facts(entry, fmt::format("while looking for {} in {}",
                                            to_string(RoundRef{entry.round, entry.candidate}),
                                            m_path.string()));
  if (!facts) {
    return std::move(facts).error();
  }
  int code = SQLITE_OK;
  return holds_row(m_db.get(), entry, *facts, code);
}

Result<std::vector<std::int64_t>> HistoryStore::record(std::span<const RoundEntry> entries,
                                                       bool skip_recorded) {
  KPROF_ASSERT(m_db != nullptr);
  const auto entry_context = [this](const RoundEntry& entry) {
    return fmt::format("while recording {} in {}",
                       to_string(RoundRef{entry.round, entry.candidate}), m_path.string());
  };
  // Every entry is checked and taken apart before the write lock is taken, so that a bad entry
  // records nothing and the lock is held only for the inserts.
  std::vector<RunFacts> facts;
  facts.reserve(entries.size());
  for (const RoundEntry& entry : entries) {
    auto derived = run_facts(entry, entry_context(entry));
    if (!derived) {
      return std::move(derived).error();
    }
    if (derived->report != nullptr) {
      derived->document_bytes = document_length(*derived->report);
    }
    facts.push_back(std::move(derived).value());
  }
  if (entries.empty()) {
    return std::vector<std::int64_t>{};
  }
  sqlite3* db = m_db.get();
  const bool several = entries.size() > 1;
  auto recorded = write_transaction<std::vector<std::int64_t>>(
      db, [&](int& code) -> Result<std::vector<std::int64_t>> {
        std::vector<std::int64_t> ids;
        ids.reserve(entries.size());
        for (std::size_t i = 0; i < entries.size(); ++i) {
          if (skip_recorded) {
            auto held = holds_row(db, entries[i], facts[i], code);
            if (!held) {
              return std::move(held).error();
            }
            if (*held) {
              continue;
            }
          }
          auto id = insert_run(db, entries[i], facts[i], code);
          if (!id) {
            if (several) {
              return id.error().with_context(
                  to_string(RoundRef{entries[i].round, entries[i].candidate}));
            }
            return std::move(id).error();
          }
          ids.push_back(*id);
        }
        return ids;
      });
  if (!recorded) {
    if (!several) {
      return recorded.error().with_context(entry_context(entries.front()));
    }
    const RoundEntry& first = entries.front();
    const RoundEntry& last = entries.back();
    return recorded.error().with_context(
        fmt::format("while recording {} results ({} to {}) in one transaction in {}",
                    entries.size(), to_string(RoundRef{first.round, first.candidate}),
                    to_string(RoundRef{last.round, last.candidate}), m_path.string()));
  }
  return recorded;
}

Result<std::vector<HistoryRow>> HistoryStore::rows() const {
  const std::string context = fmt::format("while reading the history {}", m_path.string());
  // A version 1 database (read without migrating it) has no attempts: every row is in place.
  const int version = stored_schema_version(m_db.get());
  const bool attempts = version >= 2;
  auto stmt = Statement::prepare(
      m_db.get(),
      fmt::format("SELECT id, round, candidate, label, status, error_category, error_message, "
                  "error_detail, created_at, total_duration_ns, dominant_kernel, bottleneck, "
                  "compute_sol_pct, memory_sol_pct, {}, {}, {} FROM runs "
                  "ORDER BY round, coalesce(candidate, -1), {}",
                  attempts ? "attempt, kept_at" : "1, NULL",
                  version >= 4 ? "measured_median_us, speedup, sol_share, check_verdict"
                               : "NULL, NULL, NULL, NULL",
                  version >= 7 ? "measured_mode, measured_eager_us" : "NULL, NULL",
                  attempts ? "attempt" : "id"));
  if (!stmt) {
    return stmt.error().with_context(context);
  }
  std::vector<HistoryRow> rows;
  while (true) {
    auto more = stmt->step();
    if (!more) {
      return more.error().with_context(context);
    }
    if (!*more) {
      break;
    }
    HistoryRow row;
    row.id = stmt->column_int64(0);
    row.round = stmt->column_int(1);
    row.candidate = stmt->column_optional_int(2);
    row.label = stmt->column_text(3);
    // The schema's CHECK admits only the three words; anything else would be a foreign row.
    const auto status = parse_candidate_status(stmt->column_text(4));
    row.status = status ? *status : CandidateStatus::failed;
    if (!stmt->is_null(5)) {
      row.error =
          Error{parse_category(stmt->column_text(5)), stmt->column_text(6), stmt->column_text(7)};
    }
    row.created_at = stmt->column_text(8);
    row.total_duration_ns = stmt->column_optional_double(9);
    row.dominant_kernel = stmt->column_text(10);
    row.bottleneck = stmt->column_text(11);
    row.compute_sol_pct = stmt->column_optional_double(12);
    row.memory_sol_pct = stmt->column_optional_double(13);
    row.max_sol_pct = max_sol_pct(row.compute_sol_pct, row.memory_sol_pct);
    row.attempt = stmt->column_int(14);
    row.kept_at = stmt->column_text(15);
    row.measured_median_us = stmt->column_optional_double(16);
    row.speedup = stmt->column_optional_double(17);
    row.speed_of_light_share = stmt->column_optional_double(18);
    row.check = stmt->column_text(19);
    row.measured_mode = stmt->column_text(20);
    row.measured_eager_us = stmt->column_optional_double(21);
    rows.push_back(std::move(row));
  }
  // Ordered by attempt within a round and candidate: the last of each group is the latest.
  for (std::size_t i = 0; i < rows.size(); ++i) {
    rows[i].latest = i + 1 == rows.size() || rows[i + 1].round != rows[i].round ||
                     rows[i + 1].candidate != rows[i].candidate;
  }
  mark_best(rows);
  return rows;
}

Result<RoundRef> HistoryStore::resolve(const RoundRef& ref) const {
  const std::string context =
      fmt::format("while looking up {} in {}", to_string(ref), m_path.string());
  auto stmt = Statement::prepare(
      m_db.get(), fmt::format("SELECT candidate, status, total_duration_ns FROM runs WHERE round = "
                              "?1{} ORDER BY coalesce(candidate, -1)",
                              in_place_rows(m_db.get())));
  if (!stmt) {
    return stmt.error().with_context(context);
  }
  stmt->bind(1, ref.round);
  struct Found {
    std::optional<int> candidate;
    bool ok = false;
    std::optional<double> duration_ns;
  };
  std::vector<Found> found;
  while (true) {
    auto more = stmt->step();
    if (!more) {
      return more.error().with_context(context);
    }
    if (!*more) {
      break;
    }
    found.push_back(Found{stmt->column_optional_int(0), stmt->column_text(1) == "ok",
                          stmt->column_optional_double(2)});
  }
  if (found.empty()) {
    return make_error(ErrorCategory::input_not_found,
                      fmt::format("{}: round {} is not recorded", context, ref.round));
  }
  if (ref.candidate) {
    const bool known = std::any_of(found.begin(), found.end(),
                                   [&](const Found& f) { return f.candidate == ref.candidate; });
    if (!known) {
      return make_error(
          ErrorCategory::input_not_found,
          fmt::format("{}: round {} has no candidate {}", context, ref.round, *ref.candidate));
    }
    return ref;
  }
  if (found.size() == 1) {
    return RoundRef{ref.round, found.front().candidate};
  }
  const Found* best = nullptr;
  for (const auto& f : found) {
    if (!f.candidate) {
      return RoundRef{ref.round, std::nullopt}; // a plain round recorded beside candidates
    }
    if (f.ok && f.duration_ns && (best == nullptr || *f.duration_ns < *best->duration_ns)) {
      best = &f;
    }
  }
  if (best == nullptr) {
    return make_error(ErrorCategory::input_not_found,
                      fmt::format("{}: no candidate of round {} succeeded; name one as {}:C",
                                  context, ref.round, ref.round));
  }
  return RoundRef{ref.round, best->candidate};
}

namespace {

/// Where the report document of a recorded run is: a value of `table`.`column`, row `row`.
struct StoredDocument {
  const char* table = "documents";
  const char* column = "document";
  std::int64_t row = 0;
};

/// The stored document of the in-place row of `resolved`; input_not_found when there is no such
/// row or it has no document (a failed round), in the words of `context`.
Result<StoredDocument> stored_document(sqlite3* db, const RoundRef& resolved,
                                       const std::string& context) {
  const bool documents = stored_schema_version(db) >= 3;
  auto stmt = Statement::prepare(
      db, fmt::format("SELECT id, {}, document IS NOT NULL, status, error_category, error_message "
                      "FROM runs WHERE round = ?1 AND candidate IS ?2{}",
                      documents ? "EXISTS (SELECT 1 FROM documents WHERE run_id = runs.id)" : "0",
                      in_place_rows(db)));
  if (!stmt) {
    return stmt.error().with_context(context);
  }
  stmt->bind(1, resolved.round);
  stmt->bind(2, resolved.candidate);
  auto row = stmt->step();
  if (!row) {
    return row.error().with_context(context);
  }
  if (!*row) {
    return make_error(ErrorCategory::input_not_found, fmt::format("{}: not recorded", context));
  }
  const std::int64_t id = stmt->column_int64(0);
  if (stmt->column_int(1) != 0) {
    return StoredDocument{"documents", "document", id};
  }
  if (stmt->column_int(2) != 0) {
    return StoredDocument{"runs", "document", id}; // recorded before version 3
  }
  std::string why = stmt->column_text(4);
  if (!why.empty()) {
    why = fmt::format(" ({}: {})", why, stmt->column_text(5));
  }
  return make_error(ErrorCategory::input_not_found,
                    fmt::format("{}: no report was recorded, the round {}{}", context,
                                stmt->column_text(3), why));
}

/// A stored value as a std::istream's buffer, read in pieces of 1 MiB.
class BlobStreambuf final : public std::streambuf {
public:
  explicit BlobStreambuf(const history::BlobReader& blob) : m_blob(blob), m_buffer(1U << 20U) {}

  /// Set when a read failed (the stream then ends there).
  [[nodiscard]] const std::optional<Error>& error() const { return m_error; }

protected:
  int_type underflow() override {
    if (gptr() < egptr()) {
      return traits_type::to_int_type(*gptr());
    }
    const std::size_t bytes = std::min(m_buffer.size(), m_blob.size() - m_offset);
    if (bytes == 0 || m_error) {
      return traits_type::eof();
    }
    if (auto read = m_blob.read(m_buffer.data(), bytes, m_offset); !read) {
      m_error = std::move(read).error();
      return traits_type::eof();
    }
    m_offset += bytes;
    setg(m_buffer.data(), m_buffer.data(), m_buffer.data() + static_cast<std::ptrdiff_t>(bytes));
    return traits_type::to_int_type(*gptr());
  }

private:
  const history::BlobReader& m_blob;
  std::vector<char> m_buffer;
  std::size_t m_offset = 0;
  std::optional<Error> m_error;
};

/// The stored report of a resolved round opened for reading, and the context its errors carry.
struct OpenedDocument {
  history::BlobReader blob;
  std::string context;
};

/// The stored report of `round` (HistoryStore::resolve's answer, its error passed on).
Result<OpenedDocument> open_document(sqlite3* db, Result<RoundRef> round, const fs::path& path) {
  if (!round) {
    return std::move(round).error();
  }
  const RoundRef& resolved = *round;
  std::string context =
      fmt::format("while loading the report of {} from {}", to_string(resolved), path.string());
  auto stored = stored_document(db, resolved, context);
  if (!stored) {
    return std::move(stored).error();
  }
  auto blob = history::BlobReader::open(db, stored->table, stored->column, stored->row);
  if (!blob) {
    return blob.error().with_context(context);
  }
  return OpenedDocument{std::move(blob).value(), std::move(context)};
}

} // namespace

Result<Json> HistoryStore::document(const RoundRef& ref) const {
  auto opened = open_document(m_db.get(), resolve(ref), m_path);
  if (!opened) {
    return std::move(opened).error();
  }
  const std::string& context = opened->context;
  std::string text(opened->blob.size(), '\0');
  if (auto read = opened->blob.read(text.data(), text.size(), 0); !read) {
    return read.error().with_context(context);
  }
  try {
    return Json::parse(text);
  } catch (const Json::exception& e) {
    return make_error(ErrorCategory::database,
                      fmt::format("{}: the stored report is not JSON: {}", context, e.what()));
  }
}

Result<Json> HistoryStore::document_outline(const RoundRef& ref) const {
  auto opened = open_document(m_db.get(), resolve(ref), m_path);
  if (!opened) {
    return std::move(opened).error();
  }
  const std::string& context = opened->context;
  BlobStreambuf buffer(opened->blob);
  std::istream in(&buffer);
  auto outline = parse_report_outline(in);
  if (buffer.error()) {
    return buffer.error()->with_context(context);
  }
  if (!outline) {
    return make_error(ErrorCategory::database, fmt::format("{}: the stored report is not JSON: {}",
                                                           context, outline.error().message));
  }
  return outline;
}

Result<Json> HistoryStore::document(int round, std::optional<int> candidate) const {
  return document(RoundRef{round, candidate});
}

Result<HistoryRow> unrecorded_row(const RoundEntry& entry) {
  auto facts = run_facts(entry, fmt::format("while reading {} from its directory",
                                            to_string(RoundRef{entry.round, entry.candidate})));
  if (!facts) {
    return std::move(facts).error();
  }
  HistoryRow row;
  row.round = entry.round;
  row.candidate = entry.candidate;
  row.label = facts->label;
  row.status = entry.status;
  row.created_at = facts->created_at;
  row.total_duration_ns = facts->total_duration_ns;
  row.dominant_kernel = facts->dominant_kernel;
  row.bottleneck = facts->bottleneck;
  row.compute_sol_pct = facts->compute_sol_pct;
  row.memory_sol_pct = facts->memory_sol_pct;
  row.max_sol_pct = max_sol_pct(row.compute_sol_pct, row.memory_sol_pct);
  row.measured_median_us = facts->measured_median_us;
  row.measured_mode = facts->measured_mode;
  row.measured_eager_us = facts->measured_eager_us;
  row.speedup = facts->speedup;
  row.speed_of_light_share = facts->sol_share;
  row.check = facts->check;
  row.error = entry.error;
  row.attempt = 0;
  row.kept_at = entry.kept_at;
  row.recorded = false;
  return row;
}

} // namespace kprof
